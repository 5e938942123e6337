#define _POSIX_C_SOURCE 200809L
/* User elementwise kernels on the GPU, against host references computed in float64: CuPy's
 * seed kernels (the my_kernel branch on float32 2x3 and 10000 elements, the type-generic
 * squared difference on every real dtype), broadcasting, raw indexing with i and _ind, several
 * outputs, options, a kernel destroyed before its arrays are evaluated, a compile error
 * reported at materialisation; the fused sum(y * y, axis=1) is one kernel launch, and
 * elementwise results are bit for bit the same fused and with LOOM_FUSE=0. Reduction kernels:
 * l2norm fused into one launch, a double reduce type, the identity on an empty axis. Raw
 * kernels: the seeds' grid-stride copy and naive matmul, graph replay, a refused launch.
 * With LOOM_TEST_DEVICE=cpu the elementwise and reduction kernels run on the host device; raw
 * kernels (CUDA C++ of the user's own, launched with the user's grid) are GPU-only there. */
#include "check.h"
#include "ukernel_cases.h"
#include "exec/exec.h"
#include "gpu_main.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define BRANCH_BODY "if (x - 2 > y) z = x * y; else z = x + y;"

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static double uniform(double lo, double hi) /* xorshift64*: fixed seed, same inputs each run */
{
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return lo + (hi - lo) * (double)((rng * 0x2545f4914f6cdd1dull) >> 11) * 0x1p-53;
}

static loom_array *f32_input(int ndim, const int64_t *shape, float *host, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        host[i] = (float)uniform(-4, 4);
    return loom_asarray(host, LOOM_FLOAT32, ndim, shape);
}

/* The values of a as float64 (through astype, checked against NumPy by its own tests). */
static bool get_f64(loom_array *a, double *out, int64_t n)
{
    int rc = loom_get(loom_astype(a, LOOM_FLOAT64), out, (size_t)n * sizeof *out);
    if (rc != LOOM_OK)
        fprintf(stderr, "loom_get: %s\n", loom_last_error());
    return rc == LOOM_OK;
}

static float branch_ref(float x, float y)
{
    /* float32 operations of float32 values: float64 then one rounding gives the same bits */
    return (float)((double)x - 2.0) > y ? (float)((double)x * y) : (float)((double)x + y);
}

static void check_my_kernel(int ndim, const int64_t *shape)
{
    loom_scope_begin();
    int64_t n = 1;
    for (int d = 0; d < ndim; d++)
        n *= shape[d];
    float *x = malloc((size_t)n * sizeof *x), *y = malloc((size_t)n * sizeof *y);
    double *got = malloc((size_t)n * sizeof *got);
    loom_elementwise_kernel *k = loom_elementwise_kernel_create("float32 x, float32 y", "float32 z", BRANCH_BODY,
                                                                "my_kernel", NULL, NULL);
    loom_array *z = loom_elementwise_kernel_call(k, (loom_array *[]){f32_input(ndim, shape, x, n),
                                                                     f32_input(ndim, shape, y, n)}, 2);
    CHECK(z && loom_dtype_of(z) == LOOM_FLOAT32);
    int bad = 0;
    if (get_f64(z, got, n))
        for (int64_t i = 0; i < n; i++)
            bad += got[i] != branch_ref(x[i], y[i]);
    CHECK_EQ_INT(bad, 0);
    loom_elementwise_kernel_destroy(k);
    free(x);
    free(y);
    free(got);
    loom_scope_end();
}

/* z = (x - y) * (x - y) with T each real dtype, on values 0..8 (exact in every dtype). */
static void check_squared_difference(void)
{
    loom_elementwise_kernel *k = loom_elementwise_kernel_create("T x, T y", "T z", "z = (x - y) * (x - y);",
                                                                "squared_diff", NULL, NULL);
    enum { N = 1037 };
    int64_t xs[N], ys[N];
    double got[N];
    for (int dt = 0; dt < LOOM_NUM_DTYPES; dt++) {
        if (dt == LOOM_COMPLEX64 || dt == LOOM_COMPLEX128)
            continue; /* no C++ operators on Loom's complex types (docs/custom-kernels.md) */
        loom_scope_begin();
        int64_t hi = dt == LOOM_BOOL ? 1 : 8;
        for (int i = 0; i < N; i++) {
            xs[i] = (int64_t)uniform(0, (double)hi + 1);
            ys[i] = (int64_t)uniform(0, (double)hi + 1);
        }
        loom_array *a = loom_astype(loom_asarray(xs, LOOM_INT64, 1, (int64_t[]){N}), (loom_dtype)dt);
        loom_array *b = loom_astype(loom_asarray(ys, LOOM_INT64, 1, (int64_t[]){N}), (loom_dtype)dt);
        loom_array *z = loom_elementwise_kernel_call(k, (loom_array *[]){a, b}, 2);
        CHECK(z && loom_dtype_of(z) == dt);
        int bad = 0;
        if (get_f64(z, got, N))
            for (int i = 0; i < N; i++) {
                int64_t d = xs[i] - ys[i];
                double want = dt == LOOM_BOOL ? (double)(d != 0) : (double)(d * d);
                bad += got[i] != want;
            }
        if (bad)
            fprintf(stderr, "squared_diff %s: %d wrong\n", loom_dtype_name((loom_dtype)dt), bad);
        CHECK_EQ_INT(bad, 0);
        loom_scope_end();
    }
    loom_elementwise_kernel_destroy(k);
}

