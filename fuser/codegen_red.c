/* CUDA source for reduction kernels. A reduction group computes
 * values at two levels of one domain, the reductions' input shape: element values (the
 * prologue: elementwise producers fused into the loads) and row values, once per output after
 * the combine (the reductions themselves and their elementwise epilogue). A persistent group
 * keeps a row's element values in registers across several reductions (softmax, layernorm).
 *
 * Geometry, fixed from sizes alone so the order of combination never depends on the device:
 * - rows (the innermost reduced dimension is the innermost one): a team of 32..256 threads
 *   per output, warp shuffles then shared memory;
 * - columns (an output dimension is innermost): 32 outputs per block, 8 threads down the
 *   reduced dimension each, combined in order through shared memory, so loads stay coalesced;
 * - few outputs with long reductions: the reduced range is split over blockIdx.y into
 *   partial results and a second kernel combines them (never one block for millions);
 * - persistent: one block per row, each thread holding ITEMS elements of every value. */
#include "emit.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK 256
#define TARGET_BLOCKS 1056 /* enough blocks to fill any current GPU several times over */
#define PERSIST_ITEMS 16   /* elements of each value a thread may hold in registers */

enum { NEED_E = 1, NEED_W = 2 };
typedef enum { K_COMPUTED = 0, K_LOAD, K_PARAM, K_GEN, K_RB } leaf_kind;
typedef enum { MODE_FULL, MODE_PARTIAL, MODE_COMBINE } red_mode;

typedef struct rctx {
    const char *fn; /* the public function evaluating, for errors */
    const loom_walk *w;
    const loom_plan *plan;
    int group;
    const loom_array *dom; /* a node with the domain's shape: the first reduction's input */
    uint32_t mask;
    unsigned char *need, *doneE, *doneW;
    signed char *kind;
    int *slot;       /* strided operand slot of a LOAD/GEN node, -1 */
    int *param;      /* kernel argument of a leaf */
    int *depE, *depW;/* the latest stage whose reductions a value needs (-1: none) */
    int nslots;
    int64_t (*sstr)[LOOM_MAXDIMS]; /* per slot: strides over the domain, then collapsed */
    int64_t *soff;
    int rank;
    int64_t ext[LOOM_MAXDIMS];
    bool red[LOOM_MAXDIMS];
    int64_t K, R;  /* outputs, reduced elements per output */
    bool column;   /* an output dimension is innermost */
    bool idx32;
    int *reds, nreds, nstages;
    int *stage;    /* per reduction (index into reds) */
    loom_kargs args;
} rctx;

static bool in_group(const rctx *c, int i)
{
    const loom_walk_node *v = &c->w->v[i];
    return v->materialize && v->group == c->group && !loom__is_input(v->node);
}

static bool buffered(const rctx *c, int i)
{
    const loom_walk_node *v = &c->w->v[i];
    return loom__is_input(v->node) || (v->materialize && v->group != c->group);
}

/* ---- what the group computes and reads ---- */

static void mark_needs(rctx *c, const int *roots, int nroots)
{
    const loom_walk *w = c->w;
    int top = 0;
    for (int r = 0; r < nroots; r++) {
        int i = roots[r];
        c->need[i] |= loom__ops[w->v[i].node->op].kind == LOOM_OPK_REDUCE ||
                              w->v[i].level == LOOM_LEVEL_ROW
                          ? NEED_W
                          : NEED_E;
        top = i > top ? i : top;
    }
    for (int i = top; i >= 0; i--) {
        if (!c->need[i])
            continue;
        const loom_array *a = w->v[i].node;
        bool root = in_group(c, i);
        c->kind[i] = K_COMPUTED;
        if (a->op == LOOM_OP_SCALAR) {
            c->kind[i] = K_PARAM;
        } else if (!root && buffered(c, i)) {
            c->kind[i] = K_LOAD;
        } else if (a->op == LOOM_OP_VIEW) {
            int b = loom__walk_at(w, a->inputs[0]);
            const loom_array *base = w->v[b].node;
            if (in_group(c, b)) {
                c->kind[i] = K_RB;
                c->need[b] |= NEED_W;
            } else {
                c->kind[i] = base->op == LOOM_OP_SCALAR ? K_PARAM : buffered(c, b) ? K_LOAD : K_GEN;
            }
        } else if (loom__ops[a->op].kind == LOOM_OPK_GEN) {
            c->kind[i] = K_GEN;
        } else if (loom__ops[a->op].kind == LOOM_OPK_REDUCE) {
            c->need[loom__walk_at(w, a->inputs[0])] |= NEED_E;
        } else {
            for (int k = 0; k < a->ninputs; k++)
                c->need[loom__walk_at(w, a->inputs[k])] |= c->need[i];
        }
    }
}

/* Strides of leaf node i's access over the domain's axes: its own where it has the domain's
 * shape; a row-shaped value (a reduction's shape, with or without keepdims) steps only along
 * the kept axes. */
static void map_strides(const rctx *c, const loom_array *a, int64_t *out)
{
    const loom_array *d = c->dom;
    bool same = a->ndim == d->ndim;
    for (int k = 0; same && k < d->ndim; k++)
        same = a->shape[k] == d->shape[k];
    for (int k = 0, j = 0; k < d->ndim; k++) {
        bool reduced = c->mask & (1u << k);
        if (same) {
            out[k] = a->strides[k];
        } else if (a->ndim == d->ndim) {
            out[k] = reduced ? 0 : a->strides[k];
        } else {
            out[k] = reduced ? 0 : a->strides[j];
            j += !reduced;
        }
    }
}

