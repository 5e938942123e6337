/* argmax, argmin and their NaN-ignoring forms: one REDUCE node over one axis, int64 indices. */
#include "reduce.h"
#include "views.h"

/* The node compares values in a's dtype (its cdtype) and yields int64. LOOM_AXIS_NONE reduces
 * the flattened array and, with keepdims, gives a's rank of size-1 axes (NumPy 2). A 0-d a is
 * read as 1-D, as NumPy does, so axis 0 and -1 are valid for it. */
static loom_array *arg_reduce(const char *fn, loom_op op, loom_array *a, int axis, bool keepdims)
{
    if (!a)
        return NULL;
    bool flat = axis == LOOM_AXIS_NONE || a->ndim == 0;
    int ax = 0;
    if (axis != LOOM_AXIS_NONE && loom__normalize_axis(fn, NULL, axis, a->ndim ? a->ndim : 1, &ax))
        return NULL;
    loom_scope_begin();
    loom_array *b = flat ? loom__reshape(fn, "ravel", a, 1, (int64_t[]){a->size}) : a;
    loom_array *r = loom__reduction(fn, op, b, 1u << ax, keepdims && !flat,
                                    b ? (loom_dtype)b->dtype : LOOM_NO_DTYPE, LOOM_INT64);
    if (r && flat && keepdims) {
        int64_t ones[LOOM_MAXDIMS];
        for (int i = 0; i < a->ndim; i++)
            ones[i] = 1;
        r = loom__reshape(fn, "keepdims", r, a->ndim, ones);
    }
    return loom__scope_return(r);
}

loom_array *loom_argmax(loom_array *a, int axis, bool keepdims)
{
    return arg_reduce("loom_argmax", LOOM_OP_ARGMAX, a, axis, keepdims);
}

loom_array *loom_argmin(loom_array *a, int axis, bool keepdims)
{
    return arg_reduce("loom_argmin", LOOM_OP_ARGMIN, a, axis, keepdims);
}

loom_array *loom_nanargmax(loom_array *a, int axis, bool keepdims)
{
    return arg_reduce("loom_nanargmax", LOOM_OP_NANARGMAX, a, axis, keepdims);
}

loom_array *loom_nanargmin(loom_array *a, int axis, bool keepdims)
{
    return arg_reduce("loom_nanargmin", LOOM_OP_NANARGMIN, a, axis, keepdims);
}
