/* User elementwise kernels inside generated kernels: each resolved kernel is a namespace
 * holding the user's preamble, the body as an inlined device function and one accessor per
 * output, so any generated kernel can call it as an expression (docs/custom-kernels.md). */
#include "emit.h"

#include "../graph/ukernel.h"

static bool is_user(const loom_array *a)
{
    return a->op == LOOM_OP_UKERNEL || a->op == LOOM_OP_UREDUCE;
}

static const loom__ucall *call_of(const loom_array *a)
{
    return a->op == LOOM_OP_UREDUCE ? a->param.ureduce.call : a->param.ukernel.call;
}

/* The C++ type a parameter is declared with: its placeholder letter (typedef'd in the
 * namespace) or the dtype's type. */
static void param_type(loom_strbuf *sb, const loom__uparam *p, int dt)
{
    if (p->dtype == LOOM_NO_DTYPE)
        loom__sb_printf(sb, "%c", p->placeholder);
    else
        loom__sb_printf(sb, "%s", loom__ctype(dt));
}

/* The inputs as a parameter or argument list, after the index ones of boundary kernels. */
static void inputs(loom_strbuf *sb, const loom__ucall *c, bool declare)
{
    const loom_elementwise_kernel *k = c->kernel;
    bool first = true;
    if (k->boundary) {
        loom__sb_printf(sb, declare ? "const long long i, const loom_indexer _ind" : "i, _ind");
        first = false;
    }
    for (int p = 0; p < k->nin; p++) {
        const loom__uparam *q = &k->params[p];
        loom__sb_printf(sb, "%s", first ? "" : ", ");
        first = false;
        if (!declare) {
            loom__sb_printf(sb, "%s", q->name);
            continue;
        }
        if (q->raw) {
            loom__sb_printf(sb, "const loom_raw<const ");
            param_type(sb, q, c->types[p]);
            loom__sb_printf(sb, "> %s", q->name);
        } else {
            loom__sb_printf(sb, "const ");
            param_type(sb, q, c->types[p]);
            loom__sb_printf(sb, " %s", q->name);
        }
    }
}

/* The dtype a reduce step reduces in, for call c. */
static int reduce_dtype(const loom__ucall *c)
{
    const loom_elementwise_kernel *k = c->kernel;
    for (int p = 0; k->reduce_dtype == LOOM_NO_DTYPE && p < k->nin + k->nout; p++)
        if (k->params[p].dtype == LOOM_NO_DTYPE && k->params[p].placeholder == k->reduce_letter)
            return c->types[p];
    return k->reduce_dtype;
}

/* A reduce step: CuPy's _type_reduce, the operator of a and b, and the identity; without
 * one, the accumulator is a loom_maybe (kernels/loom_reduce.cuh) that starts empty. */
static void emit_reduce_step(loom_strbuf *sb, const loom__ucall *c)
{
    const loom_elementwise_kernel *k = c->kernel;
    loom__sb_printf(sb, "typedef %s _type_reduce;\n", loom__ctype(reduce_dtype(c)));
    loom__sb_printf(sb, "__device__ __forceinline__ _type_reduce reduce(const _type_reduce a, const _type_reduce b)\n"
                        "{\n    return (%s);\n}\n", k->operation);
    if (k->identity) {
        loom__sb_printf(sb, "__device__ __forceinline__ _type_reduce identity()\n{\n    return (_type_reduce)(%s);\n}\n",
                        k->identity);
        return;
    }
    loom__sb_printf(sb, "typedef loom_maybe<_type_reduce> loom_acc;\n"
                        "__device__ __forceinline__ loom_acc loom_reduce_maybe(const loom_acc a, const loom_acc b)\n"
                        "{\n    if (!a.has)\n        return b;\n    if (!b.has)\n        return a;\n"
                        "    loom_acc r;\n    r.v = reduce(a.v, b.v);\n    r.has = 1;\n    return r;\n}\n"
                        "__device__ __forceinline__ loom_acc loom_none()\n{\n    loom_acc r;\n    r.v = _type_reduce();\n"
                        "    r.has = 0;\n    return r;\n}\n");
}

