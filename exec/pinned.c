/* Pinned (page-locked) host buffers for staging uploads, reused because cudaHostAlloc is
 * slow (it maps pages for the device). A buffer given back with a stream becomes reusable
 * once an event recorded on that stream has completed, i.e. once the copy reading it is done. */
#include "cudart.h"

#include <pthread.h>
#include <stdlib.h>

/* Idle buffers beyond this many bytes are freed instead of cached. */
#define PINNED_CACHE_CAP ((size_t)256 << 20)
#define PINNED_MIN ((size_t)64 << 10)

typedef struct block {
    void *ptr;
    size_t cap;
    bool in_use;
    cudaEvent_t ready; /* recorded by release; NULL until then */
    int event_device;
    struct block *next;
} block;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static block *blocks;
static size_t idle_bytes;
static size_t total_bytes; /* every block, in use or idle */
static size_t limit;       /* 0: none */

static size_t round_up(size_t bytes)
{
    size_t cap = PINNED_MIN;
    while (cap < bytes && cap <= SIZE_MAX / 2)
        cap *= 2;
    return cap < bytes ? bytes : cap;
}

static bool block_ready(block *b)
{
    if (!b->ready)
        return true;
    cudaError_t e = cudaEventQuery(b->ready);
    if (e == cudaErrorNotReady)
        return false;
    if (e != cudaSuccess)
        cudaGetLastError();
    return true;
}

/* Called with the block unlinked from the pool. */
static void block_free(block *b)
{
    pthread_mutex_lock(&lock);
    total_bytes -= b->cap;
    pthread_mutex_unlock(&lock);
    if (b->ready) {
        cudaEventSynchronize(b->ready);
        cudaEventDestroy(b->ready);
    }
    cudaFreeHost(b->ptr);
    free(b);
}

void *loom__pinned_get(const char *fn, size_t bytes)
{
    if (loom__device_init(fn) != 0)
        return NULL;
    size_t cap = round_up(bytes);
    pthread_mutex_lock(&lock);
    for (block *b = blocks; b; b = b->next) {
        if (!b->in_use && b->cap == cap && block_ready(b)) {
            b->in_use = true;
            idle_bytes -= b->cap;
            pthread_mutex_unlock(&lock);
            return b->ptr;
        }
    }
    bool over = limit && total_bytes + cap > limit;
    size_t cap_now = limit;
    pthread_mutex_unlock(&lock);
    if (over) {
        loom__pinned_trim(); /* idle buffers of other sizes make room */
        pthread_mutex_lock(&lock);
        over = limit && total_bytes + cap > limit;
        size_t held = total_bytes;
        pthread_mutex_unlock(&lock);
        if (over) {
            loom__error(LOOM_ERR_OOM, fn,
                        "out of pinned host memory: %zu more bytes would pass the pinned pool's "
                        "limit of %zu (%zu held)", cap, cap_now, held);
            return NULL;
        }
    }
    block *b = calloc(1, sizeof *b);
    if (!b) {
        loom__error(LOOM_ERR_OOM, fn, "out of host memory");
        return NULL;
    }
    if (loom__cuda_check(cudaHostAlloc(&b->ptr, cap, cudaHostAllocPortable), fn,
                         "cudaHostAlloc") != 0) {
        free(b);
        return NULL;
    }
    b->cap = cap;
    b->in_use = true;
    pthread_mutex_lock(&lock);
    b->next = blocks;
    blocks = b;
    total_bytes += cap;
    pthread_mutex_unlock(&lock);
    return b->ptr;
}

/* Unlinks and returns the idle blocks (all, or only those ready when only_ready). */
static block *take_idle(bool only_ready, size_t keep)
{
    block *taken = NULL;
    for (block **pp = &blocks; *pp && idle_bytes > keep;) {
        block *b = *pp;
        if (!b->in_use && (!only_ready || block_ready(b))) {
            *pp = b->next;
            idle_bytes -= b->cap;
            b->next = taken;
            taken = b;
        } else {
            pp = &b->next;
        }
    }
    return taken;
}

