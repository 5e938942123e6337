/* Lowering of index ops (CONCAT, TAKE, SCATTER): one generated kernel per root, which computes every
 * value it needs at the index where it needs it. Elementwise producers not in memory are
 * computed inline at their own flat index, so concatenate([a * 2, b + 1]) reads a and b and
 * writes the result once, and take(x, idx) computes idx inline and reads x at the gathered
 * positions only. A gather's elementwise consumer takes this lowering too (the gather is then
 * absorbed into it), so x[idx] * 2 is one kernel (docs/indexing.md). */
#include "emit.h"
#include "index.h"
#include "lower.h"

#include <stdint.h>
#include <stdlib.h>

#define BLOCK 256

/* A value emitted in the current block: node j at index expression number `at`. */
typedef struct memo {
    int node, at, ssa;
} memo;

typedef struct ictx {
    const loom_walk *w;
    loom_plan_builder *b;
    const char *fn;
    loom_kargs args;
    loom_strbuf body;
    memo *memo;
    int nmemo, cap_memo;
    int next;     /* next SSA number (values v<N>, index expressions x<N>) */
    loom_needs needs;
    loom_array **nodes; /* computed here, for DOT */
    bool *listed;       /* walk index -> in nodes */
    int nnodes;
    int *status;        /* walk index -> status buffer of a TAKE in mode raise, or -1 */
    bool idx32;   /* every index the kernel forms fits 32 bits */
    bool failed;  /* out of memory or a failed check (recorded), or bad */
    bool bad;     /* the latter: a bug in partitioning */
} ictx;

static bool in_memory(const loom_walk_node *v)
{
    return loom__is_input(v->node) || v->materialize;
}

static void list_node(ictx *c, int j)
{
    if (!c->listed[j])
        c->nodes[c->nnodes++] = c->w->v[j].node;
    c->listed[j] = true;
}

/* x<s>: the flat index into the base's C-order layout of element `at` of view a, from `start`. */
static void view_index(ictx *c, const loom_array *a, int s, const char *at, const char *start)
{
    loom_strbuf *sb = &c->body;
    loom__sb_printf(sb, "            idx_t r%d = %s, x%d = %s;\n", s, at, s, start);
    int first = 0;
    while (first < a->ndim && a->shape[first] == 1)
        first++;
    for (int d = a->ndim - 1; d >= first; d--) {
        if (a->shape[d] == 1)
            continue;
        if (d == first) {
            if (a->strides[d])
                loom__sb_printf(sb, "            x%d += r%d * (idx_t)p%d;\n", s, s,
                                loom__arg_i64(&c->args, a->strides[d]));
            break;
        }
        int ext = loom__arg_i64(&c->args, a->shape[d]);
        if (a->strides[d])
            loom__sb_printf(sb, "            x%d += (r%d %% (idx_t)p%d) * (idx_t)p%d;\n", s, s, ext,
                            loom__arg_i64(&c->args, a->strides[d]));
        loom__sb_printf(sb, "            r%d /= (idx_t)p%d;\n", s, ext);
    }
}

static int value(ictx *c, int j, int at, const char *atname, bool root);

/* The gather of TAKE node a at index `at`: splits it into (before, position in the indices,
 * after), reads the index, applies the mode, and reads the source there. Returns the SSA
 * number of the index expression into the source. */
