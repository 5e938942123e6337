/* Lowering of EIGH nodes: the input is copied into the eigenvector part of the node's packed
 * value (cuSOLVER overwrites its matrix), then one cuSOLVER step decomposes every matrix of
 * the stack in place (syevjBatched for stacks of tiny matrices, syevd / XsyevBatched else).
 * Row-major A read column-major is A^T = conj(A) (A Hermitian), so the triangle cuSOLVER reads
 * is the other one, and graph/linalg.c turns its eigenvectors back. */
#include "lower.h"

static int lower(const char *fn, loom_plan_builder *b, const loom_walk *w, const int *roots,
                 int nroots, bool persistent)
{
    (void)nroots;
    (void)persistent;
    const loom_walk_node *v = &w->v[roots[0]];
    const loom_array *m = v->node, *a = m->inputs[0];
    int64_t n = a->ndim ? a->shape[a->ndim - 1] : 0;
    int64_t batch = n ? a->size / (n * n) : 0;
    if (a->size == 0)
        return 0; /* empty results: nothing to write */
    if (loom__lower_copy_in(b, fn, w, a, v->buffer, (size_t)m->param.multi.offset[1]))
        return -1;
    bool vectors = m->param.multi.eigh.vectors;
    const char *user = vectors ? "loom_linalg_eigh" : "loom_linalg_eigvalsh";
    int info = loom__plan_check(b, fn, user, LOOM_FAIL_NO_CONVERGENCE, batch);
    /* Jacobi for stacks of tiny matrices (one call, no tridiagonal stage), else syevd; the
     * workspace is sized by cuSOLVER's query when the plan is prepared */
    bool tiny = loom__plan_linalg_batched(b, batch, n, LOOM_SYEVJ_BATCHED_MAX_N);
    loom_libcall *l =
        info < 0 ? NULL
                 : loom__plan_library_step(
                       b, fn, tiny ? LOOM_LIB_CUSOLVER_SYEVJ_BATCHED : LOOM_LIB_CUSOLVER_SYEVD,
                       (const int[]){v->buffer, v->buffer, info}, 3);
    if (!l)
        return -1;
    l->byte_offset[0] = (size_t)m->param.multi.offset[1];
    l->byte_offset[1] = (size_t)m->param.multi.offset[0];
    l->args.eigh = (loom_eigh_args){.dtype = a->dtype, .upper = !m->param.multi.eigh.upper,
                                    .vectors = vectors, .n = n, .batch = batch};
    return loom__step_describe(b, fn, loom__plan_next_step(b) - 1, user + 5,
                               (const loom_array *const[]){m}, 1);
}

const loom_lowering loom__lower_eigh = {LOOM_PLACE_ALONE, loom__input_contiguous_in_memory,
                                            lower, NULL};
