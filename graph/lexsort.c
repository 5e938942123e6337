/* lexsort: successive stable argsorts, least significant key first, each of the next key
 * gathered in the order found so far (docs/sorting.md). Complex keys become three real keys
 * (graph/sort_complex.c). */
#include "reduce.h"
#include "sort.h"
#include "views.h"

#include <stdlib.h>

loom_array *loom__lexsort(const char *fn, loom_array *const *keys, int nkeys, int ax)
{
    loom_scope_begin();
    loom_array *idx = loom_argsort(keys[0], ax);
    for (int k = 1; k < nkeys && idx; k++) {
        loom_array *key = loom_take_along_axis(keys[k], idx, ax);
        loom_array *order = key ? loom_argsort(key, ax) : NULL;
        idx = order ? loom_take_along_axis(idx, order, ax) : NULL;
    }
    (void)fn;
    return loom__scope_return(idx);
}

static int check_keys(const char *fn, loom_array *const *keys, int nkeys)
{
    if (nkeys <= 0 || !keys) {
        loom__error(LOOM_ERR_INVALID, fn, "need sequence of keys with len > 0 in lexsort");
        return -1;
    }
    for (int k = 0; k < nkeys; k++) {
        if (!keys[k])
            return -1;
        const loom_array *a = keys[0], *b = keys[k];
        bool same = a->ndim == b->ndim;
        for (int d = 0; same && d < a->ndim; d++)
            same = a->shape[d] == b->shape[d];
        if (!same) {
            loom__error(LOOM_ERR_INVALID, fn, "all keys need to be the same shape");
            return -1;
        }
        if (a->device != b->device) {
            loom__error(LOOM_ERR_INVALID, fn, "arrays are on different devices (%s and %s)",
                        loom__device_label(a->device), loom__device_label(b->device));
            return -1;
        }
    }
    return 0;
}

loom_array *loom_lexsort(loom_array *const *keys, int nkeys, int axis)
{
    static const char fn[] = "loom_lexsort";
    if (check_keys(fn, keys, nkeys))
        return NULL;
    const loom_array *k0 = keys[0];
    if (axis == LOOM_AXIS_NONE) {
        loom__error(LOOM_ERR_INVALID, fn, "axis must be an integer (np.lexsort has no axis=None)");
        return NULL;
    }
    if (k0->ndim == 0) { /* NumPy: axis 0 or -1, and the 0-d index 0 */
        if (axis == 0 || axis == -1)
            return loom_zeros(0, NULL, LOOM_INT64);
        loom__error(LOOM_ERR_SHAPE, fn, "axis %d is out of bounds for array of dimension 0",
                    axis);
        return NULL;
    }
    int ax;
    if (loom__normalize_axis(fn, NULL, axis, k0->ndim, &ax))
        return NULL;
    loom_array **real = loom__malloc((size_t)nkeys * 3 * sizeof *real);
    if (!real) {
        loom__error(LOOM_ERR_OOM, fn, "out of host memory");
        return NULL;
    }
    loom_scope_begin();
    int n = 0, rc = 0;
    for (int k = 0; k < nkeys && !rc; k++) {
        if (loom__is_complex((loom_dtype)keys[k]->dtype)) {
            rc = loom__complex_sort_keys(fn, keys[k], &real[n]);
            n += 3;
        } else {
            real[n++] = keys[k];
        }
    }
    loom_array *r = rc ? NULL : loom__lexsort(fn, real, n, ax);
    free(real);
    return loom__scope_return(r);
}
