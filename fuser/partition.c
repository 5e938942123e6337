/* Partitioning (docs/fusion.md): decide which values are written to memory, group them into
 * the steps that compute them, and assign buffers. What each op kind needs comes from the
 * lowering table (fuser/lower.h). */
#include "lower.h"

#include <stdlib.h>
#include <string.h>

loom_fuse_options loom__fuse_options_default(void)
{
    const char *env = getenv("LOOM_FUSE"), *lt = getenv("LOOM_LT_EPILOGUE"),
               *cb = getenv("LOOM_FFT_CALLBACKS"), *lb = getenv("LOOM_LINALG_BATCHED");
    loom_fuse_options o = {
        .fuse = !(env && strcmp(env, "0") == 0),
        .max_ops = 256,
        .max_inputs = 32,
        .chain_depth = 64,
        .lt_epilogue = lt && strcmp(lt, "1") == 0 ? 1 : lt && strcmp(lt, "0") == 0 ? 0 : -1,
        .fft_callbacks = cb && strcmp(cb, "1") == 0 ? 1 : cb && strcmp(cb, "0") == 0 ? 0 : -1,
        .linalg_loop = lb && strcmp(lb, "0") == 0,
    };
    return o;
}

/* What grouping knows of each group of materialised values (one or more steps). */
typedef struct group_info {
    const loom_lowering *lowering; /* its first value's */
    bool persistent, can_persist;
    const loom_array *dom; /* reductions: their input's shape, and the reduced axes */
    uint32_t mask;
    int nreductions;
    int first_step, last_step;
    bool rolls; /* an elementwise kernel computing a roll: it takes no other root */
} group_info;

static bool computed(const loom_array *a)
{
    return !loom__is_input(a) && a->op != LOOM_OP_SCALAR;
}

/* Elementwise inputs that are computed inline (not materialised) contribute their cost. */
static void inline_cost(loom_walk *w, loom_walk_node *v)
{
    loom_array *a = v->node;
    int self = v->lowering->placement == LOOM_PLACE_ELEMENTWISE ? 1 : 0, deepest = 0;
    v->ops = self;
    v->reads = 0;
    for (int k = 0; k < a->ninputs; k++) {
        loom_walk_node *in = &w->v[loom__walk_at(w, a->inputs[k])];
        if (loom__is_input(in->node) || in->materialize) {
            v->reads++;
            continue;
        }
        v->ops += in->ops;
        v->reads += in->reads;
        if (in->depth > deepest)
            deepest = in->depth;
    }
    v->depth = self + deepest;
}

/* Each node's lowering entry; with fusion on, an elementwise consumer that a library op's
 * call can compute itself (an epilogue) takes that op's lowering, and the op is absorbed. */
static void assign_lowerings(loom_walk *w, const loom_fuse_options *o)
{
    for (int i = 0; i < w->n; i++)
        w->v[i].lowering = loom__lowering(w->v[i].node);
    for (int i = 0; o->fuse && i < w->n; i++) {
        loom_array *a = w->v[i].node;
        if (w->v[i].lowering->placement != LOOM_PLACE_ELEMENTWISE)
            continue;
        for (int k = 0; k < a->ninputs; k++) {
            loom_walk_node *in = &w->v[loom__walk_at(w, a->inputs[k])];
            const loom_lowering *e = in->lowering->epilogue ? in->lowering->epilogue(w, i) : NULL;
            if (e) {
                w->v[i].lowering = e;
                in->lowering = &loom__lower_absorbed;
                break;
            }
        }
    }
}

/* Values read from memory by steps that cannot compute them inline (scans, library calls)
 * are materialised first; those steps' own values always are. */
static void alone_inputs_in_memory(loom_walk *w)
{
    for (int i = 0; i < w->n; i++) {
        const loom_lowering *l = w->v[i].lowering;
        if (l->placement == LOOM_PLACE_ALONE)
            w->v[i].materialize = true;
        if (l->inputs_in_memory)
            l->inputs_in_memory(w, i);
    }
}