static int gather_index(ictx *c, const loom_array *a, int s, const char *at)
{
    loom_strbuf *sb = &c->body;
    const loom_walk *w = c->w;
    const loom_array *src = a->inputs[0], *idx = a->inputs[1];
    int ax = (int)a->param.take.axis;
    int64_t after = 1, len = src->shape[ax];
    for (int d = ax + 1; d < src->ndim; d++)
        after *= src->shape[d];
    bool before = src->size / (after * len) > 1;
    char q[32], jn[32];
    snprintf(q, sizeof q, "%s", at);
    if (after > 1) {
        int pa = loom__arg_i64(&c->args, after);
        loom__sb_printf(sb, "            const idx_t a%d = (%s) %% (idx_t)p%d, q%d = (%s) / (idx_t)p%d;\n",
                        s, at, pa, s, at, pa);
        snprintf(q, sizeof q, "q%d", s);
    }
    snprintf(jn, sizeof jn, "%s", q);
    if (before) {
        int pj = loom__arg_i64(&c->args, idx->size);
        loom__sb_printf(sb, "            const idx_t b%d = %s / (idx_t)p%d, j%d = %s %% (idx_t)p%d;\n",
                        s, q, pj, s, q, pj);
        snprintf(jn, sizeof jn, "j%d", s);
    }
    int jat = c->next++;
    int vi = value(c, loom__walk_at(w, idx), jat, jn, false);
    int pl = loom__arg_i64(&c->args, len);
    loom__sb_printf(sb, "            long long k%d = (long long)v%d;\n", s, vi);
    switch (a->param.take.mode) {
    case LOOM_MODE_WRAP:
        loom__sb_printf(sb, "            k%d %%= p%d;\n            if (k%d < 0) k%d += p%d;\n", s, pl,
                        s, s, pl);
        break;
    case LOOM_MODE_CLIP:
        loom__sb_printf(sb, "            k%d = k%d < 0 ? 0 : k%d >= p%d ? p%d - 1 : k%d;\n", s, s, s,
                        pl, pl, s);
        break;
    default: {
        /* out of bounds: the status word says so (checked when the result is read), and the
         * element reads index 0 so that nothing reads outside the source */
        int ps = loom__arg_ptr_typed(&c->args, c->status[loom__walk_at(w, a)], "int", true, 0);
        loom__sb_printf(sb, "            if (k%d < 0) k%d += p%d;\n", s, s, pl);
        loom__sb_printf(sb, "            if (k%d < 0 || k%d >= p%d) { p%d[0] = 1; k%d = 0; }\n", s, s,
                        pl, ps, s);
        break;
    }
    }
    loom__sb_printf(sb, "            const idx_t x%d = ", s);
    if (before)
        loom__sb_printf(sb, "(b%d * (idx_t)p%d + (idx_t)k%d)", s, pl, s);
    else
        loom__sb_printf(sb, "(idx_t)k%d", s);
    if (after > 1)
        loom__sb_printf(sb, " * (idx_t)p%d + a%d", loom__arg_i64(&c->args, after), s);
    loom__sb_printf(sb, ";\n");
    return s;
}

/* SEARCHSORTED node a at index `at`: v computed inline, then NumPy's binary search (npysort's
 * binsearch: side left finds the first element not less than v, side right the first greater)
 * in the sorted array, read from memory, with sort's order (NaN after everything). Returns the
 * SSA number of the position. */
static int search_value(ictx *c, const loom_array *a, int at, const char *atname)
{
    loom_strbuf *sb = &c->body;
    const loom_walk *w = c->w;
    const loom_array *sorted = a->inputs[0];
    int vv = value(c, loom__walk_at(w, a->inputs[1]), at, atname, false);
    int p = loom__arg_ptr(&c->args, w->v[loom__walk_at(w, sorted)].buffer, sorted->dtype, false, 0);
    int pn = loom__arg_i64(&c->args, sorted->size);
    loom__needs_add_node(&c->needs, sorted);
    int s = c->next++;
    loom__sb_printf(sb, "            long long lo%d = 0, hi%d = p%d;\n", s, s, pn);
    loom__sb_printf(sb, "            while (lo%d < hi%d) {\n", s, s);
    loom__sb_printf(sb, "                const long long m%d = lo%d + ((hi%d - lo%d) >> 1);\n", s,
                    s, s, s);
    loom__sb_printf(sb, "                const %s e%d = p%d[m%d];\n", loom__ctype(sorted->dtype), s,
                    p, s);
    /* NumPy's less(a, b): a < b, or b is NaN and a is not (complex: loom__csort_less) */
    bool complex = loom__is_complex((loom_dtype)sorted->dtype);
    if (complex && a->param.search.right)
        loom__sb_printf(sb, "                if (!loom__csort_less(v%d, e%d))\n", vv, s);
    else if (complex)
        loom__sb_printf(sb, "                if (loom__csort_less(e%d, v%d))\n", s, vv);
    else if (a->param.search.right)
        loom__sb_printf(sb, "                if (!(loom_less(v%d, e%d) || (loom_isnan(e%d) && "
                            "!loom_isnan(v%d))))\n", vv, s, s, vv);
    else
        loom__sb_printf(sb, "                if (loom_less(e%d, v%d) || (loom_isnan(v%d) && "
                            "!loom_isnan(e%d)))\n", s, vv, vv, s);
    loom__sb_printf(sb, "                    lo%d = m%d + 1;\n                else\n"
                        "                    hi%d = m%d;\n            }\n", s, s, s, s);
    loom__sb_printf(sb, "            const %s v%d = (%s)lo%d;\n", loom__ctype(a->dtype), s,
                    loom__ctype(a->dtype), s);
    return s;
}

