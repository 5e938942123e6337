/* A deterministic post-order walk: the same graph always gives the same order, so plans,
 * generated source and DOT ids are stable. */
#include "walk.h"

#include <stdlib.h>

bool loom__is_input(const loom_array *a)
{
    return a->buffer || a->op == LOOM_OP_HOST || a->op == LOOM_OP_DEVICE;
}

static int push_node(loom_walk *w, loom_array *a, int *cap)
{
    if (w->n == *cap) {
        int c = *cap ? *cap * 2 : 64;
        loom_walk_node *grown = loom__realloc(w->v, (size_t)c * sizeof *grown);
        if (!grown)
            return -1;
        w->v = grown;
        *cap = c;
    }
    w->v[w->n] = (loom_walk_node){.node = a, .group = -1, .buffer = -1};
    return loom__ptrmap_put(&w->index, a, w->n++);
}

int loom__walk_build(const char *fn, loom_walk *w, loom_array *const *arrays, int n)
{
    *w = (loom_walk){0};
    int cap = 0;
    struct frame {
        loom_array *a;
        int next;
    } *stack = NULL;
    int depth = 0, stack_cap = 0;
    if (loom__ptrmap_init(&w->index, 256))
        goto oom;
    for (int r = 0; r < n; r++) {
        if (loom__walk_at(w, arrays[r]) >= 0)
            continue;
        depth = 0;
        if (stack_cap == 0) {
            stack_cap = 64;
            stack = loom__malloc((size_t)stack_cap * sizeof *stack);
            if (!stack)
                goto oom;
        }
        stack[depth++] = (struct frame){arrays[r], 0};
        /* Mark on entry (-2) so shared inputs are pushed once. */
        if (loom__ptrmap_put(&w->index, arrays[r], -2))
            goto oom;
        while (depth) {
            struct frame *f = &stack[depth - 1];
            loom_array *a = f->a;
            int nin = loom__is_input(a) ? 0 : a->ninputs;
            if (f->next < nin) {
                loom_array *in = a->inputs[f->next++];
                if (loom__walk_at(w, in) != -1)
                    continue;
                if (loom__ptrmap_put(&w->index, in, -2))
                    goto oom;
                if (depth == stack_cap) {
                    stack_cap *= 2;
                    struct frame *grown = loom__realloc(stack, (size_t)stack_cap * sizeof *grown);
                    if (!grown)
                        goto oom;
                    stack = grown;
                }
                stack[depth++] = (struct frame){in, 0};
                continue;
            }
            depth--;
            if (push_node(w, a, &cap))
                goto oom;
        }
    }
    free(stack);
    for (int i = 0; i < w->n; i++) {
        loom_array *a = w->v[i].node;
        int nin = loom__is_input(a) ? 0 : a->ninputs;
        w->nedges += nin;
        for (int k = 0; k < nin; k++) {
            loom_walk_node *in = &w->v[loom__walk_at(w, a->inputs[k])];
            in->nconsumers++;
            if (a->op == LOOM_OP_VIEW)
                in->viewed = true;
        }
    }
    for (int r = 0; r < n; r++)
        w->v[loom__walk_at(w, arrays[r])].requested = true;
    w->roots = arrays;
    w->nroots = n;
    return 0;
oom:
    free(stack);
    loom__walk_free(w);
    loom__error(LOOM_ERR_OOM, fn, "out of host memory while planning");
    return -1;
}

void loom__walk_free(loom_walk *w)
{
    free(w->mark);
    free(w->op_of);
    free(w->local);
    free(w->list);
    if (!w->borrowed)
        free(w->v);
    loom__ptrmap_free(&w->index);
    *w = (loom_walk){0};
}
