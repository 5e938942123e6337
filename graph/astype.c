/* One-input nodes that keep the shape and only change how elements are stored: casts
 * (loom_astype) and C-contiguous copies (loom__copy, used where a view is impossible). */
#include "views.h"

static loom_array *same_shape_node(const char *fn, loom_op op, loom_array *a, loom_dtype dtype)
{
    loom_array *n = loom__node_alloc(fn, op, dtype, a->ndim, a->shape);
    if (!n)
        return NULL;
    n->device = a->device;
    loom__node_set_input(n, 0, a);
    return loom__node_finish(n);
}

loom_array *loom__copy(const char *fn, loom_array *a)
{
    return same_shape_node(fn, LOOM_OP_COPY, a, (loom_dtype)a->dtype);
}

loom_array *loom_astype(loom_array *a, loom_dtype dtype)
{
    static const char fn[] = "loom_astype";
    if (!a)
        return NULL;
    if (!loom__dtype_valid(dtype)) {
        loom__error(LOOM_ERR_INVALID, fn, "invalid dtype %d", (int)dtype);
        return NULL;
    }
    /* A weak scalar still gets a node: naming a dtype makes the value strong, so that
     * astype(scalar(2.0), float64) promotes a float32 operand as np.float64(2.0) would. */
    if (dtype == a->dtype && !a->weak)
        return loom__adopt(loom_retain(a));
    return same_shape_node(fn, LOOM_OP_CAST, a, dtype);
}