static int remember(ictx *c, int j, int at, int s)
{
    if (c->nmemo == c->cap_memo) {
        int cap = c->cap_memo ? 2 * c->cap_memo : 32;
        memo *grown = loom__realloc(c->memo, (size_t)cap * sizeof *grown);
        if (!grown) {
            if (!c->failed)
                loom__error(LOOM_ERR_OOM, c->fn, "out of host memory while generating a kernel");
            c->failed = true;
            return s;
        }
        c->memo = grown;
        c->cap_memo = cap;
    }
    c->memo[c->nmemo++] = (memo){j, at, s};
    return s;
}

/* Emits the value of walk node j at index expression `atname` (number `at`) of its own C-order
 * layout; returns its SSA number. root: computed here even though it is materialised. */
static int value(ictx *c, int j, int at, const char *atname, bool root)
{
    for (int k = 0; k < c->nmemo; k++)
        if (c->memo[k].node == j && c->memo[k].at == at)
            return c->memo[k].ssa;
    const loom_walk *w = c->w;
    const loom_walk_node *v = &w->v[j];
    const loom_array *a = v->node;
    loom_strbuf *sb = &c->body;
    const char *t = loom__ctype(a->dtype);
    bool stored = in_memory(v) && !root;
    loom__needs_add_node(&c->needs, a);
    if (a->size > INT32_MAX)
        c->idx32 = false;
    if (a->op == LOOM_OP_SCALAR) {
        int s = c->next++;
        loom__sb_printf(sb, "            const %s v%d = loom_cast<%s>(p%d);\n", t, s, t,
                        loom__arg_value(&c->args, a));
        return remember(c, j, at, s);
    }
    if (stored) {
        int s = c->next++;
        int p = loom__arg_ptr(&c->args, v->buffer, a->dtype, false, 0);
        loom__sb_printf(sb, "            const %s v%d = p%d[%s];\n", t, s, p, atname);
        return remember(c, j, at, s);
    }
    if (a->op == LOOM_OP_VIEW) {
        const loom_walk_node *bv = &w->v[loom__walk_at(w, a->inputs[0])];
        const loom_array *base = bv->node;
        int s = c->next++;
        if (base->size > INT32_MAX)
            c->idx32 = false;
        if (base->op == LOOM_OP_SCALAR) {
            loom__sb_printf(sb, "            const %s v%d = loom_cast<%s>(p%d);\n", t, s, t,
                            loom__arg_value(&c->args, base));
        } else if (in_memory(bv)) {
            size_t es = loom_dtype_size((loom_dtype)base->dtype);
            int p = loom__arg_ptr(&c->args, bv->buffer, base->dtype, false,
                                  (size_t)a->offset * es);
            view_index(c, a, s, atname, "0");
            loom__sb_printf(sb, "            const %s v%d = p%d[x%d];\n", t, s, p, s);
        } else if (loom__ops[base->op].kind == LOOM_OPK_GEN) {
            char start[24], x[24];
            int p = loom__arg_i64(&c->args, a->offset);
            loom__arg_gen(&c->args, base);
            snprintf(start, sizeof start, "(idx_t)p%d", p);
            snprintf(x, sizeof x, "x%d", s);
            view_index(c, a, s, atname, start);
            loom__sb_printf(sb, "            const %s v%d = ", t, s);
            loom__emit_gen(sb, base, p + 1, x);
            loom__sb_printf(sb, ";\n");
        } else {
            c->bad = c->failed = true;
        }
        return remember(c, j, at, s);
    }
    if (loom__ops[a->op].kind == LOOM_OPK_GEN) {
        int s = c->next++;
        int p = loom__arg_gen(&c->args, a);
        loom__sb_printf(sb, "            const %s v%d = ", t, s);
        loom__emit_gen(sb, a, p, atname);
        loom__sb_printf(sb, ";\n");
        return remember(c, j, at, s);
    }
    if (a->op == LOOM_OP_TAKE) {
        int s = c->next++;
        gather_index(c, a, s, atname);
        char x[24];
        snprintf(x, sizeof x, "x%d", s);
        int xat = c->next++;
        int vs = value(c, loom__walk_at(w, a->inputs[0]), xat, x, false);
        list_node(c, j);
        return remember(c, j, at, vs);
    }
    if (a->op == LOOM_OP_SEARCHSORTED) {
        int s = search_value(c, a, at, atname);
        list_node(c, j);
        return remember(c, j, at, s);
    }
    if (loom__ops[a->op].kind == LOOM_OPK_EW) {
        int in[LOOM_MAX_EW_INPUTS] = {0};
        for (int k = 0; k < a->ninputs; k++)
            in[k] = value(c, loom__walk_at(w, a->inputs[k]), at, atname, false);
        char names[LOOM_MAX_EW_INPUTS][24];
        const char *np[LOOM_MAX_EW_INPUTS];
        for (int k = 0; k < a->ninputs; k++) {
            snprintf(names[k], sizeof names[k], "v%d", in[k]);
            np[k] = names[k];
        }
        int s = c->next++;
        loom__sb_printf(sb, "            const %s v%d = ", t, s);
        loom__emit_ew_expr(sb, a, np);
        loom__sb_printf(sb, ";\n");
        list_node(c, j);
        return remember(c, j, at, s);
    }
    c->bad = c->failed = true;
    return 0;
}

