/* Elementwise kernels with CuPy's loop_prep or after_loop: code before and after the loop over
 * the elements, in the kernel's own scope, has no place inside Loom's fused kernels, so such a
 * call is a raw kernel launch (a RAWKERNEL node) of a source written here: CuPy's shape of
 * elementwise kernel, a grid-stride loop over the broadcast inputs in memory
 * (docs/custom-kernels.md). */
#define _POSIX_C_SOURCE 200809L
#include "ukernel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK 256

int loom__own_prologue(const char *fn, FILE *f, const loom_elementwise_kernel *k,
                       const int8_t *types, const bool *by_value, const int8_t *scalar_dt,
                       const char *what, const char *ns)
{
    const int n = k->nin + k->nout;
    bool half = false, bf16 = false;
    for (int p = 0; p < n; p++) {
        if (!loom__uparam_c_type(types[p]) || (p < k->nin && by_value[p] && !loom__uparam_c_type(scalar_dt[p]))) {
            loom__error(LOOM_ERR_UNSUPPORTED, fn, "parameter \"%s\": complex values are not supported by a %s",
                        k->params[p].name, what);
            return -1;
        }
        half |= types[p] == LOOM_FLOAT16;
        bf16 |= types[p] == LOOM_BFLOAT16;
    }
    fprintf(f, "// %s \"%s\"\n#include \"loom_user.cuh\"\n", what, k->name);
    if (half)
        fprintf(f, "#include <cuda_fp16.h>\n");
    if (bf16)
        fprintf(f, "#include <cuda_bf16.h>\n");
    fprintf(f, "namespace %s {\n", ns);
    for (int p = 0; p < n; p++) { /* placeholders: each letter once */
        const loom__uparam *q = &k->params[p];
        bool seen = q->dtype != LOOM_NO_DTYPE;
        for (int r = 0; r < p && !seen; r++)
            seen = k->params[r].dtype == LOOM_NO_DTYPE && k->params[r].placeholder == q->placeholder;
        if (!seen)
            fprintf(f, "typedef %s %c;\n", loom__uparam_c_type(types[p]), q->placeholder);
    }
    fprintf(f, "%s\n", k->preamble);
    return 0;
}

int loom__own_launch(const char *fn, const char *source, const char *kname, const char *options,
                     int64_t blocks, int block, loom_array *const *args, int nargs,
                     const int *out_args, int nouts, loom_array **outs)
{
    loom_raw_kernel *rk = loom__raw_kernel_new(fn, source, kname, options);
    if (!rk)
        return -1;
    const unsigned grid = (unsigned)(blocks < 1 ? 1 : blocks > 65535 ? 65535 : blocks); /* grid-stride */
    int rc = loom_raw_kernel_call(rk, (unsigned[]){grid, 1, 1}, (unsigned[]){(unsigned)block, 1, 1}, 0, args,
                                  nargs, out_args, nouts, outs);
    loom__raw_kernel_release(rk);
    return rc == LOOM_OK ? 0 : -1;
}

/* The source of call c to f; by_value[p]: input p is a scalar of dtype scalar_dt[p]. 0 or -1
 * with the error under fn. */
static int write_source(const char *fn, const loom__ucall *c, const bool *by_value,
                        const int8_t *scalar_dt, const char *kname, FILE *f)
{
    const loom_elementwise_kernel *k = c->kernel;
    const int n = k->nin + k->nout;
    if (loom__own_prologue(fn, f, k, c->types, by_value, scalar_dt, "kernel with loop_prep or after_loop",
                           "loom_ek"))
        return -1;
    fprintf(f, "} // namespace loom_ek\n");
    fprintf(f, "extern \"C\" __global__ void %s(", kname);
    for (int p = 0; p < k->nin; p++) {
        const char *t = loom__uparam_c_type(c->types[p]);
        if (k->params[p].raw)
            fprintf(f, "const %s *loom_in%d, const long long loom_size%d, ", t, p, p);
        else if (by_value[p])
            fprintf(f, "const %s loom_in%d, ", loom__uparam_c_type(scalar_dt[p]), p);
        else
            fprintf(f, "const %s *__restrict__ loom_in%d, ", t, p);
    }
    for (int p = k->nin; p < n; p++)
        fprintf(f, "%s *__restrict__ loom_out%d, ", loom__uparam_c_type(c->types[p]), p - k->nin);
    fprintf(f, "const long long loom_n)\n{\n    using namespace loom_ek;\n");
    for (int p = 0; p < k->nin; p++) {
        const char *t = loom__uparam_c_type(c->types[p]);
        if (k->params[p].raw)
            fprintf(f, "    const loom_raw<const %s> %s = {loom_in%d, loom_size%d};\n", t, k->params[p].name, p, p);
    }
    fprintf(f, "    // loop_prep\n    %s;\n", k->loop_prep ? k->loop_prep : "");
    fprintf(f, "    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < loom_n;\n"
               "         i += (long long)gridDim.x * blockDim.x) {\n"
               "        const loom_indexer _ind = {i, loom_n};\n        (void)_ind;\n");
    for (int p = 0; p < k->nin; p++) {
        const char *t = loom__uparam_c_type(c->types[p]);
        if (k->params[p].raw)
            continue;
        if (by_value[p]) /* CuPy's Python scalars: converted to the parameter's type */
            fprintf(f, "        const %s %s = (%s)loom_in%d;\n", t, k->params[p].name, t, p);
        else
            fprintf(f, "        const %s %s = loom_in%d[i];\n", t, k->params[p].name, p);
    }
    for (int p = k->nin; p < n; p++) {
        const char *t = loom__uparam_c_type(c->types[p]);
        fprintf(f, "        %s &%s = loom_out%d[i];\n        %s = (%s)0;\n", t, k->params[p].name, p - k->nin,
                k->params[p].name, t);
    }
    fprintf(f, "        // operation\n        %s;\n    }\n", k->operation);
    fprintf(f, "    // after_loop\n    %s;\n}\n", k->after_loop ? k->after_loop : "");
    return ferror(f) ? -1 : 0;
}

