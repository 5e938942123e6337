/* Reduction kernels that are kernels of their own: several outputs (CuPy's "int32 y, T z"
 * with a post-map assigning each: argmax and max in one pass), a reduce type of the user's
 * (a struct of the preamble) or CuPy's _J (the index along the reduced axes) in the map. Such a
 * call is a raw kernel launch (a RAWKERNEL node) of a source written here, CuPy's shape of
 * reduction: a block per output, each thread striding the reduced elements, a tree through
 * shared memory. Its inputs are read from memory, reduced axes last (docs/custom-kernels.md). */
#define _POSIX_C_SOURCE 200809L
#include "reduce.h"
#include "ukernel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK 256

struct loom__ureduce_own {
    char *map_expr, *reduce_expr, *post_map_expr, *identity; /* identity may be NULL */
    char *reduce_type; /* the C++ type reduced in, as written in the source */
};

void loom__ureduce_own_free(loom__ureduce_own *o)
{
    if (!o)
        return;
    free(o->map_expr);
    free(o->reduce_expr);
    free(o->post_map_expr);
    free(o->identity);
    free(o->reduce_type);
    free(o);
}

static char *dup_or_null(const char *s, bool *failed)
{
    char *d = s ? loom__strdup(s) : NULL;
    *failed |= s && !d;
    return d;
}

int loom__ureduce_own_init(const char *fn, loom_reduction_kernel *k, const char *map_expr,
                           const char *reduce_expr, const char *post_map_expr,
                           const char *identity, const char *reduce_type, char letter,
                           int8_t dtype)
{
    if (k->sig->nout > 1 && !post_map_expr) {
        loom__error(LOOM_ERR_INVALID, fn, "kernel \"%s\" has %d outputs: post_map_expr must assign them",
                    k->sig->name, k->sig->nout);
        return -1;
    }
    if (!reduce_type && dtype != LOOM_NO_DTYPE && !loom__uparam_c_type(dtype)) {
        loom__error(LOOM_ERR_UNSUPPORTED, fn, "reduce_type %s: complex reduce types are not supported here",
                    loom_dtype_name((loom_dtype)dtype));
        return -1;
    }
    loom__ureduce_own *o = loom__calloc(1, sizeof *o);
    bool failed = !o;
    char letter_text[2] = {letter, '\0'};
    if (o) {
        o->map_expr = dup_or_null(map_expr, &failed);
        o->reduce_expr = dup_or_null(reduce_expr, &failed);
        o->post_map_expr = dup_or_null(post_map_expr, &failed);
        o->identity = dup_or_null(identity, &failed);
        o->reduce_type = dup_or_null(reduce_type ? reduce_type : dtype != LOOM_NO_DTYPE ? loom__uparam_c_type(dtype) : letter_text,
                                     &failed);
    }
    if (failed) {
        loom__ureduce_own_free(o);
        loom__error(LOOM_ERR_OOM, fn, "out of host memory");
        return -1;
    }
    k->own = o;
    return 0;
}

/* The CUDA source of call c (its nin + nout dtypes; weak[p]: input p is a scalar of dtype
 * scalar_dt[p], passed by value) to f; 0, or -1 with the error. */
