/* Lowering of RAWKERNEL nodes (graph/ukernel_raw.c): each output argument's initial value is
 * copied into its result's part of the node's buffer, then the user's kernel is one kernel
 * step launched exactly as configured, on C-contiguous arguments in memory and scalars by
 * value. The step's source is the user's, compiled through the same caches with its options. */
#define _POSIX_C_SOURCE 200809L
#include "lower.h"

#include "../graph/ukernel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Array arguments are passed as pointers to C-contiguous memory. */
static void args_in_memory(loom_walk *w, int i)
{
    const loom_array *m = w->v[i].node;
    for (int k = 0; k < m->ninputs; k++)
        if (m->inputs[k]->op != LOOM_OP_SCALAR)
            loom__contiguous_in_memory(w, m->inputs[k]);
}

/* Which output argument p is (-1: an input only). */
static int output_of(const loom_array *m, int p)
{
    for (int j = 0; j < LOOM_MAX_RESULTS; j++)
        if (m->param.multi.raw.out_args[j] == p)
            return j;
    return -1;
}

static int copy_initial_values(const char *fn, loom_plan_builder *b, const loom_walk *w,
                               const loom_walk_node *v)
{
    const loom_array *m = v->node;
    for (int p = 0; p < m->ninputs; p++) {
        const int j = output_of(m, p);
        const loom_array *a = m->inputs[p];
        if (j < 0 || a->op == LOOM_OP_EMPTY || a->size == 0)
            continue; /* loom_empty: nothing to copy */
        loom_step *s = loom__plan_step(b, fn, LOOM_STEP_COPY);
        if (!s)
            return -1;
        s->copy = (loom_copy){.dst = v->buffer, .src = w->v[loom__walk_at(w, a)].buffer,
                              .dst_offset = (size_t)m->param.multi.offset[j],
                              .bytes = (size_t)a->size * loom_dtype_size((loom_dtype)a->dtype)};
    }
    return 0;
}

static int lower(const char *fn, loom_plan_builder *b, const loom_walk *w, const int *roots,
                 int nroots, bool persistent)
{
    (void)nroots;
    (void)persistent;
    const loom_walk_node *v = &w->v[roots[0]];
    const loom_array *m = v->node;
    const loom_raw_kernel *rk = m->param.multi.raw.kernel;
    if (copy_initial_values(fn, b, w, v))
        return -1;
    loom_step *s = loom__plan_step(b, fn, LOOM_STEP_KERNEL);
    if (!s)
        return -1;
    loom_kernel *k = &s->kernel;
    k->kind = LOOM_KERNEL_RAW;
    snprintf(k->name, sizeof k->name, "%s", rk->name);
    k->source = loom__strdup(rk->source);
    k->summary = loom__strdup(rk->name);
    k->options = *rk->options ? loom__strdup(rk->options) : NULL;
    k->args = loom__calloc((size_t)m->ninputs + 1, sizeof *k->args);
    k->nodes = loom__malloc(sizeof *k->nodes);
    if (!k->source || !k->summary || (*rk->options && !k->options) || !k->args || !k->nodes) {
        loom__error(LOOM_ERR_OOM, fn, "out of host memory");
        return -1;
    }
    k->nodes[k->nnodes++] = (loom_array *)m;
    k->nargs = m->ninputs;
    for (int p = 0; p < m->ninputs; p++) {
        const loom_array *a = m->inputs[p];
        loom_karg *arg = &k->args[p];
        const int j = output_of(m, p);
        if (j >= 0) {
            *arg = (loom_karg){.kind = LOOM_KARG_PTR, .buffer = v->buffer,
                               .byte_offset = (size_t)m->param.multi.offset[j]};
        } else if (a->op == LOOM_OP_SCALAR) {
            *arg = (loom_karg){.kind = LOOM_KARG_VALUE, .src = LOOM_SRC_VALUE_TYPED,
                               .src_node = loom__walk_at(w, a)};
            loom__karg_refill(arg, a);
        } else {
            *arg = (loom_karg){.kind = LOOM_KARG_PTR, .buffer = w->v[loom__walk_at(w, a)].buffer};
        }
    }
    k->work = 1;
    for (int d = 0; d < 3; d++)
        k->grid[d] = (unsigned)m->param.multi.raw.grid[d];
    k->block = (int)m->param.multi.raw.block[0];
    k->block_y = (unsigned)m->param.multi.raw.block[1];
    k->block_z = (unsigned)m->param.multi.raw.block[2];
    k->shared_mem = (unsigned)m->param.multi.raw.shared_mem;
    k->vec = 1;
    return 0;
}

const loom_lowering loom__lower_rawkernel = {LOOM_PLACE_ALONE, args_in_memory, lower, NULL};
