/* CUDA source for one elementwise kernel: one SSA line per op, specialised on structure only
 * (ops, dtypes, collapsed rank, which operands are strided, index width, vector width).
 * Sizes, strides, offsets, pointers and scalar values are kernel arguments. */
#define _POSIX_C_SOURCE 200809L
#include "emit.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK 256

/* How the kernel obtains a value that it does not compute. */
typedef enum { SRC_NONE, SRC_LOAD, SRC_STRIDED, SRC_PARAM, SRC_GEN, SRC_GEN_STRIDED } src_kind;

typedef struct operand {
    int node;      /* walk index of the value (a VIEW node for strided accesses) */
    src_kind kind;
    int buffer;    /* plan buffer read, for loads */
    int64_t offset;/* element offset of a strided access (folded into the pointer) */
    int64_t strides[LOOM_MAXDIMS]; /* over the collapsed domain */
    int param;     /* first kernel argument of this operand */
    /* Read whole by a user kernel's raw parameter (its size is argument size_param), and
     * whether it is also read element by element. */
    bool raw, elem;
    int size_param;
    int space;     /* the index space it is read at (0: the kernel's own) */
} operand;

/* An index space: the index a roll reads its input at, derived from its consumer's space.
 * Space 0 is the kernel's own index (i, coordinates c<d>); space k > 0 has flat index f<k> and
 * coordinates s<k>_<d>. */
typedef struct space {
    int parent;
    int roll;   /* walk index of the ROLL node */
    int axis;   /* collapsed axis it rolls, -1 for the flat index */
    int shift_param, extent_param;
} space;

typedef struct ctx {
    const loom_walk *w;
    const loom_plan *plan;
    loom_kernel *k;
    int *mark;      /* per walk node: 1 if computed in this kernel */
    int *nodes;     /* computed nodes, topological order */
    int nnodes;
    operand *ops;   /* external values */
    int nops, cap_ops;
    int *op_of;     /* walk index -> operand index, -1 */
    int *local;     /* walk index -> SSA number in this kernel, so equal structures give
                       equal source wherever they sit in the graph */
    int nlisted;    /* nodes collect() marked, for resetting the scratch */
    int rank;       /* collapsed domain rank */
    int64_t dims[LOOM_MAXDIMS];
    int64_t n;
    bool strided;   /* some operand needs coordinates */
    bool idx32;
    int vec;
    loom_kargs args;
    /* mark[i] - 1 is the space a computed node is evaluated in */
    space *spaces;
    int nspaces, cap_spaces;
    bool space_conflict; /* a node needed at two indices: partitioning failed its rule */
} ctx;

/* The node an operand reads: a view's base, or the node itself. */
static const loom_array *source_of(const loom_array *a)
{
    return a->op == LOOM_OP_VIEW ? a->inputs[0] : a;
}

/* ---- collecting what the kernel computes and reads ---- */

/* Adds an operand; -1 when memory runs out (then c->args.params.failed is set). */
static int add_operand(ctx *c, int node, src_kind kind, int buffer)
{
    if (c->nops == c->cap_ops) {
        int cap = c->cap_ops ? c->cap_ops * 2 : 16;
        operand *grown = loom__realloc(c->ops, (size_t)cap * sizeof *grown);
        if (!grown) {
            c->args.params.failed = true;
            return -1;
        }
        c->ops = grown;
        c->cap_ops = cap;
    }
    int i = c->nops++;
    c->ops[i] = (operand){.node = node, .kind = kind, .buffer = buffer, .elem = true};
    c->op_of[node] = i;
    return i;
}

static int by_index(const void *a, const void *b)
{
    return *(const int *)a - *(const int *)b;
}

static bool is_buffered(const loom_walk_node *v, int group)
{
    return loom__is_input(v->node) || (v->materialize && v->group != group);
}

/* Classifies input j of a computed node, read at index space sp: computed here, or an
 * operand. */
static void classify_input(ctx *c, int j, int group, int sp)
{
    const loom_walk_node *in = &c->w->v[j];
    if (c->op_of[j] >= 0 && c->ops[c->op_of[j]].space != sp &&
        c->ops[c->op_of[j]].kind != SRC_PARAM)
        c->space_conflict = true;
    if (c->mark[j] || c->op_of[j] >= 0)
        return;
    int o = -1;
    if (in->node->op == LOOM_OP_SCALAR)
        o = add_operand(c, j, SRC_PARAM, -1);
    else if (is_buffered(in, group))
        o = add_operand(c, j, SRC_LOAD, in->buffer);
    if (o >= 0)
        c->ops[o].space = sp;
}