static void setup_slots(rctx *c)
{
    const loom_walk *w = c->w;
    for (int i = 0; i < w->n; i++) {
        if (!c->need[i] || (c->kind[i] != K_LOAD && c->kind[i] != K_GEN))
            continue;
        const loom_array *a = w->v[i].node;
        int s = c->nslots++;
        c->slot[i] = s;
        /* A view's strides and offset index its base; a plain node's strides are its own. */
        map_strides(c, a, c->sstr[s]);
        c->soff[s] = a->op == LOOM_OP_VIEW ? a->offset : 0;
    }
}

/* Drops extent-1 axes and merges neighbours of the same kind (kept or reduced) that every
 * access steps through as one. */
static void collapse(rctx *c)
{
    const loom_array *d = c->dom;
    int r = 0;
    c->K = c->R = 1;
    for (int k = 0; k < d->ndim; k++) {
        bool reduced = c->mask & (1u << k);
        if (reduced)
            c->R *= d->shape[k];
        else
            c->K *= d->shape[k];
        if (d->shape[k] == 1)
            continue;
        bool merge = r > 0 && c->red[r - 1] == reduced;
        for (int s = 0; s < c->nslots && merge; s++)
            merge = c->sstr[s][r - 1] == c->sstr[s][k] * d->shape[k];
        if (merge) {
            c->ext[r - 1] *= d->shape[k];
            for (int s = 0; s < c->nslots; s++)
                c->sstr[s][r - 1] = c->sstr[s][k];
            continue;
        }
        c->ext[r] = d->shape[k];
        c->red[r] = reduced;
        for (int s = 0; s < c->nslots; s++)
            c->sstr[s][r] = c->sstr[s][k];
        r++;
    }
    c->rank = r;
    c->column = r > 0 && !c->red[r - 1];
    /* Margin below INT32_MAX: loop indices step past the end by up to a block. */
    c->idx32 = d->size <= INT32_MAX - 65536;
    for (int s = 0; s < c->nslots && c->idx32; s++) {
        int64_t reach = c->soff[s] + 65536;
        for (int k = 0; k < r; k++) {
            int64_t st = c->sstr[s][k] < 0 ? -c->sstr[s][k] : c->sstr[s][k];
            if (st && c->ext[k] - 1 > (INT32_MAX - reach) / st) {
                reach = INT64_MAX;
                break;
            }
            reach += st * (c->ext[k] - 1);
        }
        c->idx32 = reach <= INT32_MAX;
    }
}

/* Stages: a reduction whose elements need an earlier reduction's row value runs after it. */
static void assign_stages(rctx *c)
{
    const loom_walk *w = c->w;
    c->nstages = 0;
    for (int i = 0; i < w->n; i++) {
        c->depE[i] = c->depW[i] = -1;
        if (!c->need[i])
            continue;
        const loom_array *a = w->v[i].node;
        if (c->kind[i] == K_RB) {
            c->depE[i] = c->depW[loom__walk_at(w, a->inputs[0])];
        } else if (c->kind[i] != K_COMPUTED) {
            continue;
        } else if (loom__ops[a->op].kind == LOOM_OPK_REDUCE) {
            int st = c->depE[loom__walk_at(w, a->inputs[0])] + 1;
            c->depW[i] = st;
            c->stage[c->nreds] = st;
            c->reds[c->nreds++] = i;
            c->nstages = st + 1 > c->nstages ? st + 1 : c->nstages;
        } else {
            for (int k = 0; k < a->ninputs; k++) {
                int j = loom__walk_at(w, a->inputs[k]);
                c->depE[i] = c->depE[j] > c->depE[i] ? c->depE[j] : c->depE[i];
                c->depW[i] = c->depW[j] > c->depW[i] ? c->depW[j] : c->depW[i];
            }
        }
    }
}

/* ---- per-reduction pieces of source ---- */

static bool is_arg(int op)
{
    return op == LOOM_OP_ARGMAX || op == LOOM_OP_ARGMIN || op == LOOM_OP_NANARGMAX ||
           op == LOOM_OP_NANARGMIN;
}

/* A user reduction without an identity: its accumulator is a loom_maybe. */
static bool is_maybe(const loom_array *a)
{
    return !loom__ureduce_has_identity(a);
}

/* The accumulator's C++ type. */
static void acc_type(const rctx *c, int i, char *buf, size_t n)
{
    const loom_array *a = c->w->v[i].node;
    if (is_arg(a->op))
        snprintf(buf, n, "loom_argacc<%s>", loom__ctype(a->inputs[0]->dtype));
    else if (is_maybe(a))
        snprintf(buf, n, "loom_maybe<%s>", loom__ctype(a->cdtype));
    else if (a->op == LOOM_OP_ANY || a->op == LOOM_OP_ALL)
        snprintf(buf, n, "lt_bool");
    else
        snprintf(buf, n, "%s", loom__ctype(a->cdtype));
}