/* (3,1) with (4,) broadcasts to (3,4); a weak scalar is cast to the parameter's type. */
static void check_broadcast_and_scalars(void)
{
    loom_scope_begin();
    float x[3], y[4];
    double got[12];
    loom_elementwise_kernel *k = loom_elementwise_kernel_create("float32 x, float32 y", "float32 z", BRANCH_BODY,
                                                                "my_kernel", NULL, NULL);
    loom_array *a = f32_input(2, (int64_t[]){3, 1}, x, 3), *b = f32_input(1, (int64_t[]){4}, y, 4);
    loom_array *z = loom_elementwise_kernel_call(k, (loom_array *[]){a, b}, 2);
    CHECK_SHAPE(z, 2, ((int64_t[]){3, 4}));
    int bad = 0;
    if (get_f64(z, got, 12))
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 4; j++)
                bad += got[i * 4 + j] != branch_ref(x[i], y[j]);
    CHECK_EQ_INT(bad, 0);
    loom_array *zs = loom_elementwise_kernel_call(k, (loom_array *[]){a, loom_scalar(0.5)}, 2);
    bad = 0;
    if (get_f64(zs, got, 3))
        for (int i = 0; i < 3; i++)
            bad += got[i] != branch_ref(x[i], 0.5f);
    CHECK_EQ_INT(bad, 0);
    loom_elementwise_kernel_destroy(k);
    loom_scope_end();
}

/* raw parameters read anywhere: z = x + w[(i + 1) % w.size()] * _ind.size() */
static void check_raw_indexing(void)
{
    loom_scope_begin();
    enum { N = 1000, M = 77 };
    float x[N], w[M];
    double got[N];
    loom_elementwise_kernel *k = loom_elementwise_kernel_create(
        "T x, raw T w", "T z", "z = x + w[(i + 1) % w.size()] * (T)_ind.size();", "shift_add", NULL, NULL);
    loom_array *a = f32_input(1, (int64_t[]){N}, x, N), *b = f32_input(1, (int64_t[]){M}, w, M);
    /* the raw operand computed first (a negative), and a consumer after */
    loom_array *z = loom_negative(loom_elementwise_kernel_call(k, (loom_array *[]){a, loom_negative(b)}, 2));
    int bad = 0;
    if (get_f64(z, got, N))
        for (int i = 0; i < N; i++)
            bad += got[i] != -(float)((double)x[i] + (float)((double)-w[(i + 1) % M] * N));
    CHECK_EQ_INT(bad, 0);
    loom_elementwise_kernel_destroy(k);
    loom_scope_end();
}

/* call_many: both outputs of one call, evaluated together. */
static void check_two_outputs(void)
{
    loom_scope_begin();
    enum { N = 4099 };
    float x[N], y[N];
    double lo[N], hi[N];
    loom_elementwise_kernel *k = loom_elementwise_kernel_create("T x, T y", "T lo, T hi",
                                                                "lo = x < y ? x : y; hi = x < y ? y : x;", "minmax", NULL, NULL);
    loom_array *outs[2];
    CHECK(loom_elementwise_kernel_call_many(k, (loom_array *[]){f32_input(1, (int64_t[]){N}, x, N),
                                                                f32_input(1, (int64_t[]){N}, y, N)}, 2, outs, 2) == LOOM_OK);
    CHECK(loom_eval_many(outs, 2) == LOOM_OK);
    int bad = 0;
    if (get_f64(outs[0], lo, N) && get_f64(outs[1], hi, N))
        for (int i = 0; i < N; i++)
            bad += lo[i] != fmin(x[i], y[i]) || hi[i] != fmax(x[i], y[i]);
    CHECK_EQ_INT(bad, 0);
    loom_elementwise_kernel_destroy(k);
    loom_scope_end();
}

/* Options reach NVRTC (the host compiler takes -D and -U only); the kernel object may be
 * destroyed before its arrays are evaluated. */
static void check_options_and_lifetime(void)
{
    loom_scope_begin();
    enum { N = 100 };
    float x[N];
    double got[N];
    loom_elementwise_kernel *k = loom_elementwise_kernel_create(
        "T x", "T z", "z = x * SCALE;", "scaled", NULL, gpu_test_on_host() ? "-DSCALE=3" : "-DSCALE=3 -std=c++17");
    loom_array *z = loom_elementwise_kernel_call(k, (loom_array *[]){f32_input(1, (int64_t[]){N}, x, N)}, 1);
    loom_elementwise_kernel_destroy(k);
    int bad = -1;
    if (get_f64(z, got, N))
        for (int i = bad = 0; i < N; i++)
            bad += got[i] != (float)((double)x[i] * 3);
    CHECK_EQ_INT(bad, 0);
    loom_scope_end();
}