/* A CONCAT root: each element finds its input by its coordinate along the joined axis. */
static void concat_body(ictx *c, int root, int out)
{
    const loom_array *cat = c->w->v[root].node;
    loom_strbuf *sb = &c->body;
    int ax = (int)cat->param.join.axis;
    int64_t outer = 1, inner = 1;
    for (int d = 0; d < ax; d++)
        outer *= cat->shape[d];
    for (int d = ax + 1; d < cat->ndim; d++)
        inner *= cat->shape[d];
    int pin = inner > 1 ? loom__arg_i64(&c->args, inner) : -1;
    if (inner > 1)
        loom__sb_printf(sb, "        const idx_t in = t %% (idx_t)p%d, q = t / (idx_t)p%d;\n", pin, pin);
    else
        loom__sb_printf(sb, "        const idx_t q = t;\n");
    if (outer > 1) {
        int pa = loom__arg_i64(&c->args, cat->shape[ax]);
        loom__sb_printf(sb, "        const idx_t o = q / (idx_t)p%d, a = q %% (idx_t)p%d;\n", pa, pa);
    } else {
        loom__sb_printf(sb, "        const idx_t a = q;\n");
    }
    int64_t begin = 0;
    for (int s = 0; s < cat->ninputs; s++) {
        const loom_array *src = cat->inputs[s];
        int64_t len = src->shape[ax];
        if (s == cat->ninputs - 1)
            loom__sb_printf(sb, "        else {\n");
        else
            loom__sb_printf(sb, "        %sif (a < (idx_t)p%d) {\n", s ? "else " : "",
                            loom__arg_i64(&c->args, begin + len));
        loom__sb_printf(sb, "            const idx_t i = ");
        if (outer > 1)
            loom__sb_printf(sb, "(o * (idx_t)p%d + ", loom__arg_i64(&c->args, len));
        loom__sb_printf(sb, "(a - (idx_t)p%d)", loom__arg_i64(&c->args, begin));
        if (outer > 1)
            loom__sb_printf(sb, ")");
        if (inner > 1)
            loom__sb_printf(sb, " * (idx_t)p%d + in", pin);
        loom__sb_printf(sb, ";\n");
        int v = value(c, loom__walk_at(c->w, src), 0, "i", false);
        loom__sb_printf(sb, "            p%d[t] = v%d;\n        }\n", out, v);
        c->nmemo = 0; /* values of one input's block are not visible in the next */
        begin += len;
    }
}

