/* Lowering of QR nodes (graph/linalg_qr.c): the input (a's transpose, so column-major a) is
 * copied into the h part of the node's packed value, geqrf factors each matrix there in place
 * with tau beside it (stacks of small matrices: one geqrfBatched call), and when Q is wanted
 * orgqr/ungqr forms it from the reflectors in the Q part, one call per matrix (neither library
 * has a batched orgqr). Workspaces are part of the plan and every step is captured. */
#include "lower.h"

static int qr_step(const char *fn, loom_plan_builder *b, loom_lib_routine routine,
                   const loom_qr_args *args, int buffer, int info, const loom_array *m)
{
    int step = loom__plan_next_step(b);
    loom_libcall *l = loom__plan_library_step(b, fn, routine, (const int[]){buffer, info}, 2);
    if (!l)
        return -1;
    l->args.qr = *args;
    if (loom__plan_workspace(b, fn, l, step))
        return -1;
    return loom__step_describe(b, fn, step, routine == LOOM_LIB_CUSOLVER_GEQRF ? "qr: geqrf"
                                                                                : "qr: orgqr",
                               (const loom_array *const[]){m}, 1);
}

/* geqrfBatched over pointer arrays to each matrix's h and tau, written by two kernels. */
static int geqrf_batched(const char *fn, loom_plan_builder *b, const loom_qr_args *args,
                         int buffer, const loom_array *m)
{
    int64_t item = (int64_t)loom_dtype_size((loom_dtype)args->dtype);
    int call = loom__plan_next_step(b) + 2;
    int h = loom__plan_pointer_array(b, fn, buffer, args->h_at, args->m * args->n * item,
                                     args->batch, call);
    int tau = h < 0 ? -1
                    : loom__plan_pointer_array(b, fn, buffer, args->tau_at, args->k * item,
                                               args->batch, call);
    loom_libcall *l = tau < 0 ? NULL
                              : loom__plan_library_step(b, fn, LOOM_LIB_CUBLAS_GEQRF_BATCHED,
                                                        (const int[]){h, tau}, 2);
    if (!l)
        return -1;
    l->args.qr = *args;
    return loom__step_describe(b, fn, call, "qr: geqrfBatched", (const loom_array *const[]){m},
                               1);
}

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
    int64_t qcols = m->param.multi.qr.qcols;
    loom_qr_args args = {.dtype = a->dtype, .m = rows, .n = cols,
                         .k = rows < cols ? rows : cols, .qcols = qcols,
                         .batch = a->size / (rows * cols),
                         .h_at = (size_t)m->param.multi.offset[0],
                         .tau_at = (size_t)m->param.multi.offset[1],
                         .q_at = qcols ? (size_t)m->param.multi.offset[2] : 0};
    if (loom__lower_copy_in(b, fn, w, a, v->buffer, args.h_at))
        return -1;
    /* batched for stacks of small tall or square matrices (wide ones, m < n, loop) */
    bool many = cols <= rows &&
                loom__plan_linalg_batched(b, args.batch, rows, LOOM_GEQRF_BATCHED_MAX_N);
    if (many && geqrf_batched(fn, b, &args, v->buffer, m))
        return -1;
    /* the per-matrix calls' status word (parameter errors only) */
    int first = loom__plan_next_step(b), last = first + (qcols > 0) - many;
    if (last < first)
        return 0; /* batched geqrf, no Q */
    int info = loom__plan_scratch(b, fn, sizeof(int), first, last);
    if (info < 0 || (!many && qr_step(fn, b, LOOM_LIB_CUSOLVER_GEQRF, &args, v->buffer, info, m)))
        return -1;
    return qcols ? qr_step(fn, b, LOOM_LIB_CUSOLVER_ORGQR, &args, v->buffer, info, m) : 0;
}

const loom_lowering loom__lower_qr = {LOOM_PLACE_ALONE, loom__input_contiguous_in_memory, lower,
                                      NULL};
