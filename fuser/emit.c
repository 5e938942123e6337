/* Pieces every kernel generator shares (fuser/emit.h). */
#include "emit.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

const char *loom__ctype(int dt)
{
    static const char *names[LOOM_NUM_DTYPES] = {
        "lt_bool",    "lt_int8",     "lt_int16",    "lt_int32",     "lt_int64",
        "lt_uint8",   "lt_uint16",   "lt_uint32",   "lt_uint64",    "lt_float16",
        "lt_bfloat16", "lt_float32", "lt_float64",  "lt_complex64", "lt_complex128"};
    return names[dt];
}

static loom_karg *new_arg(loom_kargs *c, const char *decl)
{
    if (c->nargs == c->cap) {
        int cap = c->cap ? c->cap * 2 : 16;
        loom_karg *grown = loom__realloc(c->k->args, (size_t)cap * sizeof *grown);
        if (!grown) {
            c->params.failed = true;
            return NULL;
        }
        c->k->args = grown;
        c->cap = cap;
    }
    loom__sb_printf(&c->params, "%s    %s p%d", c->nargs ? ",\n" : "", decl, c->nargs);
    loom_karg *a = &c->k->args[c->nargs++];
    memset(a, 0, sizeof *a);
    return a;
}

int loom__arg_ptr(loom_kargs *c, int buffer, int dt, bool out, size_t byte_offset)
{
    return loom__arg_ptr_typed(c, buffer, loom__ctype(dt), out, byte_offset);
}

int loom__arg_ptr_typed(loom_kargs *c, int buffer, const char *type, bool out, size_t byte_offset)
{
    char decl[80];
    snprintf(decl, sizeof decl, "%s%s *__restrict__", out ? "" : "const ", type);
    loom_karg *a = new_arg(c, decl);
    if (a) {
        a->kind = LOOM_KARG_PTR;
        a->buffer = buffer;
        a->byte_offset = byte_offset;
    }
    return c->nargs - 1;
}

int loom__arg_i64(loom_kargs *c, int64_t v)
{
    loom_karg *a = new_arg(c, "long long");
    if (a) {
        a->kind = LOOM_KARG_VALUE;
        a->size = 8;
        memcpy(a->value, &v, 8);
    }
    return c->nargs - 1;
}

int loom__arg_param(loom_kargs *c, const loom_array *node, loom_karg_src src, size_t offset)
{
    loom_dtype dt = (loom_dtype)node->dtype;
    const char *decl = "long long";
    if (src == LOOM_SRC_VALUE)
        decl = loom__is_complex(dt) ? "loom_c128" : loom__is_float(dt) ? "double" : "long long";
    else if (src == LOOM_SRC_PARAM_F64)
        decl = "double";
    loom_karg *a = new_arg(c, decl);
    if (a) {
        a->kind = LOOM_KARG_VALUE;
        a->src = src;
        a->src_offset = offset;
        a->src_node = loom__walk_at(c->w, node);
        loom__karg_refill(a, node);
    }
    return c->nargs - 1;
}

/* A scalar or fill value as the widest type of its kind; the kernel casts it once. */
int loom__arg_value(loom_kargs *c, const loom_array *a)
{
    return loom__arg_param(c, a, LOOM_SRC_VALUE, 0);
}

/* The value of generator g at flat index expression f (in its own C-order layout). */
void loom__emit_gen(loom_strbuf *sb, const loom_array *g, int p, const char *f)
{
    const char *t = loom__ctype(g->dtype);
    switch (g->op) {
    case LOOM_OP_FULL:
        loom__sb_printf(sb, "loom_cast<%s>(p%d)", t, p);
        break;
    case LOOM_OP_EMPTY:
        loom__sb_printf(sb, "%s()", t);
        break;
    case LOOM_OP_ARANGE:
        loom__sb_printf(sb, "loom_arange_at<%s>(p%d, p%d, (long long)(%s))", t, p, p + 1, f);
        break;
    case LOOM_OP_LINSPACE:
        loom__sb_printf(sb, "loom_linspace_at<%s>(p%d, p%d, p%d, p%d, p%d, (long long)(%s))", t, p,
                        p + 1, p + 2, p + 3, p + 4, f);
        break;
    case LOOM_OP_EYE:
        loom__sb_printf(sb, "loom_cast<%s>((long long)((%s) %% p%d) - (long long)((%s) / p%d) == p%d)", t,
                        f, p, f, p, p + 1);
        break;
    default:
        if (loom__is_random(g->op))
            loom__emit_random(sb, g, p, f, "0", 1);
        break;
    }
}

void loom__emit_random(loom_strbuf *sb, const loom_array *g, int p, const char *step,
                       const char *lane, int per_step)
{
    loom__sb_printf(sb, "loom_rng_%s<%s, %d>(p%d, p%d, (loom_u64)(%s), %s, p%d, p%d", loom__ops[g->op].name,
                    loom__ctype(g->dtype), per_step, p, p + 1, step, lane, p + 2, p + 3);
    if (g->op == LOOM_OP_RANDOM_INTEGERS)
        loom__sb_printf(sb, ")");
    else
        loom__sb_printf(sb, ", p%d)", p + 4);
}

/* Seed and first block, then the parameters: as loom_rng_<name> in kernels/loom_random.cuh
 * takes them. Values, not source, so other seeds and calls reuse the kernel. */