/* A SCATTER root: element t finds the run of its position in the sorted keys (two binary
 * searches) and folds the run's values, in order, into its old value. */
static void scatter_body(ictx *c, int root, int out)
{
    const loom_array *sc = c->w->v[root].node;
    const loom_array *keys = sc->inputs[1], *vals = sc->inputs[2];
    loom_strbuf *sb = &c->body;
    const char *t = loom__ctype(sc->dtype), *cd = loom__ctype(sc->cdtype);
    if (keys->size > INT32_MAX)
        c->idx32 = false;
    int pk = loom__arg_ptr(&c->args, c->w->v[loom__walk_at(c->w, keys)].buffer, keys->dtype, false, 0);
    int pm = loom__arg_i64(&c->args, keys->size);
    loom__sb_printf(sb, "        idx_t lo = 0, hi = (idx_t)p%d;\n", pm);
    loom__sb_printf(sb, "        while (lo < hi) { const idx_t mid = lo + (hi - lo) / 2; "
                        "if ((idx_t)p%d[mid] < t) lo = mid + 1; else hi = mid; }\n", pk);
    loom__sb_printf(sb, "        idx_t end = lo;\n        hi = (idx_t)p%d;\n", pm);
    loom__sb_printf(sb, "        while (end < hi) { const idx_t mid = end + (hi - end) / 2; "
                        "if ((idx_t)p%d[mid] <= t) end = mid + 1; else hi = mid; }\n", pk);
    int old = value(c, loom__walk_at(c->w, sc->inputs[0]), 0, "t", false);
    loom__sb_printf(sb, "        %s acc = v%d;\n", t, old);
    int nmemo = c->nmemo; /* values of the loop's block are not visible after it */
    int jat = c->next++;
    if (sc->param.scatter.op == LOOM_OP_COPY) {
        loom__sb_printf(sb, "        if (end > lo) {\n            const idx_t j = end - 1;\n");
        int v = value(c, loom__walk_at(c->w, vals), jat, "j", false);
        loom__sb_printf(sb, "            acc = loom_cast<%s>(v%d);\n        }\n", t, v);
    } else {
        loom__sb_printf(sb, "        for (idx_t j = lo; j < end; j++) {\n");
        int v = value(c, loom__walk_at(c->w, vals), jat, "j", false);
        loom__sb_printf(sb, "            acc = loom_cast<%s>(loom_%s(loom_cast<%s>(acc), loom_cast<%s>(v%d)));\n        }\n",
                        t, loom__ops[sc->param.scatter.op].name, cd, cd, v);
    }
    c->nmemo = nmemo;
    loom__sb_printf(sb, "        p%d[t] = acc;\n", out);
}

/* Status words of the gathers in mode raise that node j's value computes (inline), one check
 * each, into c->status; their count. exec/ clears status words before a plan runs. */
