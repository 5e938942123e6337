/* Lowering of BINCOUNT nodes: one step (kernels/loom_bincount.cu) reading the bins, and the
 * weights when given, from memory; a weighted count takes scratch for the per-bin counts and
 * offsets, and CUB's temporary storage sized by its own query while planning. */
#include "lower.h"

static int lower(const char *fn, loom_plan_builder *b, const loom_walk *w, const int *roots,
                 int nroots, bool persistent)
{
    (void)nroots;
    (void)persistent;
    const loom_walk_node *v = &w->v[roots[0]];
    const loom_array *node = v->node;
    if (node->size == 0)
        return 0;
    bool weighted = node->ninputs == 2;
    int step = loom__plan_next_step(b);
    loom_step *s = loom__plan_step(b, fn, LOOM_STEP_LIBRARY);
    if (!s)
        return -1;
    loom_libcall *l = &s->lib;
    l->routine = LOOM_LIB_CUB_BINCOUNT;
    l->nbuffers = 0;
    for (int k = 0; k < node->ninputs; k++)
        l->buffer[l->nbuffers++] = w->v[loom__walk_at(w, node->inputs[k])].buffer;
    l->buffer[l->nbuffers++] = v->buffer;
    l->args.bincount = (loom_bincount_args){.n = node->inputs[0]->size, .len = node->size,
                                            .weighted = weighted};
    l->workspace = -1;
    if (weighted) {
        int scratch = loom__plan_scratch(b, fn, 2 * (size_t)(node->size + 1) * sizeof(int64_t),
                                         step, step);
        if (scratch < 0)
            return -1;
        l->buffer[l->nbuffers++] = scratch;
        if (loom__plan_workspace(b, fn, l, step))
            return -1;
    }
    return loom__step_describe(b, fn, step, "bincount", (const loom_array *const[]){node}, 1);
}

static void inputs_in_memory(loom_walk *w, int i)
{
    const loom_array *node = w->v[i].node;
    for (int k = 0; k < node->ninputs; k++)
        loom__contiguous_in_memory(w, node->inputs[k]);
}

const loom_lowering loom__lower_bincount = {LOOM_PLACE_ALONE, inputs_in_memory, lower, NULL};
