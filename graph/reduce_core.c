/* The one constructor of REDUCE nodes, shared by the public reductions (graph/reduce.c). */
#include "internal.h"

loom_array *loom__reduce(const char *fn, loom_op op, loom_array *a, uint32_t axes, bool keepdims,
                         loom_dtype acc, loom_dtype out)
{
    loom_array *n = loom__reduce_alloc(fn, op, a, axes, keepdims, acc, out);
    return n ? loom__node_finish(n) : NULL;
}

loom_array *loom__reduce_alloc(const char *fn, loom_op op, loom_array *a, uint32_t axes,
                               bool keepdims, loom_dtype acc, loom_dtype out)
{
    int64_t shape[LOOM_MAXDIMS];
    int nd = 0;
    for (int i = 0; i < a->ndim; i++) {
        if (axes & (1u << i)) {
            if (keepdims)
                shape[nd++] = 1;
        } else {
            shape[nd++] = a->shape[i];
        }
    }
    loom_array *n = loom__node_alloc(fn, op, out, nd, shape);
    if (!n)
        return NULL;
    n->cdtype = (int8_t)acc;
    n->device = a->device;
    n->param.reduce.axes = axes;
    n->param.reduce.keepdims = keepdims;
    loom__node_set_input(n, 0, a);
    return n;
}
