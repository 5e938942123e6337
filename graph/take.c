/* Gathers: take (modes raise, wrap, clip) and take_along_axis. A TAKE node reads its source at
 * the positions its indices name; the fuser computes the indices inline and fuses the gather
 * into its elementwise consumers (fuser/lower_index.c). Out-of-bounds indices in mode raise
 * are found on the device and reported when the result is read (docs/indexing.md). */
#include "index.h"
#include "reduce.h"
#include "ufunc.h"
#include "views.h"

/* NumPy casts indices to intp with casting 'same_kind': integers and bool pass. */
static int check_index_dtype(const char *fn, const loom_array *idx)
{
    loom_dtype dt = (loom_dtype)idx->dtype;
    if (loom__is_int(dt) || loom__is_bool(dt))
        return 0;
    loom__error(LOOM_ERR_INVALID, fn,
                "Cannot cast array data from dtype('%s') to dtype('int64') according to the rule "
                "'same_kind'",
                loom_dtype_name(dt));
    return -1;
}

loom_array *loom__take(const char *fn, loom_array *a, loom_array *idx, int ax,
                       loom_index_mode mode, int report_fn, int report_axis, int64_t report_size)
{
    int64_t shape[LOOM_MAXDIMS];
    int nd = 0;
    if (a->ndim - 1 + idx->ndim > LOOM_MAXDIMS) {
        loom__error(LOOM_ERR_INVALID, fn,
                    "maximum supported dimension for an ndarray is %d, found %d", LOOM_MAXDIMS,
                    a->ndim - 1 + idx->ndim);
        return NULL;
    }
    for (int d = 0; d < ax; d++)
        shape[nd++] = a->shape[d];
    for (int d = 0; d < idx->ndim; d++)
        shape[nd++] = idx->shape[d];
    for (int d = ax + 1; d < a->ndim; d++)
        shape[nd++] = a->shape[d];
    if (a->shape[ax] == 0 && idx->size > 0) {
        loom__error(LOOM_ERR_INVALID, fn, "cannot do a non-empty take from an empty axes.");
        return NULL;
    }
    int64_t size = 1;
    for (int d = 0; d < nd; d++)
        size *= shape[d];
    if (size == 0)
        return loom_empty(nd, shape, (loom_dtype)a->dtype);
    loom_array *n = loom__node_alloc(fn, LOOM_OP_TAKE, (loom_dtype)a->dtype, nd, shape);
    if (!n)
        return NULL;
    n->device = a->device;
    n->param.take.axis = ax;
    n->param.take.mode = mode;
    n->param.take.report_fn = report_fn;
    n->param.take.report_axis = report_axis;
    n->param.take.report_size = report_size;
    loom__node_set_input(n, 0, a);
    loom__node_set_input(n, 1, idx);
    return loom__node_finish(n);
}

loom_array *loom_take_mode(loom_array *a, loom_array *indices, int axis, loom_index_mode mode)
{
    static const char fn[] = "loom_take";
    if (!a || !indices)
        return NULL;
    if (mode != LOOM_MODE_RAISE && mode != LOOM_MODE_WRAP && mode != LOOM_MODE_CLIP) {
        loom__error(LOOM_ERR_INVALID, fn, "clipmode must be one of 'clip', 'raise', or 'wrap' (got %d)",
                    (int)mode);
        return NULL;
    }
    if (check_index_dtype(fn, indices))
        return NULL;
    if (indices->device != a->device) {
        loom__error(LOOM_ERR_INVALID, fn, "arrays are on different devices (%s and %s)",
                    loom__device_label(a->device), loom__device_label(indices->device));
        return NULL;
    }
    loom_scope_begin();
    loom_array *src = a;
    int ax = 0;
    if (axis == LOOM_AXIS_NONE || a->ndim == 0)
        src = loom__reshape(fn, "ravel", a, 1, (int64_t[]){-1});
    if (src && axis != LOOM_AXIS_NONE && loom__normalize_axis(fn, NULL, axis, src->ndim, &ax))
        src = NULL;
    return loom__scope_return(src ? loom__take(fn, src, indices, ax, mode, LOOM_REPORT_TAKE, ax, src->shape[ax]) : NULL);
}

loom_array *loom_take(loom_array *a, loom_array *indices, int axis)
{
    return loom_take_mode(a, indices, axis, LOOM_MODE_RAISE);
}

/* One arange per axis of a but the gathered one, broadcast to shape: the coordinates of the
 * result's elements, summed with a's C-order strides into the flat index of each element
 * along the other axes. */