/* A body NVRTC refuses fails at materialisation with LOOM_ERR_COMPILE, naming the file that
 * holds the generated source. */
static void check_compile_error(void)
{
    loom_scope_begin();
    float x[8];
    loom_elementwise_kernel *k = loom_elementwise_kernel_create("T x", "T z", "z = x +* nope;", "broken", NULL, NULL);
    loom_array *z = loom_elementwise_kernel_call(k, (loom_array *[]){f32_input(1, (int64_t[]){8}, x, 8)}, 1);
    CHECK(z);
    CHECK_EQ_INT(loom_eval(z), LOOM_ERR_COMPILE);
    /* NVRTC's log, or the host compiler's */
    CHECK(strstr(loom_last_error(), "nope") &&
          strstr(loom_last_error(), gpu_test_on_host() ? "(source in " : "source and full log in "));
    loom_elementwise_kernel_destroy(k);
    loom_scope_end();
}

/* Kernel launches of evaluating a, CUDA Graphs off; values into out (float64). */
static uint64_t launches(loom_array *a, double *out, int64_t n)
{
    setenv("LOOM_GRAPHS", "0", 1);
    loom_stats s0, s1;
    loom_stats_get(&s0);
    CHECK_EQ_INT(loom_eval(a), LOOM_OK);
    loom_stats_get(&s1);
    unsetenv("LOOM_GRAPHS");
    CHECK(get_f64(a, out, n));
    return s1.kernels_launched - s0.kernels_launched;
}

/* y = my_kernel(a, b); s = sum(y * y, axis=1): one launch, against float64; and an
 * elementwise chain through the kernel equal bit for bit fused and with LOOM_FUSE=0. */
static void check_fusion(void)
{
    enum { R = 256, C = 1024 };
    float *x = malloc(R * C * sizeof *x), *y = malloc(R * C * sizeof *y);
    double *got = malloc(R * C * sizeof *got), *unfused = malloc(R * C * sizeof *unfused);
    loom_elementwise_kernel *k = loom_elementwise_kernel_create("float32 x, float32 y", "float32 z", BRANCH_BODY,
                                                                "my_kernel", NULL, NULL);
    const int64_t shape[2] = {R, C};
    loom_scope_begin();
    loom_array *a = f32_input(2, shape, x, R * C), *b = f32_input(2, shape, y, R * C);
    CHECK_EQ_INT(loom_eval(a), LOOM_OK);
    CHECK_EQ_INT(loom_eval(b), LOOM_OK);
    for (int fuse = 1; fuse >= 0; fuse--) {
        if (!fuse)
            setenv("LOOM_FUSE", "0", 1);
        loom_scope_begin();
        loom_array *z = loom_elementwise_kernel_call(k, (loom_array *[]){a, b}, 2);
        loom_array *s = loom_sum(loom_multiply(z, z), (int[]){1}, 1, false);
        double sums[R];
        uint64_t n = launches(s, sums, R);
        if (fuse)
            CHECK_EQ_INT(n, 1);
        int bad = 0;
        for (int r = 0; r < R; r++) {
            double ref = 0, mag = 0;
            for (int c = 0; c < C; c++) {
                double v = branch_ref(x[r * C + c], y[r * C + c]);
                v = (float)(v * v);
                ref += v;
                mag += fabs(v);
            }
            bad += fabs(sums[r] - ref) > 0x1p-24 * (2 * (log2(C + 1.0) + sqrt(C)) + 4) * mag;
        }
        CHECK_EQ_INT(bad, 0);
        loom_array *e = loom_multiply(loom_exp(loom_elementwise_kernel_call(k, (loom_array *[]){loom_sin(a), b}, 2)), b);
        uint64_t ne = launches(e, fuse ? got : unfused, R * C);
        if (fuse)
            CHECK_EQ_INT(ne, 1);
        loom_scope_end();
        unsetenv("LOOM_FUSE");
    }
    CHECK(memcmp(got, unfused, R * C * sizeof *got) == 0);
    loom_scope_end();
    loom_elementwise_kernel_destroy(k);
    free(x);
    free(y);
    free(got);
    free(unfused);
}

/* Reduction kernels: l2norm (CuPy's documentation example) over rows, fused with a producer and
 * a consumer into one launch and with LOOM_FUSE=0, each against float64; a double reduce_type
 * on float32 data; the identity on an empty axis. */
