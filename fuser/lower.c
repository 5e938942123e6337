/* The lowering table: one entry per op kind, one per library op (fuser/lower.h). */
#include "lower.h"

#include "emit.h"

static int lower_elementwise(const char *fn, loom_plan_builder *b, const loom_walk *w,
                             const int *roots, int nroots, bool persistent)
{
    (void)persistent;
    loom_step *s = loom__plan_step(b, fn, LOOM_STEP_KERNEL);
    return s ? loom__codegen_elementwise(fn, w, b->plan, roots, nroots, &s->kernel) : -1;
}

static int lower_reduction(const char *fn, loom_plan_builder *b, const loom_walk *w,
                           const int *roots, int nroots, bool persistent)
{
    return loom__codegen_reduction(fn, w, b, roots, nroots, persistent);
}

static int lower_scan(const char *fn, loom_plan_builder *b, const loom_walk *w, const int *roots,
                      int nroots, bool persistent)
{
    (void)nroots;
    (void)persistent;
    return loom__codegen_scan(fn, w, b, roots[0]);
}

/* A scan reads its input from memory, through a view if need be: the viewed base, or the
 * input itself, is materialised. */
static void scan_input_in_memory(loom_walk *w, int i)
{
    loom_array *src = w->v[i].node->inputs[0];
    if (src->op == LOOM_OP_VIEW && !loom__is_input(src))
        src = src->inputs[0];
    if (!loom__is_input(src))
        w->v[loom__walk_at(w, src)].materialize = true;
}

/* A result of a multi-output node is part of that node's value: the node is computed into
 * memory, and the result costs no step. */
static void multi_in_memory(loom_walk *w, int i)
{
    loom_array *m = w->v[i].node->inputs[0];
    if (!loom__is_input(m))
        w->v[loom__walk_at(w, m)].materialize = true;
}

static int lower_nothing(const char *fn, loom_plan_builder *b, const loom_walk *w,
                         const int *roots, int nroots, bool persistent)
{
    (void)fn, (void)b, (void)w, (void)roots, (void)nroots, (void)persistent;
    return 0;
}

void loom__contiguous_in_memory(loom_walk *w, const loom_array *a)
{
    if (!loom__is_input(a))
        w->v[loom__walk_at(w, a)].materialize = true;
}

void loom__input_contiguous_in_memory(loom_walk *w, int i)
{
    loom__contiguous_in_memory(w, w->v[i].node->inputs[0]);
}

/* A user kernel's raw parameters read whole arrays, C-contiguous, from memory. With compile
 * options, every computed input is read from memory, so the options apply to the user's code
 * alone (--use_fast_math must not change Loom's ops). */
static void ukernel_inputs_in_memory(loom_walk *w, int i)
{
    const loom_array *a = w->v[i].node;
    const bool options = *loom__ukernel_options(a) != '\0';
    for (int k = 0; k < a->ninputs; k++) {
        const loom_array *in = a->inputs[k];
        if (loom__ukernel_input_is_raw(a, k)) {
            loom__contiguous_in_memory(w, in);
        } else if (options) {
            const loom_array *base = in->op == LOOM_OP_VIEW ? in->inputs[0] : in;
            if (base->op != LOOM_OP_SCALAR)
                loom__contiguous_in_memory(w, base);
        }
    }
}

int loom__lower_copy_in(loom_plan_builder *b, const char *fn, const loom_walk *w,
                        const loom_array *a, int dst, size_t dst_offset)
{
    loom_step *s = loom__plan_step(b, fn, LOOM_STEP_COPY);
    if (!s)
        return -1;
    s->copy = (loom_copy){.dst = dst, .src = w->v[loom__walk_at(w, a)].buffer,
                          .dst_offset = dst_offset,
                          .bytes = (size_t)a->size * loom_dtype_size((loom_dtype)a->dtype)};
    return 0;
}

