/* CUDA source for an inclusive scan (cumsum, cumprod) along one axis. Around the axis the array
 * is (outer, L, inner): outer * inner lines of L elements, line k at outer index k / inner and
 * inner index k % inner. The algorithms are templates in kernels/loom_scan.cuh; a generated
 * kernel supplies the dtypes, the op and the layout (load and store lambdas). The strategy and
 * the launch geometry come from sizes alone, so results never depend on the device:
 *  - short lines (L <= 16), or many interleaved lines (inner >= 32): one thread per line,
 *    sequential, consecutive threads on consecutive inner indices (coalesced);
 *  - lines up to 256: one warp per line; longer: one block per line, chunks with a carry;
 *  - few long lines: three kernels, chunk totals -> their scan per line -> each chunk scanned
 *    again seeded with the prefix before it. */
#include "strbuf.h"
#include "emit.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK 256
#define ITEMS 4
#define CHUNK (BLOCK * ITEMS)
#define MAX_GRID (1 << 20) /* grid-stride kernels loop past this many blocks */

typedef enum {
    PASS_THREAD, /* one thread per line */
    PASS_WARP,   /* one warp per line */
    PASS_BLOCK,  /* one block per line */
    PASS_TOTALS, /* three kernels: 1, the total of each chunk */
    PASS_SEEDED  /* three kernels: 3, each chunk seeded with the scanned totals (2 is a scan) */
} scan_pass;

static const char *pass_names[] = {"one thread per line", "one warp per line",
                                   "one block per line", "chunk totals", "seeded chunks"};

/* How the scan's (line, l) map into the buffer a kernel reads. */
typedef struct layout {
    int64_t nlines, L, inner;
    bool dense; /* laid out like the output, C order (from the buffer's offset on) */
    int64_t sl; /* element stride along the axis */
    int ro, ri; /* collapsed ranks of the outer and inner axes */
    int64_t odims[LOOM_MAXDIMS], ostr[LOOM_MAXDIMS], idims[LOOM_MAXDIMS], istr[LOOM_MAXDIMS];
    bool idx32;
} layout;

/* One kernel to generate. */
typedef struct scan_kernel {
    loom_op op;
    scan_pass pass;
    loom_dtype in_dt, out_dt, acc_dt;
    int in_buf, out_buf, prefix_buf;
    size_t in_offset; /* bytes */
    const layout *lay;
} scan_kernel;

/* Drops size-1 axes and merges neighbours that step through memory as one. Returns the rank. */
static int collapse(int n, const int64_t *dims, const int64_t *strides, int64_t *od, int64_t *os)
{
    int r = 0;
    for (int d = 0; d < n; d++) {
        if (dims[d] == 1)
            continue;
        if (r > 0 && os[r - 1] == strides[d] * dims[d]) {
            od[r - 1] *= dims[d];
            os[r - 1] = strides[d];
            continue;
        }
        od[r] = dims[d];
        os[r++] = strides[d];
    }
    return r;
}

/* The layout of the scan node s reading through strides/offset (elements) of its source. */
static void make_layout(const loom_array *s, const int64_t *strides, layout *lay)
{
    int ax = (int)s->param.scan.axis;
    int64_t outer = 1, inner = 1, dense[LOOM_MAXDIMS];
    for (int d = 0; d < ax; d++)
        outer *= s->shape[d];
    for (int d = ax + 1; d < s->ndim; d++)
        inner *= s->shape[d];
    loom__contiguous_strides(s->ndim, s->shape, dense);
    lay->nlines = outer * inner;
    lay->L = s->shape[ax];
    lay->inner = inner;
    lay->sl = strides[ax];
    lay->dense = true;
    int64_t reach = 0;
    for (int d = 0; d < s->ndim && s->size > 0; d++) {
        if (s->shape[d] == 1)
            continue;
        lay->dense = lay->dense && strides[d] == dense[d];
        int64_t st = strides[d] < 0 ? -strides[d] : strides[d];
        reach = st && s->shape[d] - 1 > (INT64_MAX - reach) / st ? INT64_MAX
                                                                 : reach + st * (s->shape[d] - 1);
    }
    lay->ro = collapse(ax, s->shape, strides, lay->odims, lay->ostr);
    lay->ri = collapse(s->ndim - ax - 1, s->shape + ax + 1, strides + ax + 1, lay->idims,
                       lay->istr);
    /* Headroom: loops step past the end by up to a chunk or a grid's worth of lines. */
    lay->idx32 = s->size <= (1 << 30) && reach <= (1 << 30);
}

