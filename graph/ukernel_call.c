/* User elementwise kernels: creating one, and recording its calls as UKERNEL nodes
 * (graph/ukernel.h; docs/custom-kernels.md). Messages are CuPy's where CuPy has one. */
#define _POSIX_C_SOURCE 200809L
#include "ukernel.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static const char create_fn[] = "loom_elementwise_kernel_create";

bool loom__code_names(const char *s, const char *id)
{
    size_t n = strlen(id);
    while (*s) {
        if (s[0] == '/' && s[1] == '/') {
            while (*s && *s != '\n')
                s++;
        } else if (s[0] == '/' && s[1] == '*') {
            const char *end = strstr(s + 2, "*/");
            s = end ? end + 2 : s + strlen(s);
        } else if (*s == '"' || *s == '\'') {
            char q = *s++;
            while (*s && *s != q)
                s += s[0] == '\\' && s[1] ? 2 : 1;
            s += *s != '\0';
        } else if (isalpha((unsigned char)*s) || *s == '_') {
            const char *w = s;
            while (isalnum((unsigned char)*s) || *s == '_')
                s++;
            if ((size_t)(s - w) == n && memcmp(w, id, n) == 0)
                return true;
        } else if (isdigit((unsigned char)*s)) {
            while (isalnum((unsigned char)*s) || *s == '_' || *s == '.')
                s++; /* a number such as 1e5 or 0x1f is no identifier */
        } else {
            s++;
        }
    }
    return false;
}

static uint64_t hash_str(const char *s, uint64_t h)
{
    s = s ? s : "";
    return loom__fnv1a64(s, strlen(s) + 1, h);
}

void loom__ukernel_release(loom_elementwise_kernel *k)
{
    if (!k || atomic_fetch_sub_explicit(&k->refcount, 1, memory_order_acq_rel) != 1)
        return;
    loom__uparams_free(k->params, k->nin + k->nout);
    free(k->operation);
    free(k->name);
    free(k->preamble);
    free(k->options);
    free(k->identity);
    free(k->loop_prep);
    free(k->after_loop);
    free(k);
}

void loom__ucall_release(loom__ucall *c)
{
    if (!c || atomic_fetch_sub_explicit(&c->refcount, 1, memory_order_acq_rel) != 1)
        return;
    loom__ukernel_release(c->kernel);
    free(c);
}

void loom_elementwise_kernel_destroy(loom_elementwise_kernel *k)
{
    loom__ukernel_release(k);
}

/* The checks of a parsed kernel that CuPy makes at creation, and Loom's own limits. */
static int check_params(const char *fn, const loom_elementwise_kernel *k)
{
    const int n = k->nin + k->nout;
    if (k->nout == 0) {
        loom__error(LOOM_ERR_INVALID, fn,
                    "kernel \"%s\" has no output parameter (its result would be lost: arrays are values)",
                    k->name);
        return -1;
    }
    if (k->nin > LOOM_MAX_EW_INPUTS) {
        loom__error(LOOM_ERR_UNSUPPORTED, fn, "kernel \"%s\" has %d inputs; at most %d are supported",
                    k->name, k->nin, LOOM_MAX_EW_INPUTS);
        return -1;
    }
    for (int p = 0; p < n; p++) {
        const loom__uparam *a = &k->params[p];
        if (strcmp(a->name, "i") == 0) {
            loom__error(LOOM_ERR_INVALID, fn, "Can not use 'i' as a parameter name");
            return -1;
        }
        if (strcmp(a->name, "_ind") == 0 || strncmp(a->name, "loom_", 5) == 0) {
            loom__error(LOOM_ERR_INVALID, fn, "parameter name \"%s\" is reserved", a->name);
            return -1;
        }
        if (a->raw && p >= k->nin) {
            loom__error(LOOM_ERR_UNSUPPORTED, fn,
                        "raw output parameter \"%s\": outputs are new arrays of the broadcast shape (raw outputs are not supported)",
                        a->name);
            return -1;
        }
        for (int q = 0; q < p; q++)
            if (strcmp(k->params[q].name, a->name) == 0) {
                loom__error(LOOM_ERR_INVALID, fn, "duplicate parameter name \"%s\"", a->name);
                return -1;
            }
    }
    return 0;
}

static char *dup_or_empty(const char *s, bool *failed)
{
    char *d = loom__strdup(s ? s : "");
    *failed |= !d;
    return d;
}

