/* Lowering of FLATNONZERO nodes: one CUB select step (kernels/loom_select.cu) reading the mask
 * from memory. An exact node (its length is the count) or one at least as long as the mask
 * receives the positions straight into its buffer; a shorter sized node gets them in a scratch
 * buffer of the mask's length first, then the runner's padding pass copies what fits. */
#include "lower.h"

static int lower(const char *fn, loom_plan_builder *b, const loom_walk *w, const int *roots,
                 int nroots, bool persistent)
{
    (void)nroots;
    (void)persistent;
    const loom_walk_node *v = &w->v[roots[0]];
    const loom_array *node = v->node, *mask = node->inputs[0];
    if (node->size == 0)
        return 0;
    bool exact = node->op == LOOM_OP_FLATNONZERO;
    int step = loom__plan_next_step(b);
    int selected = v->buffer;
    if (!exact && node->size < mask->size &&
        (selected = loom__plan_scratch(b, fn, (size_t)mask->size * sizeof(int64_t), step,
                                       step)) < 0)
        return -1;
    int count = loom__plan_scratch(b, fn, sizeof(int64_t), step, step);
    loom_libcall *l =
        count < 0 ? NULL
                  : loom__plan_library_step(b, fn, LOOM_LIB_CUB_SELECT,
                                            (const int[]){w->v[loom__walk_at(w, mask)].buffer,
                                                          v->buffer, selected, count},
                                            4);
    if (!l)
        return -1;
    l->args.select = (loom_select_args){.n = mask->size, .out_len = node->size, .exact = exact};
    if (loom__plan_workspace(b, fn, l, step))
        return -1;
    return loom__step_describe(b, fn, step, "flatnonzero", (const loom_array *const[]){node}, 1);
}

static void inputs_in_memory(loom_walk *w, int i)
{
    loom__contiguous_in_memory(w, w->v[i].node->inputs[0]);
}

const loom_lowering loom__lower_select = {LOOM_PLACE_ALONE, inputs_in_memory, lower, NULL};
