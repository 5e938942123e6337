/* Which materialised values a reduction kernel takes in: sibling
 * reductions over the same domain and axes, elementwise consumers of the reduced shape (the
 * epilogue), and, when a row fits one block, values that read the kernel's row results back
 * at every element: f(x, reduce(x)) as one persistent kernel. */
#include "walk.h"

#include <string.h>

static bool same_shape(const loom_array *a, const loom_array *b)
{
    return a->ndim == b->ndim &&
           memcmp(a->shape, b->shape, (size_t)a->ndim * sizeof *a->shape) == 0;
}

/* v broadcasts a row value (shape of a reduction of dom over mask, with or without keepdims)
 * back over dom: stride 0 along the reduced axes, the row value's own layout along the rest. */
static bool is_row_broadcast(const loom_array *v, const loom_array *dom, uint32_t mask)
{
    if (!same_shape(v, dom) || v->offset != 0)
        return false;
    int64_t expect = 1;
    for (int k = dom->ndim - 1; k >= 0; k--) {
        if (dom->shape[k] == 1)
            continue;
        if (mask & (1u << k)) {
            if (v->strides[k] != 0)
                return false;
        } else {
            if (v->strides[k] != expect)
                return false;
            expect *= dom->shape[k];
        }
    }
    return true;
}

int loom__reduction_join(const loom_walk *w, int i, int g, const loom_array *dom, uint32_t mask,
                         bool *persistent, int *stack, int *seen)
{
    const loom_array *a = w->v[i].node;
    bool reduce = loom__ops[a->op].kind == LOOM_OPK_REDUCE;
    *persistent = false;
    if (reduce && (!same_shape(a->inputs[0], dom) || (uint32_t)a->param.reduce.axes != mask))
        return LOOM_LEVEL_NONE;
    if (!reduce && loom__ops[a->op].kind != LOOM_OPK_EW)
        return LOOM_LEVEL_NONE;
    bool row = false, elem = false, broadcast = false;
    int top = 0;
    if (reduce)
        stack[top++] = loom__walk_at(w, a->inputs[0]);
    else
        stack[top++] = i;
    while (top) {
        int j = stack[--top];
        if (seen[j] == i + 1)
            continue;
        seen[j] = i + 1;
        const loom_walk_node *v = &w->v[j];
        const loom_array *n = v->node;
        bool mine = v->materialize && v->group == g && !loom__is_input(n);
        if (j != i && mine) {
            row |= v->level == LOOM_LEVEL_ROW;
            elem |= v->level == LOOM_LEVEL_ELEM;
            continue;
        }
        if (loom__is_input(n) || (j != i && v->materialize))
            continue;
        if (n->op == LOOM_OP_ROLL)
            return LOOM_LEVEL_NONE; /* reduction kernels compute no rolls (fuser/roll.c) */
        if (n->op == LOOM_OP_VIEW) {
            const loom_walk_node *b = &w->v[loom__walk_at(w, n->inputs[0])];
            if (b->materialize && b->group == g && !loom__is_input(b->node)) {
                if (b->level != LOOM_LEVEL_ROW || !is_row_broadcast(n, dom, mask))
                    return LOOM_LEVEL_NONE;
                broadcast = true;
            }
            continue;
        }
        for (int k = 0; k < n->ninputs; k++)
            stack[top++] = loom__walk_at(w, n->inputs[k]);
    }
    if (reduce) {
        if (row)
            return LOOM_LEVEL_NONE;
        *persistent = elem || broadcast;
        return LOOM_LEVEL_ROW;
    }
    if (row && !elem && !broadcast)
        return LOOM_LEVEL_ROW; /* the epilogue */
    if (!row && (elem || broadcast) && same_shape(a, dom)) {
        *persistent = true;
        return LOOM_LEVEL_ELEM;
    }
    return LOOM_LEVEL_NONE;
}