static void decide(loom_walk *w, const loom_fuse_options *o, int *scratch)
{
    w->options = o;
    assign_lowerings(w, o);
    alone_inputs_in_memory(w);
    loom__rolls_read_by_others(w);
    for (int i = 0; i < w->n; i++) {
        loom_walk_node *v = &w->v[i];
        loom_array *a = v->node;
        v->group = -1;
        v->level = LOOM_LEVEL_NONE;
        loom_placement place = v->lowering->placement;
        if (place == LOOM_PLACE_INPUT)
            continue;
        if (a->op == LOOM_OP_SCALAR) {
            v->materialize = v->requested || v->materialize; /* a scan may read it */
            continue;
        }
        if (v->read_through && o->fuse)
            continue;
        bool ew = place == LOOM_PLACE_ELEMENTWISE;
        inline_cost(w, v);
        if (ew && (v->ops > o->max_ops || v->reads > o->max_inputs)) {
            /* Over budget: its computed inputs become kernel outputs of their own. */
            for (int k = 0; k < a->ninputs; k++) {
                loom_walk_node *in = &w->v[loom__walk_at(w, a->inputs[k])];
                if (computed(in->node) &&
                    in->lowering->placement == LOOM_PLACE_ELEMENTWISE)
                    in->materialize = true;
            }
            inline_cost(w, v);
        }
        if (v->requested || place == LOOM_PLACE_REDUCTION || place == LOOM_PLACE_ALONE ||
            (ew && v->viewed))
            v->materialize = true;
        else if (ew && !o->fuse)
            v->materialize = true;
        else if (ew && v->nconsumers > 1 && (v->ops > 30 || v->reads > 4))
            v->materialize = true;
        else if (ew && v->depth >= o->chain_depth)
            v->materialize = true; /* equal chunks of a long chain share one compiled kernel */
        if (a->op == LOOM_OP_ROLL)
            loom__roll_place(w, i, scratch);
        else if (place == LOOM_PLACE_REDUCTION)
            loom__reduction_input_without_roll(w, i, scratch);
        v->kernel_ops = v->ops;
        if (v->materialize)
            v->ops = v->reads = v->depth = 0;
    }
}

/* Marks in `mark` (== stamp) the nodes a root's kernel computes, and reports whether it reads
 * any value of group g through a view (then it cannot join g). */
static bool reads_group_through_view(const loom_walk *w, int root, int g, int *stack)
{
    int top = 0;
    stack[top++] = root;
    bool hit = false;
    /* Depth-first over inlined nodes; revisits are harmless for this yes/no question. */
    while (top && !hit) {
        const loom_walk_node *v = &w->v[stack[--top]];
        loom_array *a = v->node;
        for (int k = 0; k < a->ninputs && !loom__is_input(a); k++) {
            int j = loom__walk_at(w, a->inputs[k]);
            const loom_walk_node *in = &w->v[j];
            if (in->materialize || !computed(in->node)) {
                if (in->materialize && in->group == g && a->op == LOOM_OP_VIEW)
                    hit = true;
                continue;
            }
            stack[top++] = j;
        }
    }
    return hit;
}

static int add_buffer(loom_plan *p, loom_array *node, int walk_index, loom_buffer_role role)
{
    loom_plan_buffer *b = &p->buffers[p->nbuffers];
    *b = (loom_plan_buffer){.node = node, .role = role, .producer = -1, .last_use = -1,
                            .walk_index = walk_index};
    b->bytes = (size_t)node->size * loom_dtype_size((loom_dtype)node->dtype);
    return p->nbuffers++;
}

typedef struct {
    loom_plan *plan;
    int step;
} liveness_at;

static void keep_alive(void *ctx, int buffer)
{
    liveness_at *at = ctx;
    loom_plan *p = at->plan;
    if (buffer >= 0 && buffer < p->nbuffers && p->buffers[buffer].last_use < at->step)
        p->buffers[buffer].last_use = at->step;
}

/* A step may read a buffer the graph walk does not attribute to it: a kernel reading a view
 * loads the viewed node's buffer, not the view's own (a requested keepdims argmax has both).
 * So every buffer a step names lives at least until that step, whatever the walk found. */
static void extend_liveness_to_operands(loom_plan *p)
{
    for (int k = 0; k < p->nsteps; k++)
        loom__step_for_each_buffer(&p->steps[k], keep_alive, &(liveness_at){p, k});
}

static size_t arena_size(const loom_plan_buffer *b)
{
    const size_t align = 256;
    return (b->bytes + align - 1) / align * align;
}

/* Whether temporaries a and b are alive at one step. */
static bool live_together(const loom_plan_buffer *a, const loom_plan_buffer *b)
{
    return a->role == LOOM_BUF_TEMP && a->last_use >= b->producer && b->last_use >= a->producer;
}

/* Whether bytes [off, end) would meet a temporary placed before buffer i (but skip) that is
 * alive with it. */
static bool arena_conflict(const loom_plan *p, int i, int skip, size_t off, size_t end)
{
    for (int j = 0; j < i; j++) {
        const loom_plan_buffer *o = &p->buffers[j];
        if (j != skip && live_together(o, &p->buffers[i]) && off < o->arena_offset + arena_size(o) &&
            o->arena_offset < end)
            return true;
    }
    return false;
}

