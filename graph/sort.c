/* sort and argsort: one SORT or ARGSORT node sorting the rows of its input along the last axis
 * (the public functions move the sorted axis there and back), computed by CUB's radix sorts
 * (docs/sorting.md). The node's key input is what the radix sort orders: for floats, every NaN
 * becomes the one positive NaN (NumPy sorts NaN last; a radix sort puts a NaN with its sign bit
 * set first), and for argsort -0.0 becomes +0.0 (NumPy compares them equal, so a stable argsort
 * keeps their input order; a radix sort on raw bits puts -0.0 first). Those transforms are
 * elementwise nodes, computed by the kernel that writes the keys. Complex arrays are a lexsort
 * of three real keys (graph/sort_complex.c). */
#include "reduce.h"
#include "sort.h"
#include "ufunc.h"
#include "views.h"

#include <math.h>

/* The node: rows of keys along the last axis; argsort also reads the indices 0..n-1 of each
 * row (idx, int64, keys' shape) and yields them reordered. */
static loom_array *sort_node(const char *fn, loom_array *keys, loom_array *idx, int key_bits)
{
    loom_op op = idx ? LOOM_OP_ARGSORT : LOOM_OP_SORT;
    loom_dtype dt = idx ? LOOM_INT64 : (loom_dtype)keys->dtype;
    loom_array *n = loom__node_alloc(fn, op, dt, keys->ndim, keys->shape);
    if (!n)
        return NULL;
    n->device = keys->device;
    n->param.sort.key_bits = key_bits;
    loom__node_set_input(n, 0, keys);
    if (idx)
        loom__node_set_input(n, 1, idx);
    return loom__node_finish(n);
}

/* The keys the radix sort orders (see the file comment). */
static loom_array *sort_keys(const char *fn, loom_array *x, bool arg)
{
    if (!loom__is_float((loom_dtype)x->dtype))
        return x;
    x = loom__replace_nan(fn, x, NAN);
    if (x && arg)
        x = loom__ew(fn, LOOM_OP_ADD, 2, (loom_array *[]){x, loom_scalar(0.0)}, NULL);
    return x;
}

/* axis: NumPy's; a 0-d array is sorted as a 1-element 1-D one by argsort, and only with
 * LOOM_AXIS_NONE by sort, as NumPy does. */
static loom_array *sort(const char *fn, loom_array *a, int axis, bool arg)
{
    if (!a)
        return NULL;
    int ndim = a->ndim == 0 && arg ? 1 : a->ndim, ax = 0;
    if (axis != LOOM_AXIS_NONE && loom__normalize_axis(fn, NULL, axis, ndim, &ax))
        return NULL;
    loom_scope_begin(); /* the temporaries belong to the result */
    loom_array *x = a;
    if (a->ndim == 0 || (axis == LOOM_AXIS_NONE && a->ndim != 1)) {
        x = loom__reshape(fn, "ravel", a, 1, (const int64_t[]){-1});
        ax = 0;
    }
    if (loom__is_complex((loom_dtype)a->dtype)) {
        loom_array *order = x ? loom__complex_argsort(fn, x, ax) : NULL;
        return loom__scope_return(arg || !order ? order : loom_take_along_axis(x, order, ax));
    }
    int last = x ? x->ndim - 1 : 0;
    if (x && ax != last)
        x = loom_moveaxis(x, ax, last);
    loom_array *idx = NULL;
    if (x && arg) {
        int64_t n = x->shape[last];
        idx = loom_broadcast_to(loom_arange(0, (double)n, 1, LOOM_INT64), x->ndim, x->shape);
    }
    loom_array *keys = x && (!arg || idx) ? sort_keys(fn, x, arg) : NULL;
    loom_array *r = keys ? sort_node(fn, keys, idx, 0) : NULL;
    if (r && ax != last)
        r = loom_moveaxis(r, last, ax);
    return loom__scope_return(r);
}

loom_array *loom__argsort_small_keys(const char *fn, loom_array *keys, int key_bits)
{
    if (!keys)
        return NULL;
    loom_scope_begin();
    loom_array *idx = loom_arange(0, (double)keys->size, 1, LOOM_INT64);
    return loom__scope_return(idx ? sort_node(fn, keys, idx, key_bits) : NULL);
}

loom_array *loom_sort(loom_array *a, int axis)
{
    return sort("loom_sort", a, axis, false);
}

loom_array *loom_argsort(loom_array *a, int axis)
{
    return sort("loom_argsort", a, axis, true);
}
