/* Every op of a fused kernel computes in its own node's dtype, whatever its consumers promote
 * to (issue 10 item 2: int16 abs(-32768) feeding an int64 clip came out as +32768 fused).
 * For wrapping integer ops of every small integer dtype followed by a promoting consumer:
 * - the generated source computes each node as loom_cast<dtype>(loom_op(loom_cast<cdtype>(..)))
 *   and keeps its value in a variable of its own dtype;
 * - the kernel's PTX has no 16-bit negation (neg.s16, abs.s16): ptxas drops their wrap when
 *   the value is widened afterwards, which is what turned abs(-32768) into +32768.
 * No GPU needed (NVRTC compiles to PTX); gpu_test_int_wrap runs the same cases. */
#include "check.h"
#include "graph/internal.h"
#include "fuser/plan.h"
#include "inputs.h"
#include "kernels/loom_device_headers.h"

#include <nvrtc.h>
#include <stdlib.h>
#include <string.h>

#ifndef LOOM_CUDA_INCLUDE_DIR
#define LOOM_CUDA_INCLUDE_DIR "/usr/local/cuda/include"
#endif

static const char *ctype(int dt)
{
    static char buf[32];
    snprintf(buf, sizeof buf, "lt_%s", loom_dtype_name((loom_dtype)dt));
    return buf;
}

/* Each elementwise node of the graph under a is computed in its own dtypes in src. */
static void check_node_lines(const loom_array *a, const char *src, const char *label)
{
    if (loom__ops[a->op].kind != LOOM_OPK_EW)
        return;
    char want[64];
    snprintf(want, sizeof want, "const %s v", ctype(a->dtype));
    bool found = false;
    char expr[160];
    if (a->op == LOOM_OP_CAST) {
        snprintf(expr, sizeof expr, "= loom_cast<%s>(v", ctype(a->dtype));
    } else {
        int m = snprintf(expr, sizeof expr, "= loom_cast<%s>(loom_%s(", ctype(a->dtype),
                         loom__ops[a->op].name);
        snprintf(expr + m, sizeof expr - (size_t)m, "loom_cast<%s>(v", ctype(a->cdtype));
    }
    /* The line that declares the node's value holds its expression. */
    for (const char *p = strstr(src, want); p && !found; p = strstr(p + 1, want)) {
        const char *eol = strchr(p, '\n');
        const char *e = strstr(p, expr);
        found = e && (!eol || e < eol);
    }
    CHECK(found);
    if (!found)
        fprintf(stderr, "%s: no line \"%s...%s\" in\n%s\n", label, want, expr, src);
    for (int k = 0; k < a->ninputs; k++)
        check_node_lines(a->inputs[k], src, label);
}

static char *ptx_of(const char *src)
{
    nvrtcProgram prog;
    if (nvrtcCreateProgram(&prog, src, "wrap.cu", loom__device_header_count,
                           loom__device_header_sources, loom__device_header_names) != NVRTC_SUCCESS)
        return NULL;
    static const char include[] = "-I" LOOM_CUDA_INCLUDE_DIR;
    const char *opts[] = {"-arch=compute_90", include, "-std=c++17"};
    char *ptx = NULL;
    size_t n = 0;
    if (nvrtcCompileProgram(prog, 3, opts) == NVRTC_SUCCESS && nvrtcGetPTXSize(prog, &n) == NVRTC_SUCCESS &&
        (ptx = malloc(n)) && nvrtcGetPTX(prog, ptx) != NVRTC_SUCCESS) {
        free(ptx);
        ptx = NULL;
    }
    if (!ptx) {
        size_t ln = 0;
        nvrtcGetProgramLogSize(prog, &ln);
        char *log = malloc(ln + 1);
        if (log && nvrtcGetProgramLog(prog, log) == NVRTC_SUCCESS)
            fprintf(stderr, "NVRTC failed:\n%s\n", log);
        free(log);
    }
    nvrtcDestroyProgram(&prog);
    return ptx;
}

