/* Lowering of CHOLESKY nodes: the input is copied into the node's buffer and factored there in
 * place by cuSOLVER. Row-major A read column-major is conj(A), so the triangle cuSOLVER reads
 * is the other one (graph/linalg.c masks the triangle cuSOLVER leaves untouched, or uses as
 * scratch). Stacks of small matrices take potrfBatched, fed a pointer array a generated
 * kernel writes; everything else potrf, one call per matrix with its workspace in the plan.
 * Every step is captured in the plan's CUDA Graph. */
#include "lower.h"

static int lower(const char *fn, loom_plan_builder *b, const loom_walk *w, const int *roots,
                 int nroots, bool persistent)
{
    (void)nroots;
    (void)persistent;
    const loom_walk_node *v = &w->v[roots[0]];
    const loom_array *c = v->node, *a = c->inputs[0];
    if (a->size == 0)
        return 0;
    int64_t n = a->shape[a->ndim - 1], batch = a->size / (n * n);
    if (loom__lower_copy_in(b, fn, w, a, v->buffer, 0))
        return -1;
    bool many = loom__plan_linalg_batched(b, batch, n, LOOM_POTRF_BATCHED_MAX_N);
    int call = loom__plan_next_step(b) + many; /* after the pointer kernel (batched) */
    int info = loom__plan_check(b, fn, "loom_linalg_cholesky", LOOM_FAIL_NOT_POSITIVE, batch);
    int64_t stride = n * n * (int64_t)loom_dtype_size((loom_dtype)a->dtype);
    int ptrs = !many || info < 0
                   ? info
                   : loom__plan_pointer_array(b, fn, v->buffer, 0, stride, batch, call);
    loom_libcall *l =
        ptrs < 0 ? NULL
                 : loom__plan_library_step(
                       b, fn, many ? LOOM_LIB_CUSOLVER_POTRF_BATCHED : LOOM_LIB_CUSOLVER_POTRF,
                       (const int[]){many ? ptrs : v->buffer, info}, 2);
    if (!l)
        return -1;
    l->args.potrf = (loom_potrf_args){.dtype = a->dtype, .upper = !c->param.cholesky.upper,
                                      .n = n, .batch = batch};
    if (!many && loom__plan_workspace(b, fn, l, call))
        return -1;
    return loom__step_describe(b, fn, call, "linalg_cholesky", (const loom_array *const[]){c}, 1);
}

const loom_lowering loom__lower_cholesky = {LOOM_PLACE_ALONE, loom__input_contiguous_in_memory,
                                            lower, NULL};