/* Makes b's ready event mark the completion of the work queued on s so far (or waits for s
 * when no event can be had). b is in use by the caller, so nobody else touches it: this runs
 * without the pool's lock, which must never be held across a wait for a stream. */
static void mark_ready_after(block *b, loom_stream *s)
{
    int prev;
    /* An event records only on a stream of the device it was created on. */
    if (b->ready && b->event_device != s->device) {
        cudaEventDestroy(b->ready);
        b->ready = NULL;
    }
    if (loom__device_push_quiet(s->device, &prev) == 0) {
        if (!b->ready &&
            cudaEventCreateWithFlags(&b->ready, cudaEventDisableTiming) != cudaSuccess)
            b->ready = NULL;
        b->event_device = s->device;
        if (b->ready && cudaEventRecord(b->ready, loom__stream_handle(s)) != cudaSuccess) {
            cudaGetLastError();
            cudaEventDestroy(b->ready);
            b->ready = NULL;
        }
        loom__device_pop(prev);
    }
    /* Without an event the buffer must not be reused while the copy runs. */
    if (!b->ready && cudaStreamSynchronize(loom__stream_handle(s)) != cudaSuccess)
        cudaGetLastError();
}

void loom__pinned_release(void *p, loom_stream *s)
{
    if (!p)
        return;
    pthread_mutex_lock(&lock);
    block *b = blocks;
    while (b && b->ptr != p)
        b = b->next;
    pthread_mutex_unlock(&lock);
    if (!b)
        return;
    if (s)
        mark_ready_after(b, s);
    pthread_mutex_lock(&lock);
    b->in_use = false;
    idle_bytes += b->cap;
    block *excess = take_idle(true, PINNED_CACHE_CAP);
    pthread_mutex_unlock(&lock);
    while (excess) {
        block *next = excess->next;
        block_free(excess);
        excess = next;
    }
}

void loom__pinned_trim(void)
{
    pthread_mutex_lock(&lock);
    block *idle = take_idle(false, 0);
    pthread_mutex_unlock(&lock);
    while (idle) {
        block *next = idle->next;
        block_free(idle);
        idle = next;
    }
}

/* ---- the public pinned pool (cupy.get_default_pinned_memory_pool()) ---- */

size_t loom_pinned_mempool_used_bytes(void)
{
    pthread_mutex_lock(&lock);
    size_t used = total_bytes - idle_bytes;
    pthread_mutex_unlock(&lock);
    return used;
}

size_t loom_pinned_mempool_total_bytes(void)
{
    pthread_mutex_lock(&lock);
    size_t total = total_bytes;
    pthread_mutex_unlock(&lock);
    return total;
}

int loom_pinned_mempool_free_all_blocks(void)
{
    loom__pinned_trim();
    return LOOM_OK;
}

int loom_pinned_mempool_set_limit(size_t bytes)
{
    pthread_mutex_lock(&lock);
    limit = bytes;
    pthread_mutex_unlock(&lock);
    return LOOM_OK;
}

size_t loom_pinned_mempool_get_limit(void)
{
    pthread_mutex_lock(&lock);
    size_t l = limit;
    pthread_mutex_unlock(&lock);
    return l;
}

void *loom_host_alloc_pinned(size_t bytes)
{
    static const char fn[] = "loom_host_alloc_pinned";
    if (bytes == 0) {
        loom__error(LOOM_ERR_INVALID, fn, "bytes is 0");
        return NULL;
    }
    return loom__pinned_get(fn, bytes);
}

int loom_host_free_pinned(void *p)
{
    if (!p)
        return LOOM_OK;
    pthread_mutex_lock(&lock);
    block *b = blocks;
    while (b && !(b->ptr == p && b->in_use))
        b = b->next;
    pthread_mutex_unlock(&lock);
    if (!b) {
        loom__error(LOOM_ERR_INVALID, "loom_host_free_pinned",
                    "%p is not a buffer of loom_host_alloc_pinned in use", p);
        return LOOM_ERR_INVALID;
    }
    loom__pinned_release(p, NULL);
    return LOOM_OK;
}