loom_elementwise_kernel *loom__ukernel_new(const char *fn, const char *in_params,
                                           const char *out_params, const char *operation,
                                           const char *name, const char *preamble,
                                           const char *options)
{
    if (!operation) {
        loom__error(LOOM_ERR_INVALID, fn, "operation is NULL");
        return NULL;
    }
    if (!loom__is_identifier(name) || strlen(name) > 64) {
        loom__error(LOOM_ERR_INVALID, fn, "Invalid kernel name: \"%.80s\"", name ? name : "(null)");
        return NULL;
    }
    loom_elementwise_kernel *k = loom__calloc(1, sizeof *k);
    if (!k) {
        loom__error(LOOM_ERR_OOM, fn, "out of host memory");
        return NULL;
    }
    atomic_init(&k->refcount, 1);
    loom__uparam *in = NULL, *out = NULL;
    if (loom__uparams_parse(fn, in_params, &in, &k->nin) ||
        loom__uparams_parse(fn, out_params, &out, &k->nout)) {
        loom__uparams_free(in, k->nin);
        free(k);
        return NULL;
    }
    bool failed = false;
    k->params = loom__calloc((size_t)(k->nin + k->nout) + 1, sizeof *k->params);
    failed |= !k->params;
    if (k->params) {
        if (in)
            memcpy(k->params, in, (size_t)k->nin * sizeof *in);
        if (out)
            memcpy(k->params + k->nin, out, (size_t)k->nout * sizeof *out);
        free(in);
        free(out);
    } else {
        loom__uparams_free(in, k->nin);
        loom__uparams_free(out, k->nout);
        k->nin = k->nout = 0;
    }
    k->operation = dup_or_empty(operation, &failed);
    k->name = dup_or_empty(name, &failed);
    k->preamble = dup_or_empty(preamble, &failed);
    k->options = dup_or_empty(options, &failed);
    if (failed) {
        loom__error(LOOM_ERR_OOM, fn, "out of host memory");
        loom__ukernel_release(k);
        return NULL;
    }
    if (check_params(fn, k)) {
        loom__ukernel_release(k);
        return NULL;
    }
    bool raw = false;
    uint64_t h = LOOM__FNV1A64_INIT;
    for (int p = 0; p < k->nin + k->nout; p++) {
        const loom__uparam *a = &k->params[p];
        raw |= a->raw;
        h = hash_str(a->name, h);
        const int8_t desc[3] = {a->dtype, (int8_t)a->placeholder, (int8_t)a->raw};
        h = loom__fnv1a64(desc, sizeof desc, h);
    }
    h = loom__fnv1a64(&k->nin, sizeof k->nin, h);
    h = hash_str(k->operation, hash_str(k->name, hash_str(k->preamble, hash_str(k->options, h))));
    k->hash = h;
    const char *o = k->options;
    while (isspace((unsigned char)*o))
        o++;
    k->boundary = raw || *o || loom__code_names(k->operation, "i") || loom__code_names(k->operation, "_ind");
    return k;
}

loom_elementwise_kernel *loom_elementwise_kernel_create(const char *in_params,
                                                        const char *out_params,
                                                        const char *operation, const char *name,
                                                        const char *preamble, const char *options)
{
    return loom__ukernel_new(create_fn, in_params, out_params, operation, name, preamble, options);
}

loom_elementwise_kernel *loom_elementwise_kernel_create_ex(const char *in_params,
                                                           const char *out_params,
                                                           const char *operation, const char *name,
                                                           const char *preamble, const char *options,
                                                           const char *loop_prep,
                                                           const char *after_loop)
{
    static const char fn[] = "loom_elementwise_kernel_create_ex";
    loom_elementwise_kernel *k = loom__ukernel_new(fn, in_params, out_params, operation, name, preamble, options);
    if (!k)
        return NULL;
    bool failed = false;
    if (loop_prep && *loop_prep)
        failed |= !(k->loop_prep = loom__strdup(loop_prep));
    if (after_loop && *after_loop)
        failed |= !(k->after_loop = loom__strdup(after_loop));
    if (failed) {
        loom__error(LOOM_ERR_OOM, fn, "out of host memory");
        loom__ukernel_release(k);
        return NULL;
    }
    return k;
}

const char *loom__op_label(const loom_array *a)
{
    if (a->op == LOOM_OP_UKERNEL)
        return a->param.ukernel.call->kernel->name;
    if (a->op == LOOM_OP_UREDUCE)
        return a->param.ureduce.call->kernel->name;
    return loom__ops[a->op].name;
}

/* ---- calls ---- */

static const char call_fn[] = "loom_elementwise_kernel_call";

static const char *dtname(int dt)
{
    return loom_dtype_name((loom_dtype)dt);
}

/* Binds parameter p's type to array dtype dt, as CuPy's _decide_params_type does: an explicit
 * type must match exactly, a placeholder takes the first dtype it meets. letters[c] holds the
 * dtype bound to placeholder letter c, or LOOM_NO_DTYPE. */
