/* Device memory: one stream-ordered pool (cudaMemPool) per device.
 *
 * Loom creates its own pool per device rather than using the device's default pool, so its
 * limit, statistics and trimming concern Loom's memory only and other users of
 * cudaMallocAsync (cuBLAS, the application) are left alone. The release threshold keeps freed
 * memory cached for reuse: unlimited by default (measure later whether capping it pays), the
 * limit when one is set, so the pool gives back what exceeds it at synchronization points.
 *
 * Which stream frees happen on: a buffer is freed with cudaFreeAsync on the stream it was
 * allocated on (its home stream, whose lifetime each buffer extends with a reference), so the
 * free is ordered after every use queued there; uses on other streams are recorded as events
 * (loom__buffer_record_use) that the home stream waits for before the free. Freeing on the
 * *releasing* thread's current stream instead would order the free after nothing useful. */
#include "cudart.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct pool {
    _Atomic(cudaMemPool_t) handle; /* created on first allocation */
    atomic_size_t used;            /* bytes in live buffers, for the limit and the statistics */
    atomic_size_t limit;           /* 0: none */
} pool;

static pool pools[LOOM__MAX_DEVICES];
static pthread_mutex_t pools_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic(loom__reclaim_fn) reclaim_hook;
/* Failure injection (tests): the device allocation that brings `injected_at` to 0 fails, and
 * with `injected_persistent` its retry too. -1: off. */
static atomic_long injected_at = -1;
static atomic_bool injected_persistent;
static atomic_long injected_fired;

/* A stream other than the home stream that used the buffer, and its latest use. */
typedef struct use {
    loom_stream *stream;
    cudaEvent_t event;
    struct use *next;
} use;

typedef struct devbuf {
    loom_buffer base; /* first: graph/ sees only this */
    loom_stream *home;
    use *uses;
    cudaEvent_t ready; /* recorded on home when another stream must wait for the value */
    /* Memory of another owner (loom__buffer_wrap): given back by release(release_ctx) once the
     * work reading it is done, instead of freed to the pool. */
    void (*release)(void *release_ctx);
    void *release_ctx;
} devbuf;

static pthread_mutex_t uses_lock = PTHREAD_MUTEX_INITIALIZER;

static void set_release_threshold(cudaMemPool_t h, size_t limit)
{
    uint64_t threshold = limit ? (uint64_t)limit : UINT64_MAX;
    if (cudaMemPoolSetAttribute(h, cudaMemPoolAttrReleaseThreshold, &threshold) != cudaSuccess)
        cudaGetLastError();
}

static cudaMemPool_t get_pool(const char *fn, int device)
{
    pool *p = &pools[device];
    cudaMemPool_t h = atomic_load_explicit(&p->handle, memory_order_acquire);
    if (h)
        return h;
    pthread_mutex_lock(&pools_lock);
    h = atomic_load_explicit(&p->handle, memory_order_relaxed);
    if (!h) {
        struct cudaMemPoolProps props = {0};
        props.allocType = cudaMemAllocationTypePinned;
        props.handleTypes = cudaMemHandleTypeNone;
        props.location.type = cudaMemLocationTypeDevice;
        props.location.id = device;
        if (loom__cuda_check(cudaMemPoolCreate(&h, &props), fn, "cudaMemPoolCreate") == 0) {
            set_release_threshold(h, atomic_load(&p->limit));
            atomic_store_explicit(&p->handle, h, memory_order_release);
        } else {
            h = NULL;
        }
    }
    pthread_mutex_unlock(&pools_lock);
    return h;
}

static void devbuf_free(loom_buffer *b)
{
    devbuf *d = (devbuf *)b;
    if (b->ptr) {
        int prev;
        if (loom__device_push_quiet(b->device, &prev) == 0) {
            cudaStream_t home = loom__stream_handle(d->home);
            /* Any thread may drop the last reference, while another captures the home stream. */
            loom__capture_lock();
            for (use *u = d->uses; u; u = u->next)
                cudaStreamWaitEvent(home, u->event, 0);
            /* Fails only while the process tears CUDA down, when the memory goes anyway. */
            if (d->release ? cudaStreamSynchronize(home) != cudaSuccess
                           : cudaFreeAsync(b->ptr, home) != cudaSuccess)
                cudaGetLastError();
            loom__capture_unlock();
            loom__device_pop(prev);
        }
        if (!d->release)
            atomic_fetch_sub(&pools[b->device].used, b->bytes);
    }
    if (d->release)
        d->release(d->release_ctx);
    for (use *u = d->uses, *next; u; u = next) {
        next = u->next;
        cudaEventDestroy(u->event);
        loom__stream_release(u->stream);
        free(u);
    }
    if (d->ready)
        cudaEventDestroy(d->ready);
    loom__stream_release(d->home);
    loom__check_release(b->check);
    free(d);
}

