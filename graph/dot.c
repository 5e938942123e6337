/* Graphviz DOT for a graph: one record node per graph node ("op | dtype shape"), ids from a
 * deterministic post-order walk (never pointers, so dumps diff cleanly), optional clusters. */
#include "dot.h"
#include "random.h"

#include "ptrmap.h"

#include <stdlib.h>
#include <string.h>

#define FN "loom_dump_dot"

/* ---- the walk ---- */

typedef struct dot_graph {
    loom_array **order; /* post-order: inputs before consumers; the id is the position */
    int n, cap;
    loom_ptrmap ids;    /* node -> id (-2 while on the walk's stack) */
} dot_graph;

/* An array holding a buffer is drawn, but not what computed it: that is history. */
static int ninputs_drawn(const loom_array *a)
{
    return a->buffer ? 0 : a->ninputs;
}

static int grow(void **items, int *cap, int len, size_t size)
{
    if (len < *cap)
        return 0;
    int c = *cap ? *cap * 2 : 64;
    void *grown = loom__realloc(*items, (size_t)c * size);
    if (!grown)
        return -1;
    *items = grown;
    *cap = c;
    return 0;
}

/* Iterative, so a chain of a million ops cannot overflow the C stack. */
static int walk(dot_graph *g, loom_array *const *arrays, int n)
{
    struct frame {
        loom_array *a;
        int next;
    } *stack = NULL;
    int depth = 0, cap = 0, rc = -1;
    if (loom__ptrmap_init(&g->ids, 64))
        return -1;
    for (int r = 0; r < n; r++) {
        if (loom__ptrmap_get(&g->ids, arrays[r]) != -1)
            continue;
        if (grow((void **)&stack, &cap, depth, sizeof *stack) ||
            loom__ptrmap_put(&g->ids, arrays[r], -2))
            goto done;
        stack[depth++] = (struct frame){arrays[r], 0};
        while (depth) {
            struct frame *f = &stack[depth - 1];
            if (f->next < ninputs_drawn(f->a)) {
                loom_array *in = f->a->inputs[f->next++];
                if (loom__ptrmap_get(&g->ids, in) != -1)
                    continue;
                if (grow((void **)&stack, &cap, depth, sizeof *stack) ||
                    loom__ptrmap_put(&g->ids, in, -2))
                    goto done;
                stack[depth++] = (struct frame){in, 0};
                continue;
            }
            loom_array *a = f->a;
            depth--;
            if (grow((void **)&g->order, &g->cap, g->n, sizeof *g->order) ||
                loom__ptrmap_put(&g->ids, a, g->n))
                goto done;
            g->order[g->n++] = a;
        }
    }
    rc = 0;
done:
    free(stack);
    return rc;
}

/* ---- labels ---- */

/* Record labels give { } | < > " and \ a meaning of their own. */
static void put_escaped(FILE *out, const char *s)
{
    for (; *s; s++) {
        if (strchr("{}|<>\"\\", *s))
            fputc('\\', out);
        fputc(*s, out);
    }
}

static void field(FILE *out, const char *s)
{
    fputc('|', out);
    put_escaped(out, s);
}

/* The shortest %g that reads back as v. */
static void fmt_double(char *buf, size_t n, double v)
{
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, n, "%.*g", prec, v);
        if (v != v || strtod(buf, NULL) == v)
            return;
    }
}

/* A scalar's or fill's value as NumPy prints it: integers exactly, True/False, (1+2j). */
static void fmt_value(char *buf, size_t n, const loom_array *a)
{
    loom_dtype dt = (loom_dtype)a->dtype;
    if (dt == LOOM_BOOL) {
        snprintf(buf, n, "%s", a->param.value.exact ? "True" : "False");
    } else if (loom__is_unsigned(dt)) {
        snprintf(buf, n, "%llu", (unsigned long long)(uint64_t)a->param.value.exact);
    } else if (loom__is_int(dt)) {
        snprintf(buf, n, "%lld", (long long)a->param.value.exact);
    } else if (loom__is_complex(dt)) {
        char re[32], im[32];
        fmt_double(re, sizeof re, a->param.value.re);
        fmt_double(im, sizeof im, a->param.value.im);
        snprintf(buf, n, "(%s%s%sj)", re, im[0] == '-' ? "" : "+", im);
    } else {
        fmt_double(buf, n, a->param.value.re);
    }
}