static void check_reduction_kernels(void)
{
    enum { R = 300, C = 1037 };
    float *x = malloc(R * C * sizeof *x);
    double got[R];
    loom_reduction_kernel *l2 = loom_reduction_kernel_create("T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0",
                                                             "l2norm", NULL, NULL, NULL);
    loom_reduction_kernel *dsum = loom_reduction_kernel_create("T x", "float64 y", "x", "a + b", NULL, "0",
                                                               "dsum", "double", NULL, NULL);
    loom_reduction_kernel *plus1 = loom_reduction_kernel_create("T x", "T y", "x", "a + b", "y = a + 1", "0",
                                                                "sum_plus_one", NULL, NULL, NULL);
    CHECK(l2 && dsum && plus1);
    loom_scope_begin();
    loom_array *a = f32_input(2, (int64_t[]){R, C}, x, R * C);
    for (int fuse = 1; fuse >= 0; fuse--) {
        if (!fuse)
            setenv("LOOM_FUSE", "0", 1);
        loom_scope_begin();
        /* 2 * l2norm(|x|) over rows */
        loom_array *y = loom_mul_scalar(loom_reduction_kernel_call(l2, (loom_array *[]){loom_absolute(a)}, 1, (int[]){1}, 1, false), 2.0);
        uint64_t n = launches(y, got, R);
        if (fuse)
            CHECK_EQ_INT(n, 1);
        int bad = 0;
        for (int r = 0; r < R; r++) {
            double ss = 0;
            for (int c = 0; c < C; c++)
                ss += (double)x[r * C + c] * x[r * C + c];
            double ref = 2 * sqrt(ss), tol = 0x1p-24 * (2 * (log2(C + 1.0) + sqrt(C)) + 8) * ref;
            bad += fabs(got[r] - ref) > tol;
        }
        CHECK_EQ_INT(bad, 0);
        loom_scope_end();
        unsetenv("LOOM_FUSE");
    }
    /* float32 data summed in double: within float64's error */
    loom_array *d = loom_reduction_kernel_call(dsum, &a, 1, (int[]){1}, 1, false);
    CHECK(d && loom_dtype_of(d) == LOOM_FLOAT64);
    int bad = 0;
    if (get_f64(d, got, R))
        for (int r = 0; r < R; r++) {
            double ref = 0, mag = 0;
            for (int c = 0; c < C; c++) {
                ref += x[r * C + c];
                mag += fabs(x[r * C + c]);
            }
            bad += fabs(got[r] - ref) > 0x1p-50 * C * mag;
        }
    CHECK_EQ_INT(bad, 0);
    /* an empty axis reduces to the identity, then the post-map */
    float none[1];
    loom_array *e = loom_asarray(none, LOOM_FLOAT32, 2, (int64_t[]){3, 0});
    loom_array *p = loom_reduction_kernel_call(plus1, &e, 1, (int[]){1}, 1, false);
    CHECK_SHAPE(p, 1, ((int64_t[]){3}));
    if (get_f64(p, got, 3))
        CHECK(got[0] == 1 && got[1] == 1 && got[2] == 1);
    loom_scope_end();
    loom_reduction_kernel_destroy(l2);
    loom_reduction_kernel_destroy(dsum);
    loom_reduction_kernel_destroy(plus1);
    free(x);
}

static const char raw_source[] =
    "extern \"C\" __global__ void elementwise_copy(const float *x, float *y, long long n)\n"
    "{\n"
    "    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;\n"
    "         i += (long long)gridDim.x * blockDim.x)\n"
    "        y[i] = x[i];\n"
    "}\n"
    "extern \"C\" __global__ void matmul(const float *A, const float *B, float *C, int n)\n"
    "{\n"
    "    const int row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (row >= n || col >= n) return;\n"
    "    float s = 0;\n"
    "    for (int k = 0; k < n; k++) s += A[row * n + k] * B[k * n + col];\n"
    "    C[row * n + col] = s;\n"
    "}\n";

/* The seeds' raw kernels: a grid-stride copy of 2^22 float32 (exact), a naive matmul of
 * 1000x1000 float32 against loom_matmul (within float32's summation bound); the second launch
 * of the same plan on new inputs replays its CUDA Graph; more shared memory than the device
 * has fails at materialisation, naming the limit. */