static int oom(const char *fn, const char *what, size_t bytes, int device, const char *why)
{
    loom__error(LOOM_ERR_OOM, fn,
                "out of memory allocating %zu bytes%s%s on device %d (%s; %zu bytes in use by "
                "Loom)",
                bytes, what ? " for " : "", what ? what : "", device, why,
                atomic_load(&pools[device].used));
    return LOOM_ERR_OOM;
}

/* Whether the injection makes this attempt fail (retry: the attempt after reclaiming). */
static bool injected_failure(bool retry)
{
    if (retry) {
        long fired = -2;
        return atomic_load(&injected_persistent) &&
               atomic_compare_exchange_strong(&injected_at, &fired, -1);
    }
    long at = atomic_load(&injected_at);
    while (at >= 0 && !atomic_compare_exchange_weak(&injected_at, &at, at - 1)) {
    }
    if (at != 0)
        return false;
    atomic_store(&injected_at, -2); /* fired: only its retry may fail now */
    atomic_fetch_add(&injected_fired, 1);
    return true;
}

static cudaError_t pool_alloc(void **ptr, size_t bytes, cudaMemPool_t h, cudaStream_t stream,
                              bool retry)
{
    if (injected_failure(retry))
        return cudaErrorMemoryAllocation;
    return cudaMallocFromPoolAsync(ptr, bytes, h, stream);
}

void loom__mempool_inject_failure(long nth, bool persistent)
{
    atomic_store(&injected_persistent, persistent);
    atomic_store(&injected_fired, 0);
    atomic_store(&injected_at, nth < 0 ? -1 : nth);
}

long loom__mempool_injected_failures(void)
{
    return atomic_load(&injected_fired);
}

static int device_alloc(const char *fn, const char *what, devbuf *d)
{
    size_t bytes = d->base.bytes;
    int device = d->base.device;
    pool *p = &pools[device];
    /* Reserve first so that concurrent allocations cannot overshoot the limit together. */
    size_t limit = atomic_load(&p->limit);
    size_t before = atomic_fetch_add(&p->used, bytes);
    if (limit && (before + bytes > limit || before + bytes < bytes)) {
        atomic_fetch_sub(&p->used, bytes);
        char why[96];
        snprintf(why, sizeof why, "the memory pool limit is %zu bytes", limit);
        return oom(fn, what, bytes, device, why);
    }
    int prev, err;
    cudaMemPool_t h = get_pool(fn, device);
    if (!h || (err = loom__device_push(fn, device, &prev)) != 0) {
        atomic_fetch_sub(&p->used, bytes);
        return loom_last_error_code();
    }
    cudaStream_t stream = loom__stream_handle(d->home);
    cudaError_t e = pool_alloc(&d->base.ptr, bytes, h, stream, false);
    if (e == cudaErrorMemoryAllocation) {
        cudaGetLastError();
        LOOM__LOG("out of memory allocating %zu bytes on device %d: reclaiming, trimming the pool "
                  "and retrying", bytes, device);
        loom__reclaim_fn reclaim = atomic_load(&reclaim_hook);
        if (reclaim)
            reclaim(device);
        /* Memory freed on any stream returns to the pool only once the free is seen complete. */
        e = cudaDeviceSynchronize();
        if (e == cudaSuccess) {
            cudaMemPoolTrimTo(h, 0);
            e = pool_alloc(&d->base.ptr, bytes, h, stream, true);
        }
    }
    loom__device_pop(prev);
    if (e == cudaErrorMemoryAllocation) {
        cudaGetLastError();
        err = oom(fn, what, bytes, device, "the device has no more free memory");
    } else {
        err = loom__cuda_check(e, fn, "cudaMallocFromPoolAsync");
    }
    if (err) {
        d->base.ptr = NULL;
        atomic_fetch_sub(&p->used, bytes);
        return err;
    }
    loom__stat_add(LOOM__STAT_BYTES_ALLOCATED, bytes);
    return 0;
}

