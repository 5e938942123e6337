/* Raw kernels (CuPy's RawKernel and RawModule): the user's whole __global__ function, launched
 * with the user's grid, block and shared memory as one step of a plan. A launch is a
 * multi-output node whose results are its output arguments after the launch
 * (docs/custom-kernels.md). */
#define _POSIX_C_SOURCE 200809L
#include "ukernel.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

static const char create_fn[] = "loom_raw_kernel_create";
static const char call_fn[] = "loom_raw_kernel_call";

/* The longest kernel name a plan's kernel step holds. */
#define NAME_MAX_LEN 63

struct loom_raw_module {
    char *source, *options;
    char **names; /* CuPy's name_expressions: the templated kernels get_function may name */
    int nnames;
};

void loom__raw_kernel_release(loom_raw_kernel *k)
{
    if (!k || atomic_fetch_sub_explicit(&k->refcount, 1, memory_order_acq_rel) != 1)
        return;
    free(k->source);
    free(k->name);
    free(k->options);
    free(k);
}

void loom_raw_kernel_destroy(loom_raw_kernel *k)
{
    loom__raw_kernel_release(k);
}

/* A kernel of source named name: an extern "C" name, or a name expression when expression. */
static loom_raw_kernel *raw_new(const char *fn, const char *source, const char *name,
                                const char *options, bool expression)
{
    if (!source) {
        loom__error(LOOM_ERR_INVALID, fn, "source is NULL");
        return NULL;
    }
    if (!expression && (!loom__is_identifier(name) || strlen(name) > NAME_MAX_LEN)) {
        loom__error(LOOM_ERR_INVALID, fn, "Invalid kernel name: \"%.80s\" (an extern \"C\" name of at most %d characters)",
                    name ? name : "(null)", NAME_MAX_LEN);
        return NULL;
    }
    loom_raw_kernel *k = loom__calloc(1, sizeof *k);
    if (k) {
        k->source = loom__strdup(source);
        k->name = loom__strdup(name);
        k->options = loom__strdup(options ? options : "");
    }
    if (!k || !k->source || !k->name || !k->options) {
        if (k) {
            free(k->source);
            free(k->name);
            free(k->options);
            free(k);
        }
        loom__error(LOOM_ERR_OOM, fn, "out of host memory");
        return NULL;
    }
    atomic_init(&k->refcount, 1);
    uint64_t h = loom__fnv1a64(k->source, strlen(k->source) + 1, LOOM__FNV1A64_INIT);
    h = loom__fnv1a64(k->name, strlen(k->name) + 1, h);
    k->key = loom__fnv1a64(k->options, strlen(k->options) + 1, h);
    return k;
}

loom_raw_kernel *loom__raw_kernel_new(const char *fn, const char *source, const char *name,
                                      const char *options)
{
    return raw_new(fn, source, name, options, false);
}

loom_raw_kernel *loom_raw_kernel_create(const char *source, const char *name, const char *options)
{
    return raw_new(create_fn, source, name, options, false);
}

static loom_raw_module *module_new(const char *fn, const char *source, const char *options,
                                   const char *const *name_expressions, int n)
{
    if (!source) {
        loom__error(LOOM_ERR_INVALID, fn, "source is NULL");
        return NULL;
    }
    if (n < 0 || (n > 0 && !name_expressions)) {
        loom__error(LOOM_ERR_INVALID, fn, "%d name expressions from %s", n,
                    name_expressions ? "a list" : "a NULL list");
        return NULL;
    }
    for (int i = 0; i < n; i++) {
        const char *e = name_expressions[i];
        if (!e || !*e || strlen(e) > NAME_MAX_LEN) {
            loom__error(LOOM_ERR_INVALID, fn,
                        "name expression %d (\"%.80s\") is empty or longer than %d characters", i,
                        e ? e : "(null)", NAME_MAX_LEN);
            return NULL;
        }
    }
    loom_raw_module *m = loom__calloc(1, sizeof *m);
    if (m) {
        m->source = loom__strdup(source);
        m->options = loom__strdup(options ? options : "");
        m->names = loom__calloc((size_t)n + 1, sizeof *m->names);
    }
    bool ok = m && m->source && m->options && m->names;
    for (int i = 0; ok && i < n; i++)
        ok = (m->names[m->nnames++] = loom__strdup(name_expressions[i])) != NULL;
    if (!ok) {
        loom_raw_module_destroy(m);
        loom__error(LOOM_ERR_OOM, fn, "out of host memory");
        return NULL;
    }
    return m;
}

loom_raw_module *loom_raw_module_create(const char *source, const char *options)
{
    return module_new("loom_raw_module_create", source, options, NULL, 0);
}

loom_raw_module *loom_raw_module_create_ex(const char *source, const char *options,
                                           const char *const *name_expressions, int n)
{
    return module_new("loom_raw_module_create_ex", source, options, name_expressions, n);
}

loom_raw_kernel *loom_raw_module_get_function(loom_raw_module *m, const char *name)
{
    static const char fn[] = "loom_raw_module_get_function";
    if (!m) {
        loom__error(LOOM_ERR_INVALID, fn, "module is NULL");
        return NULL;
    }
    for (int i = 0; name && i < m->nnames; i++)
        if (strcmp(name, m->names[i]) == 0)
            return raw_new(fn, m->source, name, m->options, true);
    if (name && !loom__is_identifier(name)) {
        loom__error(LOOM_ERR_INVALID, fn,
                    "\"%.80s\" is neither an extern \"C\" kernel name nor one of the module's %d name "
                    "expressions (loom_raw_module_create_ex)", name, m->nnames);
        return NULL;
    }
    return raw_new(fn, m->source, name, m->options, false);
}

