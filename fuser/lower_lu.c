/* Lowering of LU and LU_SOLVE nodes (graph/linalg_lu.c). LU: the input is copied into the
 * factor part of the node's packed value and factored there in place; pivots go to the other
 * part, status words to a check (inv, solve: a singular matrix fails) or to scratch (det,
 * slogdet: a zero pivot is a zero determinant). LU_SOLVE: the right-hand sides are copied into
 * the result and solved in place. Stacks of small matrices take cuBLAS's batched routines, fed
 * pointer arrays that a generated kernel writes; everything else cuSOLVER, one call per matrix.
 * Every call is captured in the plan's CUDA Graph. */
#include "lower.h"

static const char *const user_fn[] = {
    [LOOM_LU_NO_CHECK] = NULL, [LOOM_LU_INV] = "loom_linalg_inv",
    [LOOM_LU_SOLVE] = "loom_linalg_solve", [LOOM_LU_MATRIX_POWER] = "loom_linalg_matrix_power"};

static int matrix_shape(const loom_array *a, int64_t *n, int64_t *batch)
{
    *n = a->shape[a->ndim - 1];
    *batch = *n ? a->size / (*n * *n) : 0;
    return a->size != 0;
}

static int lower_lu(const char *fn, loom_plan_builder *b, const loom_walk *w, const int *roots,
                    int nroots, bool persistent)
{
    (void)nroots;
    (void)persistent;
    const loom_walk_node *v = &w->v[roots[0]];
    const loom_array *m = v->node, *a = m->inputs[0];
    int64_t n, batch;
    if (!matrix_shape(a, &n, &batch))
        return 0;
    size_t lu_at = (size_t)m->param.multi.offset[0], piv_at = (size_t)m->param.multi.offset[1];
    if (loom__lower_copy_in(b, fn, w, a, v->buffer, lu_at))
        return -1;
    const char *user = user_fn[m->param.multi.lu.user];
    bool many = loom__plan_linalg_batched(b, batch, n, LOOM_LU_BATCHED_MAX_N);
    /* the kernel writing pointers (batched), then the call */
    int call = loom__plan_next_step(b) + many;
    int info = user ? loom__plan_check(b, fn, user, LOOM_FAIL_SINGULAR, batch)
                    : loom__plan_scratch(b, fn, (size_t)batch * sizeof(int), call, call);
    int64_t stride = n * n * (int64_t)loom_dtype_size((loom_dtype)a->dtype);
    int ptrs = !many || info < 0
                   ? info
                   : loom__plan_pointer_array(b, fn, v->buffer, lu_at, stride, batch, call);
    loom_libcall *l =
        ptrs < 0 ? NULL
                 : loom__plan_library_step(
                       b, fn, many ? LOOM_LIB_CUBLAS_GETRF_BATCHED : LOOM_LIB_CUSOLVER_GETRF,
                       (const int[]){many ? ptrs : v->buffer, v->buffer, info}, 3);
    if (!l)
        return -1;
    l->byte_offset[0] = many ? 0 : lu_at;
    l->byte_offset[1] = piv_at;
    l->args.lu = (loom_lu_args){.dtype = a->dtype, .n = n, .batch = batch};
    if (!many && loom__plan_workspace(b, fn, l, call))
        return -1;
    return loom__step_describe(b, fn, call, "lu_factor", (const loom_array *const[]){m}, 1);
}

static int lower_solve(const char *fn, loom_plan_builder *b, const loom_walk *w,
                       const int *roots, int nroots, bool persistent)
{
    (void)nroots;
    (void)persistent;
    const loom_walk_node *v = &w->v[roots[0]];
    const loom_array *x = v->node, *lu = x->inputs[0], *piv = x->inputs[1], *bt = x->inputs[2];
    int64_t n, batch, nrhs = x->shape[x->ndim - 2];
    if (!matrix_shape(lu, &n, &batch) || x->size == 0)
        return 0;
    int lu_buf = w->v[loom__walk_at(w, lu)].buffer, piv_buf = w->v[loom__walk_at(w, piv)].buffer;
    if (loom__lower_copy_in(b, fn, w, bt, v->buffer, 0))
        return -1;
    bool many = loom__plan_linalg_batched(b, batch, n, LOOM_LU_BATCHED_MAX_N);
    int64_t item = (int64_t)loom_dtype_size((loom_dtype)x->dtype);
    int call = loom__plan_next_step(b) + 2 * many;
    int a_ptrs = -1, b_ptrs = -1, info = -1;
    if (many) {
        a_ptrs = loom__plan_pointer_array(b, fn, lu_buf, 0, n * n * item, batch, call);
        b_ptrs = a_ptrs < 0 ? -1
                            : loom__plan_pointer_array(b, fn, v->buffer, 0, n * nrhs * item,
                                                       batch, call);
        if (b_ptrs < 0)
            return -1;
    } else if ((info = loom__plan_scratch(b, fn, sizeof(int), call, call)) < 0) {
        return -1;
    }
    loom_libcall *l = loom__plan_library_step(
        b, fn, many ? LOOM_LIB_CUBLAS_GETRS_BATCHED : LOOM_LIB_CUSOLVER_GETRS,
        (const int[]){many ? a_ptrs : lu_buf, piv_buf, many ? b_ptrs : v->buffer, info},
        many ? 3 : 4);
    if (!l)
        return -1;
    l->args.lu = (loom_lu_args){.dtype = x->dtype, .trans = x->param.lu_solve.trans, .n = n,
                                .nrhs = nrhs, .batch = batch};
    return loom__step_describe(b, fn, call, "lu_solve", (const loom_array *const[]){x}, 1);
}

static void solve_inputs_in_memory(loom_walk *w, int i)
{
    for (int k = 0; k < 3; k++)
        loom__contiguous_in_memory(w, w->v[i].node->inputs[k]);
}

const loom_lowering loom__lower_lu = {LOOM_PLACE_ALONE, loom__input_contiguous_in_memory,
                                      lower_lu, NULL};
const loom_lowering loom__lower_lu_solve = {LOOM_PLACE_ALONE, solve_inputs_in_memory,
                                            lower_solve, NULL};
