/* Lowering of CONCAT nodes: one generated kernel writes the result once. Each element finds
 * the input it comes from by its coordinate along the joined axis and computes that input's
 * value at the input's own flat index. Elementwise producers not in memory are computed inline
 * there, so concatenate([a * 2, b + 1]) reads a and b and writes the result, nothing else
 * (docs/indexing.md). */
#include "emit.h"
#include "lower.h"

#include <stdint.h>
#include <stdlib.h>

#define BLOCK 256

typedef struct jctx {
    const loom_walk *w;
    loom_kargs args;
    loom_strbuf body;
    int *ssa;     /* walk index -> SSA number in the current input's block, or -1 */
    int *seen;    /* walk indices whose ssa is set */
    int nseen;
    int next;     /* next SSA number */
    loom_needs needs;
    loom_array **nodes; /* computed here, for DOT */
    bool *listed;       /* walk index -> in nodes */
    int nnodes;
    bool idx32;   /* every index the kernel forms fits 32 bits */
    bool bad;     /* a value this lowering cannot read (a bug in partitioning) */
} jctx;

static bool in_memory(const loom_walk_node *v)
{
    return loom__is_input(v->node) || v->materialize;
}

/* x<s>: the flat index into the base's C-order layout of element i of view a, from `start`. */
static void view_index(jctx *c, const loom_array *a, int s, const char *start)
{
    loom_strbuf *sb = &c->body;
    loom__sb_printf(sb, "            idx_t r%d = i, x%d = %s;\n", s, s, start);
    int first = 0;
    while (first < a->ndim && a->shape[first] == 1)
        first++;
    for (int d = a->ndim - 1; d >= first; d--) {
        if (a->shape[d] == 1)
            continue;
        int64_t st = a->strides[d] < 0 ? -a->strides[d] : a->strides[d];
        if (d == first) {
            if (st)
                loom__sb_printf(sb, "            x%d += r%d * (idx_t)p%d;\n", s, s,
                                loom__arg_i64(&c->args, a->strides[d]));
            break;
        }
        int ext = loom__arg_i64(&c->args, a->shape[d]);
        if (st)
            loom__sb_printf(sb, "            x%d += (r%d %% (idx_t)p%d) * (idx_t)p%d;\n", s, s, ext,
                            loom__arg_i64(&c->args, a->strides[d]));
        loom__sb_printf(sb, "            r%d /= (idx_t)p%d;\n", s, ext);
    }
}