/* The space roll node i reads its input at, made on first use; -1 when memory runs out. */
static int space_below(ctx *c, int i, int parent)
{
    for (int k = 1; k < c->nspaces; k++)
        if (c->spaces[k].roll == i)
            return k;
    if (c->nspaces == c->cap_spaces) {
        int cap = c->cap_spaces ? c->cap_spaces * 2 : 4;
        space *grown = loom__realloc(c->spaces, (size_t)cap * sizeof *grown);
        if (!grown) {
            c->args.params.failed = true;
            return -1;
        }
        c->spaces = grown;
        c->cap_spaces = cap;
        if (c->nspaces == 0)
            c->spaces[c->nspaces++] = (space){.roll = -1};
    }
    c->spaces[c->nspaces] = (space){.parent = parent, .roll = i};
    return c->nspaces++;
}

/* The space node i's inputs are read at. */
static int input_space(ctx *c, int i)
{
    int sp = c->mark[i] - 1;
    return c->w->v[i].node->op == LOOM_OP_ROLL ? space_below(c, i, sp) : sp;
}

/* Operands that user kernels read through raw parameters: passed whole, and loaded per
 * element only if something else reads them so. */
static void mark_raw_operands(ctx *c)
{
    const loom_walk *w = c->w;
    for (int o = 0; o < c->nops; o++)
        c->ops[o].elem = false;
    for (int t = 0; t < c->nnodes; t++) {
        const loom_array *a = w->v[c->nodes[t]].node;
        if (!c->mark[c->nodes[t]] || loom__ops[a->op].kind == LOOM_OPK_GEN)
            continue;
        for (int k = 0; a->op != LOOM_OP_VIEW && k < a->ninputs; k++) {
            int o = c->op_of[loom__walk_at(w, a->inputs[k])];
            if (o < 0)
                continue;
            if (a->op == LOOM_OP_UKERNEL && loom__ukernel_input_is_raw(a, k))
                c->ops[o].raw = true;
            else
                c->ops[o].elem = true;
        }
    }
    for (int o = 0; o < c->nops; o++)
        c->ops[o].elem |= !c->ops[o].raw; /* roots stored from their operand */
}

static int collect(ctx *c, const int *roots, int nroots, int group)
{
    const loom_walk *w = c->w;
    /* c->nodes doubles as the stack: everything pushed stays listed, popped or not. */
    int *stack = c->nodes, top = 0;
    for (int r = 0; r < nroots; r++) {
        int next = top;
        stack[top++] = roots[r];
        c->mark[roots[r]] = 1;
        while (next < top) {
            int i = stack[next++];
            loom_array *a = w->v[i].node;
            if (a->op == LOOM_OP_VIEW)
                continue; /* its base is read through the view, never computed here */
            int sp = input_space(c, i);
            if (sp < 0)
                return -1;
            for (int k = 0; k < a->ninputs; k++) {
                int j = loom__walk_at(w, a->inputs[k]);
                const loom_walk_node *in = &w->v[j];
                if (c->mark[j] && c->mark[j] != sp + 1)
                    c->space_conflict = true;
                if (c->mark[j] || in->node->op == LOOM_OP_SCALAR || is_buffered(in, group) ||
                    in->materialize)
                    continue;
                c->mark[j] = sp + 1;
                stack[top++] = j;
            }
        }
    }
    /* Topological order is walk order. */
    qsort(stack, (size_t)top, sizeof *stack, by_index);
    c->nnodes = c->nlisted = top;
    /* Operands: values read but not computed here. Views become accesses. */
    for (int t = 0; t < c->nnodes; t++) {
        int i = c->nodes[t];
        loom_array *a = w->v[i].node;
        if (a->op == LOOM_OP_VIEW) {
            int b = loom__walk_at(w, a->inputs[0]);
            const loom_walk_node *base = &w->v[b];
            src_kind kind = base->node->op == LOOM_OP_SCALAR ? SRC_PARAM
                            : is_buffered(base, group) || base->materialize ? SRC_STRIDED
                                                                                : SRC_GEN_STRIDED;
            int o = add_operand(c, i, kind, kind == SRC_STRIDED ? base->buffer : -1);
            if (o < 0)
                return -1;
            c->ops[o].offset = a->offset;
            c->ops[o].space = c->mark[i] - 1;
            c->mark[i] = 0; /* a view is read, not computed */
            continue;
        }
        if (loom__ops[a->op].kind == LOOM_OPK_GEN || a->op == LOOM_OP_SCALAR)
            continue;
        int sp = input_space(c, i);
        if (sp < 0)
            return -1;
        for (int k = 0; k < a->ninputs; k++)
            classify_input(c, loom__walk_at(w, a->inputs[k]), group, sp);
    }
    mark_raw_operands(c);
    /* Roots that are views or inputs of others stay roots: store them from their operand. */
    int kept = 0;
    for (int t = 0; t < c->nnodes; t++)
        if (c->mark[c->nodes[t]] || w->v[c->nodes[t]].materialize)
            c->nodes[kept++] = c->nodes[t];
    c->nnodes = kept;
    return 0;
}