/* A SCATTER's temporary may take the bytes of its old version (input 0) when that is a
 * temporary of its size that nothing else reads and whose last reader is the scatter's kernel:
 * that kernel reads element t of the old version just before it writes element t of the new
 * one, in the same thread (docs/indexing.md, "Buffers"). takes[i]: that buffer, or -1. */
static void scatters_in_place(const loom_walk *w, const loom_plan *p, int *takes)
{
    for (int i = 0; i < p->nbuffers; i++)
        takes[i] = -1;
    for (int i = 0; i < w->n; i++) {
        const loom_walk_node *v = &w->v[i];
        /* an evaluated scatter is an input: its inputs are gone */
        if (v->node->op != LOOM_OP_SCATTER || v->buffer < 0 || loom__is_input(v->node) ||
            p->buffers[v->buffer].role != LOOM_BUF_TEMP)
            continue;
        const loom_plan_buffer *nb = &p->buffers[v->buffer];
        const loom_walk_node *old = &w->v[loom__walk_at(w, v->node->inputs[0])];
        const loom_plan_buffer *ob = old->buffer >= 0 ? &p->buffers[old->buffer] : NULL;
        if (nb->role == LOOM_BUF_TEMP && ob && ob->role == LOOM_BUF_TEMP && ob->bytes == nb->bytes &&
            old->nconsumers == 1 && !old->viewed && !old->requested &&
            old->node->op != LOOM_OP_VIEW && ob->last_use == nb->producer)
            takes[v->buffer] = old->buffer;
    }
}

/* Arena offsets from liveness: a temporary may reuse bytes whose last reader ran before its
 * producer (or, takes[i] >= 0, the bytes of the old version it updates), so the same plan
 * always gets the same layout. Every node's byte count fits int64 (record time checks it), but
 * temporaries alive together can still pass the address space. */
static int plan_arena(const char *fn, loom_plan *p, const int *takes)
{
    size_t total = 0;
    for (int i = 0; i < p->nbuffers; i++) {
        loom_plan_buffer *b = &p->buffers[i];
        if (b->role != LOOM_BUF_TEMP)
            continue;
        size_t size = arena_size(b), off = 0, end = size;
        if (takes[i] >= 0) {
            off = p->buffers[takes[i]].arena_offset;
            end = off + size;
            if (!arena_conflict(p, i, takes[i], off, end)) {
                b->arena_offset = off;
                p->temps_in_place++;
                total = end > total ? end : total;
                continue;
            }
            off = 0, end = size;
        }
        for (bool moved = true; moved;) {
            moved = false;
            for (int j = 0; j < i; j++) {
                loom_plan_buffer *o = &p->buffers[j];
                if (!live_together(o, b))
                    continue;
                size_t osize = arena_size(o);
                if (off < o->arena_offset + osize && o->arena_offset < end) {
                    off = o->arena_offset + osize;
                    moved = true;
                    if (!loom__size_add(off, size, &end)) {
                        loom__error(LOOM_ERR_OOM, fn,
                                    "out of memory: the plan's temporaries alive at once need "
                                    "more than %zu bytes",
                                    SIZE_MAX);
                        return -1;
                    }
                }
            }
        }
        b->arena_offset = off;
        if (end > total)
            total = end;
    }
    p->arena_bytes = total;
    return 0;
}

void loom__plan_free(loom_plan *p)
{
    if (!p)
        return;
    for (int i = 0; i < p->nsteps; i++) {
        loom_step *s = &p->steps[i];
        if (s->kind == LOOM_STEP_KERNEL) {
            free(s->kernel.source);
            free(s->kernel.summary);
            free(s->kernel.options);
            free(s->kernel.args);
            free(s->kernel.nodes);
        }
        free(s->summary);
        free(s->nodes);
    }
    free(p->steps);
    free(p->buffers);
    free(p->outputs);
    free(p->checks);
    free(p);
}

loom_plan *loom__plan_build(const char *fn, loom_array *const *arrays, int n,
                            const loom_fuse_options *opts)
{
    loom_walk w;
    if (loom__walk_build(fn, &w, arrays, n))
        return NULL;
    loom_plan *p = loom__plan_from_walk(fn, &w, opts);
    loom__walk_free(&w);
    return p;
}