static void check_raw_kernels(void)
{
    loom_raw_module *mod = loom_raw_module_create(raw_source, NULL);
    loom_raw_kernel *copy = loom_raw_module_get_function(mod, "elementwise_copy");
    loom_raw_kernel *mm = loom_raw_module_get_function(mod, "matmul");
    loom_raw_module_destroy(mod);
    CHECK(copy && mm);
    const int64_t n = 1 << 22;
    float *x = malloc(n * sizeof *x);
    double *got = malloc(n * sizeof *got);
    for (int run = 0; run < 2; run++) {
        loom_scope_begin();
        loom_array *a = f32_input(1, &n, x, n), *y = NULL;
        CHECK_EQ_INT(loom_eval(a), LOOM_OK);
        loom_stats s0, s1;
        loom_stats_get(&s0);
        CHECK(loom_raw_kernel_call(copy, (unsigned[]){1024, 1, 1}, (unsigned[]){256, 1, 1}, 0,
                                   (loom_array *[]){a, loom_empty(1, &n, LOOM_FLOAT32), loom_scalar_int(n)}, 3,
                                   (int[]){1}, 1, &y) == LOOM_OK);
        CHECK_EQ_INT(loom_eval(y), LOOM_OK);
        loom_stats_get(&s1);
        if (run == 1) /* the same plan: its graph is replayed */
            CHECK(s1.graph_launches - s0.graph_launches == 1 && s1.kernels_launched == s0.kernels_launched);
        int bad = 0;
        if (get_f64(y, got, n))
            for (int64_t i = 0; i < n; i++)
                bad += got[i] != x[i];
        CHECK_EQ_INT(bad, 0);
        loom_scope_end();
    }
    free(x);
    free(got);

    enum { N = 1000 };
    const int64_t shape[2] = {N, N};
    float *ha = malloc(N * N * sizeof *ha), *hb = malloc(N * N * sizeof *hb);
    double *c = malloc(N * N * sizeof *c), *ref = malloc(N * N * sizeof *ref), *mag = malloc(N * N * sizeof *mag);
    loom_scope_begin();
    loom_array *A = f32_input(2, shape, ha, N * N), *B = f32_input(2, shape, hb, N * N), *C = NULL;
    CHECK(loom_raw_kernel_call(mm, (unsigned[]){(N + 15) / 16, (N + 15) / 16, 1}, (unsigned[]){16, 16, 1}, 0,
                               (loom_array *[]){A, B, loom_empty(2, shape, LOOM_FLOAT32), loom_scalar_typed(N, LOOM_INT32)}, 4,
                               (int[]){2}, 1, &C) == LOOM_OK);
    int bad = 0;
    if (get_f64(C, c, N * N) && get_f64(loom_matmul(A, B), ref, N * N) &&
        get_f64(loom_matmul(loom_absolute(A), loom_absolute(B)), mag, N * N))
        for (int i = 0; i < N * N; i++)
            bad += fabs(c[i] - ref[i]) > 2 * N * 0x1p-24 * mag[i];
    CHECK_EQ_INT(bad, 0);
    /* 1 GiB of dynamic shared memory: refused with the device's limit when it is evaluated */
    loom_array *D = NULL;
    CHECK(loom_raw_kernel_call(mm, (unsigned[]){1, 1, 1}, (unsigned[]){16, 16, 1}, (size_t)1 << 30,
                               (loom_array *[]){A, B, loom_empty(2, shape, LOOM_FLOAT32), loom_scalar_typed(N, LOOM_INT32)}, 4,
                               (int[]){2}, 1, &D) == LOOM_OK);
    CHECK_EQ_INT(loom_eval(D), LOOM_ERR_INVALID);
    CHECK(strstr(loom_last_error(), "loom_eval: kernel matmul asks for 1073741824 bytes of dynamic shared memory") &&
          strstr(loom_last_error(), "allows at most"));
    loom_scope_end();
    loom_raw_kernel_destroy(copy);
    loom_raw_kernel_destroy(mm);
    free(ha);
    free(hb);
    free(c);
    free(ref);
    free(mag);
}

/* A reduction kernel without an identity (my_max: "a > b ? a : b") on negative data, where a
 * zero identity would show: rows, columns and 2^22 elements in several passes, against the
 * exact maxima; an int32 argument takes the same code with T = int; an empty reduction is
 * refused at the call. */
