/* User reduction kernels (CuPy's ReductionKernel), recorded as three nodes that fuse like
 * Loom's own: the map (a UKERNEL node of a made-up elementwise kernel), the reduce step (an
 * UREDUCE node, a reduction with the user's operator and identity) and the post-map (a
 * UKERNEL node). docs/custom-kernels.md. */
#define _POSIX_C_SOURCE 200809L
#include "reduce.h"
#include "ukernel.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char create_fn[] = "loom_reduction_kernel_create";
static const char call_fn[] = "loom_reduction_kernel_call";

/* C's names of the types reduce_type may hold (CuPy writes it into a typedef). */
static const struct {
    const char *name;
    loom_dtype dtype;
} c_types[] = {
    {"float", LOOM_FLOAT32}, {"double", LOOM_FLOAT64}, {"bool", LOOM_BOOL},
    {"char", LOOM_INT8}, {"signed char", LOOM_INT8}, {"unsigned char", LOOM_UINT8},
    {"short", LOOM_INT16}, {"unsigned short", LOOM_UINT16}, {"int", LOOM_INT32},
    {"unsigned int", LOOM_UINT32}, {"unsigned", LOOM_UINT32}, {"long", LOOM_INT64},
    {"long long", LOOM_INT64}, {"unsigned long", LOOM_UINT64},
    {"unsigned long long", LOOM_UINT64}, {"half", LOOM_FLOAT16},
};

/* reduce_type: a placeholder letter, a C type name or a NumPy dtype name; 1 for another type
 * (a type of the user's preamble: the kernel is then one of its own). */
static int parse_reduce_type(const char *s, char *letter, int8_t *dtype)
{
    char words[64] = "";
    size_t n = 0;
    for (const char *c = s; *c; c++) {
        if (isspace((unsigned char)*c)) {
            if (n && words[n - 1] != ' ' && n + 1 < sizeof words)
                words[n++] = ' ';
        } else if (n + 1 < sizeof words) {
            words[n++] = *c;
        }
    }
    while (n && words[n - 1] == ' ')
        n--;
    words[n] = '\0';
    *letter = 0;
    *dtype = LOOM_NO_DTYPE;
    if (n == 1 && isalpha((unsigned char)words[0])) {
        *letter = words[0];
        return 0;
    }
    for (size_t i = 0; i < sizeof c_types / sizeof *c_types; i++)
        if (strcmp(words, c_types[i].name) == 0) {
            *dtype = (int8_t)c_types[i].dtype;
            return 0;
        }
    *dtype = (int8_t)loom__uparam_dtype(words);
    if (*dtype != LOOM_NO_DTYPE)
        return 0;
    if (n == 0) {
        loom__error(LOOM_ERR_INVALID, create_fn, "reduce_type '%.64s' is empty", s);
        return -1;
    }
    return 1;
}

void loom_reduction_kernel_destroy(loom_reduction_kernel *k)
{
    if (!k)
        return;
    loom__ukernel_release(k->sig);
    loom__ukernel_release(k->map);
    loom__ukernel_release(k->step);
    loom__ukernel_release(k->post);
    loom__ureduce_own_free(k->own);
    free(k);
}

/* The user's kernel as far as CuPy checks it at creation, and what Loom supports. */
static int check_signature(const loom_elementwise_kernel *sig)
{
    if (sig->nout > LOOM_MAX_RESULTS) {
        loom__error(LOOM_ERR_UNSUPPORTED, create_fn,
                    "kernel \"%s\" has %d outputs: reduction kernels have at most %d", sig->name, sig->nout,
                    LOOM_MAX_RESULTS);
        return -1;
    }
    for (int p = 0; p < sig->nin; p++)
        if (sig->params[p].raw) {
            loom__error(LOOM_ERR_UNSUPPORTED, create_fn,
                        "raw parameter \"%s\": reduction kernels take no raw parameters", sig->params[p].name);
            return -1;
        }
    return 0;
}

