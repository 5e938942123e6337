/* Where rolls are computed (docs/fusion.md, "Rolls"). A kernel evaluates the nodes a ROLL reads
 * at the rolled index, so each node it computes must be needed at one index only: a roll is
 * inlined into its consumers only when everything it computes inline is read by nothing else
 * (then no path reaches those nodes around the roll). Other rolls are written to memory by a
 * kernel of their own, which evaluates the whole input at the rolled index. Reduction, scan and
 * library kernels never compute a roll. */
#include "lower.h"

#include <stdlib.h>

/* Computed inside the kernel that reads it (not a value in memory, a parameter or a view). */
static bool inlined(const loom_walk_node *v)
{
    const loom_array *a = v->node;
    return !v->materialize && !loom__is_input(a) && a->op != LOOM_OP_SCALAR &&
           a->op != LOOM_OP_VIEW;
}

bool loom__inlines_roll(const loom_walk *w, int start, int *stack)
{
    int top = 0;
    stack[top++] = start;
    while (top) {
        int i = stack[--top];
        const loom_array *a = w->v[i].node;
        if (a->op == LOOM_OP_ROLL)
            return true;
        for (int k = 0; k < a->ninputs && !loom__is_input(a); k++) {
            int j = loom__walk_at(w, a->inputs[k]);
            if (inlined(&w->v[j]))
                stack[top++] = j; /* revisits are harmless for a yes/no question */
        }
    }
    return false;
}

/* Whether every node that roll r computes or reads inline is read only from there: count the
 * edges from r and the nodes it computes, and compare with each node's consumers. count is all
 * 0 on entry and left so; list and stack have room for every node. */
static bool roll_closed(const loom_walk *w, int r, int *count, int *list, int *stack)
{
    int top = 0, nlisted = 0;
    stack[top++] = r;
    while (top) {
        const loom_array *a = w->v[stack[--top]].node;
        for (int k = 0; k < a->ninputs; k++) {
            int j = loom__walk_at(w, a->inputs[k]);
            if (w->v[j].node->op == LOOM_OP_SCALAR)
                continue; /* a kernel argument, the same at every index */
            if (count[j]++ == 0) {
                list[nlisted++] = j;
                if (inlined(&w->v[j]))
                    stack[top++] = j;
            }
        }
    }
    bool closed = true;
    for (int t = 0; t < nlisted; t++) {
        closed = closed && count[list[t]] == w->v[list[t]].nconsumers;
        count[list[t]] = 0;
    }
    return closed;
}

void loom__rolls_read_by_others(loom_walk *w)
{
    for (int i = 0; i < w->n; i++) {
        const loom_array *a = w->v[i].node;
        loom_opkind kind = loom__ops[a->op].kind;
        if (loom__is_input(a) || kind == LOOM_OPK_EW || kind == LOOM_OPK_ROLL)
            continue;
        for (int k = 0; k < a->ninputs; k++) {
            loom_walk_node *in = &w->v[loom__walk_at(w, a->inputs[k])];
            if (in->node->op == LOOM_OP_ROLL && !loom__is_input(in->node))
                in->materialize = true;
        }
    }
}

void loom__roll_place(loom_walk *w, int i, int *scratch)
{
    loom_walk_node *v = &w->v[i];
    if (v->materialize)
        return;
    if (!scratch || !roll_closed(w, i, scratch, scratch + w->n, scratch + 2 * w->n))
        v->materialize = true;
}

void loom__reduction_input_without_roll(loom_walk *w, int i, int *scratch)
{
    loom_walk_node *in = &w->v[loom__walk_at(w, w->v[i].node->inputs[0])];
    if (!inlined(in))
        return;
    if (!scratch || loom__inlines_roll(w, loom__walk_at(w, in->node), scratch))
        in->materialize = true;
}