/* Emits the value of walk node j at the current input's flat index i; returns its SSA number. */
static int value(jctx *c, int j)
{
    if (c->ssa[j] >= 0)
        return c->ssa[j];
    const loom_walk *w = c->w;
    const loom_walk_node *v = &w->v[j];
    const loom_array *a = v->node;
    loom_strbuf *sb = &c->body;
    const char *t = loom__ctype(a->dtype);
    int in[LOOM_MAX_EW_INPUTS] = {0};
    bool ew = !in_memory(v) && loom__ops[a->op].kind == LOOM_OPK_EW;
    for (int k = 0; ew && k < a->ninputs; k++)
        in[k] = value(c, loom__walk_at(w, a->inputs[k]));
    int s = c->next++;
    c->ssa[j] = s;
    c->seen[c->nseen++] = j;
    loom__needs_add_node(&c->needs, a);
    if (a->size > INT32_MAX)
        c->idx32 = false;
    if (a->op == LOOM_OP_SCALAR) {
        loom__sb_printf(sb, "            const %s v%d = loom_cast<%s>(p%d);\n", t, s, t,
                        loom__arg_value(&c->args, a));
    } else if (in_memory(v)) {
        int p = loom__arg_ptr(&c->args, v->buffer, a->dtype, false, 0);
        loom__sb_printf(sb, "            const %s v%d = p%d[i];\n", t, s, p);
    } else if (a->op == LOOM_OP_VIEW) {
        const loom_walk_node *bv = &w->v[loom__walk_at(w, a->inputs[0])];
        const loom_array *base = bv->node;
        if (base->size > INT32_MAX)
            c->idx32 = false;
        if (base->op == LOOM_OP_SCALAR) {
            loom__sb_printf(sb, "            const %s v%d = loom_cast<%s>(p%d);\n", t, s, t,
                            loom__arg_value(&c->args, base));
        } else if (in_memory(bv)) {
            size_t es = loom_dtype_size((loom_dtype)base->dtype);
            int p = loom__arg_ptr(&c->args, bv->buffer, base->dtype, false,
                                  (size_t)a->offset * es);
            view_index(c, a, s, "0");
            loom__sb_printf(sb, "            const %s v%d = p%d[x%d];\n", t, s, p, s);
        } else if (loom__ops[base->op].kind == LOOM_OPK_GEN) {
            char start[24], at[24];
            int p = loom__arg_i64(&c->args, a->offset);
            loom__arg_gen(&c->args, base);
            snprintf(start, sizeof start, "(idx_t)p%d", p);
            snprintf(at, sizeof at, "x%d", s);
            view_index(c, a, s, start);
            loom__sb_printf(sb, "            const %s v%d = ", t, s);
            loom__emit_gen(sb, base, p + 1, at);
            loom__sb_printf(sb, ";\n");
        } else {
            c->bad = true;
        }
    } else if (loom__ops[a->op].kind == LOOM_OPK_GEN) {
        int p = loom__arg_gen(&c->args, a);
        loom__sb_printf(sb, "            const %s v%d = ", t, s);
        loom__emit_gen(sb, a, p, "i");
        loom__sb_printf(sb, ";\n");
    } else if (ew) {
        char names[LOOM_MAX_EW_INPUTS][24];
        const char *np[LOOM_MAX_EW_INPUTS];
        for (int k = 0; k < a->ninputs; k++) {
            snprintf(names[k], sizeof names[k], "v%d", in[k]);
            np[k] = names[k];
        }
        loom__sb_printf(sb, "            const %s v%d = ", t, s);
        loom__emit_ew_expr(sb, a, np);
        loom__sb_printf(sb, ";\n");
        if (!c->listed[j])
            c->nodes[c->nnodes++] = v->node;
        c->listed[j] = true;
    } else {
        c->bad = true;
    }
    return s;
}

static void forget_values(jctx *c)
{
    for (int k = 0; k < c->nseen; k++)
        c->ssa[c->seen[k]] = -1;
    c->nseen = 0;
}