static size_t acc_bytes(const rctx *c, int i)
{
    const loom_array *a = c->w->v[i].node;
    if (a->op == LOOM_OP_ANY || a->op == LOOM_OP_ALL)
        return 1;
    if (is_maybe(a)) /* the value, then an int: at most 16 bytes of padding */
        return (loom_dtype_size((loom_dtype)a->cdtype) + 8 + 15) / 16 * 16;
    if (!is_arg(a->op))
        return loom_dtype_size((loom_dtype)a->cdtype);
    size_t vs = loom_dtype_size((loom_dtype)a->inputs[0]->dtype);
    size_t align = a->inputs[0]->dtype == LOOM_COMPLEX128 ? 16 : 8;
    size_t at = (vs + 7) / 8 * 8 + 8;
    return (at + align - 1) / align * align;
}

static void emit_functor(const rctx *c, loom_strbuf *sb, int r)
{
    const loom_array *a = c->w->v[c->reds[r]].node;
    char A[64];
    acc_type(c, c->reds[r], A, sizeof A);
    const char *T = loom__ctype(a->inputs[0]->dtype), *body = NULL, *id = NULL;
    char buf[128], idbuf[64];
    switch (a->op) {
    case LOOM_OP_UREDUCE:
        loom__ureduce_functor(a, buf, sizeof buf, idbuf, sizeof idbuf);
        body = buf;
        id = idbuf;
        break;
    case LOOM_OP_SUM: body = "loom_add(a, b)"; id = "loom_cast<A>(0)"; break;
    case LOOM_OP_PROD: body = "loom_multiply(a, b)"; id = "loom_cast<A>(1)"; break;
    case LOOM_OP_MAX: body = "loom_maximum(a, b)"; id = "loom_red_lowest<A>()"; break;
    case LOOM_OP_MIN: body = "loom_minimum(a, b)"; id = "loom_red_highest<A>()"; break;
    case LOOM_OP_NANMAX: body = "loom_fmax(a, b)"; id = "loom_red_nan<A>()"; break;
    case LOOM_OP_NANMIN: body = "loom_fmin(a, b)"; id = "loom_red_nan<A>()"; break;
    case LOOM_OP_ANY: body = "a || b"; id = "false"; break;
    case LOOM_OP_ALL: body = "a && b"; id = "true"; break;
    default: {
        bool max = a->op == LOOM_OP_ARGMAX || a->op == LOOM_OP_NANARGMAX;
        bool skip = a->op == LOOM_OP_NANARGMAX || a->op == LOOM_OP_NANARGMIN;
        snprintf(buf, sizeof buf, "loom_red_arg<%s, %s>(a, b)", max ? "true" : "false",
                 skip ? "true" : "false");
        body = buf;
        id = "loom_argacc_none<T>()";
        break;
    }
    }
    loom__sb_printf(sb, "struct F%d {\n    typedef %s A;\n    typedef %s T;\n", r, A, T);
    loom__sb_printf(sb, "    static LOOM__D A identity() { return %s; }\n", id);
    loom__sb_printf(sb, "    LOOM__D A operator()(A a, A b) const { return %s; }\n};\n", body);
}

/* ---- values ---- */

static void ename(char *buf, size_t n, int i, bool persistent)
{
    snprintf(buf, n, persistent ? "e%d[t]" : "e%d", i);
}

static void emit_index(const rctx *c, loom_strbuf *sb, int s, bool elem)
{
    loom__sb_printf(sb, "(kb%d", s);
    if (elem)
        for (int k = 0; k < c->rank; k++)
            if (c->red[k])
                loom__sb_printf(sb, " + rc%d * S%d_%d", k, s, k);
    loom__sb_printf(sb, ")");
}

/* The expression of leaf i at an element (elem) or at the row. */
static void emit_leaf(const rctx *c, loom_strbuf *sb, int i, bool elem)
{
    const loom_array *a = c->w->v[i].node;
    const char *t = loom__ctype(a->dtype);
    switch (c->kind[i]) {
    case K_PARAM:
        loom__sb_printf(sb, "loom_cast<%s>(p%d)", t, c->param[i]);
        break;
    case K_LOAD:
        loom__sb_printf(sb, "p%d[", c->param[i]);
        emit_index(c, sb, c->slot[i], elem);
        loom__sb_printf(sb, "]");
        break;
    case K_GEN: {
        loom_strbuf f = {0};
        emit_index(c, &f, c->slot[i], elem);
        char *fs = loom__sb_take(&f);
        loom__emit_gen(sb, a->op == LOOM_OP_VIEW ? a->inputs[0] : a, c->param[i], fs ? fs : "0");
        free(fs);
        break;
    }
    case K_RB:
        loom__sb_printf(sb, "w%d", loom__walk_at(c->w, a->inputs[0]));
        break;
    default:
        break;
    }
}

static void emit_e(rctx *c, loom_strbuf *sb, int i, bool persistent)
{
    if (c->doneE[i])
        return;
    const loom_array *a = c->w->v[i].node;
    char names[LOOM_MAX_EW_INPUTS][32], self[32];
    const char *in[LOOM_MAX_EW_INPUTS];
    if (c->kind[i] == K_COMPUTED)
        for (int k = 0; k < a->ninputs; k++) {
            int j = loom__walk_at(c->w, a->inputs[k]);
            emit_e(c, sb, j, persistent);
            ename(names[k], sizeof names[k], j, persistent);
            in[k] = names[k];
        }
    ename(self, sizeof self, i, persistent);
    if (persistent)
        loom__sb_printf(sb, "            %s = ", self);
    else
        loom__sb_printf(sb, "            const %s %s = ", loom__ctype(a->dtype), self);
    if (c->kind[i] == K_COMPUTED)
        loom__emit_ew_expr(sb, a, in);
    else
        emit_leaf(c, sb, i, true);
    loom__sb_printf(sb, ";\n");
    c->doneE[i] = 1;
}

