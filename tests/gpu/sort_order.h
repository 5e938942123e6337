/* Host side of the sorting GPU tests: NumPy's order on raw elements of any real dtype, and
 * raw bits from generated tables packed into arrays of the dtype's size. */
#ifndef LOOM_TEST_SORT_ORDER_H
#define LOOM_TEST_SORT_ORDER_H

#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static inline uint64_t elem_bits(const void *p, int64_t i, size_t size)
{
    uint64_t v = 0;
    memcpy(&v, (const char *)p + i * (int64_t)size, size); /* little-endian */
    return v;
}

/* NumPy's order: -1, 0, 1 (NaN after everything, equal to NaN; -0.0 == +0.0). */
static inline int compare(const void *p, int64_t i, int64_t j, loom_dtype dt)
{
    size_t sz = loom_dtype_size(dt);
    const char *a = (const char *)p + i * (int64_t)sz, *b = (const char *)p + j * (int64_t)sz;
    if (loom__is_float(dt)) {
        double x = loom__host_to_double(a, dt), y = loom__host_to_double(b, dt);
        if (isnan(x) || isnan(y))
            return isnan(x) - isnan(y);
        return (x > y) - (x < y);
    }
    if (loom__is_signed(dt)) {
        int64_t x = (int64_t)(elem_bits(a, 0, sz) << (64 - 8 * sz)) >> (64 - 8 * sz);
        int64_t y = (int64_t)(elem_bits(b, 0, sz) << (64 - 8 * sz)) >> (64 - 8 * sz);
        return (x > y) - (x < y);
    }
    uint64_t x = elem_bits(a, 0, sz), y = elem_bits(b, 0, sz);
    return (x > y) - (x < y);
}

static inline void *pack(const uint64_t *bits, int64_t n, size_t sz)
{
    char *p = malloc((size_t)(n ? n : 1) * sz);
    for (int64_t i = 0; i < n; i++)
        memcpy(p + i * (int64_t)sz, &bits[i], sz);
    return p;
}

#endif