static scan_pass choose(int64_t nlines, int64_t L, int64_t inner)
{
    if (L <= 16 || (inner >= 32 && nlines >= 4096))
        return PASS_THREAD;
    return L <= 256 ? PASS_WARP : PASS_BLOCK;
}

/* ---- emitting one kernel ---- */

static void emit_needs(loom_strbuf *sb, const scan_kernel *sk)
{
    loom_needs n = {0};
    loom__needs_add(&n, sk->in_dt);
    loom__needs_add(&n, sk->out_dt);
    loom__needs_add(&n, sk->acc_dt);
    loom__emit_needs(sb, &n);
}

/* The C-order index of element l of line in the output (and in a dense input). */
static void emit_dense_index(loom_strbuf *sb, const layout *lay)
{
    if (lay->inner == 1)
        loom__sb_printf(sb, "line * L + l");
    else
        loom__sb_printf(sb, "(line / inner * L + l) * inner + line %% inner");
}

/* Adds to x the offset of flat index expr over rank collapsed axes whose extents and strides
 * are the parameters <P>D<d> and <P>S<d>. */
static void emit_unflatten(loom_strbuf *sb, const char *expr, int rank, char P)
{
    if (rank == 0)
        return;
    loom__sb_printf(sb, "        {\n            idx_t r = %s;\n", expr);
    for (int d = rank - 1; d > 0; d--)
        loom__sb_printf(sb, "            x += r %% %cD%d * %cS%d;\n            r /= %cD%d;\n", P, d, P,
                        d, P, d);
    loom__sb_printf(sb, "            x += r * %cS0;\n        }\n", P);
}