static int write_source(const char *fn, const loom_reduction_kernel *k, const loom__ucall *c,
                        const bool *weak, const int8_t *scalar_dt, const char *kname,
                        FILE *f)
{
    const loom_elementwise_kernel *s = k->sig;
    const loom__ureduce_own *o = k->own;
    const int n = s->nin + s->nout;
    if (loom__own_prologue(fn, f, s, c->types, weak, scalar_dt, "reduction kernel", "loom_ur"))
        return -1;
    fprintf(f, "typedef %s _type_reduce;\n", o->reduce_type);
    fprintf(f, "__device__ __forceinline__ _type_reduce loom_map(");
    for (int p = 0; p < s->nin; p++)
        fprintf(f, "const %s %s, ", loom__uparam_c_type(c->types[p]), s->params[p].name);
    fprintf(f, "const long long _J)\n{\n    (void)_J;\n    return _type_reduce(%s);\n}\n", o->map_expr);
    fprintf(f, "__device__ __forceinline__ _type_reduce loom_reduce(const _type_reduce a, const _type_reduce b)\n"
                         "{\n    return (%s);\n}\n", o->reduce_expr);
    fprintf(f, "__device__ __forceinline__ void loom_post(const _type_reduce a");
    for (int p = s->nin; p < n; p++)
        fprintf(f, ", %s &%s", loom__uparam_c_type(c->types[p]), s->params[p].name);
    if (o->post_map_expr)
        fprintf(f, ")\n{\n    %s;\n}\n", o->post_map_expr);
    else
        fprintf(f, ")\n{\n    %s = a;\n}\n", s->params[s->nin].name);
    fprintf(f, "} // namespace loom_ur\n");

    fprintf(f, "extern \"C\" __global__ void %s(", kname);
    for (int p = 0; p < s->nin; p++)
        fprintf(f, weak[p] ? "const %s loom_in%d, " : "const %s *__restrict__ loom_in%d, ",
                         loom__uparam_c_type(weak[p] ? scalar_dt[p] : c->types[p]), p);
    for (int p = s->nin; p < n; p++)
        fprintf(f, "%s *__restrict__ loom_out%d, ", loom__uparam_c_type(c->types[p]), p - s->nin);
    fprintf(f, "const long long loom_R, const long long loom_K)\n{\n"
                         "    typedef loom_ur::_type_reduce RT;\n"
                         "    struct Acc {\n        RT v;\n        int has;\n    };\n"
                         "    __shared__ __align__(16) unsigned char loom_sh[%d * sizeof(Acc)];\n"
                         "    Acc *sh = reinterpret_cast<Acc *>(loom_sh);\n"
                         "    for (long long o = blockIdx.x; o < loom_K; o += gridDim.x) {\n"
                         "        Acc acc;\n", BLOCK);
    if (o->identity)
        fprintf(f, "        acc.v = RT(%s);\n        acc.has = 1;\n", o->identity);
    else
        fprintf(f, "        acc.has = 0;\n");
    fprintf(f, "        for (long long j = threadIdx.x; j < loom_R; j += blockDim.x) {\n"
                         "            const RT m = loom_ur::loom_map(");
    for (int p = 0; p < s->nin; p++)
        if (weak[p]) /* CuPy's Python scalars: converted to the parameter's type */
            fprintf(f, "(%s)loom_in%d, ", loom__uparam_c_type(c->types[p]), p);
        else
            fprintf(f, "loom_in%d[o * loom_R + j], ", p);
    fprintf(f, "j);\n"
                         "            if (acc.has)\n                acc.v = loom_ur::loom_reduce(acc.v, m);\n"
                         "            else\n                acc.v = m;\n"
                         "            acc.has = 1;\n        }\n"
                         "        sh[threadIdx.x] = acc;\n        __syncthreads();\n"
                         "        for (int half = blockDim.x / 2; half > 0; half /= 2) {\n"
                         "            if (threadIdx.x < half) {\n"
                         "                const Acc x = sh[threadIdx.x], y = sh[threadIdx.x + half];\n"
                         "                if (!x.has)\n                    sh[threadIdx.x] = y;\n"
                         "                else if (y.has)\n                    sh[threadIdx.x].v = loom_ur::loom_reduce(x.v, y.v);\n"
                         "            }\n            __syncthreads();\n        }\n"
                         "        if (threadIdx.x == 0)\n            loom_ur::loom_post(sh[0].v");
    for (int p = s->nin; p < n; p++)
        fprintf(f, ", loom_out%d[o]", p - s->nin);
    fprintf(f, ");\n        __syncthreads();\n    }\n}\n");
    return ferror(f) ? -1 : 0;
}

/* The launch of call c: inputs broadcast and transposed so that the reduced axes come last
 * (the launch reads them C-contiguous: element j of output o is at o * R + j). */
