/* Lowering of EIG nodes (graph/linalg_eig.c): the input is copied into scratch (geev destroys
 * its matrix), then one eager library step decomposes each matrix of the stack into the node's
 * packed value; a status check reports non-convergence. */
#include "lower.h"

static int lower(const char *fn, loom_plan_builder *b, const loom_walk *w, const int *roots,
                 int nroots, bool persistent)
{
    (void)nroots;
    (void)persistent;
    const loom_walk_node *v = &w->v[roots[0]];
    const loom_array *m = v->node, *a = m->inputs[0];
    if (a->size == 0)
        return 0;
    int64_t n = a->shape[a->ndim - 1], batch = a->size / (n * n);
    int work = loom__lower_copy_to_scratch(b, fn, w, a);
    if (work < 0)
        return -1;
    bool vectors = m->param.multi.eig.vectors;
    const char *user = vectors ? "loom_linalg_eig" : "loom_linalg_eigvals";
    int info = loom__plan_check(b, fn, user, LOOM_FAIL_NO_CONVERGENCE, batch);
    int call = loom__plan_next_step(b);
    /* its workspace is sized by cuSOLVER's query when the call runs */
    loom_libcall *l = info < 0 ? NULL
                               : loom__plan_library_step(b, fn, LOOM_LIB_CUSOLVER_GEEV,
                                                         (const int[]){work, v->buffer, info}, 3);
    if (!l)
        return -1;
    l->args.eig = (loom_eig_args){.dtype = a->dtype, .vectors = vectors, .n = n, .batch = batch,
                                  .w_at = (size_t)m->param.multi.offset[0],
                                  .v_at = vectors ? (size_t)m->param.multi.offset[1] : 0};
    return loom__step_describe(b, fn, call, user + 5, (const loom_array *const[]){m}, 1);
}

const loom_lowering loom__lower_eig = {LOOM_PLACE_ALONE, loom__input_contiguous_in_memory,
                                       lower, NULL};