loom_reduction_kernel *loom_reduction_kernel_create(const char *in_params, const char *out_params,
                                                    const char *map_expr, const char *reduce_expr,
                                                    const char *post_map_expr,
                                                    const char *identity, const char *name,
                                                    const char *reduce_type,
                                                    const char *preamble, const char *options)
{
    if (!map_expr || !reduce_expr) {
        loom__error(LOOM_ERR_INVALID, create_fn, "map_expr and reduce_expr are required");
        return NULL;
    }
    loom_reduction_kernel *k = loom__calloc(1, sizeof *k);
    if (!k) {
        loom__error(LOOM_ERR_OOM, create_fn, "out of host memory");
        return NULL;
    }
    k->sig = loom__ukernel_new(create_fn, in_params, out_params, "", name, preamble, options);
    if (!k->sig || check_signature(k->sig)) {
        loom_reduction_kernel_destroy(k);
        return NULL;
    }
    const loom__uparam *out = &k->sig->params[k->sig->nin];
    char letter = out->placeholder;
    int8_t dtype = out->dtype;
    const int known = reduce_type ? parse_reduce_type(reduce_type, &letter, &dtype) : 0;
    if (known < 0) {
        loom_reduction_kernel_destroy(k);
        return NULL;
    }
    /* several outputs, a reduce type of the user's or the reduced index _J: a kernel of its own */
    if (k->sig->nout > 1 || known == 1 || loom__code_names(map_expr, "_J")) {
        if (loom__ureduce_own_init(create_fn, k, map_expr, reduce_expr, post_map_expr, identity,
                                   known == 1 ? reduce_type : NULL, letter, dtype)) {
            loom_reduction_kernel_destroy(k);
            return NULL;
        }
        return k;
    }
    char r[32], *text = NULL;
    snprintf(r, sizeof r, "%s", dtype != LOOM_NO_DTYPE ? loom_dtype_name((loom_dtype)dtype) : (char[]){letter, 0});
    size_t cap = strlen(map_expr) + strlen(post_map_expr ? post_map_expr : "") + strlen(out->name) + 64;
    if ((text = loom__malloc(cap))) {
        char params[64];
        snprintf(params, sizeof params, "%s _loom_a", r);
        snprintf(text, cap, "_loom_a = (%s);", map_expr);
        k->map = loom__ukernel_new(create_fn, in_params, params, text, name, preamble, options);
        k->step = k->map ? loom__ukernel_new(create_fn, in_params, out_params, reduce_expr, name,
                                             preamble, options)
                         : NULL;
        snprintf(params, sizeof params, "%s a", r);
        if (post_map_expr)
            snprintf(text, cap, "%s", post_map_expr);
        else
            snprintf(text, cap, "%s = a;", out->name);
        k->post = k->step ? loom__ukernel_new(create_fn, params, out_params, text, name, preamble, options)
                          : NULL;
    } else {
        loom__error(LOOM_ERR_OOM, create_fn, "out of host memory");
    }
    free(text);
    if (!k->post || (identity && !(k->step->identity = loom__strdup(identity)))) {
        if (k->post)
            loom__error(LOOM_ERR_OOM, create_fn, "out of host memory");
        loom_reduction_kernel_destroy(k);
        return NULL;
    }
    k->step->reduce_step = true;
    k->step->reduce_letter = letter;
    k->step->reduce_dtype = dtype;
    const int8_t rt[2] = {(int8_t)letter, dtype};
    /* no identity hashes as a string that no C expression is (it holds a NUL) */
    const char *id = identity ? identity : "\0none";
    const size_t idlen = identity ? strlen(identity) + 1 : 6;
    k->step->hash = loom__fnv1a64(id, idlen, loom__fnv1a64(rt, 2, k->step->hash));
    return k;
}

/* The dtype reduced in for call c of the signature: fixed, or its placeholder's binding. */
static int reduce_dtype(const loom_reduction_kernel *k, const loom__ucall *c)
{
    const loom_elementwise_kernel *s = k->sig;
    if (k->step->reduce_dtype != LOOM_NO_DTYPE)
        return k->step->reduce_dtype;
    for (int p = 0; p < s->nin + s->nout; p++)
        if (s->params[p].dtype == LOOM_NO_DTYPE && s->params[p].placeholder == k->step->reduce_letter)
            return c->types[p];
    loom__error(LOOM_ERR_INVALID, call_fn, "Cannot determine the type of placeholder %c of reduce_type",
                k->step->reduce_letter);
    return LOOM_NO_DTYPE;
}

/* The reduce step over m: an UREDUCE node of call c (unscoped). */
static loom_array *reduce_step(loom__ucall *c, loom_array *m, uint32_t mask, bool keepdims)
{
    loom_array *n = loom__reduce_alloc(call_fn, LOOM_OP_UREDUCE, m, mask, keepdims,
                                       (loom_dtype)m->dtype, (loom_dtype)m->dtype);
    if (!n)
        return NULL;
    n->param.ureduce.key = c->key;
    n->param.ureduce.call = c;
    atomic_fetch_add_explicit(&c->refcount, 1, memory_order_relaxed);
    return loom__node_finish_unscoped(n);
}