/* The launch of call c (in the caller's scope, which loom__ukernel_own_call opens). */
static int record(const char *fn, const loom__ucall *c, loom_array *const *args, int ndim,
                  const int64_t *shape, loom_array **outs)
{
    const loom_elementwise_kernel *k = c->kernel;
    loom_array *in[2 * LOOM_MAX_EW_INPUTS + LOOM_MAX_RESULTS + 1];
    bool by_value[LOOM_MAX_EW_INPUTS] = {0};
    int8_t scalar_dt[LOOM_MAX_EW_INPUTS] = {0};
    int64_t n = 1;
    for (int d = 0; d < ndim; d++)
        n *= shape[d];
    if (k->nout > LOOM_MAX_RESULTS) {
        loom__error(LOOM_ERR_UNSUPPORTED, fn, "kernel \"%s\" has %d outputs: with loop_prep, at most %d", k->name,
                    k->nout, LOOM_MAX_RESULTS);
        return -1;
    }
    int nargs = 0;
    for (int p = 0; p < k->nin; p++) {
        loom_array *a = args[p];
        scalar_dt[p] = a->dtype;
        if (k->params[p].raw) {
            in[nargs++] = a;
            in[nargs++] = loom_scalar_int(loom_size(a));
            continue;
        }
        if (!a->weak && !(a = loom__broadcast_to(fn, a, ndim, shape)))
            return -1;
        by_value[p] = a->weak || a->op == LOOM_OP_SCALAR; /* a 0-d loop takes 0-d arrays by value */
        in[nargs++] = a;
    }
    int out_args[LOOM_MAX_RESULTS];
    for (int j = 0; j < k->nout; j++) {
        out_args[j] = nargs;
        if (!(in[nargs++] = loom_empty(ndim, shape, (loom_dtype)c->types[k->nin + j])))
            return -1;
    }
    in[nargs++] = loom_scalar_int(n);

    char kname[64];
    snprintf(kname, sizeof kname, "loom_ek_%.40s", k->name);
    char *src = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&src, &len);
    int rc = f ? write_source(fn, c, by_value, scalar_dt, kname, f) : -1;
    if (f && fclose(f))
        rc = -1;
    if (!f)
        loom__error(LOOM_ERR_OOM, fn, "out of host memory");
    if (!rc)
        rc = loom__own_launch(fn, src, kname, k->options, (n + BLOCK - 1) / BLOCK, BLOCK, in, nargs, out_args,
                              k->nout, outs);
    free(src);
    return rc;
}

int loom__ukernel_own_call(const char *fn, const loom__ucall *c, loom_array *const *args,
                           int ndim, const int64_t *shape, loom_array **outs, int nouts)
{
    loom_array *made[LOOM_MAX_RESULTS] = {0};
    loom_scope_begin(); /* owns the views, empties and scalars of the launch */
    int rc = record(fn, c, args, ndim, shape, made);
    for (int j = 0; !rc && j < nouts; j++)
        loom_retain(made[j]);
    loom_scope_end();
    if (rc)
        return loom_last_error_code();
    for (int j = 0; j < nouts; j++)
        outs[j] = loom__adopt(made[j]);
    return LOOM_OK;
}
