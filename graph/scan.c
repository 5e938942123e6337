/* Inclusive scans (np.cumsum, np.cumprod and their nan* forms): one SCAN node along one axis.
 * NumPy 2's rules: bool and signed integers accumulate in int64, unsigned in uint64, others
 * keep their dtype; dtype= sets the result and accumulator; float16 and bfloat16 carry the
 * running value in float32 (docs/reductions.md, "Scans", says how that differs from NumPy). */
#include "reduce.h"
#include "views.h"

/* The scan node itself; a already has the scanned shape and axis is normalised. */
static loom_array *scan_node(const char *fn, loom_op op, loom_array *a, int axis, loom_dtype out)
{
    loom_array *n = loom__node_alloc(fn, op, out, a->ndim, a->shape);
    if (!n)
        return NULL;
    n->cdtype = (int8_t)loom__acc_dtype(out);
    n->device = a->device;
    n->param.scan.axis = axis;
    loom__node_set_input(n, 0, a);
    return loom__node_finish(n);
}

/* dtype: NumPy's dtype= argument, or NULL for the default. nan: the nan* form. */
static loom_array *scan(const char *fn, loom_op op, loom_array *a, int axis,
                        const loom_dtype *dtype, bool nan)
{
    if (!a)
        return NULL;
    if (dtype && !loom__dtype_valid(*dtype)) {
        loom__error(LOOM_ERR_INVALID, fn, "invalid dtype %d", (int)*dtype);
        return NULL;
    }
    /* NumPy scans a 0-d array as a 1-element 1-D one, axis 0 or -1 included. */
    int ax = 0;
    if (axis != LOOM_AXIS_NONE && loom__normalize_axis(fn, NULL, axis, a->ndim ? a->ndim : 1, &ax))
        return NULL;
    loom_dtype out = dtype ? *dtype : loom__sum_dtype((loom_dtype)a->dtype);
    /* A private scope: the temporaries (ravel, isnan, where) belong to the scan node alone. */
    loom_scope_begin();
    loom_array *x = a;
    if (a->ndim == 0 || (axis == LOOM_AXIS_NONE && a->ndim != 1))
        x = loom__reshape(fn, "ravel", a, 1, (const int64_t[]){-1});
    if (x && nan)
        x = loom__replace_nan(fn, x, op == LOOM_OP_CUMSUM ? 0.0 : 1.0);
    return loom__scope_return(x ? scan_node(fn, op, x, ax, out) : NULL);
}

loom_array *loom_cumsum(loom_array *a, int axis)
{
    return scan("loom_cumsum", LOOM_OP_CUMSUM, a, axis, NULL, false);
}

loom_array *loom_cumprod(loom_array *a, int axis)
{
    return scan("loom_cumprod", LOOM_OP_CUMPROD, a, axis, NULL, false);
}

loom_array *loom_nancumsum(loom_array *a, int axis)
{
    return scan("loom_nancumsum", LOOM_OP_CUMSUM, a, axis, NULL, true);
}

loom_array *loom_nancumprod(loom_array *a, int axis)
{
    return scan("loom_nancumprod", LOOM_OP_CUMPROD, a, axis, NULL, true);
}

loom_array *loom_cumsum_dtype(loom_array *a, int axis, loom_dtype dtype)
{
    return scan("loom_cumsum_dtype", LOOM_OP_CUMSUM, a, axis, &dtype, false);
}

loom_array *loom_cumprod_dtype(loom_array *a, int axis, loom_dtype dtype)
{
    return scan("loom_cumprod_dtype", LOOM_OP_CUMPROD, a, axis, &dtype, false);
}