/* ---- collapsing dimensions jointly across operands ---- */

static void collapse(ctx *c, const loom_array *domain)
{
    const loom_walk *w = c->w;
    int r = 0;
    /* Axes a roll steps along keep their own coordinate: no merging with their neighbours. */
    bool rolled[LOOM_MAXDIMS] = {false}, keep[LOOM_MAXDIMS] = {false};
    int at[LOOM_MAXDIMS] = {0}, merged_at[LOOM_MAXDIMS] = {0};
    for (int k = 1; k < c->nspaces; k++) {
        const loom_array *roll = w->v[c->spaces[k].roll].node;
        if (roll->ndim != domain->ndim)
            c->space_conflict = true;
        else if (roll->param.roll.axis >= 0)
            rolled[roll->param.roll.axis] = true;
    }
    c->n = domain->size;
    for (int d = 0; d < domain->ndim; d++) {
        if (domain->shape[d] == 1)
            continue;
        at[d] = r;
        keep[r] = rolled[d];
        c->dims[r] = domain->shape[d];
        for (int o = 0; o < c->nops; o++) {
            operand *op = &c->ops[o];
            if (op->kind == SRC_STRIDED || op->kind == SRC_GEN_STRIDED)
                op->strides[r] = w->v[op->node].node->strides[d];
        }
        r++;
    }
    /* Merge d-1 and d when every strided operand steps through them as one dimension. */
    int out = 0;
    for (int d = 0; d < r; d++) {
        bool merge = out > 0 && !keep[d] && !(d > 0 && keep[d - 1]);
        merged_at[d] = merge ? out - 1 : out;
        for (int o = 0; o < c->nops && merge; o++) {
            operand *op = &c->ops[o];
            if (op->kind == SRC_STRIDED || op->kind == SRC_GEN_STRIDED)
                merge = op->strides[out - 1] == op->strides[d] * c->dims[d];
        }
        if (merge) {
            c->dims[out - 1] *= c->dims[d];
            for (int o = 0; o < c->nops; o++)
                c->ops[o].strides[out - 1] = c->ops[o].strides[d];
            continue;
        }
        c->dims[out] = c->dims[d];
        for (int o = 0; o < c->nops; o++)
            c->ops[o].strides[out] = c->ops[o].strides[d];
        out++;
    }
    c->rank = out;
    for (int k = 1; k < c->nspaces; k++) {
        const loom_array *roll = w->v[c->spaces[k].roll].node;
        int axis = (int)roll->param.roll.axis;
        c->spaces[k].axis = axis >= 0 && axis < domain->ndim ? merged_at[at[axis]] : -1;
    }
    /* A strided access that walks the domain in order is a plain load at an offset. */
    c->strided = c->nspaces > 1; /* rolled spaces need coordinates */
    for (int o = 0; o < c->nops; o++) {
        operand *op = &c->ops[o];
        bool flat = c->rank == 0 || (c->rank == 1 && op->strides[0] == 1);
        if (op->kind == SRC_STRIDED && flat)
            op->kind = SRC_LOAD;
        else if (op->kind == SRC_GEN_STRIDED && flat && op->offset == 0)
            op->kind = SRC_GEN;
        if (op->kind == SRC_STRIDED || op->kind == SRC_GEN_STRIDED)
            c->strided = true;
    }
    /* 32-bit index arithmetic when every index the kernel forms fits. */
    c->idx32 = c->n <= INT32_MAX;
    for (int o = 0; o < c->nops && c->idx32; o++) {
        operand *op = &c->ops[o];
        if (op->kind != SRC_STRIDED && op->kind != SRC_GEN_STRIDED)
            continue;
        int64_t reach = op->kind == SRC_GEN_STRIDED ? op->offset : 0;
        for (int d = 0; d < c->rank; d++) {
            int64_t s = op->strides[d] < 0 ? -op->strides[d] : op->strides[d];
            if (s && c->dims[d] - 1 > (INT32_MAX - reach) / s) {
                reach = INT64_MAX;
                break;
            }
            reach += s * (c->dims[d] - 1);
        }
        c->idx32 = reach <= INT32_MAX;
    }
}