/* Plans y fused (one kernel) and checks its source and PTX. */
static void check_fused(loom_array *y, const char *label)
{
    CHECK(y != NULL);
    if (!y) {
        fprintf(stderr, "%s: %s\n", label, loom_last_error());
        return;
    }
    loom_fuse_options o = loom__fuse_options_default();
    loom_plan *p = loom__plan_build("test", &y, 1, &o);
    CHECK(p != NULL && p->nsteps == 1);
    if (!p || p->nsteps != 1) {
        fprintf(stderr, "%s: %s\n", label, p ? "more than one step" : loom_last_error());
        loom__plan_free(p);
        return;
    }
    const char *src = p->steps[0].kernel.source;
    check_node_lines(y, src, label);
    char *ptx = ptx_of(src);
    CHECK(ptx != NULL);
    if (ptx) {
        bool narrow_neg = strstr(ptx, "neg.s16") || strstr(ptx, "abs.s16");
        CHECK(!narrow_neg);
        if (narrow_neg)
            fprintf(stderr, "%s: 16-bit negation in the PTX of\n%s\n", label, src);
    }
    free(ptx);
    loom__plan_free(p);
}

/* The issue's program: int16 (6,1,48,33), transpose, abs, clip(lo = int64 (1,1)), square. */
static void test_issue_case(void)
{
    loom_scope_begin();
    loom_array *x = test_input(4, (int64_t[]){6, 1, 48, 33}, LOOM_INT16);
    loom_array *t = loom_transpose(x, (int[]){-4, 3, 1, -2});
    loom_array *lo = test_input(2, (int64_t[]){1, 1}, LOOM_INT64);
    check_fused(loom_square(loom_clip(loom_abs(t), lo, NULL)), "square(clip(abs(transpose(int16)), int64))");
    loom_scope_end();
}

typedef loom_array *(*unary_fn)(loom_array *);
typedef loom_array *(*binary_fn)(loom_array *, loom_array *);

/* Wrapping ops of every small integer dtype, each followed by consumers that promote. */
static void test_wrapping_ops_then_promotion(void)
{
    static const loom_dtype dts[] = {LOOM_INT8, LOOM_INT16, LOOM_INT32, LOOM_UINT8, LOOM_UINT16,
                                     LOOM_UINT32};
    static const struct { const char *name; unary_fn f; } un[] = {
        {"negative", loom_negative}, {"absolute", loom_absolute}, {"square", loom_square},
        {"sign", loom_sign}};
    static const struct { const char *name; binary_fn f; } bin[] = {
        {"add", loom_add}, {"subtract", loom_subtract}, {"multiply", loom_multiply},
        {"left_shift", loom_left_shift}, {"floor_divide", loom_floor_divide},
        {"remainder", loom_remainder}, {"power", loom_power}};
    static const loom_dtype wider[] = {LOOM_INT64, LOOM_FLOAT32, LOOM_FLOAT64, LOOM_INT32};
    for (size_t d = 0; d < sizeof dts / sizeof *dts; d++) {
        for (size_t w = 0; w < sizeof wider / sizeof *wider; w++) {
            loom_scope_begin();
            loom_array *x = test_input(1, (int64_t[]){37}, dts[d]);
            loom_array *b = test_input(1, (int64_t[]){37}, dts[d]);
            loom_array *z = test_input(1, (int64_t[]){37}, wider[w]);
            char label[128];
            for (size_t u = 0; u < sizeof un / sizeof *un; u++) {
                snprintf(label, sizeof label, "%s(%s) + %s", un[u].name,
                         loom_dtype_name(dts[d]), loom_dtype_name(wider[w]));
                check_fused(loom_add(un[u].f(x), z), label);
            }
            for (size_t o = 0; o < sizeof bin / sizeof *bin; o++) {
                snprintf(label, sizeof label, "%s(%s) * %s", bin[o].name,
                         loom_dtype_name(dts[d]), loom_dtype_name(wider[w]));
                check_fused(loom_multiply(bin[o].f(x, b), z), label);
            }
            snprintf(label, sizeof label, "negative(negative(%s)) astype %s",
                     loom_dtype_name(dts[d]), loom_dtype_name(wider[w]));
            check_fused(loom_astype(loom_negative(loom_negative(x)), wider[w]), label);
            loom_scope_end();
        }
    }
}

int main(void)
{
    test_issue_case();
    test_wrapping_ops_then_promotion();
    return check_summary("test_codegen_dtypes");
}