/* Row values whose reductions are done by stage s (the reductions' own values included). */
static void emit_w_upto(rctx *c, loom_strbuf *sb, int s, const char *indent)
{
    const loom_walk *w = c->w;
    for (int i = 0; i < w->n; i++) {
        if (!(c->need[i] & NEED_W) || c->doneW[i] || c->depW[i] > s || c->kind[i] == K_RB)
            continue;
        const loom_array *a = w->v[i].node;
        const char *t = loom__ctype(a->dtype);
        loom__sb_printf(sb, "%sconst %s w%d = ", indent, t, i);
        if (c->kind[i] != K_COMPUTED) {
            emit_leaf(c, sb, i, false);
        } else if (loom__ops[a->op].kind == LOOM_OPK_REDUCE) {
            int r = 0;
            while (c->reds[r] != i)
                r++;
            if (is_arg(a->op))
                loom__sb_printf(sb, "loom_cast<%s>(acc%d.i)", t, r);
            else if (is_maybe(a))
                loom__sb_printf(sb, "loom_cast<%s>(acc%d.v)", t, r);
            else
                loom__sb_printf(sb, "loom_cast<%s>(acc%d)", t, r);
        } else {
            char names[LOOM_MAX_EW_INPUTS][24];
            const char *in[LOOM_MAX_EW_INPUTS];
            for (int k = 0; k < a->ninputs; k++) {
                snprintf(names[k], sizeof names[k], "w%d", loom__walk_at(w, a->inputs[k]));
                in[k] = names[k];
            }
            loom__emit_ew_expr(sb, a, in);
        }
        loom__sb_printf(sb, ";\n");
        c->doneW[i] = 1;
    }
}

static void emit_coords(const rctx *c, loom_strbuf *sb, bool reduced, const char *from,
                        const char *indent)
{
    int last = -1;
    for (int k = 0; k < c->rank; k++)
        if (c->red[k] == reduced)
            last = last < 0 ? k : last;
    if (last < 0)
        return;
    const char *p = reduced ? "rc" : "kc";
    loom__sb_printf(sb, "%sidx_t %s_rest = %s;\n", indent, p, from);
    for (int k = c->rank - 1; k >= 0; k--) {
        if (c->red[k] != reduced)
            continue;
        if (k == last)
            loom__sb_printf(sb, "%sconst idx_t %s%d = %s_rest;\n", indent, p, k, p);
        else
            loom__sb_printf(sb, "%sconst idx_t %s%d = %s_rest %% D%d; %s_rest /= D%d;\n", indent, p,
                            k, p, k, p, k);
    }
}

/* ---- the kernel ---- */

typedef struct geometry {
    red_mode mode;
    bool persistent;
    int team;       /* threads per output (rows) */
    int items;      /* persistent: elements per thread */
    int64_t chunk;  /* reduced elements per blockIdx.y */
    int64_t nchunk;
    int *scratch;   /* per reduction: partial results buffer */
} geometry;

static void emit_stage_body(rctx *c, loom_strbuf *sb, const geometry *g, int s, const char *rvar)
{
    const loom_walk *w = c->w;
    if (g->mode == MODE_COMBINE) {
        for (int r = 0; r < c->nreds; r++)
            loom__sb_printf(sb, "            acc%d = F%d()(acc%d, ((const F%d::A *)pP%d)[%s]);\n", r, r, r, r, r,
                            c->column ? "(idx_t)r * K + o" : "o * NCHUNK + r");
        return;
    }
    emit_coords(c, sb, true, rvar, "            ");
    for (int r = 0; r < c->nreds; r++) {
        if (c->stage[r] != s)
            continue;
        const loom_array *a = w->v[c->reds[r]].node;
        int in = loom__walk_at(w, a->inputs[0]);
        emit_e(c, sb, in, g->persistent);
        char e[32];
        ename(e, sizeof e, in, g->persistent);
        if (is_arg(a->op))
            loom__sb_printf(sb, "            { F%d::A v; v.v = %s; v.i = (long long)%s; acc%d = F%d()(acc%d, v); }\n",
                            r, e, rvar, r, r, r);
        else if (is_maybe(a))
            loom__sb_printf(sb, "            { F%d::A v; v.v = loom_cast<F%d::T>(%s); v.has = 1; acc%d = F%d()(acc%d, v); }\n",
                            r, r, e, r, r, r);
        else
            loom__sb_printf(sb, "            acc%d = F%d()(acc%d, loom_cast<F%d::A>(%s));\n", r, r, r, r, e);
    }
}

static void emit_outputs_w(rctx *c, loom_strbuf *sb, const int *roots, int nroots, const int *out,
                           const char *indent)
{
    for (int q = 0; q < nroots; q++)
        if (c->need[roots[q]] & NEED_W && out[q] >= 0)
            loom__sb_printf(sb, "%sp%d[o] = w%d;\n", indent, out[q], roots[q]);
}