loom_buffer *loom__buffer_alloc(const char *fn, size_t bytes, int device, loom_stream *stream)
{
    return loom__buffer_alloc_for(fn, NULL, bytes, device, stream);
}

/* A buffer record with one reference, at home on stream, and no memory yet. */
static devbuf *devbuf_new(const char *fn, size_t bytes, int device, loom_stream *stream)
{
    devbuf *d = calloc(1, sizeof *d);
    if (!d) {
        loom__error(LOOM_ERR_OOM, fn, "out of host memory");
        return NULL;
    }
    atomic_init(&d->base.refcount, 1);
    d->base.free_fn = devbuf_free;
    d->base.bytes = bytes;
    d->base.device = device;
    d->home = loom__stream_retain(stream);
    return d;
}

loom_buffer *loom__buffer_alloc_for(const char *fn, const char *what, size_t bytes, int device,
                                    loom_stream *stream)
{
    if (loom__device_check(fn, device) != 0)
        return NULL;
    if (!stream && !(stream = loom__stream_current(fn, device)))
        return NULL;
    if (stream->device != device) {
        loom__error(LOOM_ERR_INVALID, fn, "a stream of device %d cannot allocate on device %d",
                    stream->device, device);
        return NULL;
    }
    devbuf *d = devbuf_new(fn, bytes, device, stream);
    if (!d)
        return NULL;
    if (bytes && device_alloc(fn, what, d) != 0) {
        loom__stream_release(d->home);
        free(d);
        return NULL;
    }
    return &d->base;
}

loom_buffer *loom__buffer_wrap(const char *fn, void *ptr, size_t bytes, int device,
                               loom_stream *home, void (*release)(void *), void *release_ctx)
{
    devbuf *d = devbuf_new(fn, bytes, device, home);
    if (!d)
        return NULL;
    d->base.ptr = ptr;
    d->release = release;
    d->release_ctx = release_ctx;
    return &d->base;
}

static void part_free(loom_buffer *b)
{
    loom__buffer_release(b->parent);
    free(b);
}

loom_buffer *loom__buffer_part(const char *fn, loom_buffer *whole, size_t offset, size_t bytes)
{
    whole = loom__buffer_root(whole);
    loom_buffer *b = calloc(1, sizeof *b);
    if (!b) {
        loom__error(LOOM_ERR_OOM, fn, "out of host memory");
        return NULL;
    }
    atomic_init(&b->refcount, 1);
    atomic_fetch_add_explicit(&whole->refcount, 1, memory_order_relaxed);
    b->free_fn = part_free;
    b->ptr = bytes ? (char *)whole->ptr + offset : NULL;
    b->bytes = bytes;
    b->device = whole->device;
    b->parent = whole;
    return b;
}

/* The allocation a buffer or a part of one belongs to. */
static devbuf *allocation(const loom_buffer *b)
{
    return (devbuf *)loom__buffer_root((loom_buffer *)b);
}

loom_stream *loom__buffer_stream(const loom_buffer *b)
{
    return allocation(b)->home;
}

bool loom__buffer_writable_on(const loom_buffer *b, const loom_stream *s)
{
    if (b->free_fn != devbuf_free || b->parent ||
        atomic_load_explicit(&b->refcount, memory_order_acquire) != 1)
        return false;
    const devbuf *d = (const devbuf *)b;
    pthread_mutex_lock(&uses_lock);
    bool alone = d->uses == NULL;
    pthread_mutex_unlock(&uses_lock);
    return alone && !d->release && d->home->handle == s->handle;
}

int loom__buffer_record_use(const char *fn, loom_buffer *b, loom_stream *s)
{
    devbuf *d = allocation(b);
    if (!b->ptr || s->handle == d->home->handle)
        return 0;
    int prev, err = loom__device_push(fn, s->device, &prev); /* events belong to a device */
    if (err)
        return err;
    pthread_mutex_lock(&uses_lock);
    use *u = d->uses;
    while (u && u->stream->handle != s->handle)
        u = u->next;
    if (!u) {
        cudaEvent_t ev = NULL;
        err = loom__cuda_check(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming), fn,
                               "cudaEventCreateWithFlags");
        if (!err && !(u = malloc(sizeof *u))) {
            cudaEventDestroy(ev);
            loom__error(LOOM_ERR_OOM, fn, "out of host memory");
            err = LOOM_ERR_OOM;
        }
        if (!err) {
            *u = (use){loom__stream_retain(s), ev, d->uses};
            d->uses = u;
        }
    }
    if (!err)
        err = loom__cuda_check(cudaEventRecord(u->event, loom__stream_handle(s)), fn,
                               "cudaEventRecord");
    pthread_mutex_unlock(&uses_lock);
    loom__device_pop(prev);
    return err;
}