void loom_raw_module_destroy(loom_raw_module *m)
{
    if (!m)
        return;
    for (int i = 0; i < m->nnames; i++)
        free(m->names[i]);
    free(m->names);
    free(m->source);
    free(m->options);
    free(m);
}

/* The launch configuration and the output list, as CUDA and the node need them. */
static int check_launch(const unsigned grid[3], const unsigned block[3], size_t shared_mem,
                        int nargs, const int *out_args, int nouts)
{
    if (!grid || !block) {
        loom__error(LOOM_ERR_INVALID, call_fn, "grid and block are required");
        return -1;
    }
    for (int d = 0; d < 3; d++)
        if (grid[d] == 0 || block[d] == 0) {
            loom__error(LOOM_ERR_INVALID, call_fn, "grid (%u,%u,%u) and block (%u,%u,%u) must be positive",
                        grid[0], grid[1], grid[2], block[0], block[1], block[2]);
            return -1;
        }
    if ((uint64_t)block[0] * block[1] * block[2] > 1024) {
        loom__error(LOOM_ERR_INVALID, call_fn, "a block of %llu threads is more than CUDA's 1024",
                    (unsigned long long)block[0] * block[1] * block[2]);
        return -1;
    }
    if (shared_mem > INT_MAX) {
        loom__error(LOOM_ERR_INVALID, call_fn, "%zu bytes of dynamic shared memory: more than any device has",
                    shared_mem);
        return -1;
    }
    if (nouts < 1 || nouts > LOOM_MAX_RESULTS || !out_args) {
        loom__error(LOOM_ERR_INVALID, call_fn, "%d outputs: a launch has 1 to %d", nouts, LOOM_MAX_RESULTS);
        return -1;
    }
    for (int j = 0; j < nouts; j++) {
        if (out_args[j] < 0 || out_args[j] >= nargs) {
            loom__error(LOOM_ERR_INVALID, call_fn, "output %d is argument %d, not one of the %d arguments", j,
                        out_args[j], nargs);
            return -1;
        }
        for (int i = 0; i < j; i++)
            if (out_args[i] == out_args[j]) {
                loom__error(LOOM_ERR_INVALID, call_fn, "argument %d is listed twice as an output", out_args[j]);
                return -1;
            }
    }
    return 0;
}

int loom_raw_kernel_call(loom_raw_kernel *k, const unsigned grid[3], const unsigned block[3],
                         size_t shared_mem, loom_array *const *args, int nargs,
                         const int *out_args, int nouts, loom_array **outs)
{
    for (int j = 0; outs && j < nouts && j < LOOM_MAX_RESULTS; j++)
        outs[j] = NULL;
    if (!k) {
        loom__error(LOOM_ERR_INVALID, call_fn, "kernel is NULL");
        return LOOM_ERR_INVALID;
    }
    if (!outs || check_launch(grid, block, shared_mem, nargs, out_args, nouts))
        return LOOM_ERR_INVALID;
    if (nargs < 1 || loom__check_input_list(call_fn, args, nargs))
        return LOOM_ERR_INVALID;
    loom_result_desc results[LOOM_MAX_RESULTS];
    for (int j = 0; j < nouts; j++) {
        const loom_array *a = args[out_args[j]];
        if (a->op == LOOM_OP_SCALAR) {
            loom__error(LOOM_ERR_INVALID, call_fn, "output %d (argument %d) is a scalar, not an array", j,
                        out_args[j]);
            return LOOM_ERR_INVALID;
        }
        results[j] = (loom_result_desc){.dtype = (loom_dtype)a->dtype, .ndim = a->ndim, .shape = a->shape};
    }
    for (int p = 0; p < nargs; p++)
        if (args[p]->op == LOOM_OP_SCALAR && (args[p]->dtype == LOOM_FLOAT16 || args[p]->dtype == LOOM_BFLOAT16)) {
            loom__error(LOOM_ERR_UNSUPPORTED, call_fn,
                        "argument %d: %s scalars are not passed to raw kernels (pass a float32)", p,
                        loom_dtype_name((loom_dtype)args[p]->dtype));
            return LOOM_ERR_INVALID;
        }
    for (int p = 1; p < nargs; p++)
        if (args[p]->device != args[0]->device) {
            loom__error(LOOM_ERR_INVALID, call_fn, "arrays are on different devices (%s and %s)",
                        loom__device_label(args[0]->device), loom__device_label(args[p]->device));
            return LOOM_ERR_INVALID;
        }
    loom_array *m = loom__multi_alloc(call_fn, LOOM_OP_RAWKERNEL, nargs, args, nouts, results);
    if (!m)
        return loom_last_error_code();
    for (int d = 0; d < 3; d++) {
        m->param.multi.raw.grid[d] = grid[d];
        m->param.multi.raw.block[d] = block[d];
    }
    m->param.multi.raw.shared_mem = (int64_t)shared_mem;
    for (int j = 0; j < LOOM_MAX_RESULTS; j++)
        m->param.multi.raw.out_args[j] = j < nouts ? out_args[j] : -1;
    m->param.multi.raw.key = k->key;
    m->param.multi.raw.kernel = k;
    atomic_fetch_add_explicit(&k->refcount, 1, memory_order_relaxed);
    return loom__multi_finish(call_fn, m, nouts, results, outs) ? loom_last_error_code() : LOOM_OK;
}