static void emit_def(loom_strbuf *sb, const loom__ucall *c)
{
    const loom_elementwise_kernel *k = c->kernel;
    const int n = k->nin + k->nout;
    loom__sb_printf(sb, "// user kernel \"%s\"%s\nnamespace loom_uk_%016llx {\n", k->name,
                    k->reduce_step ? " (reduce step)" : "", (unsigned long long)c->key);
    /* placeholders: each letter once */
    for (int p = 0; p < n; p++) {
        const loom__uparam *q = &k->params[p];
        bool seen = q->dtype != LOOM_NO_DTYPE;
        for (int r = 0; r < p && !seen; r++)
            seen = k->params[r].dtype == LOOM_NO_DTYPE && k->params[r].placeholder == q->placeholder;
        if (!seen)
            loom__sb_printf(sb, "typedef %s %c;\n", loom__ctype(c->types[p]), q->placeholder);
    }
    if (*k->preamble)
        loom__sb_printf(sb, "%s\n", k->preamble);
    if (k->reduce_step) {
        emit_reduce_step(sb, c);
        loom__sb_printf(sb, "}\n");
        return;
    }
    loom__sb_printf(sb, "__device__ __forceinline__ void body(");
    inputs(sb, c, true);
    for (int p = k->nin; p < n; p++) {
        loom__sb_printf(sb, ", ");
        param_type(sb, &k->params[p], c->types[p]);
        loom__sb_printf(sb, " &%s", k->params[p].name);
    }
    loom__sb_printf(sb, ")\n{\n%s;\n}\n", k->operation);
    for (int o = 0; o < k->nout; o++) {
        const int p = k->nin + o;
        loom__sb_printf(sb, "__device__ __forceinline__ %s out%d(", loom__ctype(c->types[p]), o);
        inputs(sb, c, true);
        loom__sb_printf(sb, ")\n{\n");
        for (int r = k->nin; r < n; r++)
            loom__sb_printf(sb, "    %s %s = %s();\n", loom__ctype(c->types[r]), k->params[r].name,
                            loom__ctype(c->types[r]));
        loom__sb_printf(sb, "    body(");
        inputs(sb, c, false);
        for (int r = k->nin; r < n; r++)
            loom__sb_printf(sb, ", %s", k->params[r].name);
        loom__sb_printf(sb, ");\n    return %s;\n}\n", k->params[p].name);
    }
    loom__sb_printf(sb, "}\n");
}

void loom__emit_ukernel_defs(loom_strbuf *sb, const loom_array *const *nodes, int n)
{
    bool any = false;
    for (int i = 0; i < n; i++) {
        if (!is_user(nodes[i]))
            continue;
        bool seen = false;
        for (int j = 0; j < i && !seen; j++)
            seen = is_user(nodes[j]) && call_of(nodes[j])->key == call_of(nodes[i])->key;
        if (seen)
            continue;
        if (!any)
            loom__sb_printf(sb, "#include \"loom_user.cuh\"\n");
        any = true;
        emit_def(sb, call_of(nodes[i]));
    }
}

void loom__emit_ukernel_call(loom_strbuf *sb, const loom_array *a, const char *const *in,
                             const char *index, const char *size)
{
    const loom__ucall *c = call_of(a);
    const loom_elementwise_kernel *k = c->kernel;
    loom__sb_printf(sb, "loom_uk_%016llx::out%lld(", (unsigned long long)c->key,
                    (long long)a->param.ukernel.output);
    if (k->boundary)
        loom__sb_printf(sb, "(long long)(%s), loom_indexer{(long long)(%s), (long long)(%s)}",
                        index ? index : "0", index ? index : "0", size ? size : "0");
    for (int p = 0; p < k->nin; p++) {
        const char *sep = p || k->boundary ? ", " : "";
        if (k->params[p].raw) /* codegen_ew passes the whole loom_raw */
            loom__sb_printf(sb, "%s%s", sep, in[p]);
        else
            loom__sb_printf(sb, "%sloom_cast<%s>(%s)", sep, loom__ctype(c->types[p]), in[p]);
    }
    loom__sb_printf(sb, ")");
}

void loom__needs_add_ukernel(loom_needs *n, const loom_array *a)
{
    const loom__ucall *c = call_of(a);
    for (int p = 0; p < c->kernel->nin + c->kernel->nout; p++)
        loom__needs_add(n, c->types[p]);
}

void loom__ureduce_functor(const loom_array *a, char *body, size_t nbody, char *identity,
                           size_t nidentity)
{
    const unsigned long long key = (unsigned long long)call_of(a)->key;
    const bool maybe = !loom__ureduce_has_identity(a);
    snprintf(body, nbody, "loom_uk_%016llx::%s(a, b)", key, maybe ? "loom_reduce_maybe" : "reduce");
    snprintf(identity, nidentity, "loom_uk_%016llx::%s()", key, maybe ? "loom_none" : "identity");
}

bool loom__ureduce_has_identity(const loom_array *a)
{
    return a->op != LOOM_OP_UREDUCE || call_of(a)->kernel->identity != NULL;
}

bool loom__ukernel_is_boundary(const loom_array *a)
{
    return call_of(a)->kernel->boundary;
}

bool loom__ukernel_input_is_raw(const loom_array *a, int k)
{
    return call_of(a)->kernel->params[k].raw;
}

const char *loom__ukernel_options(const loom_array *a)
{
    return call_of(a)->kernel->options;
}