static int bind_type(const char *fn, const loom__uparam *p, int dt, int8_t *letters)
{
    if (p->dtype != LOOM_NO_DTYPE) {
        if (p->dtype != dt) {
            loom__error(LOOM_ERR_INVALID, fn, "Type is mismatched. %s %s %s", p->name, dtname(dt),
                        dtname(p->dtype));
            return -1;
        }
        return 0;
    }
    int8_t *bound = &letters[(unsigned char)p->placeholder];
    if (*bound == LOOM_NO_DTYPE) {
        *bound = (int8_t)dt;
    } else if (*bound != dt) {
        loom__error(LOOM_ERR_INVALID, fn, "Type is mismatched. %s %s %s %c", p->name, dtname(dt),
                    dtname(*bound), p->placeholder);
        return -1;
    }
    return 0;
}

/* The broadcast shape of the non-raw array arguments (weak scalars are CuPy's Python
 * scalars and do not take part). */
int loom__ukernel_loop_shape(const char *fn, const loom_elementwise_kernel *k,
                             loom_array *const *args, int *ndim, int64_t *shape)
{
    int ndims[LOOM_MAX_EW_INPUTS];
    const int64_t *shapes[LOOM_MAX_EW_INPUTS];
    int n = 0;
    for (int p = 0; p < k->nin; p++)
        if (!k->params[p].raw && !args[p]->weak) {
            ndims[n] = args[p]->ndim;
            shapes[n++] = args[p]->shape;
        }
    if (n == 0) {
        loom__error(LOOM_ERR_INVALID, fn, "Loop size is undecided.");
        return -1;
    }
    return loom__broadcast_shapes(fn, n, ndims, shapes, ndim, shape);
}

/* Every parameter's dtype for these arguments (CuPy's order: outputs first, then inputs). */
loom__ucall *loom__ucall_resolve(const char *fn, loom_elementwise_kernel *k,
                                 loom_array *const *args, int nargs, int ndim,
                                 const int64_t *shape)
{
    int8_t letters[256];
    memset(letters, LOOM_NO_DTYPE, sizeof letters);
    for (int p = k->nin; p < nargs; p++) {
        const loom_array *a = args[p];
        if (a->weak) {
            loom__error(LOOM_ERR_INVALID, fn, "Output arguments must be arrays, not weak scalars");
            return NULL;
        }
        if (a->ndim != ndim || memcmp(a->shape, shape, (size_t)ndim * sizeof *shape) != 0) {
            loom__error(LOOM_ERR_INVALID, fn, "Out shape is mismatched");
            return NULL;
        }
        if (bind_type(fn, &k->params[p], a->dtype, letters))
            return NULL;
    }
    for (int p = 0; p < k->nin; p++)
        if (!args[p]->weak && bind_type(fn, &k->params[p], args[p]->dtype, letters))
            return NULL;
    const int n = k->nin + k->nout;
    int8_t types[2 * LOOM_MAX_EW_INPUTS + 64];
    if (n > (int)sizeof types) {
        loom__error(LOOM_ERR_UNSUPPORTED, fn, "kernel \"%s\" has too many outputs", k->name);
        return NULL;
    }
    for (int p = 0; p < n; p++) {
        const loom__uparam *q = &k->params[p];
        int dt = q->dtype != LOOM_NO_DTYPE ? q->dtype : letters[(unsigned char)q->placeholder];
        if (dt == LOOM_NO_DTYPE) {
            loom__error(LOOM_ERR_INVALID, fn,
                        "Cannot determine the type of placeholder %c of \"%s\": no array argument has it",
                        q->placeholder, q->name);
            return NULL;
        }
        types[p] = (int8_t)dt;
    }
    return loom__ucall_new(fn, k, types);
}

loom__ucall *loom__ucall_new(const char *fn, loom_elementwise_kernel *k, const int8_t *types)
{
    const int n = k->nin + k->nout;
    loom__ucall *c = loom__malloc(sizeof *c + (size_t)n);
    if (!c) {
        loom__error(LOOM_ERR_OOM, fn, "out of host memory");
        return NULL;
    }
    memcpy(c->types, types, (size_t)n);
    atomic_init(&c->refcount, 1);
    c->kernel = k;
    atomic_fetch_add_explicit(&k->refcount, 1, memory_order_relaxed);
    c->key = loom__fnv1a64(c->types, (size_t)n, k->hash);
    return c;
}

/* The node of output `out`: arguments in parameter order, non-raw arrays broadcast. */
loom_array *loom__ukernel_record(const char *fn, loom__ucall *c, loom_array *const *args,
                                 int out, int ndim, const int64_t *shape)
{
    const loom_elementwise_kernel *k = c->kernel;
    loom_array *n = loom__node_alloc_n(fn, LOOM_OP_UKERNEL, (loom_dtype)c->types[k->nin + out],
                                       ndim, shape, k->nin);
    if (!n)
        return NULL;
    n->device = args[0]->device;
    for (int p = 0; p < k->nin; p++) {
        loom_array *a = args[p];
        /* broadcast views belong to the scope call() opens around recording */
        loom_array *in = k->params[p].raw || a->weak ? a : loom__broadcast_to(fn, a, ndim, shape);
        if (!in) {
            loom_release(n);
            return NULL;
        }
        loom__node_set_input(n, p, in);
    }
    n->param.ukernel.key = c->key;
    n->param.ukernel.output = out;
    n->param.ukernel.call = c;
    atomic_fetch_add_explicit(&c->refcount, 1, memory_order_relaxed);
    return loom__node_finish_unscoped(n);
}