/* The user kernels among the values this kernel computes. */
static void emit_ukernel_defs(const rctx *c, loom_strbuf *sb)
{
    const loom_walk *w = c->w;
    const loom_array **nodes = loom__malloc(((size_t)w->n + 1) * sizeof *nodes);
    if (!nodes) {
        sb->failed = true;
        return;
    }
    int n = 0;
    for (int i = 0; i < w->n; i++)
        if (c->need[i] && c->kind[i] == K_COMPUTED)
            nodes[n++] = w->v[i].node;
    loom__emit_ukernel_defs(sb, nodes, n);
    free(nodes);
}

static char *generate(rctx *c, const geometry *g, const int *roots, int nroots, const int *out)
{
    const loom_walk *w = c->w;
    loom_strbuf sb = {0};
    char *params = loom__sb_take(&c->args.params);
    if (!params)
        return NULL;
    loom_needs needs = {0};
    for (int i = 0; i < w->n; i++)
        if (c->need[i])
            loom__needs_add_node(&needs, w->v[i].node);
    static const char *modes[] = {"", " (partial results)", " (combining partial results)"};
    loom__sb_printf(&sb, "// Loom reduction kernel%s: %s%s, %d stage%s, %s indexing\n", modes[g->mode],
                    g->persistent ? "persistent rows" : c->column ? "columns" : "rows",
                    g->persistent ? "" : g->nchunk > 1 ? " split in chunks" : "", c->nstages,
                    c->nstages > 1 ? "s" : "", c->idx32 ? "32-bit" : "64-bit");
    loom__emit_needs(&sb, &needs);
    loom__sb_printf(&sb, "#include \"loom_device.cuh\"\n#include \"loom_reduce.cuh\"\n");
    emit_ukernel_defs(c, &sb);
    for (int r = 0; r < c->nreds; r++)
        emit_functor(c, &sb, r);
    int block = g->persistent ? g->team : BLOCK;
    loom__sb_printf(&sb, "extern \"C\" __global__ void __launch_bounds__(%d) @NAME@(\n%s)\n{\n", block, params);
    free(params);
    loom__sb_printf(&sb, "    typedef %s idx_t;\n", c->idx32 ? "int" : "long long");
    loom__sb_printf(&sb, "    const idx_t K = (idx_t)pK, R = (idx_t)pR, NCHUNK = (idx_t)pNC, CHUNK = (idx_t)pCH;\n");
    loom__sb_printf(&sb, "    (void)R; (void)NCHUNK; (void)CHUNK;\n");
    for (int k = 0; k < c->rank; k++)
        loom__sb_printf(&sb, "    const idx_t D%d = (idx_t)pD%d; (void)D%d;\n", k, k, k);
    for (int s = 0; s < c->nslots; s++)
        for (int k = 0; k < c->rank; k++)
            loom__sb_printf(&sb, "    const idx_t S%d_%d = (idx_t)pS%d_%d;\n", s, k, s, k);
    for (int r = 0; r < c->nreds; r++)
        loom__sb_printf(&sb, "    __shared__ F%d::A sh%d[%d];\n", r, r, c->column && !g->persistent ? BLOCK : block / 32 + 1);

    /* Which output this thread works for. */
    if (c->column && !g->persistent) {
        loom__sb_printf(&sb, "    const int tx = threadIdx.x %% 32, ty = threadIdx.x / 32;\n");
        loom__sb_printf(&sb, "    const idx_t K2 = D%d, NB2 = (K2 + 31) / 32;\n", c->rank - 1);
        loom__sb_printf(&sb, "    const idx_t k2 = (idx_t)(blockIdx.x %% NB2) * 32 + tx;\n");
        loom__sb_printf(&sb, "    const idx_t o = (idx_t)(blockIdx.x / NB2) * K2 + k2;\n");
        loom__sb_printf(&sb, "    const bool live = k2 < K2;\n");
    } else {
        loom__sb_printf(&sb, "    const int lane = threadIdx.x %% %d;\n", g->team);
        loom__sb_printf(&sb, "    const idx_t o = (idx_t)blockIdx.x * %d + threadIdx.x / %d;\n", block / g->team, g->team);
        loom__sb_printf(&sb, "    const bool live = o < K;\n");
    }
    emit_coords(c, &sb, false, "live ? o : 0", "    ");
    for (int s = 0; s < c->nslots; s++) {
        loom__sb_printf(&sb, "    const idx_t kb%d = (idx_t)pO%d", s, s);
        for (int k = 0; k < c->rank; k++)
            if (!c->red[k])
                loom__sb_printf(&sb, " + kc%d * S%d_%d", k, s, k);
        loom__sb_printf(&sb, "; (void)kb%d;\n", s);
    }
    if (g->persistent)
        for (int i = 0; i < w->n; i++)
            if (c->need[i] & NEED_E)
                loom__sb_printf(&sb, "    %s e%d[%d];\n", loom__ctype(w->v[i].node->dtype), i, g->items);

    int nst = g->mode == MODE_COMBINE ? 1 : c->nstages;
    for (int s = 0; s < nst; s++) {
        for (int r = 0; r < c->nreds; r++)
            if (g->mode == MODE_COMBINE || c->stage[r] == s)
                loom__sb_printf(&sb, "    F%d::A acc%d = F%d::identity();\n", r, r, r);
        if (g->persistent) {
            loom__sb_printf(&sb, "#pragma unroll\n    for (int t = 0; t < %d; t++) {\n", g->items);
            loom__sb_printf(&sb, "        const idx_t r = (idx_t)t * %d + threadIdx.x;\n", block);
            loom__sb_printf(&sb, "        if (r < R) {\n");
        } else {
            const char *lane = c->column ? "ty" : "lane";
            int step = c->column ? BLOCK / 32 : g->team;
            if (g->mode == MODE_COMBINE)
                loom__sb_printf(&sb, "    for (idx_t r = %s; live && r < NCHUNK; r += %d) {\n        {\n", lane, step);
            else
                loom__sb_printf(&sb, "    const idx_t r0 = (idx_t)blockIdx.y * CHUNK, r1 = R - r0 < CHUNK ? R : r0 + CHUNK;\n"
                                     "    for (idx_t r = r0 + %s; live && r < r1; r += %d) {\n        {\n",
                                lane, step);
        }
        emit_stage_body(c, &sb, g, s, "r");
        loom__sb_printf(&sb, "        }\n    }\n");
        /* Combine across the team. */
        for (int r = 0; r < c->nreds; r++) {
            if (g->mode != MODE_COMBINE && c->stage[r] != s)
                continue;
            if (c->column && !g->persistent) {
                loom__sb_printf(&sb, "    sh%d[threadIdx.x] = acc%d;\n", r, r);
            } else {
                loom__sb_printf(&sb, "    acc%d = loom_team_reduce<%d>(acc%d, F%d(), sh%d);\n", r, g->team, r, r, r);
            }
        }
        if (c->column && !g->persistent) {
            loom__sb_printf(&sb, "    __syncthreads();\n    if (ty == 0) {\n");
            for (int r = 0; r < c->nreds; r++)
                loom__sb_printf(&sb, "        for (int j = 1; j < %d; j++) acc%d = F%d()(acc%d, sh%d[j * 32 + tx]);\n",
                                BLOCK / 32, r, r, r, r);
            loom__sb_printf(&sb, "    }\n");
        }
        if (g->persistent)
            emit_w_upto(c, &sb, s, "    ");
    }
    const char *who = c->column && !g->persistent ? "live && ty == 0" : "live && lane == 0";
    if (g->mode == MODE_PARTIAL) {
        loom__sb_printf(&sb, "    if (%s) {\n", who);
        for (int r = 0; r < c->nreds; r++)
            loom__sb_printf(&sb, "        ((F%d::A *)pP%d)[%s] = acc%d;\n", r, r,
                            c->column ? "(idx_t)blockIdx.y * K + o" : "o * NCHUNK + blockIdx.y", r);
        loom__sb_printf(&sb, "    }\n}\n");
        return loom__sb_take(&sb);
    }
    if (g->persistent) {
        bool any_e = false;
        for (int q = 0; q < nroots; q++)
            any_e |= (c->need[roots[q]] & NEED_E) && out[q] >= 0;
        if (any_e) {
            loom__sb_printf(&sb, "#pragma unroll\n    for (int t = 0; t < %d; t++) {\n", g->items);
            loom__sb_printf(&sb, "        const idx_t r = (idx_t)t * %d + threadIdx.x;\n        if (r < R) {\n", block);
            emit_coords(c, &sb, true, "r", "            ");
            for (int q = 0; q < nroots; q++) {
                if (!(c->need[roots[q]] & NEED_E) || out[q] < 0)
                    continue;
                emit_e(c, &sb, roots[q], true);
                loom__sb_printf(&sb, "            p%d[o * R + r] = e%d[t];\n", out[q], roots[q]);
            }
            loom__sb_printf(&sb, "        }\n    }\n");
        }
        loom__sb_printf(&sb, "    if (%s) {\n", who);
    } else {
        loom__sb_printf(&sb, "    if (%s) {\n", who);
        emit_w_upto(c, &sb, c->nstages, "        ");
    }
    emit_outputs_w(c, &sb, roots, nroots, out, "        ");
    loom__sb_printf(&sb, "    }\n}\n");
    return loom__sb_take(&sb);
}

