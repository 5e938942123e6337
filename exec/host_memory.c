/* Buffers of the host device: ordinary host memory, 64-byte aligned (every vector width a
 * generated kernel uses, and a cache line). Freed blocks of at least CACHE_MIN bytes are kept
 * for the next allocation of the same size, as a GPU pool keeps its blocks: the first write to
 * fresh memory takes a page fault per page, which costs a memory-bound kernel several times
 * its own time. The cache holds at most CACHE_BLOCKS blocks and CACHE_MAX bytes, and gives all
 * back at loom_mempool_free_all_blocks and when an allocation fails. The memory pool's limit
 * counts the bytes in use, as on a GPU. */
#include "exec.h"

#include <pthread.h>
#include <stdlib.h>

enum { ALIGNMENT = 64, CACHE_BLOCKS = 32 };
#define CACHE_MIN ((size_t)1 << 20)
#define CACHE_MAX ((size_t)4 << 30)

static atomic_size_t used, limit;

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    void *ptr;
    size_t bytes; /* rounded to ALIGNMENT */
} cache[CACHE_BLOCKS];
static int cached;
static size_t cached_bytes;

static size_t rounded(size_t bytes)
{
    return (bytes + ALIGNMENT - 1) / ALIGNMENT * ALIGNMENT;
}

/* A cached block of exactly bytes (rounded), else NULL. */
static void *cache_take(size_t bytes)
{
    void *ptr = NULL;
    pthread_mutex_lock(&cache_lock);
    for (int i = 0; i < cached && !ptr; i++)
        if (cache[i].bytes == bytes) {
            ptr = cache[i].ptr;
            cached_bytes -= bytes;
            cache[i] = cache[--cached];
        }
    pthread_mutex_unlock(&cache_lock);
    return ptr;
}

/* Keeps ptr for reuse when it is large and there is room, else frees it. */
static void cache_put(void *ptr, size_t bytes)
{
    pthread_mutex_lock(&cache_lock);
    bool keep = bytes >= CACHE_MIN && cached < CACHE_BLOCKS && cached_bytes + bytes <= CACHE_MAX;
    if (keep) {
        cache[cached].ptr = ptr;
        cache[cached++].bytes = bytes;
        cached_bytes += bytes;
    }
    pthread_mutex_unlock(&cache_lock);
    if (!keep)
        free(ptr);
}

void loom__host_cache_trim(void)
{
    pthread_mutex_lock(&cache_lock);
    for (int i = 0; i < cached; i++)
        free(cache[i].ptr);
    cached = 0;
    cached_bytes = 0;
    pthread_mutex_unlock(&cache_lock);
}

size_t loom__host_cached_bytes(void)
{
    pthread_mutex_lock(&cache_lock);
    size_t n = cached_bytes;
    pthread_mutex_unlock(&cache_lock);
    return n;
}

static void host_free(loom_buffer *b)
{
    atomic_fetch_sub(&used, b->bytes);
    loom__check_release(b->check);
    if (b->ptr)
        cache_put(b->ptr, rounded(b->bytes));
    free(b);
}

static void *block(size_t bytes)
{
    if (!bytes)
        return NULL;
    void *ptr = cache_take(rounded(bytes));
    if (!ptr && !(ptr = aligned_alloc(ALIGNMENT, rounded(bytes)))) {
        loom__host_cache_trim();
        ptr = aligned_alloc(ALIGNMENT, rounded(bytes));
    }
    return ptr;
}

loom_buffer *loom__host_buffer_alloc(const char *fn, const char *what, size_t bytes)
{
    size_t cap = atomic_load(&limit), now = atomic_fetch_add(&used, bytes) + bytes;
    if (cap && now > cap) {
        atomic_fetch_sub(&used, bytes);
        loom__error(LOOM_ERR_OOM, fn,
                    "out of memory allocating %zu bytes%s%s on the host device (the memory pool "
                    "limit is %zu bytes; %zu bytes in use by Loom)",
                    bytes, what ? " for " : "", what ? what : "", cap, now - bytes);
        return NULL;
    }
    loom_buffer *b = calloc(1, sizeof *b);
    void *ptr = b ? block(bytes) : NULL;
    if (!b || (bytes && !ptr)) {
        atomic_fetch_sub(&used, bytes);
        free(b);
        loom__error(LOOM_ERR_OOM, fn, "out of host memory allocating %zu bytes%s%s on the host device",
                    bytes, what ? " for " : "", what ? what : "");
        return NULL;
    }
    atomic_init(&b->refcount, 1);
    b->free_fn = host_free;
    b->ptr = ptr;
    b->bytes = bytes;
    b->device = LOOM_DEVICE_CPU;
    loom__stat_add(LOOM__STAT_BYTES_ALLOCATED, bytes);
    return b;
}

size_t loom__host_used_bytes(void)
{
    return atomic_load(&used);
}

void loom__host_set_limit(size_t bytes)
{
    atomic_store(&limit, bytes);
}

size_t loom__host_get_limit(void)
{
    return atomic_load(&limit);
}