int loom__ukernel_check_args(const char *fn, const loom_elementwise_kernel *k,
                             loom_array *const *args, int nargs)
{
    if (nargs != k->nin && nargs != k->nin + k->nout) {
        loom__error(LOOM_ERR_INVALID, fn,
                    "Wrong number of arguments for '%s'. It must be either %d or %d (with outputs), but given %d.",
                    k->name, k->nin, k->nin + k->nout, nargs);
        return LOOM_ERR_INVALID;
    }
    if (loom__check_input_list(fn, args, nargs))
        return loom_last_error_code() ? loom_last_error_code() : LOOM_ERR_INVALID;
    for (int p = 1; p < nargs; p++)
        if (args[p]->device != args[0]->device) {
            loom__error(LOOM_ERR_INVALID, fn, "arrays are on different devices (%s and %s)",
                        loom__device_label(args[0]->device), loom__device_label(args[p]->device));
            return LOOM_ERR_INVALID;
        }
    for (int p = 0; p < k->nin; p++)
        if (k->params[p].raw && args[p]->op == LOOM_OP_SCALAR) {
            loom__error(LOOM_ERR_INVALID, fn, "raw parameter \"%s\" needs an array, not a scalar",
                        k->params[p].name);
            return LOOM_ERR_INVALID;
        }
    return LOOM_OK;
}

static int call(loom_elementwise_kernel *k, loom_array *const *args, int nargs, loom_array **outs,
                int nouts)
{
    for (int o = 0; outs && o < nouts; o++)
        outs[o] = NULL;
    if (!k) {
        loom__error(LOOM_ERR_INVALID, call_fn, "kernel is NULL");
        return LOOM_ERR_INVALID;
    }
    if (!outs || nouts != k->nout) {
        loom__error(LOOM_ERR_INVALID, call_fn, "kernel \"%s\" has %d output%s, not %d", k->name, k->nout,
                    k->nout == 1 ? "" : "s", nouts);
        return LOOM_ERR_INVALID;
    }
    int rc = loom__ukernel_check_args(call_fn, k, args, nargs);
    if (rc != LOOM_OK)
        return rc;
    int ndim;
    int64_t shape[LOOM_MAXDIMS];
    if (loom__ukernel_loop_shape(call_fn, k, args, &ndim, shape))
        return LOOM_ERR_INVALID;
    loom__ucall *c = loom__ucall_resolve(call_fn, k, args, nargs, ndim, shape);
    if (!c)
        return loom_last_error_code();
    if (k->loop_prep || k->after_loop) {
        rc = loom__ukernel_own_call(call_fn, c, args, ndim, shape, outs, nouts);
        loom__ucall_release(c);
        return rc;
    }
    /* Scoped only once every output exists, so a failure leaves nothing behind. */
    loom_scope_begin();
    for (int o = 0; o < nouts && rc == LOOM_OK; o++)
        if (!(outs[o] = loom__ukernel_record(call_fn, c, args, o, ndim, shape)))
            rc = loom_last_error_code();
    loom_scope_end();
    loom__ucall_release(c);
    for (int o = 0; o < nouts; o++) {
        if (rc == LOOM_OK && !loom__adopt(outs[o]))
            rc = loom_last_error_code(); /* the adopted outputs stay with the scope */
        else if (rc != LOOM_OK)
            loom_release(outs[o]);
    }
    for (int o = 0; o < nouts && rc != LOOM_OK; o++)
        outs[o] = NULL;
    return rc;
}

loom_array *loom_elementwise_kernel_call(loom_elementwise_kernel *k, loom_array *const *args,
                                         int nargs)
{
    if (k && k->nout != 1) {
        loom__error(LOOM_ERR_INVALID, call_fn,
                    "kernel \"%s\" has %d outputs: call it with loom_elementwise_kernel_call_many",
                    k->name, k->nout);
        return NULL;
    }
    loom_array *out = NULL;
    return call(k, args, nargs, &out, 1) == LOOM_OK ? out : NULL;
}

int loom_elementwise_kernel_call_many(loom_elementwise_kernel *k, loom_array *const *args,
                                      int nargs, loom_array **outs, int nouts)
{
    return call(k, args, nargs, outs, nouts);
}