static int record(const char *fn, loom_reduction_kernel *k, const loom__ucall *c,
                  loom_array *const *args, int ndim, const int64_t *shape, const int *axes,
                  int naxes, bool keepdims, loom_array **outs)
{
    const loom_elementwise_kernel *s = k->sig;
    loom_array *in[LOOM_MAX_EW_INPUTS + LOOM_MAX_RESULTS + 2];
    bool weak[LOOM_MAX_EW_INPUTS] = {0};
    int8_t scalar_dt[LOOM_MAX_EW_INPUTS] = {0};
    int first = -1;
    for (int p = 0; p < s->nin; p++) {
        weak[p] = args[p]->weak;
        scalar_dt[p] = args[p]->dtype;
        in[p] = args[p];
        if (!weak[p] && !(in[p] = loom__broadcast_to(fn, args[p], ndim, shape)))
            return -1;
        if (!weak[p] && first < 0)
            first = p;
    }
    uint32_t mask;
    if (loom__reduce_mask(fn, in[first], axes, naxes, &mask))
        return -1;
    if (!k->own->identity && mask && loom__reduce_count(in[first], mask) == 0) {
        loom__error(LOOM_ERR_INVALID, fn, "zero-size array to reduction operation %s which has no identity",
                    s->name);
        return -1;
    }
    int perm[LOOM_MAXDIMS], np = 0, out_ndim = 0;
    int64_t out_shape[LOOM_MAXDIMS], R = 1, K = 1;
    for (int d = 0; d < ndim; d++)
        if (!(mask >> d & 1)) {
            perm[np++] = d;
            K *= shape[d];
            out_shape[out_ndim++] = shape[d];
        } else if (keepdims) {
            out_shape[out_ndim++] = 1;
        }
    for (int d = 0; d < ndim; d++)
        if (mask >> d & 1) {
            perm[np++] = d;
            R *= shape[d];
        }
    for (int p = 0; p < s->nin; p++) {
        if (!weak[p] && !(in[p] = loom_transpose(in[p], perm)))
            return -1;
        weak[p] |= in[p]->op == LOOM_OP_SCALAR; /* a 0-d loop: the launch takes it by value */
    }
    int out_args[LOOM_MAX_RESULTS];
    for (int j = 0; j < s->nout; j++) {
        out_args[j] = s->nin + j;
        if (!(in[s->nin + j] = loom_empty(out_ndim, out_shape, (loom_dtype)c->types[s->nin + j])))
            return -1;
    }
    in[s->nin + s->nout] = loom_scalar_int(R);
    in[s->nin + s->nout + 1] = loom_scalar_int(K);

    char kname[64];
    snprintf(kname, sizeof kname, "loom_ur_%.40s", s->name);
    char *src = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&src, &len);
    int rc = f ? write_source(fn, k, c, weak, scalar_dt, kname, f) : -1;
    if (f && fclose(f))
        rc = -1;
    if (!f)
        loom__error(LOOM_ERR_OOM, fn, "out of host memory");
    if (!rc)
        rc = loom__own_launch(fn, src, kname, s->options, K, BLOCK, in, s->nin + s->nout + 2, out_args,
                              s->nout, outs);
    free(src);
    return rc;
}

int loom__ureduce_own_call(const char *fn, loom_reduction_kernel *k, loom_array *const *args,
                           int nargs, const int *axes, int naxes, bool keepdims, loom_array **outs,
                           int nouts)
{
    for (int j = 0; j < nouts; j++)
        outs[j] = NULL;
    int ndim;
    int64_t shape[LOOM_MAXDIMS];
    if (loom__ukernel_check_args(fn, k->sig, args, nargs) ||
        loom__ukernel_loop_shape(fn, k->sig, args, &ndim, shape))
        return loom_last_error_code();
    for (int p = 0; p < k->sig->nin; p++)
        if (k->sig->params[p].raw) {
            loom__error(LOOM_ERR_UNSUPPORTED, fn, "raw parameter \"%s\": reduction kernels take no raw parameters",
                        k->sig->params[p].name);
            return LOOM_ERR_UNSUPPORTED;
        }
    loom__ucall *c = loom__ucall_resolve(fn, k->sig, args, nargs, ndim, shape);
    if (!c)
        return loom_last_error_code();
    loom_array *made[LOOM_MAX_RESULTS] = {0};
    loom_scope_begin(); /* owns the views, empties and scalars of the launch */
    int rc = record(fn, k, c, args, ndim, shape, axes, naxes, keepdims, made);
    for (int j = 0; !rc && j < nouts; j++)
        loom_retain(made[j]);
    loom_scope_end();
    loom__ucall_release(c);
    if (rc)
        return loom_last_error_code();
    for (int j = 0; j < nouts; j++)
        outs[j] = loom__adopt(made[j]);
    return LOOM_OK;
}