static int find_checks(ictx *c, int j, bool root)
{
    const loom_walk_node *v = &c->w->v[j];
    const loom_array *a = v->node;
    if ((in_memory(v) && !root) || a->op == LOOM_OP_VIEW || c->status[j] >= 0 || c->failed)
        return 0;
    int n = 0;
    if (a->op == LOOM_OP_TAKE && a->param.take.mode == LOOM_MODE_RAISE) {
        static const char *const names[LOOM_REPORT_COUNT] = {
            "loom_take", "loom_take_along_axis", "loom_getitem", "loom_choose",
            "loom_searchsorted", "loom_put", "loom_setitem", "loom_at_set", "loom_at_add",
            "loom_at_subtract", "loom_at_multiply", "loom_at_minimum", "loom_at_maximum",
            "loom_put_along_axis"};
        int64_t f = a->param.take.report_fn;
        c->status[j] = loom__plan_check(c->b, c->fn, names[f >= 0 && f < LOOM_REPORT_COUNT ? f : 0],
                                        LOOM_FAIL_INDEX, 1);
        if (c->status[j] < 0) {
            c->failed = true;
            return 0;
        }
        loom_plan_check *chk = &c->b->plan->checks[c->b->plan->nchecks - 1];
        chk->axis = a->param.take.report_axis;
        chk->size = a->param.take.report_size;
        n++;
    }
    for (int k = 0; k < a->ninputs && !loom__is_input(a); k++)
        n += find_checks(c, loom__walk_at(c->w, a->inputs[k]), false);
    return n;
}

static int lower(const char *fn, loom_plan_builder *b, const loom_walk *w, const int *roots,
                 int nroots, bool persistent)
{
    (void)nroots;
    (void)persistent;
    const loom_walk_node *root = &w->v[roots[0]];
    const loom_array *r = root->node;
    if (r->size == 0)
        return 0;
    loom_kernel kernel = {0}, *k = &kernel;
    ictx c = {.w = w, .b = b, .fn = fn, .args = {.w = w, .k = k}, .idx32 = r->size <= INT32_MAX};
    c.nodes = loom__malloc(((size_t)w->n + 1) * sizeof *c.nodes);
    c.listed = loom__calloc((size_t)w->n, sizeof *c.listed);
    c.status = loom__malloc((size_t)w->n * sizeof *c.status);
    loom_strbuf sb = {0}, summary = {0};
    char *params = NULL, *body = NULL;
    int rc = -1, step_index = -1;
    if (!c.nodes || !c.listed || !c.status)
        goto done;
    for (int j = 0; j < w->n; j++)
        c.status[j] = -1;
    int nchecks = find_checks(&c, roots[0], true);
    (void)nchecks;
    if (c.failed)
        goto done;
    step_index = loom__plan_next_step(b);
    if (!loom__plan_step(b, fn, LOOM_STEP_KERNEL)) {
        c.failed = true;
        goto done;
    }
    c.nodes[c.nnodes++] = root->node;
    c.listed[roots[0]] = true;
    loom__needs_add_node(&c.needs, r);
    int out = loom__arg_ptr(&c.args, root->buffer, r->dtype, true, 0);
    int n_param = loom__arg_i64(&c.args, r->size);
    if (r->op == LOOM_OP_CONCAT) {
        concat_body(&c, roots[0], out);
    } else if (r->op == LOOM_OP_SCATTER) {
        scatter_body(&c, roots[0], out);
    } else {
        int v = value(&c, roots[0], 0, "t", true);
        loom__sb_printf(&c.body, "            p%d[t] = v%d;\n", out, v);
    }
    if (c.failed)
        goto done;
    params = loom__sb_take(&c.args.params);
    body = loom__sb_take(&c.body);
    if (!params || !body)
        goto done;
    loom__sb_printf(&sb, "// Loom index kernel: %s\n", loom__ops[r->op].name);
    loom__emit_needs(&sb, &c.needs);
    loom__sb_printf(&sb, "#include \"loom_device.cuh\"\n");
    loom__sb_printf(&sb, "extern \"C\" __global__ void __launch_bounds__(%d) @NAME@(\n%s)\n{\n",
                    BLOCK, params);
    loom__sb_printf(&sb, "    typedef %s idx_t;\n", c.idx32 ? "int" : "long long");
    loom__sb_printf(&sb, "    const idx_t n = (idx_t)p%d;\n", n_param);
    loom__sb_printf(&sb, "    const idx_t stride = (idx_t)gridDim.x * blockDim.x;\n");
    loom__sb_printf(&sb, "    for (idx_t t = (idx_t)blockIdx.x * blockDim.x + threadIdx.x; t < n; "
                         "t += stride) {\n%s    }\n}\n", body);
    char *src = loom__sb_take(&sb);
    const char *prefix = r->op == LOOM_OP_CONCAT         ? "loom_cat"
                         : r->op == LOOM_OP_SEARCHSORTED ? "loom_search"
                         : r->op == LOOM_OP_SCATTER      ? "loom_scatter"
                                                         : "loom_take";
    if (!src || loom__kernel_name_source(k, prefix, src))
        goto done;
    loom__sb_printf(&summary, "%s", loom__ops[r->op].name);
    for (int i = 1; i < c.nnodes; i++)
        loom__sb_printf(&summary, " %s", loom__ops[c.nodes[i]->op].name);
    k->summary = loom__sb_take(&summary);
    if (!k->summary)
        goto done;
    k->kind = LOOM_KERNEL_ELEMENTWISE;
    k->nargs = c.args.nargs;
    k->work = r->size;
    k->block = BLOCK;
    k->vec = 1;
    k->nodes = c.nodes;
    k->nnodes = c.nnodes;
    c.nodes = NULL;
    b->plan->steps[step_index].kernel = kernel;
    rc = 0;
done:
    if (rc) {
        if (c.bad)
            loom__error(LOOM_ERR_INVALID, fn, "internal error: an index kernel cannot read a value");
        else if (!c.failed)
            loom__error(LOOM_ERR_OOM, fn, "out of host memory while generating a kernel");
        free(k->source);
        free(k->summary);
        free(k->args);
    }
    loom__sb_free(&sb);
    loom__sb_free(&summary);
    loom__sb_free(&c.body);
    loom__sb_free(&c.args.params);
    free(params);
    free(body);
    free(c.memo);
    free(c.nodes);
    free(c.listed);
    free(c.status);
    return rc;
}