/* NumPy's error for a reduction of no elements without an identity. */
static int check_not_empty(const loom_reduction_kernel *k, const loom_array *m, uint32_t mask)
{
    if (k->step->identity || !mask || loom__reduce_count(m, mask) != 0)
        return 0;
    loom__error(LOOM_ERR_INVALID, call_fn, "zero-size array to reduction operation %s which has no identity",
                k->step->name);
    return -1;
}

loom_array *loom_reduction_kernel_call(loom_reduction_kernel *k, loom_array *const *args,
                                       int nargs, const int *axes, int naxes, bool keepdims)
{
    if (!k) {
        loom__error(LOOM_ERR_INVALID, call_fn, "kernel is NULL");
        return NULL;
    }
    if (k->own) {
        loom_array *y = NULL;
        if (k->sig->nout != 1) {
            loom__error(LOOM_ERR_INVALID, call_fn, "kernel \"%s\" has %d outputs: call it with loom_reduction_kernel_call_many",
                        k->sig->name, k->sig->nout);
            return NULL;
        }
        return loom__ureduce_own_call(call_fn, k, args, nargs, axes, naxes, keepdims, &y, 1) ? NULL : y;
    }
    int ndim;
    int64_t shape[LOOM_MAXDIMS];
    if (loom__ukernel_check_args(call_fn, k->sig, args, nargs) ||
        loom__ukernel_loop_shape(call_fn, k->sig, args, &ndim, shape))
        return NULL;
    loom__ucall *c = loom__ucall_resolve(call_fn, k->sig, args, nargs, ndim, shape);
    int rt = c ? reduce_dtype(k, c) : LOOM_NO_DTYPE;
    if (rt == LOOM_NO_DTYPE) {
        loom__ucall_release(c);
        return NULL;
    }
    const int nin = k->sig->nin;
    int8_t types[LOOM_MAX_EW_INPUTS + 1];
    memcpy(types, c->types, (size_t)nin);
    types[nin] = (int8_t)rt;
    loom__ucall *mc = loom__ucall_new(call_fn, k->map, types);
    loom__ucall *sc = loom__ucall_new(call_fn, k->step, c->types);
    const int8_t post_types[2] = {(int8_t)rt, c->types[nin]};
    loom__ucall *pc = loom__ucall_new(call_fn, k->post, post_types);
    loom_array *m = NULL, *r = NULL, *y = NULL;
    uint32_t mask = 0;
    loom_scope_begin(); /* owns the broadcast views of the arguments */
    if (mc && sc && pc && (m = loom__ukernel_record(call_fn, mc, args, 0, ndim, shape)) &&
        !loom__reduce_mask(call_fn, m, axes, naxes, &mask) && !check_not_empty(k, m, mask)) {
        /* reducing no axis maps and post-maps each element (reduce(identity, x) is x) */
        r = mask ? reduce_step(sc, m, mask, keepdims) : loom_retain(m);
        if (r)
            y = loom__ukernel_record(call_fn, pc, &r, 0, r->ndim, r->shape);
    }
    loom_scope_end();
    loom_release(m);
    loom_release(r);
    loom__ucall_release(c);
    loom__ucall_release(mc);
    loom__ucall_release(sc);
    loom__ucall_release(pc);
    return loom__adopt(y);
}

int loom_reduction_kernel_call_many(loom_reduction_kernel *k, loom_array *const *args, int nargs,
                                    const int *axes, int naxes, bool keepdims, loom_array **outs,
                                    int nouts)
{
    static const char fn[] = "loom_reduction_kernel_call_many";
    for (int j = 0; outs && j < nouts; j++)
        outs[j] = NULL;
    if (!k || !outs) {
        loom__error(LOOM_ERR_INVALID, fn, "%s is NULL", k ? "outs" : "kernel");
        return LOOM_ERR_INVALID;
    }
    if (nouts != k->sig->nout) {
        loom__error(LOOM_ERR_INVALID, fn, "kernel \"%s\" has %d outputs, not %d", k->sig->name, k->sig->nout, nouts);
        return LOOM_ERR_INVALID;
    }
    if (k->own)
        return loom__ureduce_own_call(fn, k, args, nargs, axes, naxes, keepdims, outs, nouts);
    outs[0] = loom_reduction_kernel_call(k, args, nargs, axes, naxes, keepdims);
    return outs[0] ? LOOM_OK : loom_last_error_code();
}