static int emit_kernel(const char *fn, const loom_walk *w, int node, const scan_kernel *sk,
                       loom_kernel *k, unsigned grid_x, unsigned grid_y)
{
    const layout *lay = sk->lay;
    const char *opname = loom__ops[sk->op].name;
    const char *acc = loom__ctype(sk->acc_dt);
    loom_kargs g = {.w = w, .k = k};
    loom_strbuf sb = {0};
    int out = loom__arg_ptr(&g, sk->out_buf, sk->pass == PASS_TOTALS ? sk->acc_dt : sk->out_dt, true, 0);
    int in = loom__arg_ptr(&g, sk->in_buf, sk->in_dt, false, sk->in_offset);
    int prefix = sk->pass == PASS_SEEDED ? loom__arg_ptr(&g, sk->prefix_buf, sk->acc_dt, false, 0) : -1;
    int sizes = loom__arg_i64(&g, lay->nlines);
    loom__arg_i64(&g, lay->L);
    loom__arg_i64(&g, lay->inner);
    int strides = g.nargs;
    if (!lay->dense) {
        loom__arg_i64(&g, lay->sl);
        for (int d = 1; d < lay->ro; d++)
            loom__arg_i64(&g, lay->odims[d]);
        for (int d = 0; d < lay->ro; d++)
            loom__arg_i64(&g, lay->ostr[d]);
        for (int d = 1; d < lay->ri; d++)
            loom__arg_i64(&g, lay->idims[d]);
        for (int d = 0; d < lay->ri; d++)
            loom__arg_i64(&g, lay->istr[d]);
    }
    char *params = loom__sb_take(&g.params);
    if (!params)
        goto oom;
    k->nargs = g.nargs;

    loom__sb_printf(&sb, "// Loom scan kernel: %s, %s\n", opname, pass_names[sk->pass]);
    loom__sb_printf(&sb, "// %s -> %s accumulating in %s; %s input; %s lines; %s indexing\n",
                    loom_dtype_name(sk->in_dt), loom_dtype_name(sk->out_dt),
                    loom_dtype_name(sk->acc_dt), lay->dense ? "dense" : "strided",
                    lay->inner == 1 ? "contiguous" : "interleaved", lay->idx32 ? "32-bit" : "64-bit");
    emit_needs(&sb, sk);
    loom__sb_printf(&sb, "#include \"loom_device.cuh\"\n#include \"loom_scan.cuh\"\n");
    loom__sb_printf(&sb, "extern \"C\" __global__ void __launch_bounds__(%d) @NAME@(\n%s)\n{\n",
                    BLOCK, params);
    free(params);
    loom__sb_printf(&sb, "    typedef %s idx_t;\n    typedef %s acc_t;\n",
                    lay->idx32 ? "int" : "long long", acc);
    loom__sb_printf(&sb, "    const idx_t nlines = (idx_t)p%d, L = (idx_t)p%d, inner = (idx_t)p%d;\n",
                    sizes, sizes + 1, sizes + 2);
    loom__sb_printf(&sb, "    (void)nlines;\n    (void)inner;\n");
    if (!lay->dense) {
        int p = strides;
        loom__sb_printf(&sb, "    const idx_t SL = (idx_t)p%d;\n", p++);
        for (int d = 1; d < lay->ro; d++)
            loom__sb_printf(&sb, "    const idx_t OD%d = (idx_t)p%d;\n", d, p++);
        for (int d = 0; d < lay->ro; d++)
            loom__sb_printf(&sb, "    const idx_t OS%d = (idx_t)p%d;\n", d, p++);
        for (int d = 1; d < lay->ri; d++)
            loom__sb_printf(&sb, "    const idx_t ID%d = (idx_t)p%d;\n", d, p++);
        for (int d = 0; d < lay->ri; d++)
            loom__sb_printf(&sb, "    const idx_t IS%d = (idx_t)p%d;\n", d, p++);
    }
    loom__sb_printf(&sb, "    auto op = [](acc_t a, acc_t b) { return loom_%s(a, b); };\n",
                    sk->op == LOOM_OP_CUMSUM ? "add" : "multiply");
    loom__sb_printf(&sb, "    const acc_t ident = loom_cast<acc_t>(%dLL);\n",
                    sk->op == LOOM_OP_CUMSUM ? 0 : 1);
    loom__sb_printf(&sb, "    auto load = [&](idx_t line, idx_t l) -> acc_t {\n");
    if (lay->dense) {
        loom__sb_printf(&sb, "        return loom_cast<acc_t>(p%d[", in);
        emit_dense_index(&sb, lay);
        loom__sb_printf(&sb, "]);\n");
    } else {
        loom__sb_printf(&sb, "        idx_t x = l * SL;\n");
        emit_unflatten(&sb, lay->inner == 1 ? "line" : "line / inner", lay->ro, 'O');
        emit_unflatten(&sb, "line % inner", lay->ri, 'I');
        loom__sb_printf(&sb, "        return loom_cast<acc_t>(p%d[x]);\n", in);
    }
    loom__sb_printf(&sb, "    };\n");
    if (sk->pass != PASS_TOTALS) {
        loom__sb_printf(&sb, "    auto store = [&](idx_t line, idx_t l, acc_t v) { p%d[", out);
        emit_dense_index(&sb, lay);
        loom__sb_printf(&sb, "] = loom_cast<%s>(v); };\n", loom__ctype(sk->out_dt));
    }
    switch (sk->pass) {
    case PASS_THREAD:
        loom__sb_printf(&sb, "    (void)ident;\n    loom_scan_thread_lines<idx_t, acc_t>(nlines, L, op, load, store);\n");
        break;
    case PASS_WARP:
        loom__sb_printf(&sb, "    loom_scan_warp_lines<idx_t, acc_t>(nlines, L, ident, op, load, store);\n");
        break;
    case PASS_BLOCK:
        loom__sb_printf(&sb, "    loom_scan_block_lines<%d, %d, idx_t, acc_t>(nlines, L, ident, op, load, store);\n",
                        BLOCK, ITEMS);
        break;
    case PASS_TOTALS:
        loom__sb_printf(&sb, "    loom_scan_chunk_totals<%d, %d, idx_t, acc_t>(L, ident, op, load, p%d);\n",
                        BLOCK, ITEMS, out);
        break;
    case PASS_SEEDED:
        loom__sb_printf(&sb, "    loom_scan_chunks_seeded<%d, %d, idx_t, acc_t>(L, ident, op, load, store, p%d);\n",
                        BLOCK, ITEMS, prefix);
        break;
    }
    loom__sb_printf(&sb, "}\n");

    char *src = loom__sb_take(&sb);
    if (!src || loom__kernel_name_source(k, "loom_scan", src))
        goto oom;
    loom__sb_printf(&sb, "%s (%s)", opname, pass_names[sk->pass]);
    if (!(k->summary = loom__sb_take(&sb)))
        goto oom;
    k->kind = LOOM_KERNEL_SCAN;
    k->work = lay->nlines * lay->L;
    k->grid[0] = grid_x;
    k->grid[1] = grid_y;
    k->grid[2] = 1;
    k->block = BLOCK;
    k->vec = 1;
    /* The node belongs to the kernel that writes it (DOT clusters take the first listing). */
    if (sk->pass != PASS_TOTALS && sk->out_buf == w->v[node].buffer) {
        const loom_array *s = w->v[node].node, *in_node = s->inputs[0];
        k->nodes = loom__malloc(2 * sizeof *k->nodes);
        if (!k->nodes)
            goto oom;
        k->nodes[k->nnodes++] = w->v[node].node;
        if (w->v[loom__walk_at(w, in_node)].buffer < 0)
            k->nodes[k->nnodes++] = s->inputs[0]; /* a view read in place */
    }
    return 0;
oom:
    loom__sb_free(&sb);
    loom__sb_free(&g.params);
    loom__error(LOOM_ERR_OOM, fn, "out of host memory while generating a kernel");
    return -1;
}