static int lower(const char *fn, loom_plan_builder *b, const loom_walk *w, const int *roots,
                 int nroots, bool persistent)
{
    (void)nroots;
    (void)persistent;
    const loom_walk_node *root = &w->v[roots[0]];
    const loom_array *cat = root->node;
    int ax = (int)cat->param.join.axis;
    int64_t outer = 1, inner = 1;
    for (int d = 0; d < ax; d++)
        outer *= cat->shape[d];
    for (int d = ax + 1; d < cat->ndim; d++)
        inner *= cat->shape[d];
    loom_step *step = loom__plan_step(b, fn, LOOM_STEP_KERNEL);
    if (!step)
        return -1;
    loom_kernel *k = &step->kernel;
    jctx c = {.w = w, .args = {.w = w, .k = k}, .idx32 = cat->size <= INT32_MAX};
    c.ssa = malloc((size_t)w->n * sizeof *c.ssa);
    c.seen = malloc((size_t)w->n * sizeof *c.seen);
    c.nodes = malloc(((size_t)w->n + 1) * sizeof *c.nodes);
    c.listed = calloc((size_t)w->n, sizeof *c.listed);
    loom_strbuf sb = {0};
    char *params = NULL;
    int rc = -1;
    if (!c.ssa || !c.seen || !c.nodes || !c.listed)
        goto done;
    for (int i = 0; i < w->n; i++)
        c.ssa[i] = -1;
    c.nodes[c.nnodes++] = root->node;
    loom__needs_add_node(&c.needs, cat);

    int out = loom__arg_ptr(&c.args, root->buffer, cat->dtype, true, 0);
    int n_param = loom__arg_i64(&c.args, cat->size);
    int inner_param = inner > 1 ? loom__arg_i64(&c.args, inner) : -1;
    int axis_param = outer > 1 ? loom__arg_i64(&c.args, cat->shape[ax]) : -1;
    int64_t begin = 0;
    for (int s = 0; s < cat->ninputs; s++) {
        const loom_array *src = cat->inputs[s];
        int64_t len = src->shape[ax];
        bool last = s == cat->ninputs - 1;
        if (last)
            loom__sb_printf(&c.body, "        else {\n");
        else
            loom__sb_printf(&c.body, "        %sif (a < (idx_t)p%d) {\n", s ? "else " : "",
                            loom__arg_i64(&c.args, begin + len));
        loom__sb_printf(&c.body, "            const idx_t i = ");
        if (outer > 1)
            loom__sb_printf(&c.body, "(o * (idx_t)p%d + ", loom__arg_i64(&c.args, len));
        loom__sb_printf(&c.body, "(a - (idx_t)p%d)", loom__arg_i64(&c.args, begin));
        if (outer > 1)
            loom__sb_printf(&c.body, ")");
        if (inner > 1)
            loom__sb_printf(&c.body, " * (idx_t)p%d + in", inner_param);
        loom__sb_printf(&c.body, ";\n");
        int v = value(&c, loom__walk_at(w, src));
        loom__sb_printf(&c.body, "            p%d[t] = v%d;\n        }\n", out, v);
        forget_values(&c);
        begin += len;
    }
    if (c.bad) {
        loom__error(LOOM_ERR_INVALID, fn, "internal error: a concatenated value is not readable");
        goto done;
    }
    params = loom__sb_take(&c.args.params);
    char *body = loom__sb_take(&c.body);
    if (!params || !body) {
        free(body);
        goto done;
    }
    loom__sb_printf(&sb, "// Loom concatenate kernel: %d inputs along axis %d of %d\n",
                    cat->ninputs, ax, cat->ndim);
    loom__emit_needs(&sb, &c.needs);
    loom__sb_printf(&sb, "#include \"loom_device.cuh\"\n");
    loom__sb_printf(&sb, "extern \"C\" __global__ void __launch_bounds__(%d) @NAME@(\n%s)\n{\n",
                    BLOCK, params);
    loom__sb_printf(&sb, "    typedef %s idx_t;\n", c.idx32 ? "int" : "long long");
    loom__sb_printf(&sb, "    const idx_t n = (idx_t)p%d;\n", n_param);
    loom__sb_printf(&sb, "    const idx_t stride = (idx_t)gridDim.x * blockDim.x;\n");
    loom__sb_printf(&sb, "    for (idx_t t = (idx_t)blockIdx.x * blockDim.x + threadIdx.x; t < n; "
                         "t += stride) {\n");
    if (inner > 1)
        loom__sb_printf(&sb, "        const idx_t in = t %% (idx_t)p%d, q = t / (idx_t)p%d;\n",
                        inner_param, inner_param);
    else
        loom__sb_printf(&sb, "        const idx_t q = t;\n");
    if (outer > 1)
        loom__sb_printf(&sb, "        const idx_t o = q / (idx_t)p%d, a = q %% (idx_t)p%d;\n",
                        axis_param, axis_param);
    else
        loom__sb_printf(&sb, "        const idx_t a = q;\n");
    loom__sb_printf(&sb, "%s    }\n}\n", body);
    free(body);
    char *src = loom__sb_take(&sb);
    if (!src || loom__kernel_name_source(k, "loom_cat", src))
        goto done;
    k->summary = NULL;
    loom_strbuf summary = {0};
    loom__sb_printf(&summary, "concatenate");
    for (int i = 1; i < c.nnodes; i++)
        loom__sb_printf(&summary, " %s", loom__ops[c.nodes[i]->op].name);
    k->summary = loom__sb_take(&summary);
    if (!k->summary)
        goto done;
    k->kind = LOOM_KERNEL_ELEMENTWISE;
    k->nargs = c.args.nargs;
    k->work = cat->size;
    k->block = BLOCK;
    k->vec = 1;
    k->nodes = c.nodes;
    k->nnodes = c.nnodes;
    c.nodes = NULL;
    rc = 0;
done:
    if (rc && !c.bad)
        loom__error(LOOM_ERR_OOM, fn, "out of host memory while generating a kernel");
    loom__sb_free(&sb);
    loom__sb_free(&c.body);
    loom__sb_free(&c.args.params);
    free(params);
    free(c.ssa);
    free(c.seen);
    free(c.nodes);
    free(c.listed);
    return rc;
}

/* Inputs stay where they are: computed ones are inlined, the rest read in place. */
const loom_lowering loom__lower_concat = {LOOM_PLACE_ALONE, NULL, lower, NULL};