loom_plan *loom__plan_from_walk(const char *fn, loom_walk *wp, const loom_fuse_options *opts)
{
    loom_walk w = *wp;
    bool ok = false;
    int *roll_scratch = loom__calloc((size_t)(3 * w.n + w.nedges + 1), sizeof *roll_scratch);
    decide(&w, opts, roll_scratch);
    free(roll_scratch);

    loom_plan *p = loom__calloc(1, sizeof *p);
    group_info *info = loom__calloc((size_t)w.n + 1, sizeof *info);
    unsigned char *read_outside = loom__calloc((size_t)w.n + 1, 1);
    int *seen = loom__calloc((size_t)w.n + 1, sizeof *seen);
    int *roots = loom__malloc((size_t)w.n * sizeof *roots);
    int *group_start = loom__malloc((size_t)(w.n + 1) * sizeof *group_start);
    int *stack = loom__malloc((size_t)(w.n + w.nedges + 1) * sizeof *stack);
    int *takes = NULL;
    if (p) {
        p->cap_buffers = w.n;
        p->buffers = loom__malloc((size_t)w.n * sizeof *p->buffers);
        p->outputs = loom__malloc((size_t)(w.nroots ? w.nroots : 1) * sizeof *p->outputs);
    }
    loom_plan_builder builder = {.plan = p, .device = w.n ? w.v[w.n - 1].node->device : 0,
                                 .opts = opts};
    if (!p || !info || !read_outside || !seen || !roots || !group_start || !stack || !p->buffers ||
        !p->outputs) {
        loom__error(LOOM_ERR_OOM, fn, "out of host memory while planning");
        goto done;
    }

    /* Groups: a requested root joins the latest elementwise kernel when it has the same shape,
     * reads none of that kernel's values through a view and fits its op budget; roots come in
     * topological order, so steps do too. Values materialised for any other reason (a view, a
     * cut chain, a budget) start their own kernel: joining would undo the cut. A reduction
     * starts a reduction kernel, which takes in what loom__reduction_join allows; scans and
     * library calls are groups of their own. */
    int nroots = 0, ngroups = 0;
    int group_ops = 0;
    bool group_requested = false; /* every root of the latest kernel was asked for */
    for (int i = 0; i < w.n; i++) {
        loom_walk_node *v = &w.v[i];
        if (!v->materialize || loom__is_input(v->node))
            continue;
        if (v->node->op == LOOM_OP_EMPTY)
            continue; /* allocated, never written */
        int g = ngroups - 1;
        const loom_lowering *low = v->lowering;
        bool reduce = low->placement == LOOM_PLACE_REDUCTION;
        bool alone = low->placement == LOOM_PLACE_ALONE;
        bool g_reduction = g >= 0 && info[g].lowering->placement == LOOM_PLACE_REDUCTION;
        bool g_alone = g >= 0 && info[g].lowering->placement == LOOM_PLACE_ALONE;
        bool join = false;
        bool rolls = !reduce && !alone && loom__inlines_roll(&w, i, stack);
        if (alone) {
            /* a group of its own */
        } else if (opts->fuse && g_reduction &&
            !(reduce && info[g].nreductions == LOOM_MAX_KERNEL_REDUCTIONS)) {
            bool persistent;
            int level = loom__reduction_join(&w, i, g, info[g].dom, info[g].mask, &persistent, stack, seen);
            if (level && persistent && !info[g].persistent)
                level = info[g].can_persist ? level : LOOM_LEVEL_NONE;
            if (level) {
                join = true;
                v->level = (int8_t)level;
                info[g].persistent |= persistent;
            }
        } else if (!reduce && g >= 0 && !g_reduction && !g_alone && !rolls && !info[g].rolls) {
            join = opts->fuse && v->requested && group_requested &&
                   group_ops + v->kernel_ops <= opts->max_ops;
            if (join) {
                loom_array *first = w.v[roots[group_start[g]]].node;
                join = first->ndim == v->node->ndim &&
                       memcmp(first->shape, v->node->shape, (size_t)first->ndim * sizeof(int64_t)) == 0 &&
                       !reads_group_through_view(&w, i, g, stack);
            }
        }
        if (!join) {
            g = ngroups++;
            group_start[g] = nroots;
            group_ops = 0;
            group_requested = true;
            info[g] = (group_info){.lowering = low, .rolls = rolls};
            if (reduce) {
                const loom_array *dom = v->node->inputs[0];
                info[g].dom = dom;
                info[g].mask = (uint32_t)v->node->param.reduce.axes;
                info[g].can_persist = loom__reduction_persistent_fits(dom, info[g].mask, 8);
                v->level = LOOM_LEVEL_ROW;
            }
        }
        info[g].nreductions += reduce;
        group_ops += v->kernel_ops;
        group_requested = group_requested && v->requested;
        v->group = g;
        roots[nroots++] = i;
    }
    group_start[ngroups] = nroots;

    /* Which materialised values another kernel reads: a reduction kernel's values stay in
     * registers unless something outside it needs them. */
    for (int g = 0; g < ngroups; g++) {
        for (int r = group_start[g]; r < group_start[g + 1]; r++) {
            int top = 0;
            stack[top++] = roots[r];
            while (top) {
                loom_array *a = w.v[stack[--top]].node;
                for (int k = 0; k < a->ninputs && !loom__is_input(a); k++) {
                    int j = loom__walk_at(&w, a->inputs[k]);
                    loom_walk_node *in = &w.v[j];
                    if (in->materialize && in->group != g)
                        read_outside[j] = 1;
                    else if (!in->materialize)
                        stack[top++] = j;
                }
            }
        }
    }

    /* Buffers: every input read, every value written to memory. A multi-output node keeps
     * its value (a buffer of its own), and its results are parts of it. */
    for (int i = 0; i < w.n; i++) {
        loom_walk_node *v = &w.v[i];
        loom_opkind kind = loom__ops[v->node->op].kind;
        if (loom__is_input(v->node)) {
            v->buffer = add_buffer(p, v->node, i, LOOM_BUF_INPUT);
        } else if (kind == LOOM_OPK_RESULT) {
            v->buffer = add_buffer(p, v->node, i, LOOM_BUF_ALIAS);
            p->buffers[v->buffer].alias_of = w.v[loom__walk_at(&w, v->node->inputs[0])].buffer;
            p->buffers[v->buffer].alias_offset = (size_t)v->node->param.result.byte_offset;
        } else if (v->materialize && (v->requested || read_outside[i] || v->group < 0 ||
                                      info[v->group].lowering->placement != LOOM_PLACE_REDUCTION)) {
            bool keep = v->requested || kind == LOOM_OPK_MULTI;
            v->buffer = add_buffer(p, v->node, i, keep ? LOOM_BUF_OUTPUT : LOOM_BUF_TEMP);
        }
    }

    /* Steps: each group lowers to one or more (a long reduction: partial results, then their
     * combination; a long scan: three kernels). */
    for (int g = 0; g < ngroups; g++) {
        info[g].first_step = p->nsteps;
        const int *gr = roots + group_start[g];
        int n = group_start[g + 1] - group_start[g];
        if (info[g].lowering->lower(fn, &builder, &w, gr, n, info[g].persistent))
            goto done;
        info[g].last_step = p->nsteps - 1;
    }

    /* Liveness for the arena: the producing step and the last reading step of each buffer,
     * conservatively over each group's steps. */
    for (int g = 0; g < ngroups; g++) {
        for (int r = group_start[g]; r < group_start[g + 1]; r++) {
            if (w.v[roots[r]].buffer >= 0)
                p->buffers[w.v[roots[r]].buffer].producer = info[g].first_step;
            int top = 0;
            stack[top++] = roots[r];
            while (top) {
                loom_walk_node *v = &w.v[stack[--top]];
                loom_array *a = v->node;
                for (int k = 0; k < a->ninputs && !loom__is_input(a); k++) {
                    int j = loom__walk_at(&w, a->inputs[k]);
                    loom_walk_node *in = &w.v[j];
                    if (in->buffer >= 0 && (in->group != g || loom__is_input(in->node))) {
                        if (p->buffers[in->buffer].last_use < info[g].last_step)
                            p->buffers[in->buffer].last_use = info[g].last_step;
                    } else if (!in->materialize) {
                        stack[top++] = j;
                    }
                }
            }
        }
    }
    extend_liveness_to_operands(p);
    takes = loom__malloc(((size_t)p->nbuffers + 1) * sizeof *takes);
    if (!takes) {
        loom__error(LOOM_ERR_OOM, fn, "out of host memory");
        goto done;
    }
    scatters_in_place(&w, p, takes);
    if (plan_arena(fn, p, takes))
        goto done;

    for (int r = 0; r < w.nroots; r++)
        p->outputs[r] = w.v[loom__walk_at(&w, w.roots[r])].buffer;
    p->noutputs = w.nroots;
    ok = true;
done:
    free(takes);
    free(info);
    free(read_outside);
    free(seen);
    free(roots);
    free(group_start);
    free(stack);
    *wp = w; /* hand back the scratch codegen attached, for loom__walk_free */
    if (!ok) {
        loom__plan_free(p);
        p = NULL;
    }
    return p;
}