extern const loom_lowering loom__lower_index;

/* A gather's one elementwise consumer computes the gather itself (x[idx] * 2 is one kernel);
 * a chain of such consumers moves the kernel to the last of them. Partitioning absorbs the
 * input it asked about, which this cannot name: so the consumer must read exactly one value of
 * this lowering, and that one must be free to absorb. */
static const loom_lowering *epilogue(const loom_walk *w, int consumer)
{
    const loom_array *cons = w->v[consumer].node;
    int found = 0;
    bool ok = false;
    for (int k = 0; k < cons->ninputs; k++) {
        const loom_walk_node *in = &w->v[loom__walk_at(w, cons->inputs[k])];
        if (in->lowering != &loom__lower_index || loom__is_input(in->node))
            continue;
        found++;
        ok = in->node->op != LOOM_OP_CONCAT && in->node->op != LOOM_OP_SCATTER &&
             in->nconsumers == 1 && !in->requested &&
             !in->viewed;
    }
    return found == 1 && ok ? &loom__lower_index : NULL;
}

/* A search reads its sorted array from memory, at the positions the search visits, and a
 * scatter's binary searches its sorted positions; the search may be absorbed into the consumer
 * computing it (i), or into an absorbed node i reads. */
static void searched_in_memory(loom_walk *w, int i)
{
    const loom_array *a = w->v[i].node;
    if (a->op == LOOM_OP_SEARCHSORTED)
        loom__contiguous_in_memory(w, a->inputs[0]);
    if (a->op == LOOM_OP_SCATTER)
        loom__contiguous_in_memory(w, a->inputs[1]);
    for (int k = 0; k < a->ninputs && !loom__is_input(a); k++) {
        int j = loom__walk_at(w, a->inputs[k]);
        if (w->v[j].lowering == &loom__lower_absorbed)
            searched_in_memory(w, j);
    }
}

/* Inputs stay where they are: computed ones are inlined, the rest read in place (but for a
 * search's sorted array and a scatter's positions). */
const loom_lowering loom__lower_index = {LOOM_PLACE_ALONE, searched_in_memory, lower, epilogue};