static void check_reduction_without_identity(void)
{
    enum { R = 300, C = 1037, N = 1 << 22 };
    float *x = malloc((size_t)N * sizeof *x);
    int32_t *xi = malloc(R * C * sizeof *xi);
    double *got = malloc((size_t)C * sizeof *got);
    for (int i = 0; i < N; i++)
        x[i] = (float)uniform(-4, -1);
    for (int i = 0; i < R * C; i++)
        xi[i] = -1 - (int32_t)uniform(0, 1e9);
    loom_reduction_kernel *mx = loom_reduction_kernel_create("T x", "T y", "x", "a > b ? a : b", NULL, NULL,
                                                             "my_max", NULL, NULL, NULL);
    CHECK(mx != NULL);
    loom_scope_begin();
    loom_array *a = loom_asarray(x, LOOM_FLOAT32, 2, (int64_t[]){R, C});
    loom_array *ai = loom_asarray(xi, LOOM_INT32, 2, (int64_t[]){R, C});
    int bad = 0;
    if (get_f64(loom_reduction_kernel_call(mx, &a, 1, (int[]){1}, 1, false), got, R))
        for (int r = 0; r < R; r++) {
            float ref = x[r * C];
            for (int c = 1; c < C; c++)
                ref = x[r * C + c] > ref ? x[r * C + c] : ref;
            bad += got[r] != ref;
        }
    else
        bad = -1;
    CHECK_EQ_INT(bad, 0);
    /* joined with a built-in max over the same rows (one kernel, two kinds of accumulator) */
    bad = 0;
    const uint64_t nl = launches(
        loom_add(loom_reduction_kernel_call(mx, &a, 1, (int[]){1}, 1, false), loom_amax(a, (int[]){1}, 1, false)), got, R);
    CHECK_EQ_INT(nl, 1);
    for (int r = 0; r < R; r++) {
        float ref = x[r * C];
        for (int c = 1; c < C; c++)
            ref = x[r * C + c] > ref ? x[r * C + c] : ref;
        bad += got[r] != 2.0 * ref;
    }
    CHECK_EQ_INT(bad, 0);
    bad = 0;
    if (get_f64(loom_reduction_kernel_call(mx, &ai, 1, (int[]){0}, 1, false), got, C))
        for (int c = 0; c < C; c++) {
            int32_t ref = xi[c];
            for (int r = 1; r < R; r++)
                ref = xi[r * C + c] > ref ? xi[r * C + c] : ref;
            bad += got[c] != ref;
        }
    else
        bad = -1;
    CHECK_EQ_INT(bad, 0);
    const int64_t n = N;
    loom_array *all = loom_reduction_kernel_call(mx, (loom_array *[]){loom_asarray(x, LOOM_FLOAT32, 1, &n)}, 1, NULL, 0, false);
    float ref = x[0];
    for (int i = 1; i < N; i++)
        ref = x[i] > ref ? x[i] : ref;
    CHECK(get_f64(all, got, 1) && got[0] == ref);
    float none[1];
    loom_array *e = loom_asarray(none, LOOM_FLOAT32, 2, (int64_t[]){0, 3});
    CHECK(!loom_reduction_kernel_call(mx, &e, 1, (int[]){0}, 1, false) &&
          strstr(loom_last_error(), "zero-size array to reduction operation my_max which has no identity"));
    loom_scope_end();
    loom_reduction_kernel_destroy(mx);
    free(x);
    free(xi);
    free(got);
}

/* CuPy's argmax and max in one pass (cupy#1924): a struct reduce type, _J and two outputs, on
 * rows and columns of float32 data with ties (values rounded to 1/8), against NumPy's argmax
 * (the first index of the maximum) and max computed on the host; two sums of a scaled input
 * (an identity and a weak scalar) over every axis, within float32's summation bound. */
static void check_multi_output_reductions(void)
{
    enum { R = 300, C = 1037 };
    float *x = malloc(R * C * sizeof *x);
    double *idx = malloc(C * sizeof *idx), *val = malloc(C * sizeof *val);
    for (int i = 0; i < R * C; i++)
        x[i] = (float)(floor(uniform(-4, 4) * 8) / 8); /* 64 values: many ties */
    loom_reduction_kernel *am = loom_reduction_kernel_create("T x", "int32 y, T z", "min_max_st(x, _J)", "my_argmax(a, b)",
                                                             "y = a.index, z = a.value", NULL, "argmax_max",
                                                             "min_max_st", MIN_MAX_PREAMBLE, NULL);
    loom_reduction_kernel *ws = loom_reduction_kernel_create("T x, T s", "T y, T z", "x * s", "a + b",
                                                             "y = a, z = a * 2", "0", "scaled_sums", NULL, NULL, NULL);
    CHECK(am && ws);
    loom_scope_begin();
    loom_array *a = loom_asarray(x, LOOM_FLOAT32, 2, (int64_t[]){R, C});
    for (int axis = 0; axis < 2; axis++) {
        loom_array *o[2] = {NULL, NULL};
        CHECK_EQ_INT(loom_reduction_kernel_call_many(am, &a, 1, &axis, 1, false, o, 2), LOOM_OK);
        const int n = axis ? R : C, len = axis ? C : R;
        int bad = 0;
        if (get_f64(o[0], idx, n) && get_f64(o[1], val, n))
            for (int k = 0; k < n; k++) {
                int best = 0;
                for (int j = 1; j < len; j++) /* np.argmax: the first index of the maximum */
                    if (x[axis ? k * C + j : j * C + k] > x[axis ? k * C + best : best * C + k])
                        best = j;
                bad += idx[k] != best || val[k] != x[axis ? k * C + best : best * C + k];
            }
        else
            bad = -1;
        CHECK_EQ_INT(bad, 0);
    }
    loom_array *w[2] = {NULL, NULL};
    CHECK_EQ_INT(loom_reduction_kernel_call_many(ws, (loom_array *[]){a, loom_scalar(0.5)}, 2, NULL, 0, false, w, 2),
                 LOOM_OK);
    double ref = 0, mag = 0, got[2];
    for (int i = 0; i < R * C; i++) {
        ref += 0.5 * x[i];
        mag += fabs(0.5 * x[i]);
    }
    const double tol = 0x1p-24 * (R * C / 256.0 + 8 + 256) * mag; /* 256 strided partial sums, then a tree */
    CHECK(get_f64(w[0], got, 1) && get_f64(w[1], got + 1, 1));
    CHECK(fabs(got[0] - ref) <= tol && fabs(got[1] - 2 * ref) <= 2 * tol);
    loom_scope_end();
    loom_reduction_kernel_destroy(am);
    loom_reduction_kernel_destroy(ws);
    free(x);
    free(idx);
    free(val);
}

