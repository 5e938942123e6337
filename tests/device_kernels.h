/* The test kernels of the device headers, shared by test_device_header (compiles them) and
 * gpu/test_device_ops (runs them): one kernel per dtype with a switch over every op of
 * dev_ops, one per source dtype over every loom_cast target, and the int64/uint64 mixed
 * comparisons. Each result is stored as raw bytes in a 16-byte slot, next to the loom_dtype of
 * its C++ type, so the host can check values and NumPy's output dtype together. */
#ifndef LOOM_TEST_DEVICE_KERNELS_H
#define LOOM_TEST_DEVICE_KERNELS_H

#include "device_op_table.h"
#include "kernels/loom_device_headers.h"

#include <nvrtc.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef LOOM_CUDA_INCLUDE_DIR
#define LOOM_CUDA_INCLUDE_DIR "/usr/local/cuda/include"
#endif

/* The slot each result occupies in the output buffer. */
#define DEV_SLOT 16
/* The mixed comparisons: op k < 6 is names[k](int64, uint64), k >= 6 is names[k-6](uint64, int64). */
static const char *const dev_mixed_names[6] = {"equal", "not_equal", "less", "less_equal",
                                               "greater", "greater_equal"};

typedef struct dev_buf {
    char *s;
    size_t len, cap;
} dev_buf;

static void dev_printf(dev_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        abort();
    if (b->len + (size_t)n + 1 > b->cap) {
        b->cap = (b->len + (size_t)n + 1) * 2;
        b->s = realloc(b->s, b->cap);
        if (!b->s)
            abort();
    }
    va_start(ap, fmt);
    vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

/* The macros that declare every dtype group of the device headers (kernels/loom_types.cuh). */
#define DEV_NEED_ALL "#define LOOM_NEED_HALF\n#define LOOM_NEED_COMPLEX\n#define LOOM_NEED_INT\n"

/* The CUDA source of all test kernels (malloc'd). Kernel names: loom_t_<dtype>,
 * loom_c_<dtype>, loom_t_mixed. */
static char *dev_kernel_source(void)
{
    dev_buf b = {0};
    dev_printf(&b, DEV_NEED_ALL "#include \"loom_device.cuh\"\n"
                   "template <class R> __device__ void loom_t_store(unsigned char *o, int *t, R r)"
                   " {\n"
                   /* A store of R itself, as generated kernels do (the 16-byte slots of a
                    * cudaMalloc'd buffer are aligned for every lt_ type). Byte stores of a
                    * __half or __nv_bfloat16 (char loop, or memcpy to a char pointer) are
                    * miscompiled by ptxas 13.0 for sm_90: byte 0 becomes
                    * F2I.U8.F16.TRUNC of the register, i.e. the value saturated to uint8. */
                   "    *reinterpret_cast<R *>(o) = r;\n"
                   "    *t = loom_dtype_id<R>::value;\n"
                   "}\n"
                   "#define STORE(e) loom_t_store(out + %d * (long long)i, tid + i, e); break\n",
               DEV_SLOT);
    for (int dt = 0; dt < LOOM_NUM_DTYPES; dt++) {
        const char *t = loom_dtype_name((loom_dtype)dt);
        dev_printf(&b,
                   "extern \"C\" __global__ void loom_t_%s(int op, int n, const lt_%s *a, "
                   "const lt_%s *b, const bool *c, int decimals, unsigned char *out, int *tid) {\n"
                   "  const int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                   "  if (i >= n) return;\n"
                   "  switch (op) {\n",
                   t, t, t);
        for (int k = 0; k < DEV_NUM_OPS; k++) {
            const dev_op *op = &dev_ops[k];
            if (!(op->dtypes & (1u << dt)))
                continue;
            dev_printf(&b, "  case %d: ", k);
            switch (op->kind) {
            case DEV_UNARY: dev_printf(&b, "STORE(loom_%s(a[i]));\n", op->name); break;
            case DEV_BINARY: dev_printf(&b, "STORE(loom_%s(a[i], b[i]));\n", op->name); break;
            case DEV_ROUND: dev_printf(&b, "STORE(loom_round(a[i], decimals));\n"); break;
            default: dev_printf(&b, "STORE(loom_where(c[i], a[i], b[i]));\n"); break;
            }
        }
        dev_printf(&b, "  }\n}\n");
        dev_printf(&b,
                   "extern \"C\" __global__ void loom_c_%s(int to, int n, const lt_%s *a, "
                   "unsigned char *out, int *tid) {\n"
                   "  const int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                   "  if (i >= n) return;\n"
                   "  switch (to) {\n",
                   t, t);
        for (int to = 0; to < LOOM_NUM_DTYPES; to++)
            dev_printf(&b, "  case %d: STORE(loom_cast<lt_%s>(a[i]));\n", to,
                       loom_dtype_name((loom_dtype)to));
        dev_printf(&b, "  }\n}\n");
    }
    dev_printf(&b, "extern \"C\" __global__ void loom_t_mixed(int op, int n, const lt_int64 *a, "
                   "const lt_uint64 *b, unsigned char *out, int *tid) {\n"
                   "  const int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                   "  if (i >= n) return;\n"
                   "  switch (op) {\n");
    for (int k = 0; k < 6; k++) {
        dev_printf(&b, "  case %d: STORE(loom_%s(a[i], b[i]));\n", k, dev_mixed_names[k]);
        dev_printf(&b, "  case %d: STORE(loom_%s(b[i], a[i]));\n", k + 6, dev_mixed_names[k]);
    }
    dev_printf(&b, "  }\n}\n");
    return b.s;
}

/* Compiles src with the embedded device headers and the options the executor uses
 * (-arch=<arch>, -I<CUDA include>) plus extra (may be NULL). Returns the program, or NULL
 * after printing the log. */
static nvrtcProgram dev_compile(const char *src, const char *arch, const char *extra)
{
    nvrtcProgram prog;
    if (nvrtcCreateProgram(&prog, src, "loom_test.cu", loom__device_header_count,
                           loom__device_header_sources, loom__device_header_names) != NVRTC_SUCCESS)
        return NULL;
    char arch_opt[64], inc_opt[1024];
    snprintf(arch_opt, sizeof arch_opt, "-arch=%s", arch);
    snprintf(inc_opt, sizeof inc_opt, "-I%s", LOOM_CUDA_INCLUDE_DIR);
    const char *opts[3] = {arch_opt, inc_opt, extra};
    nvrtcResult r = nvrtcCompileProgram(prog, extra ? 3 : 2, opts);
    if (r != NVRTC_SUCCESS) {
        size_t n = 0;
        nvrtcGetProgramLogSize(prog, &n);
        char *log = malloc(n + 1);
        if (log && nvrtcGetProgramLog(prog, log) == NVRTC_SUCCESS)
            fprintf(stderr, "NVRTC (%s%s%s) failed: %s\n%s\n", arch_opt, extra ? " " : "",
                    extra ? extra : "", nvrtcGetErrorString(r), log);
        free(log);
        nvrtcDestroyProgram(&prog);
        return NULL;
    }
    return prog;
}

#endif /* LOOM_TEST_DEVICE_KERNELS_H */