/* 16-byte vectors when every operand is a plain load or computed from the flat index and
 * every address is aligned; otherwise one element per step. */
static void choose_vector(ctx *c, const int *roots, int nroots)
{
    const loom_walk *w = c->w;
    size_t widest = 1;
    c->vec = 1;
    if (c->strided)
        return;
    for (int r = 0; r < nroots; r++) {
        size_t es = loom_dtype_size((loom_dtype)w->v[roots[r]].node->dtype);
        widest = es > widest ? es : widest;
    }
    for (int o = 0; o < c->nops; o++) {
        if (c->ops[o].kind != SRC_LOAD)
            continue;
        size_t es = loom_dtype_size((loom_dtype)w->v[c->ops[o].node].node->dtype);
        widest = es > widest ? es : widest;
    }
    int vec = (int)(16 / widest);
    if (vec < 2)
        return;
    for (int o = 0; o < c->nops; o++)
        if (c->ops[o].raw)
            return; /* user code indexes it: one element per step */
    for (int o = 0; o < c->nops; o++) {
        operand *op = &c->ops[o];
        if (op->kind != SRC_LOAD)
            continue;
        loom_array *base = c->plan->buffers[op->buffer].node;
        size_t es = loom_dtype_size((loom_dtype)base->dtype);
        uintptr_t addr = base->buffer ? (uintptr_t)base->buffer->ptr : 0;
        if ((addr + (uintptr_t)op->offset * es) % (vec * es) != 0)
            return;
    }
    c->vec = vec;
}

/* ---- emitting source ---- */

static void emit_coords(ctx *c, loom_strbuf *sb, const char *i)
{
    if (!c->strided)
        return;
    loom__sb_printf(sb, "        idx_t rest = %s;\n", i);
    for (int d = c->rank - 1; d > 0; d--)
        loom__sb_printf(sb, "        const idx_t c%d = rest %% D%d; rest /= D%d;\n", d, d, d);
    loom__sb_printf(sb, "        const idx_t c0 = rest;\n");
}

/* The names of space sp's flat index and coordinate d. */
static const char *flat_name(int sp, char *buf, size_t n)
{
    if (sp == 0)
        return "i";
    snprintf(buf, n, "f%d", sp);
    return buf;
}

static const char *coord_name(int sp, int d, char *buf, size_t n)
{
    if (sp == 0)
        snprintf(buf, n, "c%d", d);
    else
        snprintf(buf, n, "s%d_%d", sp, d);
    return buf;
}

static void emit_strided_index(ctx *c, loom_strbuf *sb, const operand *op, int o)
{
    if (op->kind == SRC_GEN_STRIDED)
        loom__sb_printf(sb, "(idx_t)p%d", op->param);
    else
        loom__sb_printf(sb, "(idx_t)0");
    char name[32];
    for (int d = 0; d < c->rank; d++)
        loom__sb_printf(sb, " + %s * S%d_%d", coord_name(op->space, d, name, sizeof name), o, d);
}

/* The flat index and coordinates of every rolled space, each from its parent's: a roll along
 * an axis moves that coordinate, a flat roll the flat index. */
static void emit_spaces(ctx *c, loom_strbuf *sb)
{
    char p[32], q[32];
    for (int k = 1; k < c->nspaces; k++) {
        const space *sp = &c->spaces[k];
        if (sp->axis >= 0) {
            for (int d = 0; d < c->rank; d++) {
                const char *from = coord_name(sp->parent, d, p, sizeof p);
                if (d == sp->axis)
                    loom__sb_printf(sb, "        const idx_t s%d_%d = %s >= SH%d ? %s - SH%d : %s - SH%d + E%d;\n",
                                    k, d, from, k, from, k, from, k, k);
                else
                    loom__sb_printf(sb, "        const idx_t s%d_%d = %s;\n", k, d, from);
            }
            loom__sb_printf(sb, "        idx_t f%d = s%d_0;\n", k, k);
            for (int d = 1; d < c->rank; d++)
                loom__sb_printf(sb, "        f%d = f%d * D%d + s%d_%d;\n", k, k, d, k, d);
            continue;
        }
        const char *from = flat_name(sp->parent, q, sizeof q);
        loom__sb_printf(sb, "        const idx_t f%d = %s >= SH%d ? %s - SH%d : %s - SH%d + E%d;\n",
                        k, from, k, from, k, from, k, k);
        loom__sb_printf(sb, "        idx_t rest%d = f%d;\n", k, k);
        for (int d = c->rank - 1; d > 0; d--)
            loom__sb_printf(sb, "        const idx_t s%d_%d = rest%d %% D%d; rest%d /= D%d;\n", k, d, k,
                            d, k, d);
        loom__sb_printf(sb, "        const idx_t s%d_0 = rest%d;\n", k, k);
    }
}

