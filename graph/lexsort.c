/* lexsort: successive stable argsorts, least significant key first, each of the next key
 * gathered in the order found so far (docs/sorting.md). Complex keys become three real keys
 * (graph/sort_complex.c). */
#include "reduce.h"
#include "sort.h"
#include "ufunc.h"
#include "views.h"

#include <limits.h>
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

/* loom__lexsort of keys of any dtype: a complex key counts as its three real keys. */
static loom_array *lexsort_any(const char *fn, loom_array *const *keys, int nkeys, int ax)
{
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

/* Appends to keys the real keys of column col in np.unique's order of rows, the least
 * significant first; returns how many. NumPy compares a float16 field with NaN first (its
 * HALF_compare), unlike its sort: an int8 key "not NaN" above the value with NaN read as 0. */
static int column_keys(const char *fn, loom_array *col, loom_array **keys)
{
    loom_dtype dt = (loom_dtype)col->dtype;
    if (loom__is_complex(dt))
        return loom__complex_sort_keys(fn, col, keys) ? -1 : 3;
    if (dt != LOOM_FLOAT16) {
        keys[0] = col;
        return 1;
    }
    loom_array *nan = loom_isnan(col);
    keys[0] = loom_where(nan, loom_scalar(0.0), col);
    keys[1] = loom__cast(fn, loom_logical_not(nan), LOOM_INT8);
    return keys[0] && keys[1] ? 2 : -1;
}

loom_array *loom__lexsort_rows(const char *fn, loom_array *rows)
{
    int64_t m = rows->shape[1];
    if (m > INT_MAX / 3) {
        loom__error(LOOM_ERR_UNSUPPORTED, fn, "rows of %lld elements are too long to sort",
                    (long long)m);
        return NULL;
    }
    loom_array **keys = loom__malloc((size_t)m * 3 * sizeof *keys);
    if (!keys) {
        loom__error(LOOM_ERR_OOM, fn, "out of host memory");
        return NULL;
    }
    loom_scope_begin();
    int n = 0, k = 0;
    for (int64_t j = m - 1; j >= 0 && k >= 0; j--) { /* the first column is the primary key */
        loom_array *col = loom_index(rows, 1, j);
        k = col ? column_keys(fn, col, keys + n) : -1;
        n += k;
    }
    loom_array *r = k >= 0 ? loom__lexsort(fn, keys, n, 0) : NULL;
    free(keys);
    return loom__scope_return(r);
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
    return lexsort_any(fn, keys, nkeys, ax);
}

