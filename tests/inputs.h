/* Host leaves for CPU tests: plan and draw graphs without a GPU. */
#ifndef LOOM_TEST_INPUTS_H
#define LOOM_TEST_INPUTS_H

#include "loom.h"

#include <stdlib.h>

/* A zero-filled host array of dtype dt (loom_asarray copies it, so nothing outlives the call). */
static inline loom_array *test_input(int ndim, const int64_t *shape, loom_dtype dt)
{
    int64_t size = 1;
    for (int i = 0; i < ndim; i++)
        size *= shape[i];
    void *data = calloc((size_t)(size ? size : 1), loom_dtype_size(dt));
    loom_array *a = loom_asarray(data, dt, ndim, shape);
    free(data);
    return a;
}

#endif