/* A random generator's key and first counter block, then its parameters. */
static void random_fields(FILE *out, const loom_array *a)
{
    char buf[200], x[32];
    snprintf(buf, sizeof buf, "seed %llu offset %llu", (unsigned long long)a->param.random.seed,
             (unsigned long long)a->param.random.ctr);
    field(out, buf);
    if (a->op == LOOM_OP_RANDOM_INTEGERS) {
        snprintf(buf, sizeof buf, "low %lld range %llu", (long long)a->param.randint.low,
                 (unsigned long long)a->param.randint.range);
        field(out, buf);
        return;
    }
    const double p[3] = {a->param.random.a, a->param.random.b, a->param.random.c};
    int n = loom__random_nparams(a->op), used = 0;
    buf[0] = '\0';
    for (int i = 0; i < n; i++) {
        fmt_double(x, sizeof x, p[i]);
        used += snprintf(buf + used, sizeof buf - (size_t)used, "%s%s", i ? ", " : "", x);
    }
    if (n)
        field(out, buf);
    if (a->op == LOOM_OP_RANDOM_BETA && a->param.random.c != 0)
        field(out, "1 - beta (same words)"); /* dirichlet's stick remainder */
}

/* Op parameters worth seeing: values, generator arguments, view maps. */
static void param_fields(FILE *out, const loom_array *a)
{
    char buf[1400], x[32], y[32];
    switch (a->op) {
    case LOOM_OP_SCALAR:
        fmt_value(buf, sizeof buf, a);
        if (a->weak)
            strcat(buf, " weak");
        field(out, buf);
        break;
    case LOOM_OP_FULL:
        fmt_value(buf, sizeof buf, a);
        field(out, buf);
        break;
    case LOOM_OP_ARANGE:
        fmt_double(x, sizeof x, a->param.arange.start);
        fmt_double(y, sizeof y, a->param.arange.step);
        snprintf(buf, sizeof buf, "start %s step %s", x, y);
        field(out, buf);
        break;
    case LOOM_OP_LINSPACE:
        fmt_double(x, sizeof x, a->param.linspace.start);
        fmt_double(y, sizeof y, a->param.linspace.stop);
        snprintf(buf, sizeof buf, "%s to %s%s", x, y, a->param.linspace.endpoint ? "" : " (no endpoint)");
        field(out, buf);
        break;
    case LOOM_OP_EYE:
        snprintf(buf, sizeof buf, "k %lld", (long long)a->param.eye.k);
        field(out, buf);
        break;
    case LOOM_OP_ROUND:
        snprintf(buf, sizeof buf, "decimals %lld", (long long)a->param.round.decimals);
        field(out, buf);
        break;
    case LOOM_OP_CUMSUM:
    case LOOM_OP_CUMPROD:
        snprintf(buf, sizeof buf, "axis %lld", (long long)a->param.scan.axis);
        field(out, buf);
        break;
    case LOOM_OP_ROLL:
        if (a->param.roll.axis < 0)
            snprintf(buf, sizeof buf, "flat shift %lld", (long long)a->param.roll.shift);
        else
            snprintf(buf, sizeof buf, "axis %lld shift %lld", (long long)a->param.roll.axis,
                     (long long)a->param.roll.shift);
        field(out, buf);
        break;
    case LOOM_OP_CURAND: { /* the draw's seeding, what it generates and its count */
        static const char *const dists[] = {"uniform", "normal", "lognormal", "poisson"};
        char pa[32], pb[32];
        fmt_double(pa, sizeof pa, a->param.multi.curand.a);
        fmt_double(pb, sizeof pb, a->param.multi.curand.b);
        if (a->param.multi.curand.reseed)
            snprintf(buf, sizeof buf, "seed %llu", (unsigned long long)a->param.multi.curand.seed);
        else
            snprintf(buf, sizeof buf, "after the previous draw");
        field(out, buf);
        snprintf(buf, sizeof buf, "%s(%s, %s) x %lld", dists[a->param.multi.curand.dist & 3], pa,
                 pb, (long long)a->param.multi.curand.count);
        field(out, buf);
        break;
    }
    case LOOM_OP_VIEW: {
        int used = snprintf(buf, sizeof buf, "strides ");
        loom__fmt_shape(buf + used, sizeof buf - (size_t)used, a->ndim, a->strides);
        if (a->offset) {
            size_t len = strlen(buf);
            snprintf(buf + len, sizeof buf - len, " offset %lld", (long long)a->offset);
        }
        field(out, buf);
        break;
    }
    default:
        if (loom__is_random(a->op))
            random_fields(out, a);
        break;
    }
}

static const char *style_of(const loom_array *a)
{
    if (a->buffer)
        return "style=\"filled,bold\", fillcolor=\"#cfe2f3\""; /* materialised */
    switch (loom__ops[a->op].kind) {
    case LOOM_OPK_LEAF:
        return "style=filled, fillcolor=\"#e6e6e6\"";
    case LOOM_OPK_GEN:
        return "style=\"filled,dashed\", fillcolor=\"#fff2cc\"";
    default:
        return "style=filled, fillcolor=white";
    }
}