/* A generator read at the kernel's own flat index: in a vector step, random generators get
 * the step and lane apart, so the lanes share their Philox blocks. */
static void emit_gen_here(ctx *c, loom_strbuf *sb, const loom_array *g, int param, bool vector,
                          int sp)
{
    char f[32];
    if (vector && loom__is_random(g->op))
        loom__emit_random(sb, g, param, "g", "j", c->vec);
    else
        loom__emit_gen(sb, g, param, flat_name(sp, f, sizeof f));
}

static void emit_value(ctx *c, loom_strbuf *sb, int i, bool vector)
{
    const loom_walk *w = c->w;
    const loom_array *a = w->v[i].node;
    const char *t = loom__ctype(a->dtype);
    loom__sb_printf(sb, "        const %s v%d = ", t, c->local[i]);
    if (a->op == LOOM_OP_SCALAR) {
        loom__sb_printf(sb, "loom_cast<%s>(p%d);\n", t, c->ops[c->op_of[i]].param);
        return;
    }
    if (loom__ops[a->op].kind == LOOM_OPK_GEN) {
        emit_gen_here(c, sb, a, c->ops[c->op_of[i]].param, vector, c->mark[i] - 1);
        loom__sb_printf(sb, ";\n");
        return;
    }
    if (a->op == LOOM_OP_ROLL) { /* its input, computed at the rolled index */
        loom__sb_printf(sb, "v%d;\n", c->local[loom__walk_at(w, a->inputs[0])]);
        return;
    }
    char in[LOOM_MAX_EW_INPUTS][80];
    const char *names[LOOM_MAX_EW_INPUTS];
    for (int k = 0; k < a->ninputs; k++) {
        int j = loom__walk_at(w, a->inputs[k]);
        if (a->op == LOOM_OP_UKERNEL && loom__ukernel_input_is_raw(a, k)) {
            const operand *op = &c->ops[c->op_of[j]];
            snprintf(in[k], sizeof in[k], "loom_raw<const %s>{p%d, p%d}",
                     loom__ctype(w->v[j].node->dtype), op->param, op->size_param);
        } else {
            snprintf(in[k], sizeof in[k], "v%d", c->local[j]);
        }
        names[k] = in[k];
    }
    if (a->op == LOOM_OP_UKERNEL)
        loom__emit_ukernel_call(sb, a, names, "i", "n");
    else
        loom__emit_ew_expr(sb, a, names);
    loom__sb_printf(sb, ";\n");
}

static void emit_needs(const ctx *c, loom_strbuf *sb)
{
    loom_needs n = {0};
    for (int s = 0; s < c->nnodes + c->nops; s++) {
        int i = s < c->nnodes ? c->nodes[s] : c->ops[s - c->nnodes].node;
        loom__needs_add_node(&n, c->w->v[i].node);
    }
    loom__emit_needs(sb, &n);
}

static void emit_ukernel_defs(const ctx *c, loom_strbuf *sb)
{
    const loom_array *local[64];
    const loom_array **nodes = c->nnodes <= 64 ? local : loom__malloc((size_t)c->nnodes * sizeof *nodes);
    if (!nodes) {
        sb->failed = true;
        return;
    }
    for (int t = 0; t < c->nnodes; t++)
        nodes[t] = c->w->v[c->nodes[t]].node;
    loom__emit_ukernel_defs(sb, nodes, c->nnodes);
    if (nodes != local)
        free(nodes);
}

/* Operand loads for element i (scalar path) or lane j of vector group g (vector path). */
static void emit_loads(ctx *c, loom_strbuf *sb, bool vector)
{
    const loom_walk *w = c->w;
    char name[32];
    for (int o = 0; o < c->nops; o++) {
        const operand *op = &c->ops[o];
        const loom_array *a = w->v[op->node].node;
        const char *t = loom__ctype(a->dtype);
        if (!op->elem)
            continue;
        switch (op->kind) {
        case SRC_LOAD:
            if (vector)
                loom__sb_printf(sb, "        const %s v%d = L%d.v[j];\n", t, c->local[op->node], o);
            else
                loom__sb_printf(sb, "        const %s v%d = p%d[%s];\n", t, c->local[op->node], op->param,
                                flat_name(op->space, name, sizeof name));
            break;
        case SRC_STRIDED:
            loom__sb_printf(sb, "        const %s v%d = p%d[", t, c->local[op->node], op->param);
            emit_strided_index(c, sb, op, o);
            loom__sb_printf(sb, "];\n");
            break;
        case SRC_PARAM:
            loom__sb_printf(sb, "        const %s v%d = loom_cast<%s>(p%d);\n", t, c->local[op->node], t, op->param);
            break;
        case SRC_GEN:
        case SRC_GEN_STRIDED: {
            const loom_array *g = source_of(a);
            loom__sb_printf(sb, "        const %s v%d = ", t, c->local[op->node]);
            if (op->kind == SRC_GEN) {
                emit_gen_here(c, sb, g, op->param, vector, op->space);
            } else {
                loom_strbuf f = {0};
                emit_strided_index(c, &f, op, o);
                char *fs = loom__sb_take(&f);
                loom__emit_gen(sb, g, op->param + 1, fs ? fs : "0");
                free(fs);
            }
            loom__sb_printf(sb, ";\n");
            break;
        }
        default:
            break;
        }
    }
}