int loom__buffer_wait(const char *fn, loom_buffer *b, loom_stream *s)
{
    devbuf *d = allocation(b);
    if (!b->ptr || s->handle == d->home->handle)
        return 0;
    int prev, err = loom__device_push(fn, b->device, &prev);
    if (err)
        return err;
    pthread_mutex_lock(&uses_lock); /* one ready event per buffer, shared by its waiters */
    if (!d->ready)
        err = loom__cuda_check(cudaEventCreateWithFlags(&d->ready, cudaEventDisableTiming), fn,
                               "cudaEventCreateWithFlags");
    if (!err) {
        loom__capture_lock();
        err = loom__cuda_check(cudaEventRecord(d->ready, loom__stream_handle(d->home)), fn,
                               "cudaEventRecord");
        loom__capture_unlock();
    }
    /* The wait takes the event as last recorded: a later record cannot move it. */
    if (!err)
        err = loom__cuda_check(cudaStreamWaitEvent(loom__stream_handle(s), d->ready, 0), fn,
                               "cudaStreamWaitEvent");
    pthread_mutex_unlock(&uses_lock);
    loom__device_pop(prev);
    return err;
}

void loom__mempool_set_reclaim(loom__reclaim_fn fn)
{
    atomic_store(&reclaim_hook, fn);
}

/* ---- public: the current device's pool ---- */

size_t loom_mempool_used_bytes(void)
{
    if (loom_device_get() == LOOM_DEVICE_CPU)
        return loom__host_used_bytes();
    return loom_device_count() ? atomic_load(&pools[loom_device_get()].used) : 0;
}

size_t loom_mempool_total_bytes(void)
{
    if (loom_device_get() == LOOM_DEVICE_CPU)
        return loom__host_used_bytes() + loom__host_cached_bytes();
    if (!loom_device_count())
        return 0;
    cudaMemPool_t h = atomic_load(&pools[loom_device_get()].handle);
    uint64_t reserved = 0;
    if (h && cudaMemPoolGetAttribute(h, cudaMemPoolAttrReservedMemCurrent, &reserved) !=
                 cudaSuccess) {
        cudaGetLastError();
        reserved = 0;
    }
    return (size_t)reserved;
}

int loom_mempool_free_all_blocks(void)
{
    const char *fn = "loom_mempool_free_all_blocks";
    if (loom_device_get() == LOOM_DEVICE_CPU) {
        loom__host_cache_trim();
        return LOOM_OK;
    }
    int dev, err = loom__device_current(fn, &dev);
    if (err)
        return err;
    /* Blocks freed on a stream are cached only once their free is seen complete. */
    if ((err = loom__cuda_check(cudaDeviceSynchronize(), fn, "cudaDeviceSynchronize")) != 0)
        return err;
    cudaMemPool_t h = atomic_load(&pools[dev].handle);
    if (h && (err = loom__cuda_check(cudaMemPoolTrimTo(h, 0), fn, "cudaMemPoolTrimTo")) != 0)
        return err;
    loom__pinned_trim();
    return 0;
}

int loom_mempool_set_limit(size_t bytes)
{
    if (loom_device_get() == LOOM_DEVICE_CPU) {
        loom__host_set_limit(bytes);
        return LOOM_OK;
    }
    int dev, err = loom__device_current("loom_mempool_set_limit", &dev);
    if (err)
        return err;
    pthread_mutex_lock(&pools_lock);
    atomic_store(&pools[dev].limit, bytes);
    cudaMemPool_t h = atomic_load(&pools[dev].handle);
    if (h)
        set_release_threshold(h, bytes);
    pthread_mutex_unlock(&pools_lock);
    return 0;
}

size_t loom_mempool_get_limit(void)
{
    if (loom_device_get() == LOOM_DEVICE_CPU)
        return loom__host_get_limit();
    return loom_device_count() ? atomic_load(&pools[loom_device_get()].limit) : 0;
}