static void put_node(FILE *out, const char *indent, int id, const loom_array *a, int request)
{
    char shape[1024];
    const char *op = a->op == LOOM_OP_VIEW && a->label ? a->label : loom__op_label(a);
    fprintf(out, "%sn%d [label=\"{", indent, id);
    put_escaped(out, op);
    fputc('|', out);
    put_escaped(out, loom_dtype_name((loom_dtype)a->dtype));
    fputc(' ', out);
    put_escaped(out, loom__fmt_shape(shape, sizeof shape, a->ndim, a->shape));
    param_fields(out, a);
    if (request >= 0) {
        snprintf(shape, sizeof shape, "output %d", request);
        field(out, shape);
    }
    fprintf(out, "}\", %s%s];\n", style_of(a),
            request >= 0 ? ", penwidth=2, color=\"#b03a2e\"" : "");
}

/* A cluster label is a plain string: only " and \ need escaping. */
static void put_cluster_label(FILE *out, const char *s)
{
    for (; s && *s; s++) {
        if (*s == '"' || *s == '\\')
            fputc('\\', out);
        fputc(*s, out);
    }
}

/* ---- the dump ---- */

typedef struct placed {
    int cluster, id;
} placed;

/* Clusters in increasing k (unclustered first), ids in walk order within each. */
static int by_cluster(const void *pa, const void *pb)
{
    const placed *a = pa, *b = pb;
    if (a->cluster != b->cluster)
        return a->cluster < b->cluster ? -1 : 1;
    return (a->id > b->id) - (a->id < b->id);
}

int loom__dump_dot_clustered(FILE *out, loom_array *const *arrays, int n,
                             int (*cluster_of)(void *ctx, const loom_array *node),
                             const char *(*cluster_label)(void *ctx, int k), void *ctx)
{
    if (!out) {
        loom__error(LOOM_ERR_INVALID, FN, "the output stream is NULL");
        return LOOM_ERR_INVALID;
    }
    int rc = loom__check_array_list(FN, arrays, n);
    if (rc)
        return rc;
    dot_graph g = {0};
    int *request = NULL;
    placed *sorted = NULL;
    if (walk(&g, arrays, n))
        goto oom;
    request = loom__malloc(((size_t)g.n + 1) * sizeof *request);
    sorted = loom__malloc(((size_t)g.n + 1) * sizeof *sorted);
    if (!request || !sorted)
        goto oom;
    for (int i = 0; i < g.n; i++) {
        int k = cluster_of ? cluster_of(ctx, g.order[i]) : -1;
        sorted[i] = (placed){k < 0 ? -1 : k, i};
        request[i] = -1;
    }
    for (int r = n; r-- > 0;)
        request[loom__ptrmap_get(&g.ids, arrays[r])] = r; /* the first request wins */
    qsort(sorted, (size_t)g.n, sizeof *sorted, by_cluster);

    fputs("digraph loom {\n"
          "  node [shape=record, fontname=\"Helvetica\", fontsize=10];\n"
          "  edge [fontname=\"Helvetica\", fontsize=9, color=\"#555555\"];\n",
          out);
    for (int s = 0; s < g.n; s++) {
        int i = sorted[s].id, k = sorted[s].cluster;
        bool opens = k >= 0 && (s == 0 || sorted[s - 1].cluster != k);
        bool closes = k >= 0 && (s + 1 == g.n || sorted[s + 1].cluster != k);
        if (opens) {
            fprintf(out, "  subgraph cluster_%d {\n    label=\"", k);
            put_cluster_label(out, cluster_label ? cluster_label(ctx, k) : NULL);
            fputs("\";\n    style=\"rounded,filled\"; fillcolor=\"#eef3fa\"; color=\"#8aa1c1\";\n"
                  "    fontname=\"Helvetica\"; fontsize=10;\n",
                  out);
        }
        put_node(out, k >= 0 ? "    " : "  ", i, g.order[i], request[i]);
        if (closes)
            fputs("  }\n", out);
    }
    for (int i = 0; i < g.n; i++) {
        const loom_array *a = g.order[i];
        int nin = ninputs_drawn(a);
        for (int k = 0; k < nin; k++) {
            fprintf(out, "  n%d -> n%d", loom__ptrmap_get(&g.ids, a->inputs[k]), i);
            if (nin > 1)
                fprintf(out, " [label=\"%d\"]", k);
            fputs(";\n", out);
        }
    }
    fputs("}\n", out);
    if (fflush(out) != 0 || ferror(out)) {
        loom__error(LOOM_ERR_IO, FN, "writing the DOT output failed");
        rc = LOOM_ERR_IO;
    }
    goto done;
oom:
    loom__error(LOOM_ERR_OOM, FN, "out of host memory");
    rc = LOOM_ERR_OOM;
done:
    free(request);
    free(sorted);
    free(g.order);
    loom__ptrmap_free(&g.ids);
    return rc;
}
