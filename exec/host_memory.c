/* Buffers of the host device: ordinary host memory, 64-byte aligned (every vector width a
 * generated kernel uses, and a cache line). Nothing is cached: a buffer goes back to the C
 * library when its last reference goes, so the pool's total is what is in use. The memory
 * pool's limit works as on a GPU. */
#include "exec.h"

#include <stdlib.h>

enum { ALIGNMENT = 64 };

static atomic_size_t used, limit;

static void host_free(loom_buffer *b)
{
    atomic_fetch_sub(&used, b->bytes);
    loom__check_release(b->check);
    free(b->ptr);
    free(b);
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
    void *ptr = bytes ? aligned_alloc(ALIGNMENT, (bytes + ALIGNMENT - 1) / ALIGNMENT * ALIGNMENT) : NULL;
    if (!b || (bytes && !ptr)) {
        atomic_fetch_sub(&used, bytes);
        free(b);
        free(ptr);
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