/* Named arguments: the source refers to pK, pD0, pS1_0...; they are #defines of the p<N>
 * the argument list assigned, so one generator serves every mode. */
static void define_arg(loom_strbuf *defs, const char *name, int p)
{
    loom__sb_printf(defs, "#define %s p%d\n", name, p);
}

/* Column reductions: 32 columns a block, for every combination of the other kept axes. A kept
 * extent of 0 leaves nothing to compute (and must not be divided by). */
static int64_t column_blocks(const rctx *c)
{
    int64_t cols = c->ext[c->rank - 1];
    return cols == 0 ? 0 : (cols + 31) / 32 * (c->K / cols);
}

static int build_kernel(rctx *c, const geometry *g, const int *roots, int nroots, loom_kernel *k)
{
    const loom_walk *w = c->w;
    memset(k, 0, sizeof *k);
    c->args = (loom_kargs){.w = w, .k = k};
    memset(c->doneE, 0, (size_t)w->n);
    memset(c->doneW, 0, (size_t)w->n);
    loom_strbuf defs = {0};
    int *out = loom__malloc((size_t)nroots * sizeof *out);
    if (!out)
        return -1;
    /* Outputs: materialised values that have a buffer (the final pass writes them). */
    for (int q = 0; q < nroots; q++) {
        const loom_walk_node *v = &w->v[roots[q]];
        out[q] = g->mode != MODE_PARTIAL && v->buffer >= 0
                     ? loom__arg_ptr(&c->args, v->buffer, v->node->dtype, true, 0)
                     : -1;
    }
    for (int r = 0; r < c->nreds; r++) {
        char name[16], A[64];
        acc_type(c, c->reds[r], A, sizeof A);
        snprintf(name, sizeof name, "pP%d", r);
        if (g->mode != MODE_FULL)
            define_arg(&defs, name, loom__arg_ptr_typed(&c->args, g->scratch[r], "void", g->mode == MODE_PARTIAL, 0));
    }
    for (int i = 0; i < w->n; i++) {
        if (!c->need[i])
            continue;
        const loom_array *a = w->v[i].node;
        if (c->kind[i] == K_PARAM) {
            c->param[i] = loom__arg_value(&c->args, a->op == LOOM_OP_VIEW ? a->inputs[0] : a);
        } else if (c->kind[i] == K_LOAD) {
            const loom_array *base = a->op == LOOM_OP_VIEW ? a->inputs[0] : a;
            int b = w->v[loom__walk_at(w, base)].buffer;
            c->param[i] = loom__arg_ptr(&c->args, b, a->dtype, false, 0);
        } else if (c->kind[i] == K_GEN) {
            c->param[i] = loom__arg_gen(&c->args, a->op == LOOM_OP_VIEW ? a->inputs[0] : a);
        }
    }
    char name[24];
    define_arg(&defs, "pK", loom__arg_i64(&c->args, c->K));
    define_arg(&defs, "pR", loom__arg_i64(&c->args, c->R));
    define_arg(&defs, "pNC", loom__arg_i64(&c->args, g->nchunk));
    define_arg(&defs, "pCH", loom__arg_i64(&c->args, g->chunk));
    for (int d = 0; d < c->rank; d++) {
        snprintf(name, sizeof name, "pD%d", d);
        define_arg(&defs, name, loom__arg_i64(&c->args, c->ext[d]));
    }
    for (int s = 0; s < c->nslots; s++) {
        snprintf(name, sizeof name, "pO%d", s);
        define_arg(&defs, name, loom__arg_i64(&c->args, c->soff[s]));
        for (int d = 0; d < c->rank; d++) {
            snprintf(name, sizeof name, "pS%d_%d", s, d);
            define_arg(&defs, name, loom__arg_i64(&c->args, c->sstr[s][d]));
        }
    }
    int rc = -1;
    char *body = generate(c, g, roots, nroots, out);
    char *d = loom__sb_take(&defs);
    if (body && d) {
        loom_strbuf all = {0};
        loom__sb_printf(&all, "%s%s", d, body);
        char *src = loom__sb_take(&all);
        if (src && loom__kernel_name_source(k, "loom_red", src) == 0)
            rc = 0;
    }
    free(body);
    free(d);
    free(out);
    if (rc)
        return -1;
    /* The fused ops, for logs and DOT, and the nodes computed here, for DOT clusters. */
    loom_strbuf summary = {0};
    k->nodes = loom__malloc(((size_t)w->n + 1) * sizeof *k->nodes);
    if (!k->nodes)
        return -1;
    for (int i = 0; i < w->n; i++) {
        const loom_array *a = w->v[i].node;
        if (!c->need[i] || (c->kind[i] != K_COMPUTED && c->kind[i] != K_RB))
            continue;
        k->nodes[k->nnodes++] = (loom_array *)a;
        if (c->kind[i] == K_COMPUTED)
            loom__sb_printf(&summary, "%s%s", summary.len ? " " : "", loom__op_label(a));
    }
    if (g->mode != MODE_FULL)
        loom__sb_printf(&summary, g->mode == MODE_PARTIAL ? " (partial)" : " (combine)");
    if (!(k->summary = loom__sb_take(&summary)))
        return -1;
    k->kind = g->persistent ? LOOM_KERNEL_PERSISTENT : LOOM_KERNEL_REDUCTION;
    k->nargs = c->args.nargs;
    k->block = g->persistent ? g->team : BLOCK;
    k->vec = 1;
    int64_t outs_per_block = g->persistent ? 1 : c->column ? 32 : BLOCK / g->team;
    int64_t nblocks = c->column && !g->persistent
                          ? column_blocks(c)
                          : (c->K + outs_per_block - 1) / outs_per_block;
    if (nblocks > INT32_MAX) { /* blockIdx.x indexes outputs: the grid holds 2^31 - 1 blocks */
        loom__error(LOOM_ERR_UNSUPPORTED, c->fn,
                    "a reduction to %lld values needs %lld thread blocks, more than one kernel "
                    "launches (2147483647)",
                    (long long)c->K, (long long)nblocks);
        return -1;
    }
    k->grid[0] = (unsigned)nblocks;
    k->grid[1] = g->mode == MODE_PARTIAL ? (unsigned)g->nchunk : 1;
    k->grid[2] = 1;
    k->work = c->K > 0 ? c->K : 0;
    return 0;
}