int loom__lower_copy_to_scratch(loom_plan_builder *b, const char *fn, const loom_walk *w,
                                const loom_array *a)
{
    int copy = loom__plan_next_step(b);
    int work = loom__plan_scratch(b, fn, (size_t)a->size * loom_dtype_size((loom_dtype)a->dtype),
                                  copy, copy + 1);
    return work < 0 || loom__lower_copy_in(b, fn, w, a, work, 0) ? -1 : work;
}

static const loom_lowering input = {LOOM_PLACE_INPUT, NULL, NULL, NULL};
const loom_lowering loom__lower_absorbed = {LOOM_PLACE_FREE, NULL, NULL, NULL};
/* Materialised free nodes (a requested view, scalar or generator) are written by an
 * elementwise kernel. */
static const loom_lowering free_node = {LOOM_PLACE_FREE, NULL, lower_elementwise, NULL};
static const loom_lowering elementwise = {LOOM_PLACE_ELEMENTWISE, NULL, lower_elementwise, NULL};
static const loom_lowering reduction = {LOOM_PLACE_REDUCTION, NULL, lower_reduction, NULL};
static const loom_lowering scan = {LOOM_PLACE_ALONE, scan_input_in_memory, lower_scan, NULL};
static const loom_lowering result = {LOOM_PLACE_ALONE, multi_in_memory, lower_nothing, NULL};
/* User kernels that use the element index or raw parameters, or have compile options, end
 * their kernel: producers fuse into it, consumers read its value from memory. */
static const loom_lowering ukernel_boundary = {LOOM_PLACE_ALONE, ukernel_inputs_in_memory,
                                               lower_elementwise, NULL};

static const loom_lowering *const by_kind[] = {
    [LOOM_OPK_LEAF] = &free_node, /* scalars; buffers and host copies are inputs */
    [LOOM_OPK_GEN] = &free_node,
    [LOOM_OPK_VIEW] = &free_node,
    [LOOM_OPK_EW] = &elementwise,
    [LOOM_OPK_REDUCE] = &reduction,
    [LOOM_OPK_SCAN] = &scan,
    [LOOM_OPK_RESULT] = &result,
    [LOOM_OPK_ROLL] = &elementwise, /* a modular index map: read like a view (fuser/roll.c) */
    [LOOM_OPK_INDEX] = &loom__lower_index,
};

static const loom_lowering *const library_ops[LOOM_OP_COUNT] = {
    [LOOM_OP_MATMUL] = &loom__lower_matmul,
    [LOOM_OP_EIGH] = &loom__lower_eigh,
    [LOOM_OP_CHOLESKY] = &loom__lower_cholesky,
    [LOOM_OP_FFT] = &loom__lower_fft,
    [LOOM_OP_SORT] = &loom__lower_sort,
    [LOOM_OP_ARGSORT] = &loom__lower_sort,
    [LOOM_OP_RAWKERNEL] = &loom__lower_rawkernel,
    [LOOM_OP_CURAND] = &loom__lower_curand,
    [LOOM_OP_LU] = &loom__lower_lu,
    [LOOM_OP_LU_SOLVE] = &loom__lower_lu_solve,
    [LOOM_OP_SVD] = &loom__lower_svd,
    [LOOM_OP_QR] = &loom__lower_qr,
    [LOOM_OP_EIG] = &loom__lower_eig,
    [LOOM_OP_FLATNONZERO] = &loom__lower_select,
    [LOOM_OP_FLATNONZERO_SIZED] = &loom__lower_select,
    [LOOM_OP_BINCOUNT] = &loom__lower_bincount,
};

const loom_lowering *loom__lowering(const loom_array *a)
{
    if (loom__is_input(a))
        return &input;
    if (a->op == LOOM_OP_UKERNEL && loom__ukernel_is_boundary(a))
        return &ukernel_boundary;
    loom_opkind kind = loom__ops[a->op].kind;
    return kind == LOOM_OPK_LIBRARY || kind == LOOM_OPK_MULTI ? library_ops[a->op] : by_kind[kind];
}
