/* The one constructor of MATMUL nodes, shared by the public matrix products (graph/matmul.c,
 * graph/einsum.c...). */
#include "internal.h"

loom_array *loom__matmul(const char *fn, loom_array *a, loom_array *b)
{
    int nd = a->ndim;
    int64_t shape[LOOM_MAXDIMS];
    for (int i = 0; i < nd - 2; i++)
        shape[i] = a->shape[i];
    shape[nd - 2] = a->shape[nd - 2];
    shape[nd - 1] = b->shape[nd - 1];
    loom_array *n = loom__node_alloc(fn, LOOM_OP_MATMUL, (loom_dtype)a->dtype, nd, shape);
    if (!n)
        return NULL;
    n->device = a->device;
    loom__node_set_input(n, 0, a);
    loom__node_set_input(n, 1, b);
    return loom__node_finish(n);
}
