/* 64-bit FNV-1a, shared by kernel names (fuser/) and the kernel caches (exec/). */
#include "internal.h"

uint64_t loom__fnv1a64(const void *data, size_t n, uint64_t h)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}
