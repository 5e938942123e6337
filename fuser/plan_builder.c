/* Growing a plan during lowering (fuser/plan.h): steps and scratch buffers. */
#include "plan.h"

#include <stdlib.h>
#include <string.h>

const char *loom__kernel_kind_name(loom_kernel_kind k)
{
    static const char *names[] = {"elementwise", "reduction", "persistent", "scan", "raw"};
    return (unsigned)k < sizeof names / sizeof *names ? names[k] : "?";
}

void loom__step_for_each_buffer(const loom_step *s, void (*f)(void *ctx, int buffer), void *ctx)
{
    if (s->kind == LOOM_STEP_KERNEL) {
        for (int a = 0; a < s->kernel.nargs; a++)
            if (s->kernel.args[a].kind == LOOM_KARG_PTR)
                f(ctx, s->kernel.args[a].buffer);
    } else if (s->kind == LOOM_STEP_LIBRARY) {
        for (int b = 0; b < s->lib.nbuffers; b++)
            f(ctx, s->lib.buffer[b]);
        f(ctx, s->lib.workspace);
    } else if (s->kind == LOOM_STEP_COPY) {
        f(ctx, s->copy.src);
        f(ctx, s->copy.dst);
    }
}

const char *loom__step_kind_name(loom_step_kind k)
{
    static const char *names[] = {"kernel", "library", "copy", "host sync"};
    return (unsigned)k < sizeof names / sizeof *names ? names[k] : "?";
}

loom_step *loom__plan_step(loom_plan_builder *b, const char *fn, loom_step_kind kind)
{
    loom_plan *p = b->plan;
    if (p->nsteps == p->cap_steps) {
        int cap = p->cap_steps ? p->cap_steps * 2 : 8;
        loom_step *grown = loom__realloc(p->steps, (size_t)cap * sizeof *grown);
        if (!grown) {
            loom__error(LOOM_ERR_OOM, fn, "out of host memory while planning");
            return NULL;
        }
        p->steps = grown;
        p->cap_steps = cap;
    }
    loom_step *s = &p->steps[p->nsteps++];
    memset(s, 0, sizeof *s);
    s->kind = kind;
    s->device = b->device;
    return s;
}

loom_libcall *loom__plan_library_step(loom_plan_builder *b, const char *fn,
                                      loom_lib_routine routine, const int *buffers, int nbuffers)
{
    loom_step *s = loom__plan_step(b, fn, LOOM_STEP_LIBRARY);
    if (!s)
        return NULL;
    loom_libcall *l = &s->lib;
    l->routine = routine;
    l->nbuffers = nbuffers;
    memcpy(l->buffer, buffers, (size_t)nbuffers * sizeof *buffers);
    l->workspace = -1;
    return l;
}

int loom__plan_next_step(const loom_plan_builder *b)
{
    return b->plan->nsteps;
}

static int add_nodeless_buffer(loom_plan_builder *b, const char *fn, loom_plan_buffer nb)
{
    loom_plan *p = b->plan;
    if (p->nbuffers == p->cap_buffers) {
        int cap = p->cap_buffers * 2 + 8;
        loom_plan_buffer *grown = loom__realloc(p->buffers, (size_t)cap * sizeof *grown);
        if (!grown) {
            loom__error(LOOM_ERR_OOM, fn, "out of host memory while planning");
            return -1;
        }
        p->buffers = grown;
        p->cap_buffers = cap;
    }
    nb.walk_index = -1;
    p->buffers[p->nbuffers] = nb;
    return p->nbuffers++;
}

int loom__plan_scratch(loom_plan_builder *b, const char *fn, size_t bytes, int producer,
                       int last_use)
{
    return add_nodeless_buffer(b, fn, (loom_plan_buffer){.role = LOOM_BUF_TEMP, .bytes = bytes,
                                                         .producer = producer,
                                                         .last_use = last_use});
}

int loom__plan_check(loom_plan_builder *b, const char *fn, const char *user_fn,
                     loom_failure failure, int64_t count)
{
    loom_plan *p = b->plan;
    loom_plan_check *grown = loom__realloc(p->checks, (size_t)(p->nchecks + 1) * sizeof *grown);
    if (!grown) {
        loom__error(LOOM_ERR_OOM, fn, "out of host memory while planning");
        return -1;
    }
    p->checks = grown;
    int buf = add_nodeless_buffer(b, fn, (loom_plan_buffer){.role = LOOM_BUF_STATUS,
                                                            .bytes = (size_t)count * sizeof(int),
                                                            .producer = -1, .last_use = -1});
    if (buf < 0)
        return -1;
    p->checks[p->nchecks++] = (loom_plan_check){buf, count, user_fn, failure, 0, 0};
    return buf;
}

const char *loom__failure_message(loom_failure f)
{
    switch (f) {
    case LOOM_FAIL_SINGULAR:
        return "Singular matrix";
    case LOOM_FAIL_NOT_POSITIVE:
        return "Matrix is not positive definite";
    case LOOM_FAIL_SVD:
        return "SVD did not converge";
    case LOOM_FAIL_INDEX:
        return "index out of bounds";
    default:
        return "Eigenvalues did not converge";
    }
}

int loom__step_describe(loom_plan_builder *b, const char *fn, int step, const char *summary,
                        const loom_array *const *nodes, int nnodes)
{
    loom_step *s = &b->plan->steps[step];
    size_t len = strlen(summary) + 1;
    s->summary = loom__malloc(len);
    s->nodes = loom__malloc((size_t)nnodes * sizeof *s->nodes);
    if (!s->summary || !s->nodes) {
        loom__error(LOOM_ERR_OOM, fn, "out of host memory while planning");
        return -1;
    }
    memcpy(s->summary, summary, len);
    for (int i = 0; i < nnodes; i++)
        s->nodes[s->nnodes++] = (loom_array *)nodes[i];
    return 0;
}

int loom__step_nodes(const loom_step *s, loom_array *const **nodes)
{
    if (s->kind == LOOM_STEP_KERNEL) {
        *nodes = s->kernel.nodes;
        return s->kernel.nnodes;
    }
    *nodes = s->nodes;
    return s->nnodes;
}

const char *loom__step_label(const loom_step *s, char *buf, size_t n)
{
    switch (s->kind) {
    case LOOM_STEP_KERNEL:
        snprintf(buf, n, "%s (%s)", s->kernel.name, loom__kernel_kind_name(s->kernel.kind));
        break;
    case LOOM_STEP_LIBRARY:
        snprintf(buf, n, "library: %s", loom__lib_info(s->lib.routine)->name);
        break;
    default:
        snprintf(buf, n, "%s", loom__step_kind_name(s->kind));
        break;
    }
    return buf;
}

int loom__plan_workspace(loom_plan_builder *b, const char *fn, loom_libcall *l, int step)
{
    size_t bytes = 0;
    if (b->opts && b->opts->workspace_query) {
        int rc = b->opts->workspace_query(fn, l, b->device, &bytes);
        if (rc)
            return -1;
    }
    l->workspace_bytes = bytes;
    l->workspace = bytes ? loom__plan_scratch(b, fn, bytes, step, step) : -1;
    return bytes && l->workspace < 0 ? -1 : 0;
}

bool loom__plan_linalg_batched(const loom_plan_builder *b, int64_t batch, int64_t n,
                               int64_t max_n)
{
    return batch > 1 && n <= max_n && !(b->opts && b->opts->linalg_loop);
}