/* CuPy's loop_prep and after_loop: a constant of loop_prep used by the body with a weak scalar,
 * and a raw array summed in loop_prep, the index i and _ind.size() in two outputs; exact
 * float32 arithmetic (the same operations on the host, integer-valued sums). */
static void check_loop_prep(void)
{
    enum { N = 10000, W = 37 };
    float *x = malloc(N * sizeof *x), w[W];
    double *got = malloc(N * sizeof *got), *got2 = malloc(N * sizeof *got2);
    for (int k = 0; k < W; k++)
        w[k] = (float)k;
    loom_elementwise_kernel *scaled = loom_elementwise_kernel_create_ex("T x, T s", "T y", "y = x * scale + s;", "scaled",
                                                                        NULL, NULL, "const T scale = (T)3;", NULL);
    loom_elementwise_kernel *wsum = loom_elementwise_kernel_create_ex(
        "raw T w, T x", "T y, T z", "y = x + total; z = (T)i + (T)_ind.size();", "plus_total", NULL, NULL,
        "T total = 0; for (long long k = 0; k < w.size(); k++) total += w[k];", "(void)total;");
    CHECK(scaled && wsum);
    loom_scope_begin();
    const int64_t n = N, nw = W;
    loom_array *a = f32_input(1, &n, x, n);
    int bad = 0;
    if (get_f64(loom_elementwise_kernel_call(scaled, (loom_array *[]){a, loom_scalar(0.5)}, 2), got, n))
        for (int i = 0; i < N; i++) {
            float r = x[i] * 3.0f;
            r = r + 0.5f;
            bad += got[i] != r;
        }
    else
        bad = -1;
    CHECK_EQ_INT(bad, 0);
    loom_array *o[2] = {NULL, NULL};
    CHECK_EQ_INT(loom_elementwise_kernel_call_many(wsum, (loom_array *[]){loom_asarray(w, LOOM_FLOAT32, 1, &nw), a}, 2, o, 2),
                 LOOM_OK);
    bad = 0;
    if (get_f64(o[0], got, n) && get_f64(o[1], got2, n))
        for (int i = 0; i < N; i++)
            bad += got[i] != (float)(x[i] + 666.0f) || got2[i] != (float)i + (float)N;
    else
        bad = -1;
    CHECK_EQ_INT(bad, 0);
    loom_scope_end();
    loom_elementwise_kernel_destroy(scaled);
    loom_elementwise_kernel_destroy(wsum);
    free(x);
    free(got);
    free(got2);
}

/* Dynamic shared memory above 48 KiB (64 KiB: each block reverses 16384 floats through it),
 * launched directly and replayed from the plan's graph, and at the exact opt-in limit. */
static void check_large_shared_memory(void)
{
    static const char src[] =
        "extern \"C\" __global__ void block_reverse(const float *x, float *y, int chunk)\n"
        "{\n"
        "    extern __shared__ float buf[];\n"
        "    const float *in = x + (long long)blockIdx.x * chunk;\n"
        "    for (int j = threadIdx.x; j < chunk; j += blockDim.x) buf[j] = in[j];\n"
        "    __syncthreads();\n"
        "    for (int j = threadIdx.x; j < chunk; j += blockDim.x)\n"
        "        y[(long long)blockIdx.x * chunk + j] = buf[chunk - 1 - j];\n"
        "}\n";
    loom_raw_kernel *k = loom_raw_kernel_create(src, "block_reverse", NULL);
    enum { CHUNK = 16384, BLOCKS = 64 };
    const int64_t n = (int64_t)CHUNK * BLOCKS;
    float *x = malloc((size_t)n * sizeof *x);
    double *got = malloc((size_t)n * sizeof *got);
    for (int run = 0; run < 2; run++) {
        loom_scope_begin();
        loom_array *y = NULL;
        CHECK(loom_raw_kernel_call(k, (unsigned[]){BLOCKS, 1, 1}, (unsigned[]){1024, 1, 1}, CHUNK * sizeof(float),
                                   (loom_array *[]){f32_input(1, &n, x, n), loom_empty(1, &n, LOOM_FLOAT32),
                                                    loom_scalar_typed(CHUNK, LOOM_INT32)},
                                   3, (int[]){1}, 1, &y) == LOOM_OK);
        int bad = 0;
        if (get_f64(y, got, n))
            for (int64_t i = 0; i < n; i++)
                bad += got[i] != x[i / CHUNK * CHUNK + CHUNK - 1 - i % CHUNK];
        else
            bad = -1;
        CHECK_EQ_INT(bad, 0);
        loom_scope_end();
    }
    /* the opt-in limit itself works; one byte more is refused with the limit in the message */
    const loom__device_props *props = loom__device_props_get("test", 0);
    CHECK(props && props->smem_per_block_optin > 48 * 1024);
    loom_scope_begin();
    const int64_t m = props ? (int64_t)(props->smem_per_block_optin / sizeof(float)) : 1024;
    loom_array *y = NULL, *z = NULL;
    loom_array *xm = f32_input(1, &m, x, m < n ? m : n); /* m fits in x: 227 KiB < 4 MiB */
    CHECK(loom_raw_kernel_call(k, (unsigned[]){1, 1, 1}, (unsigned[]){1024, 1, 1}, (size_t)m * sizeof(float),
                               (loom_array *[]){xm, loom_empty(1, &m, LOOM_FLOAT32), loom_scalar_typed((double)m, LOOM_INT32)},
                               3, (int[]){1}, 1, &y) == LOOM_OK);
    int bad = 0;
    if (get_f64(y, got, m))
        for (int64_t i = 0; i < m; i++)
            bad += got[i] != x[m - 1 - i];
    else
        bad = -1;
    CHECK_EQ_INT(bad, 0);
    CHECK(loom_raw_kernel_call(k, (unsigned[]){1, 1, 1}, (unsigned[]){1024, 1, 1}, (size_t)m * sizeof(float) + 1,
                               (loom_array *[]){xm, loom_empty(1, &m, LOOM_FLOAT32), loom_scalar_typed((double)m, LOOM_INT32)},
                               3, (int[]){1}, 1, &z) == LOOM_OK);
    CHECK_EQ_INT(loom_eval(z), LOOM_ERR_INVALID);
    CHECK(strstr(loom_last_error(), "dynamic shared memory") && strstr(loom_last_error(), "allows at most"));
    loom_scope_end();
    loom_raw_kernel_destroy(k);
    free(x);
    free(got);
}

