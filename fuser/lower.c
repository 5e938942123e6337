/* The lowering table: one entry per op kind, one per library op (fuser/lower.h). */
#include "lower.h"

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

static const loom_lowering input = {LOOM_PLACE_INPUT, NULL, NULL, NULL};
const loom_lowering loom__lower_absorbed = {LOOM_PLACE_FREE, NULL, NULL, NULL};
/* Materialised free nodes (a requested view, scalar or generator) are written by an
 * elementwise kernel. */
static const loom_lowering free_node = {LOOM_PLACE_FREE, NULL, lower_elementwise, NULL};
static const loom_lowering elementwise = {LOOM_PLACE_ELEMENTWISE, NULL, lower_elementwise, NULL};
static const loom_lowering reduction = {LOOM_PLACE_REDUCTION, NULL, lower_reduction, NULL};
static const loom_lowering scan = {LOOM_PLACE_ALONE, scan_input_in_memory, lower_scan, NULL};
static const loom_lowering result = {LOOM_PLACE_ALONE, multi_in_memory, lower_nothing, NULL};

static const loom_lowering *const by_kind[] = {
    [LOOM_OPK_LEAF] = &free_node, /* scalars; buffers and host copies are inputs */
    [LOOM_OPK_GEN] = &free_node,
    [LOOM_OPK_VIEW] = &free_node,
    [LOOM_OPK_EW] = &elementwise,
    [LOOM_OPK_REDUCE] = &reduction,
    [LOOM_OPK_SCAN] = &scan,
    [LOOM_OPK_RESULT] = &result,
    [LOOM_OPK_INDEX] = &loom__lower_index,
};

static const loom_lowering *const library_ops[LOOM_OP_COUNT] = {
    [LOOM_OP_MATMUL] = &loom__lower_matmul,
    [LOOM_OP_EIGH] = &loom__lower_eigh,
    [LOOM_OP_CHOLESKY] = &loom__lower_cholesky,
    [LOOM_OP_FFT] = &loom__lower_fft,
};

const loom_lowering *loom__lowering(const loom_array *a)
{
    if (loom__is_input(a))
        return &input;
    loom_opkind kind = loom__ops[a->op].kind;
    return kind == LOOM_OPK_LIBRARY || kind == LOOM_OPK_MULTI ? library_ops[a->op] : by_kind[kind];
}