bool loom__reduction_persistent_fits(const loom_array *dom, uint32_t mask, int value_bytes)
{
    int64_t row = 1;
    bool seen_reduced = false;
    for (int k = 0; k < dom->ndim; k++) {
        if (dom->shape[k] == 1)
            continue;
        if (mask & (1u << k)) {
            seen_reduced = true;
            row *= dom->shape[k];
        } else if (seen_reduced) {
            return false;
        }
    }
    return row <= (int64_t)1024 * PERSIST_ITEMS * 4 / (value_bytes > 4 ? value_bytes : 4);
}

static int pow2_at_least(int64_t n, int lo, int hi)
{
    int p = lo;
    while (p < hi && p < n)
        p *= 2;
    return p;
}

int loom__codegen_reduction(const char *fn, const loom_walk *w, loom_plan_builder *b,
                            const int *roots, int nroots, bool persistent)
{
    rctx c = {.fn = fn, .w = w, .plan = b->plan, .group = w->v[roots[0]].group};
    const loom_array *first = w->v[roots[0]].node;
    c.dom = first->inputs[0];
    c.mask = (uint32_t)first->param.reduce.axes;
    size_t n = (size_t)w->n + 1;
    c.need = loom__calloc(n, 1);
    c.doneE = loom__calloc(n, 1);
    c.doneW = loom__calloc(n, 1);
    c.kind = loom__calloc(n, 1);
    c.slot = loom__malloc(n * sizeof *c.slot);
    c.param = loom__calloc(n, sizeof *c.param);
    c.depE = loom__malloc(n * sizeof *c.depE);
    c.depW = loom__malloc(n * sizeof *c.depW);
    c.sstr = loom__malloc(n * sizeof *c.sstr);
    c.soff = loom__malloc(n * sizeof *c.soff);
    c.reds = loom__malloc(n * sizeof *c.reds);
    c.stage = loom__malloc(n * sizeof *c.stage);
    int scratch[LOOM_MAX_KERNEL_REDUCTIONS];
    int rc = -1;
    if (!c.need || !c.doneE || !c.doneW || !c.kind || !c.slot || !c.param || !c.depE || !c.depW ||
        !c.sstr || !c.soff || !c.reds || !c.stage)
        goto done;
    for (size_t i = 0; i < n; i++)
        c.slot[i] = -1;
    mark_needs(&c, roots, nroots);
    setup_slots(&c);
    collapse(&c);
    assign_stages(&c);
    if (c.nreds > LOOM_MAX_KERNEL_REDUCTIONS) { /* partitioning splits groups before this */
        loom__error(LOOM_ERR_INVALID, fn, "internal error: more than %d reductions in one kernel",
                    LOOM_MAX_KERNEL_REDUCTIONS);
        goto done;
    }

    geometry g = {.mode = MODE_FULL, .persistent = persistent, .nchunk = 1, .chunk = c.R,
                  .scratch = scratch};
    if (persistent) {
        /* 16 elements per thread, measured on an H200 (docs/PERF.md): against 8, softmax over
         * 8192 columns 0.311 -> 0.237 ms, layernorm 0.258 -> 0.302 ms. No rule found yet picks
         * the better of the two for both. */
        const int per = 16;
        g.team = pow2_at_least((c.R + per - 1) / per, 32, 1024);
        g.items = (int)((c.R + g.team - 1) / g.team);
        if (g.items < 1)
            g.items = 1;
    } else {
        g.team = c.column ? 32 : pow2_at_least(c.R / 8, 32, BLOCK);
        int64_t blocks = c.column ? column_blocks(&c)
                                  : (c.K + BLOCK / g.team - 1) / (BLOCK / g.team);
        int64_t per_chunk_min = c.column ? 256 : 4096;
        if (blocks < TARGET_BLOCKS / 4 && c.R > 2 * per_chunk_min) {
            int64_t want = (TARGET_BLOCKS + blocks - 1) / (blocks ? blocks : 1);
            int64_t most = c.R / per_chunk_min;
            g.nchunk = want < most ? want : most;
            if (g.nchunk > 65535)
                g.nchunk = 65535;
            g.chunk = (c.R + g.nchunk - 1) / g.nchunk;
            g.chunk = (g.chunk + 1023) / 1024 * 1024;
            g.nchunk = (c.R + g.chunk - 1) / g.chunk;
        }
    }
    int first_step = loom__plan_next_step(b);
    loom_step *s;
    if (g.nchunk > 1) {
        for (int r = 0; r < c.nreds; r++) {
            scratch[r] = loom__plan_scratch(b, fn, (size_t)c.K * (size_t)g.nchunk * acc_bytes(&c, c.reds[r]),
                                            first_step, first_step + 1);
            if (scratch[r] < 0)
                goto done;
        }
        g.mode = MODE_PARTIAL;
        if (!(s = loom__plan_step(b, fn, LOOM_STEP_KERNEL)) || build_kernel(&c, &g, roots, nroots, &s->kernel))
            goto done;
        g.mode = MODE_COMBINE;
        g.team = c.column ? 32 : pow2_at_least(g.nchunk, 32, BLOCK);
    }
    if (!(s = loom__plan_step(b, fn, LOOM_STEP_KERNEL)) || build_kernel(&c, &g, roots, nroots, &s->kernel))
        goto done;
    rc = 0;
done:
    if (rc && loom_last_error_code() == LOOM_OK)
        loom__error(LOOM_ERR_OOM, fn, "out of host memory while generating a reduction kernel");
    free(c.need);
    free(c.doneE);
    free(c.doneW);
    free(c.kind);
    free(c.slot);
    free(c.param);
    free(c.depE);
    free(c.depW);
    free(c.sstr);
    free(c.soff);
    free(c.reds);
    free(c.stage);
    return rc;
}