/* CuPy's name_expressions: two instantiations of one templated kernel of a module. */
static void check_name_expressions(void)
{
    static const char src[] = "template <typename T, int N>\n"
                              "__global__ void scale_by(T *y, long long n)\n"
                              "{ long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; if (i < n) y[i] *= N; }\n";
    const char *names[] = {"scale_by<float, 2>", "scale_by<int, 3>"};
    loom_raw_module *mod = loom_raw_module_create_ex(src, NULL, names, 2);
    loom_raw_kernel *kf = loom_raw_module_get_function(mod, names[0]);
    loom_raw_kernel *ki = loom_raw_module_get_function(mod, names[1]);
    loom_raw_module_destroy(mod);
    CHECK(kf && ki);
    enum { N = 5000 };
    const int64_t n = N;
    float *x = malloc(N * sizeof *x);
    double *got = malloc(N * sizeof *got);
    loom_scope_begin();
    loom_array *yf = NULL, *yi = NULL;
    const unsigned grid[3] = {(N + 255) / 256, 1, 1}, block[3] = {256, 1, 1};
    CHECK(loom_raw_kernel_call(kf, grid, block, 0, (loom_array *[]){f32_input(1, &n, x, n), loom_scalar_int(n)}, 2,
                               (int[]){0}, 1, &yf) == LOOM_OK);
    CHECK(loom_raw_kernel_call(ki, grid, block, 0,
                               (loom_array *[]){loom_arange(-2000, 3000, 1, LOOM_INT32), loom_scalar_int(n)}, 2,
                               (int[]){0}, 1, &yi) == LOOM_OK);
    int bad = 0;
    if (get_f64(yf, got, n))
        for (int i = 0; i < N; i++)
            bad += got[i] != 2.0 * x[i];
    else
        bad = -1;
    if (get_f64(yi, got, n))
        for (int i = 0; i < N; i++)
            bad += got[i] != 3.0 * (i - 2000);
    else
        bad = -1;
    CHECK_EQ_INT(bad, 0);
    loom_scope_end();
    loom_raw_kernel_destroy(kf);
    loom_raw_kernel_destroy(ki);
    free(x);
    free(got);
}

int main(void)
{
    if (!gpu_test_start("gpu_test_ukernel"))
        return 77;
    check_my_kernel(2, (int64_t[]){2, 3});
    check_my_kernel(1, (int64_t[]){10000});
    check_squared_difference();
    check_broadcast_and_scalars();
    check_raw_indexing();
    check_two_outputs();
    check_options_and_lifetime();
    check_compile_error();
    check_fusion();
    check_reduction_kernels();
    check_reduction_without_identity();
    if (gpu_test_on_host()) {
        /* several outputs and loop_prep are lowered to raw kernels too */
        printf("gpu_test_ukernel: raw kernels, reduction kernels of several outputs and loop_prep "
               "are not available on the host device, skipped\n");
    } else {
        check_multi_output_reductions();
        check_loop_prep();
        check_raw_kernels();
        check_large_shared_memory();
        check_name_expressions();
    }
    return gpu_test_finish("gpu_test_ukernel");
}
