/* Lowering of SVD nodes (graph/linalg_svd.c): the input is copied into scratch (every driver
 * destroys its matrix, and the input stays readable for the automatic driver's second try),
 * then one eager library step decomposes each matrix of the stack into the node's packed
 * value. No SVD routine can be captured (gesvdp reports its error estimate to the host), so
 * the step splits the plan's CUDA Graph segments. */
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
    int64_t rows = a->shape[a->ndim - 1], cols = a->shape[a->ndim - 2];
    int64_t batch = a->size / (rows * cols);
    int in = w->v[loom__walk_at(w, a)].buffer, work = loom__lower_copy_to_scratch(b, fn, w, a);
    if (work < 0)
        return -1;
    bool vectors = m->param.multi.svd.vectors;
    const char *user = vectors ? "loom_linalg_svd" : "loom_linalg_svdvals";
    int info = loom__plan_check(b, fn, user, LOOM_FAIL_SVD, batch);
    int call = loom__plan_next_step(b);
    /* its workspace is sized by cuSOLVER's query when the call runs */
    loom_libcall *l = info < 0 ? NULL
                               : loom__plan_library_step(b, fn, LOOM_LIB_CUSOLVER_SVD,
                                                         (const int[]){in, work, v->buffer, info},
                                                         4);
    if (!l)
        return -1;
    l->args.svd = (loom_svd_args){
        .dtype = a->dtype, .driver = (int8_t)m->param.multi.svd.driver,
        .full = m->param.multi.svd.full, .vectors = vectors, .rows = rows, .cols = cols,
        .batch = batch, .s_at = (size_t)m->param.multi.offset[0],
        .u_at = vectors ? (size_t)m->param.multi.offset[1] : 0,
        .v_at = vectors ? (size_t)m->param.multi.offset[2] : 0};
    return loom__step_describe(b, fn, call, user + 5, (const loom_array *const[]){m}, 1);
}

const loom_lowering loom__lower_svd = {LOOM_PLACE_ALONE, loom__input_contiguous_in_memory,
                                       lower, NULL};