static unsigned grid_for(scan_pass pass, int64_t nlines)
{
    int64_t per_block = pass == PASS_THREAD ? BLOCK : pass == PASS_WARP ? BLOCK / 32 : 1;
    int64_t blocks = (nlines + per_block - 1) / per_block;
    return blocks < 1 ? 1u : blocks > MAX_GRID ? (unsigned)MAX_GRID : (unsigned)blocks;
}

int loom__codegen_scan(const char *fn, const loom_walk *w, loom_plan_builder *b, int node)
{
    loom_step *s1, *s2, *s3;
    const loom_walk_node *v = &w->v[node];
    const loom_array *s = v->node, *in = s->inputs[0];
    const loom_walk_node *iv = &w->v[loom__walk_at(w, in)];
    int64_t strides[LOOM_MAXDIMS];
    scan_kernel sk = {.op = (loom_op)s->op, .in_dt = (loom_dtype)in->dtype,
                      .out_dt = (loom_dtype)s->dtype, .acc_dt = (loom_dtype)s->cdtype,
                      .out_buf = v->buffer, .prefix_buf = -1};
    if (iv->buffer >= 0) {
        sk.in_buf = iv->buffer;
        loom__contiguous_strides(in->ndim, in->shape, strides);
    } else if (in->op == LOOM_OP_VIEW && w->v[loom__walk_at(w, in->inputs[0])].buffer >= 0) {
        sk.in_buf = w->v[loom__walk_at(w, in->inputs[0])].buffer;
        sk.in_offset = (size_t)in->offset * loom_dtype_size(sk.in_dt);
        memcpy(strides, in->strides, (size_t)in->ndim * sizeof *strides);
    } else {
        loom__error(LOOM_ERR_INVALID, fn, "internal error: the input of %s is not in memory",
                    loom__ops[s->op].name);
        return -1;
    }
    layout lay;
    make_layout(s, strides, &lay);
    sk.lay = &lay;
    int64_t nchunks = (lay.L + CHUNK - 1) / CHUNK;
    if (lay.nlines == 0 || !(lay.nlines < 256 && lay.L > 4 * CHUNK && nchunks <= INT32_MAX)) {
        sk.pass = choose(lay.nlines, lay.L, lay.inner);
        return (s1 = loom__plan_step(b, fn, LOOM_STEP_KERNEL))
                   ? emit_kernel(fn, w, node, &sk, &s1->kernel, grid_for(sk.pass, lay.nlines), 1)
                   : -1;
    }

    /* Few long lines: chunk totals, their scan per line, then the chunks seeded. */
    int first = loom__plan_next_step(b);
    size_t bytes = (size_t)(lay.nlines * nchunks) * loom_dtype_size(sk.acc_dt);
    int totals = loom__plan_scratch(b, fn, bytes, first, first + 1);
    int prefix = loom__plan_scratch(b, fn, bytes, first + 1, first + 2);
    if (totals < 0 || prefix < 0)
        return -1;
    scan_kernel k1 = sk;
    k1.pass = PASS_TOTALS;
    k1.out_buf = totals;
    if (!(s1 = loom__plan_step(b, fn, LOOM_STEP_KERNEL)) ||
        emit_kernel(fn, w, node, &k1, &s1->kernel, (unsigned)nchunks, (unsigned)lay.nlines))
        return -1;
    layout tl = {.nlines = lay.nlines, .L = nchunks, .inner = 1, .dense = true,
                  .idx32 = lay.idx32};
    scan_kernel k2 = {.op = sk.op, .in_dt = sk.acc_dt, .out_dt = sk.acc_dt, .acc_dt = sk.acc_dt,
                      .in_buf = totals, .out_buf = prefix, .prefix_buf = -1, .lay = &tl};
    k2.pass = choose(tl.nlines, tl.L, 1);
    if (!(s2 = loom__plan_step(b, fn, LOOM_STEP_KERNEL)) ||
        emit_kernel(fn, w, node, &k2, &s2->kernel, grid_for(k2.pass, tl.nlines), 1))
        return -1;
    scan_kernel k3 = sk;
    k3.pass = PASS_SEEDED;
    k3.prefix_buf = prefix;
    return (s3 = loom__plan_step(b, fn, LOOM_STEP_KERNEL))
               ? emit_kernel(fn, w, node, &k3, &s3->kernel, (unsigned)nchunks, (unsigned)lay.nlines)
               : -1;
}