static int arg_random(loom_kargs *c, const loom_array *g)
{
    int p = loom__arg_param(c, g, LOOM_SRC_PARAM_I64, LOOM_PARAM(random.seed));
    loom__arg_param(c, g, LOOM_SRC_PARAM_I64, LOOM_PARAM(random.ctr));
    if (g->op == LOOM_OP_RANDOM_INTEGERS) {
        loom__arg_param(c, g, LOOM_SRC_PARAM_I64, LOOM_PARAM(randint.low));
        loom__arg_param(c, g, LOOM_SRC_PARAM_I64, LOOM_PARAM(randint.range));
    } else {
        loom__arg_param(c, g, LOOM_SRC_PARAM_F64, LOOM_PARAM(random.a));
        loom__arg_param(c, g, LOOM_SRC_PARAM_F64, LOOM_PARAM(random.b));
        loom__arg_param(c, g, LOOM_SRC_PARAM_F64, LOOM_PARAM(random.c));
    }
    return p;
}

int loom__arg_gen(loom_kargs *c, const loom_array *g)
{
    if (loom__is_random(g->op))
        return arg_random(c, g);
    switch (g->op) {
    case LOOM_OP_FULL:
        return loom__arg_value(c, g);
    case LOOM_OP_ARANGE: {
        int p = loom__arg_param(c, g, LOOM_SRC_PARAM_F64, LOOM_PARAM(arange.start));
        loom__arg_param(c, g, LOOM_SRC_PARAM_F64, LOOM_PARAM(arange.next));
        return p;
    }
    case LOOM_OP_LINSPACE: {
        int p = loom__arg_param(c, g, LOOM_SRC_PARAM_F64, LOOM_PARAM(linspace.start));
        loom__arg_param(c, g, LOOM_SRC_PARAM_F64, LOOM_PARAM(linspace.scale));
        loom__arg_param(c, g, LOOM_SRC_PARAM_F64, LOOM_PARAM(linspace.divisor));
        loom__arg_param(c, g, LOOM_SRC_PARAM_F64, LOOM_PARAM(linspace.stop));
        const int64_t num = g->param.linspace.num;
        loom__arg_i64(c, g->param.linspace.endpoint && num > 1 ? num - 1 : -1);
        return p;
    }
    case LOOM_OP_EYE: {
            int p = loom__arg_i64(c, g->ndim == 2 ? g->shape[1] : 1);
        loom__arg_param(c, g, LOOM_SRC_PARAM_I64, LOOM_PARAM(eye.k));
        return p;
    }
    default:
        return c->nargs; /* EMPTY needs nothing */
    }
}


void loom__emit_ew_expr(loom_strbuf *sb, const loom_array *a, const char *const *in)
{
    const char *t = loom__ctype(a->dtype), *cd = loom__ctype(a->cdtype);
    switch (a->op) {
    case LOOM_OP_COPY:
        loom__sb_printf(sb, "%s", in[0]);
        break;
    case LOOM_OP_CAST:
        loom__sb_printf(sb, "loom_cast<%s>(%s)", t, in[0]);
        break;
    case LOOM_OP_ROUND:
        loom__sb_printf(sb, "loom_cast<%s>(loom_round(loom_cast<%s>(%s), %lld))", t, cd, in[0],
                        (long long)a->param.round.decimals);
        break;
    case LOOM_OP_UKERNEL:
        loom__emit_ukernel_call(sb, a, in, NULL, NULL);
        break;
    case LOOM_OP_WHERE:
        loom__sb_printf(sb, "loom_cast<%s>(loom_where(loom_cast<lt_bool>(%s), loom_cast<%s>(%s), loom_cast<%s>(%s)))",
                        t, in[0], cd, in[1], cd, in[2]);
        break;
    default:
        loom__sb_printf(sb, "loom_cast<%s>(loom_%s(", t, loom__ops[a->op].name);
        for (int k = 0; k < a->ninputs; k++)
            loom__sb_printf(sb, "%sloom_cast<%s>(%s)", k ? ", " : "", cd, in[k]);
        loom__sb_printf(sb, "))");
        break;
    }
}

void loom__needs_add(loom_needs *n, int dt)
{
    n->half |= dt == LOOM_FLOAT16 || dt == LOOM_BFLOAT16;
    n->complex |= loom__is_complex((loom_dtype)dt);
    n->ints |= loom__is_int((loom_dtype)dt);
}

void loom__needs_add_node(loom_needs *n, const loom_array *a)
{
    loom__needs_add(n, a->dtype);
    loom__needs_add(n, a->cdtype);
    if (a->op == LOOM_OP_UKERNEL || a->op == LOOM_OP_UREDUCE)
        loom__needs_add_ukernel(n, a);
    const loom_array *g = a->op == LOOM_OP_VIEW && a->ninputs ? a->inputs[0] : a;
    n->random |= loom__is_random(g->op);
}

/* Parsing the ops of every dtype was most of a small kernel's compile time. */
void loom__emit_needs(loom_strbuf *sb, const loom_needs *n)
{
    if (n->half)
        loom__sb_printf(sb, "#define LOOM_NEED_HALF\n");
    if (n->complex)
        loom__sb_printf(sb, "#define LOOM_NEED_COMPLEX\n");
    if (n->ints)
        loom__sb_printf(sb, "#define LOOM_NEED_INT\n");
    if (n->random)
        loom__sb_printf(sb, "#define LOOM_NEED_RANDOM\n");
}

int loom__kernel_name_source(loom_kernel *k, const char *prefix, char *src)
{
    snprintf(k->name, sizeof k->name, "%s_%016llx", prefix,
             (unsigned long long)loom__fnv1a64(src, strlen(src), LOOM__FNV1A64_INIT));
    char *at = strstr(src, "@NAME@");
    size_t len = strlen(src), nl = strlen(k->name);
    k->source = loom__malloc(len - 6 + nl + 1);
    if (!k->source) {
        free(src);
        return -1;
    }
    memcpy(k->source, src, (size_t)(at - src));
    memcpy(k->source + (at - src), k->name, nl);
    strcpy(k->source + (at - src) + nl, at + 6);
    free(src);
    return 0;
}