static void emit_body(ctx *c, loom_strbuf *sb, const int *roots, int nroots, const int *out_param,
                      bool vector)
{
    emit_loads(c, sb, vector);
    for (int t = 0; t < c->nnodes; t++) {
        int i = c->nodes[t], o = c->op_of[i];
        if (o >= 0 && c->ops[o].kind != SRC_NONE)
            continue; /* read by emit_loads */
        emit_value(c, sb, i, vector);
    }
    for (int r = 0; r < nroots; r++) {
        if (vector)
            loom__sb_printf(sb, "        O%d.v[j] = v%d;\n", r, c->local[roots[r]]);
        else
            loom__sb_printf(sb, "        p%d[i] = v%d;\n", out_param[r], c->local[roots[r]]);
    }
}

int loom__codegen_elementwise(const char *fn, const loom_walk *w, const loom_plan *plan,
                              const int *roots, int nroots, loom_kernel *k)
{
    ctx c = {.w = w, .plan = plan, .k = k, .args = {.w = w, .k = k}};
    loom_walk *mw = (loom_walk *)w; /* only its scratch arrays change, and are restored */
    if (!mw->mark) {
        mw->mark = loom__calloc((size_t)w->n + 1, sizeof *mw->mark);
        mw->op_of = loom__malloc(((size_t)w->n + 1) * sizeof *mw->op_of);
        mw->local = loom__malloc(((size_t)w->n + 1) * sizeof *mw->local);
        mw->list = loom__malloc(((size_t)w->n + 1) * sizeof *mw->list);
        for (int i = 0; mw->op_of && i < w->n; i++)
            mw->op_of[i] = -1;
    }
    c.mark = mw->mark;
    c.op_of = mw->op_of;
    c.local = mw->local;
    c.nodes = mw->list;
    int *out_param = loom__malloc((size_t)nroots * sizeof *out_param);
    loom_strbuf sb = {0}, summary = {0};
    int rc = -1;
    if (!c.mark || !c.nodes || !c.op_of || !c.local || !out_param)
        goto done;
    if (collect(&c, roots, nroots, w->v[roots[0]].group) || c.args.params.failed)
        goto done;
    /* Roots that are plain operands (a requested view or scalar) are still stored. */
    const loom_array *domain = w->v[roots[0]].node;
    collapse(&c, domain);
    if (c.space_conflict) {
        rc = -2;
        goto done;
    }
    choose_vector(&c, roots, nroots);

    /* Arguments: outputs, operands, then sizes and strides. */
    for (int r = 0; r < nroots; r++) {
        const loom_walk_node *v = &w->v[roots[r]];
        out_param[r] = loom__arg_ptr(&c.args, v->buffer, v->node->dtype, true, 0);
        if (c.args.params.failed)
            goto done;
        k->args[out_param[r]].align = c.vec * (int)loom_dtype_size((loom_dtype)v->node->dtype);
    }
    for (int o = 0; o < c.nops; o++) {
        operand *op = &c.ops[o];
        const loom_array *a = w->v[op->node].node;
        size_t es = loom_dtype_size((loom_dtype)a->dtype);
        if (op->kind == SRC_LOAD || op->kind == SRC_STRIDED) {
            op->param = loom__arg_ptr(&c.args, op->buffer, a->dtype, false, (size_t)op->offset * es);
            if (c.args.params.failed)
                goto done;
            if (op->kind == SRC_LOAD)
                c.k->args[op->param].align = c.vec * (int)es;
            if (op->raw)
                op->size_param = loom__arg_i64(&c.args, a->size);
        } else if (op->kind == SRC_PARAM) {
            op->param = loom__arg_value(&c.args, source_of(a));
        } else if (op->kind == SRC_GEN) {
            op->param = loom__arg_gen(&c.args, source_of(a));
        } else if (op->kind == SRC_GEN_STRIDED) {
            /* the view's offset, then the generator's parameters */
            op->param = loom__arg_i64(&c.args, op->offset);
            loom__arg_gen(&c.args, source_of(a));
        }
    }
    /* Generators and scalars computed here (not through a view) need their parameters too. */
    for (int t = 0; t < c.nnodes; t++) {
        int i = c.nodes[t];
        const loom_array *a = w->v[i].node;
        if (c.op_of[i] >= 0)
            continue;
        if (a->op == LOOM_OP_SCALAR || loom__ops[a->op].kind == LOOM_OPK_GEN) {
            int o = add_operand(&c, i, SRC_NONE, -1);
            if (o < 0)
                goto done;
            c.ops[o].param = a->op == LOOM_OP_SCALAR ? loom__arg_value(&c.args, a) : loom__arg_gen(&c.args, a);
        }
    }
    int next = 0;
    for (int o = 0; o < c.nops; o++)
        c.local[c.ops[o].node] = next++;
    for (int t = 0; t < c.nnodes; t++)
        if (c.op_of[c.nodes[t]] < 0 || c.ops[c.op_of[c.nodes[t]]].kind == SRC_NONE)
            c.local[c.nodes[t]] = next++;
    int n_param = loom__arg_i64(&c.args, c.n);
    int dim_param = c.args.nargs;
    if (c.strided) {
        for (int d = 1; d < c.rank; d++)
            loom__arg_i64(&c.args, c.dims[d]);
        for (int o = 0; o < c.nops; o++) {
            operand *op = &c.ops[o];
            if (op->kind != SRC_STRIDED && op->kind != SRC_GEN_STRIDED)
                continue;
            for (int d = 0; d < c.rank; d++)
                loom__arg_i64(&c.args, op->strides[d]);
        }
    }
    for (int k = 1; k < c.nspaces; k++) {
        space *sp = &c.spaces[k];
        const loom_array *roll = w->v[sp->roll].node;
        sp->shift_param = loom__arg_param(&c.args, roll, LOOM_SRC_PARAM_I64, LOOM_PARAM(roll.shift));
        sp->extent_param = loom__arg_i64(&c.args, sp->axis >= 0 ? c.dims[sp->axis] : c.n);
    }

    /* Summary of fused ops, for the header comment, logs and DOT. */
    for (int t = 0; t < c.nnodes; t++) {
        const loom_array *a = w->v[c.nodes[t]].node;
        if (loom__ops[a->op].kind == LOOM_OPK_EW || a->op == LOOM_OP_ROLL)
            loom__sb_printf(&summary, "%s%s", summary.len ? " " : "", loom__op_label(a));
        if (a->op == LOOM_OP_UKERNEL && *loom__ukernel_options(a) && !k->options &&
            !(k->options = loom__strdup(loom__ukernel_options(a)))) /* a boundary: the only user kernel */
            goto done;
    }
    if (!summary.len)
        loom__sb_printf(&summary, "%s", "copy");

    char *params = loom__sb_take(&c.args.params);
    char *sum = loom__sb_take(&summary);
    if (!params || !sum) {
        free(params);
        free(sum);
        goto done;
    }
    loom__sb_printf(&sb, "// Loom elementwise kernel: %s\n", sum);
    loom__sb_printf(&sb, "// rank %d, %s indexing, %d element%s per step\n", c.rank,
                    c.idx32 ? "32-bit" : "64-bit", c.vec, c.vec > 1 ? "s" : "");
    emit_needs(&c, &sb);
    loom__sb_printf(&sb, "#include \"loom_device.cuh\"\n");
    emit_ukernel_defs(&c, &sb);
    loom__sb_printf(&sb, "template <class T, int N> struct alignas(sizeof(T) * N) loom_vec { T v[N]; };\n");
    loom__sb_printf(&sb, "extern \"C\" __global__ void __launch_bounds__(%d) @NAME@(\n%s)\n{\n", BLOCK, params);
    loom__sb_printf(&sb, "    typedef %s idx_t;\n", c.idx32 ? "int" : "long long");
    loom__sb_printf(&sb, "    const idx_t n = (idx_t)p%d;\n", n_param);
    if (c.strided) {
        int p = dim_param;
        for (int d = 1; d < c.rank; d++)
            loom__sb_printf(&sb, "    const idx_t D%d = (idx_t)p%d;\n", d, p++);
        for (int o = 0; o < c.nops; o++) {
            operand *op = &c.ops[o];
            if (op->kind != SRC_STRIDED && op->kind != SRC_GEN_STRIDED)
                continue;
            for (int d = 0; d < c.rank; d++)
                loom__sb_printf(&sb, "    const idx_t S%d_%d = (idx_t)p%d;\n", o, d, p++);
        }
    }
    for (int k = 1; k < c.nspaces; k++)
        loom__sb_printf(&sb, "    const idx_t SH%d = (idx_t)p%d, E%d = (idx_t)p%d;\n", k,
                        c.spaces[k].shift_param, k, c.spaces[k].extent_param);
    loom__sb_printf(&sb, "    const idx_t stride = (idx_t)gridDim.x * blockDim.x;\n");
    loom__sb_printf(&sb, "    idx_t start = (idx_t)blockIdx.x * blockDim.x + threadIdx.x;\n");
    if (c.vec > 1) {
        int V = c.vec;
        loom__sb_printf(&sb, "    for (idx_t g = start; g < n / %d; g += stride) {\n", V);
        for (int o = 0; o < c.nops; o++)
            if (c.ops[o].kind == SRC_LOAD)
                loom__sb_printf(&sb, "        const loom_vec<%s, %d> L%d = *(const loom_vec<%s, %d> *)(p%d + g * %d);\n",
                                loom__ctype(w->v[c.ops[o].node].node->dtype), V, o,
                                loom__ctype(w->v[c.ops[o].node].node->dtype), V, c.ops[o].param, V);
        for (int r = 0; r < nroots; r++)
            loom__sb_printf(&sb, "        loom_vec<%s, %d> O%d;\n", loom__ctype(w->v[roots[r]].node->dtype), V, r);
        loom__sb_printf(&sb, "#pragma unroll\n        for (int j = 0; j < %d; j++) {\n", V);
        loom__sb_printf(&sb, "        const idx_t i = g * %d + j;\n        (void)i;\n", V);
        emit_body(&c, &sb, roots, nroots, out_param, true);
        loom__sb_printf(&sb, "        }\n");
        for (int r = 0; r < nroots; r++)
            loom__sb_printf(&sb, "        *(loom_vec<%s, %d> *)(p%d + g * %d) = O%d;\n",
                            loom__ctype(w->v[roots[r]].node->dtype), V, out_param[r], V, r);
        loom__sb_printf(&sb, "    }\n    start += n / %d * %d;\n", V, V);
    }
    loom__sb_printf(&sb, "    for (idx_t i = start; i < n; i += stride) {\n");
    emit_coords(&c, &sb, "i");
    emit_spaces(&c, &sb);
    emit_body(&c, &sb, roots, nroots, out_param, false);
    loom__sb_printf(&sb, "    }\n}\n");
    free(params);

    char *src = loom__sb_take(&sb);
    if (!src) {
        free(sum);
        goto done;
    }
    if (loom__kernel_name_source(k, "loom_ew", src)) {
        free(sum);
        goto done;
    }
    k->kind = LOOM_KERNEL_ELEMENTWISE;
    k->summary = sum;
    k->nargs = c.args.nargs;
    k->work = c.vec > 1 ? (c.n / c.vec > 0 ? c.n / c.vec : c.n) : c.n;
    k->block = BLOCK;
    k->vec = c.vec;
    k->nodes = loom__malloc((size_t)(c.nnodes + c.nops + 1) * sizeof *k->nodes);
    if (k->nodes) {
        for (int t = 0; t < c.nnodes; t++)
            k->nodes[k->nnodes++] = w->v[c.nodes[t]].node;
        for (int o = 0; o < c.nops; o++)
            if (w->v[c.ops[o].node].node->op == LOOM_OP_VIEW)
                k->nodes[k->nnodes++] = w->v[c.ops[o].node].node;
    }
    rc = 0;
done:
    if (rc) {
        loom__sb_free(&sb);
        loom__sb_free(&summary);
        loom__sb_free(&c.args.params);
        if (rc == -2) /* a bug of partitioning, reported rather than computed wrong */
            loom__error(LOOM_ERR_INVALID, fn,
                        "internal error: a kernel needs a value at two different roll indices");
        else
            loom__error(LOOM_ERR_OOM, fn, "out of host memory while generating a kernel");
        rc = -1;
    }
    /* Leave the scratch as found: marks 0, operand and SSA maps -1. */
    for (int t = 0; c.mark && t < c.nlisted; t++)
        c.mark[c.nodes[t]] = 0;
    for (int o = 0; o < c.nops; o++)
        c.op_of[c.ops[o].node] = -1;
    free(c.ops);
    free(c.spaces);
    free(out_param);
    return rc;
}