static loom_array *flat_base(const char *fn, const loom_array *a, int ax, int nd,
                             const int64_t *shape)
{
    loom_array *base = loom_zeros(nd, shape, LOOM_INT64);
    int64_t stride = 1;
    for (int d = a->ndim - 1; d >= 0 && base; d--) {
        if (d != ax && a->shape[d] > 1) {
            int64_t view[LOOM_MAXDIMS];
            for (int k = 0; k < nd; k++)
                view[k] = k == d ? a->shape[d] : 1;
            loom_array *r = loom__reshape(fn, "indices", loom_arange(0, (double)a->shape[d], 1, LOOM_INT64), nd, view);
            r = r ? loom__broadcast_to(fn, r, nd, shape) : NULL; /* still a generator */
            loom_array *s = loom__ew(fn, LOOM_OP_MULTIPLY, 2,
                                     (loom_array *[]){r, loom_scalar_int(stride)}, NULL);
            base = loom__ew(fn, LOOM_OP_ADD, 2, (loom_array *[]){base, s}, NULL);
        }
        stride *= a->shape[d];
    }
    return base;
}

loom_array *loom__take_along_axis(const char *fn, loom_array *a, loom_array *indices, int axis,
                                  int report_fn)
{
    if (!a || !indices)
        return NULL;
    if (!loom__is_int((loom_dtype)indices->dtype) && !loom__is_bool((loom_dtype)indices->dtype)) {
        loom__error(LOOM_ERR_INVALID, fn, "`indices` must be an integer array");
        return NULL;
    }
    loom_scope_begin();
    loom_array *r = NULL, *src = a;
    int ax = 0;
    if (axis == LOOM_AXIS_NONE) {
        if (indices->ndim != 1) {
            loom__error(LOOM_ERR_INVALID, fn,
                        "when axis=None, `indices` must have a single dimension.");
            return loom__scope_return(NULL);
        }
        src = loom__reshape(fn, "ravel", a, 1, (int64_t[]){-1});
    } else if (indices->ndim != a->ndim) {
        loom__error(LOOM_ERR_INVALID, fn,
                    "`indices` and `arr` must have the same number of dimensions");
        return loom__scope_return(NULL);
    }
    if (!src || (axis != LOOM_AXIS_NONE && loom__normalize_axis(fn, NULL, axis, a->ndim, &ax)))
        return loom__scope_return(NULL);
    /* the result's shape: indices broadcast against a with the gathered axis set to 1 */
    int64_t ashape[LOOM_MAXDIMS], shape[LOOM_MAXDIMS];
    for (int d = 0; d < src->ndim; d++)
        ashape[d] = d == ax ? 1 : src->shape[d];
    int nd;
    const int64_t *shapes[] = {indices->shape, ashape};
    if (loom__broadcast_shapes(fn, 2, (int[]){indices->ndim, src->ndim}, shapes, &nd, shape))
        return loom__scope_return(NULL);
    int64_t len = src->shape[ax], stride = 1;
    for (int d = ax + 1; d < src->ndim; d++)
        stride *= src->shape[d];
    if (len == 0 && indices->size > 0) {
        loom__error(LOOM_ERR_INVALID, fn, "cannot do a non-empty take from an empty axes.");
        return loom__scope_return(NULL);
    }
    /* flat = base + (idx < 0 ? idx + len : idx) * stride, and an index out of [-len, len)
     * becomes -1 - size, which the flat take reports (checked on the device) */
    loom_array *idx = loom__cast(fn, loom__broadcast_to(fn, indices, nd, shape), LOOM_INT64);
    loom_array *lenv = loom_scalar_int(len);
    loom_array *neg = loom__ew(fn, LOOM_OP_LESS, 2, (loom_array *[]){idx, loom_scalar_int(0)}, NULL);
    loom_array *wrapped = loom__ew(fn, LOOM_OP_WHERE, 3,
                                   (loom_array *[]){neg, loom__ew(fn, LOOM_OP_ADD, 2, (loom_array *[]){idx, lenv}, NULL), idx},
                                   NULL);
    loom_array *inside = loom__ew(
        fn, LOOM_OP_LOGICAL_AND, 2,
        (loom_array *[]){loom__ew(fn, LOOM_OP_GREATER_EQUAL, 2, (loom_array *[]){wrapped, loom_scalar_int(0)}, NULL),
                         loom__ew(fn, LOOM_OP_LESS, 2, (loom_array *[]){wrapped, lenv}, NULL)},
        NULL);
    loom_array *off = loom__ew(fn, LOOM_OP_MULTIPLY, 2, (loom_array *[]){wrapped, loom_scalar_int(stride)}, NULL);
    loom_array *flat = loom__ew(fn, LOOM_OP_ADD, 2, (loom_array *[]){flat_base(fn, src, ax, nd, shape), off}, NULL);
    flat = loom__ew(fn, LOOM_OP_WHERE, 3,
                    (loom_array *[]){inside, flat, loom_scalar_int(-1 - src->size)}, NULL);
    loom_array *all = flat ? loom__reshape(fn, "ravel", src, 1, (int64_t[]){-1}) : NULL;
    r = all ? loom__take(fn, all, flat, 0, LOOM_MODE_RAISE, report_fn, ax, len) : NULL;
    return loom__scope_return(r);
}

loom_array *loom_take_along_axis(loom_array *a, loom_array *indices, int axis)
{
    return loom__take_along_axis("loom_take_along_axis", a, indices, axis,
                                 LOOM_REPORT_TAKE_ALONG_AXIS);
}
