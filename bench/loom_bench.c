/* Loom's side of the benchmark workloads, timed like the peers' scripts (.peers/peer_bench.py
 * and .peers/peer_bench_lib.py, copied there at run time): the whole call (graph building,
 * planning, launch) plus a synchronize, median of 20 runs after 3 warm-ups. Prints one line per
 * workload in the peers' format; bench/compare.py builds the table.
 *   loom_bench [--cupyx] [workload ...]  (chain scale mse softmax layernorm rownorm sum_full
 *                                   sum_cols small64 ones2GB randn64M x_plus_randn matmul32
 *                                   matmul64_10k matmul_relu_bias bmm64 ewk_sum fft16M
 *                                   fft_rows_scale rfft_power take64M concat scatter_add
 *                                   compile disk_load svd1k eigh1k solve4k inv4k inv_batch8
 *                                   chol_batch8 eigh_batch8 qr_batch8;
 *                                   fft_rows_scale also runs as fft_rows_scale_cb, its scale in a
 *                                   cuFFT store callback)
 * --cupyx adds, after the line of each workload but compile and disk_load, loom_benchmark's
 * line in cupyx.profiler.benchmark's format (compare.py skips it).
 * --cpu runs the same workloads on the host device (LOOM_DEVICE_CPU), named loom_cpu in the
 * lines, median of CPU_REPS runs after one warm-up (which compiles); compile is then the host
 * compiler's first build of the chain's kernel; small64_direct, fft_rows_scale_cb and
 * disk_load, which measure GPU mechanisms, are left out.
 * sum_full and sum_cols have no peer; compare.py shows them against the copy limit only (issue 4:
 * within 10% and 15% of it). The matmuls are compute-bound (0 effective bytes, GB/s printed as
 * nan) except bmm64, whose 64x64 products are memory-bound; compare.py adds their TFLOP/s.
 */
#define _POSIX_C_SOURCE 200809L
#include "exec/exec.h"
#include "fuser/plan.h"
#include "loom.h"

#include <math.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define N_BIG (1 << 26)
#define ROWS 8192 /* softmax, layernorm and the 8192x8192 matmuls: ROWS x ROWS, as the peers */
#define REPS 20
#define WARM 3
#define CPU_REPS 5

/* --cpu: the host device, fewer runs (a workload takes seconds there) */
static bool on_cpu;
static int reps = REPS, warm = WARM;
static const char *framework = "loom";

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void report(const char *name, double *t, int n, double bytes)
{
    qsort(t, (size_t)n, sizeof *t, cmp_double);
    double med = n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
    printf("%-14s %-14s median_ms=%10.4f min_ms=%10.4f eff_GBps=%8.1f\n", framework, name, med, t[0],
           bytes > 0 ? bytes / (med * 1e-3) / 1e9 : 0.0 / 0.0);
    fflush(stdout);
}

static int failed(const char *what)
{
    printf("%-14s %-14s FAILED %s\n", framework, what, loom_last_error() ? loom_last_error() : "?");
    return 1;
}

/* --cupyx: each workload is timed once more by loom_benchmark and printed as
 * cupyx.profiler.benchmark prints (CPU time of build + eval, GPU time on the stream). */
static bool cupyx_lines;

typedef struct workload {
    loom_array *(*build)(loom_array *const *);
    loom_array *const *in;
} workload;

static int run_workload(void *data)
{
    const workload *w = data;
    loom_scope_begin();
    int rc = loom_eval(w->build(w->in));
    loom_scope_end();
    return rc;
}

static int print_cupyx_line(const char *name, loom_array *(*build)(loom_array *const *),
                            loom_array *const *in)
{
    workload w = {build, in};
    loom_benchmark_result r;
    if (loom_benchmark(run_workload, &w, name, REPS, WARM, 1.0 / 0.0, &r) != LOOM_OK)
        return failed(name);
    loom_benchmark_print(&r);
    loom_benchmark_result_free(&r);
    return 0;
}

/* Times build(in) + eval + synchronize. */
static int time_workload(const char *name, loom_array *(*build)(loom_array *const *),
                         loom_array *const *in, double bytes)
{
    double t[REPS];
    for (int r = 0; r < warm + reps; r++) {
        double t0 = now_ms();
        loom_scope_begin();
        loom_array *y = build(in);
        int rc = loom_eval(y);
        loom_scope_end();
        if (rc || loom_stream_synchronize(NULL))
            return failed(name);
        if (r >= warm)
            t[r - warm] = now_ms() - t0;
    }
    report(name, t, reps, bytes);
    return cupyx_lines ? print_cupyx_line(name, build, in) : 0;
}

static loom_array *chain(loom_array *const *in)
{
    loom_array *x = in[0];
    return loom_subtract(
        loom_add(loom_mul_scalar(loom_sin(x), 2.0), loom_power(loom_cos(x), loom_scalar(2.0))),
        loom_divide(loom_exp(loom_negative(x)), loom_add(loom_scalar(1.0), loom_multiply(x, x))));
}

static loom_array *scale(loom_array *const *in) { return loom_mul_scalar(in[0], 5.0); }

static const int AXIS0 = 0, AXIS1 = 1;

/* sum((a - b)**2) / a.size */
static loom_array *mse(loom_array *const *in)
{
    loom_array *d = loom_subtract(in[0], in[1]);
    return loom_div_scalar(loom_sum(loom_power(d, loom_scalar(2.0)), NULL, 0, false),
                           (double)loom_size(in[0]));
}

/* e = exp(x - max(x,1,keepdims)); e / sum(e,1,keepdims) */
static loom_array *softmax(loom_array *const *in)
{
    loom_array *e = loom_exp(loom_subtract(in[0], loom_amax(in[0], &AXIS1, 1, true)));
    return loom_divide(e, loom_sum(e, &AXIS1, 1, true));
}

/* (x-mu)/sqrt(var+1e-5)*g + b over axis 1, var = mean((x-mu)**2) as peer_bench.py writes it */
static loom_array *layernorm(loom_array *const *in)
{
    loom_array *mu = loom_mean(in[0], &AXIS1, 1, true);
    loom_array *xc = loom_subtract(in[0], mu);
    loom_array *var = loom_mean(loom_power(xc, loom_scalar(2.0)), &AXIS1, 1, true);
    return loom_add(loom_multiply(loom_divide(xc, loom_sqrt(loom_add_scalar(var, 1e-5))), in[1]),
                    in[2]);
}

/* (m - m.mean(1,keepdims)) / m.std(1,keepdims) */
static loom_array *rownorm(loom_array *const *in)
{
    return loom_divide(loom_subtract(in[0], loom_mean(in[0], &AXIS1, 1, true)),
                       loom_std(in[0], &AXIS1, 1, 0, true));
}

static loom_array *sum_full(loom_array *const *in) { return loom_sum(in[0], NULL, 0, false); }

static loom_array *sum_cols(loom_array *const *in) { return loom_sum(in[0], &AXIS0, 1, false); }

static loom_array *small64(loom_array *const *in)
{
    loom_array *x = in[0];
    for (int i = 0; i < 32; i++)
        x = loom_add_scalar(loom_mul_scalar(x, 1.0001), 0.5);
    return x;
}

/* The random workloads draw from one generator: each call reserves new counter blocks, so
 * every call makes new numbers through the same cached plan and kernel. */
static loom_rng *bench_rng;

/* 2^26 float32 standard normals, materialised. */
static loom_array *randn64m(loom_array *const *in)
{
    (void)in;
    return loom_rng_standard_normal(bench_rng, 1, (int64_t[]){N_BIG}, LOOM_FLOAT32);
}

/* x + standard normals of x's shape: reads x, writes the sum, nothing else. */
static loom_array *x_plus_randn(loom_array *const *in)
{
    return loom_add(in[0], loom_rng_standard_normal(bench_rng, loom_ndim(in[0]), loom_shape(in[0]),
                                                    LOOM_FLOAT32));
}

static loom_array *ones2gb(loom_array *const *in)
{
    (void)in;
    return loom_ones(3, (int64_t[]){1000, 500, 500}, LOOM_FLOAT64);
}

/* Device-generated, so the upload is not timed: uniform values in [0, 1) from the bench
 * generator (float64 for float64, else float32 values cast to dt), like the peers' rand. */
static loom_array *random_array(loom_dtype dt, int ndim, const int64_t *shape)
{
    loom_array *u = loom_rng_random(bench_rng, ndim, shape,
                                    dt == LOOM_FLOAT64 ? LOOM_FLOAT64 : LOOM_FLOAT32);
    loom_array *x = loom_astype(u, dt);
    loom_eval(x);
    loom_release(u);
    return x;
}

/* float32, reshaped to rows x n/rows where rows > 1. */
static loom_array *random_input(int64_t n, int64_t rows)
{
    return rows > 1 ? random_array(LOOM_FLOAT32, 2, (int64_t[]){rows, n / rows})
                    : random_array(LOOM_FLOAT32, 1, &n);
}

/* n uniform int64 indices in [0, high), like the peers' randint. */
static loom_array *random_indices(int64_t n, int64_t high)
{
    loom_array *i = loom_rng_integers(bench_rng, 0, high, false, 1, &n, LOOM_INT64);
    loom_eval(i);
    return i;
}

/* The seeds' ElementwiseKernel, made once (it is a compiled kernel in CuPy too). */
static loom_elementwise_kernel *my_kernel;

/* y = my_kernel(a, b); sum(y * y, axis=1): one kernel reading a and b once */
static loom_array *ewk_sum(loom_array *const *in)
{
    loom_array *y = loom_elementwise_kernel_call(my_kernel, in, 2);
    return loom_sum(loom_multiply(y, y), (int[]){1}, 1, false);
}

/* complex64 re + i im, both parts random_array's, with the given shape (made outside any
 * scope, like random_array) */
static loom_array *random_complex(int ndim, const int64_t *shape)
{
    loom_array *re = random_array(LOOM_FLOAT32, ndim, shape);
    loom_array *im = random_array(LOOM_FLOAT32, ndim, shape);
    loom_array *cre = loom_astype(re, LOOM_COMPLEX64), *cim = loom_astype(im, LOOM_COMPLEX64);
    loom_array *i = loom_scalar_complex(0, 1), *t = loom_multiply(cim, i);
    loom_array *z = loom_add(cre, t);
    loom_array *parts[] = {re, im, cre, cim, i, t};
    for (size_t k = 0; k < sizeof parts / sizeof *parts; k++)
        loom_release(parts[k]);
    loom_eval(z);
    return z;
}

static loom_array *fft16m(loom_array *const *in) { return loom_fft_fft(in[0], -1, -1, NULL); }

/* fft(x, axis=1) * 2 */
static loom_array *fft_rows_scale(loom_array *const *in)
{
    return loom_mul_scalar(loom_fft_fft(in[0], -1, 1, NULL), 2.0);
}

/* abs(rfft(x * w, axis=1))**2, w a window along the rows */
static loom_array *rfft_power(loom_array *const *in)
{
    return loom_square(loom_abs(loom_fft_rfft(loom_multiply(in[0], in[1]), -1, 1, NULL)));
}

static loom_array *matmul(loom_array *const *in) { return loom_matmul(in[0], in[1]); }

/* ---- sorting (M = 50e6 as the seeds' exercise) ---- */

#define SORT_M 50000000

static loom_array *sin_linspace(void)
{
    return loom_sin(loom_linspace(0, 6.283185307179586, SORT_M, true, LOOM_FLOAT32));
}

/* The prologue is timed too: its kernel writes straight into the sort's keys. */
static loom_array *sort50m(loom_array *const *in)
{
    (void)in;
    return loom_sort(sin_linspace(), 0);
}

static loom_array *sort_last(loom_array *const *in) { return loom_sort(in[0], -1); }
static loom_array *argsort_last(loom_array *const *in) { return loom_argsort(in[0], -1); }

static loom_array *take64m(loom_array *const *in) { return loom_take(in[0], in[1], 0); }

/* np.add.at(zeros(2^16), idx, vals): 2^24 float32 values into 2^16 bins, deterministic. */
static loom_array *scatter_add(loom_array *const *in)
{
    int64_t bins = 1 << 16;
    loom_index_term t[] = {{.kind = LOOM_INDEX_ARRAY, .array = in[1]}};
    return loom_at_add(loom_zeros(1, &bins, LOOM_FLOAT32), t, 1, in[0]);
}

static loom_array *concat(loom_array *const *in)
{
    loom_array *parts[] = {loom_mul_scalar(in[0], 2.0), loom_add_scalar(in[1], 1.0)};
    return loom_concatenate(parts, 2, 0);
}

/* relu(a @ b + bias), relu as maximum(x, 0) */
static loom_array *matmul_relu_bias(loom_array *const *in)
{
    return loom_maximum_scalar(loom_add(loom_matmul(in[0], in[1]), in[2]), 0.0);
}

/* a @ b on two fresh (rows, cols...) inputs of dtype dt, plus a bias of the last extent for
 * relu_bias */
static int bench_matmul(const char *name, loom_dtype dt, int ndim, const int64_t *shape,
                        bool relu_bias, double bytes)
{
    loom_array *in[3] = {random_array(dt, ndim, shape), random_array(dt, ndim, shape),
                         relu_bias ? random_array(dt, 1, &shape[ndim - 1]) : NULL};
    int bad = in[0] && in[1] && (in[2] || !relu_bias)
                  ? time_workload(name, relu_bias ? matmul_relu_bias : matmul, in, bytes)
                  : failed(name);
    for (int i = 0; i < 3; i++)
        loom_release(in[i]);
    return bad;
}

/* Linear algebra: rand + n I (well conditioned), a stack of batch n x n matrices of dt, in
 * memory before timing. */
static loom_array *well_conditioned(loom_dtype dt, int64_t batch, int64_t n)
{
    loom_array *r = random_array(dt, 3, (int64_t[]){batch, n, n});
    loom_array *e = loom_mul_scalar(loom_eye(n, n, 0, dt), (double)n);
    loom_array *a = loom_add(r, e); /* dt: the scale is a weak scalar */
    loom_array *out = batch == 1 ? loom_reshape(a, 2, (int64_t[]){n, n}) : a;
    loom_eval(out);
    loom_release(r);
    loom_release(e);
    if (batch == 1)
        loom_release(a);
    return out;
}

static bool wanted(int argc, char **argv, const char *name);

static loom_array *inv(loom_array *const *in) { return loom_linalg_inv(in[0]); }
static loom_array *solve(loom_array *const *in) { return loom_linalg_solve(in[0], in[1]); }

/* u, s, vt = svd(a) (full matrices): every result evaluated */
static loom_array *svd_all(loom_array *const *in)
{
    loom_array *u, *s, *vt;
    if (loom_linalg_svd(in[0], true, &u, &s, &vt) != LOOM_OK)
        return NULL;
    loom_array *outs[3] = {u, s, vt};
    return loom_eval_many(outs, 3) == LOOM_OK ? s : NULL;
}

/* w, v = eigh(s): both evaluated */
static loom_array *eigh_all(loom_array *const *in)
{
    loom_array *w, *v;
    if (loom_linalg_eigh(in[0], &w, &v) != LOOM_OK)
        return NULL;
    loom_array *outs[2] = {w, v};
    return loom_eval_many(outs, 2) == LOOM_OK ? w : NULL;
}

static loom_array *cholesky(loom_array *const *in) { return loom_linalg_cholesky(in[0]); }
static loom_array *qr_r(loom_array *const *in)
{
    loom_array *r = NULL;
    return loom_linalg_qr(in[0], "r", NULL, &r) == LOOM_OK ? r : NULL;
}

/* Stacks of 10000 8x8 float32 matrices (no peer: Loom's batched routines against what it
 * takes without them, LOOM_LINALG_BATCHED=0, set around the second run of each): chol_batch8
 * (potrfBatched; else potrf per matrix), eigh_batch8 (syevjBatched; else XsyevBatched),
 * qr_batch8 (mode 'r': geqrfBatched; else geqrf per matrix). */
static int bench_batched(int argc, char **argv)
{
    static const char *const names[3][2] = {{"chol_batch8", "chol_batch8_looped"},
                                            {"eigh_batch8", "eigh_batch8_looped"},
                                            {"qr_batch8", "qr_batch8_looped"}};
    loom_array *(*const build[3])(loom_array *const *) = {cholesky, eigh_all, qr_r};
    int bad = 0;
    for (int i = 0; i < 3; i++) {
        if (!wanted(argc, argv, names[i][0]))
            continue;
        /* a a^T + 8 I: symmetric positive definite */
        loom_array *a = well_conditioned(LOOM_FLOAT32, 10000, 8);
        loom_scope_begin();
        loom_array *spd = loom_keep(loom_matmul(a, loom_swapaxes(a, -1, -2)));
        loom_scope_end();
        loom_eval(spd);
        for (int looped = 0; looped < 2; looped++) {
            if (looped)
                setenv("LOOM_LINALG_BATCHED", "0", 1);
            bad |= time_workload(names[i][looped], build[i], &spd, 4.0 * 10000 * 64);
            unsetenv("LOOM_LINALG_BATCHED");
        }
        loom_release(spd);
        loom_release(a);
    }
    return bad;
}

/* svd1k (1000^2 float64, full U, S, Vt), eigh1k (a + a^T, 1000^2 float64), solve4k, inv4k
 * (4096^2 float64) and inv_batch8 (10000 8x8 float32) */
static int bench_lu(int argc, char **argv)
{
    int bad = 0;
    if (wanted(argc, argv, "svd1k") || wanted(argc, argv, "eigh1k")) {
        int64_t shape[2] = {1000, 1000};
        loom_array *a = random_array(LOOM_FLOAT64, 2, shape);
        loom_array *at = loom_transpose(a, NULL);
        loom_array *sym = loom_add(a, at);
        loom_eval(sym);
        if (wanted(argc, argv, "svd1k"))
            bad |= time_workload("svd1k", svd_all, &a, 0);
        if (wanted(argc, argv, "eigh1k"))
            bad |= time_workload("eigh1k", eigh_all, &sym, 0);
        loom_release(sym);
        loom_release(at);
        loom_release(a);
    }
    if (wanted(argc, argv, "solve4k") || wanted(argc, argv, "inv4k")) {
        loom_array *in[2] = {well_conditioned(LOOM_FLOAT64, 1, 4096),
                             random_array(LOOM_FLOAT64, 1, (int64_t[]){4096})};
        if (wanted(argc, argv, "solve4k"))
            bad |= time_workload("solve4k", solve, in, 0);
        if (wanted(argc, argv, "inv4k"))
            bad |= time_workload("inv4k", inv, in, 0);
        loom_release(in[0]);
        loom_release(in[1]);
    }
    if (wanted(argc, argv, "inv_batch8")) {
        loom_array *a = well_conditioned(LOOM_FLOAT32, 10000, 8);
        bad |= time_workload("inv_batch8", inv, &a, 8.0 * 10000 * 64);
        loom_release(a);
    }
    return bad | bench_batched(argc, argv);
}

/* The FFT workloads of the peers' library script (fft16M is CuPy's, in peer_bench.py). */
static int bench_fft(int argc, char **argv)
{
    int bad = 0;
    if (wanted(argc, argv, "fft16M")) {
        loom_array *x = random_complex(1, (int64_t[]){1 << 24});
        bad |= x ? time_workload("fft16M", fft16m, &x, 16.0 * (1 << 24)) : failed("fft16M");
        loom_release(x);
    }
    const int64_t sq[2] = {4096, 4096};
    if (wanted(argc, argv, "fft_rows_scale")) {
        loom_array *x = random_complex(2, sq);
        bad |= x ? time_workload("fft_rows_scale", fft_rows_scale, &x, 16.0 * 4096 * 4096)
                 : failed("fft_rows_scale");
        /* The same with the scale in a cuFFT store callback, for the decision table (the
         * warm-ups pay the callback plan's JIT link). */
        setenv("LOOM_FFT_CALLBACKS", "1", 1);
        if (!on_cpu)
            bad |= x ? time_workload("fft_rows_scale_cb", fft_rows_scale, &x, 16.0 * 4096 * 4096)
                     : failed("fft_rows_scale_cb");
        unsetenv("LOOM_FFT_CALLBACKS");
        loom_release(x);
    }
    if (wanted(argc, argv, "rfft_power")) {
        /* np.hanning(4096) as float32, made on the host as the peers do */
        static float hann[4096];
        for (int i = 0; i < 4096; i++)
            hann[i] = (float)(0.5 - 0.5 * cos(2.0 * 3.14159265358979323846 * i / 4095.0));
        loom_array *in[2] = {random_array(LOOM_FLOAT32, 2, sq),
                             loom_asarray(hann, LOOM_FLOAT32, 1, &sq[1])};
        bad |= in[0] && in[1] && loom_eval(in[1]) == LOOM_OK
                   ? time_workload("rfft_power", rfft_power, in, 4.0 * 4096 * (4096 + 1 + 2049))
                   : failed("rfft_power");
        loom_release(in[0]);
        loom_release(in[1]);
    }
    return bad;
}

/* First NVRTC compile of a fused kernel never seen before (empty disk cache). */
static int bench_compile(void)
{
    char dir[] = "/tmp/loom_bench_cache_XXXXXX";
    if (!mkdtemp(dir))
        return failed("compile");
    setenv("LOOM_CACHE_DIR", dir, 1);
    loom_array *x = loom_zeros(1, (int64_t[]){1024}, LOOM_FLOAT32);
    loom_array *y = chain(&x);
    loom_fuse_options o = loom__fuse_options_default();
    loom_plan *p = loom__plan_build("bench", &y, 1, &o);
    int nh;
    const loom__header *h = loom__device_headers(&nh);
    double t0 = now_ms();
    const loom_kernel *src = p ? &p->steps[0].kernel : NULL;
    bool ok = src && (on_cpu ? loom__host_kernel_get("bench", src->name, src->source, NULL) != NULL
                             : loom__kernel_compile("bench", src->name, src->source, h, nh, NULL, NULL) != NULL);
    double ms = now_ms() - t0;
    if (!ok)
        return failed("compile");
    printf("%-14s %-14s median_ms=%10.4f min_ms=%10.4f eff_GBps=%8s\n", framework, "compile", ms, ms, "nan");
    /* A new process loads the same kernel from the disk cache. */
    char *argv[] = {"loom_bench", "--disk-load", dir, NULL};
    pid_t pid;
    if (!on_cpu && posix_spawn(&pid, "/proc/self/exe", NULL, NULL, argv, environ) == 0)
        waitpid(pid, NULL, 0);
    loom__plan_free(p);
    loom_release(y);
    loom_release(x);
    return 0;
}

static int disk_load_child(const char *dir)
{
    setenv("LOOM_CACHE_DIR", dir, 1);
    loom_array *x = loom_zeros(1, (int64_t[]){1024}, LOOM_FLOAT32);
    loom_array *y = chain(&x);
    loom_fuse_options o = loom__fuse_options_default();
    loom_plan *p = loom__plan_build("bench", &y, 1, &o);
    int nh, dev;
    const loom__header *h = loom__device_headers(&nh);
    loom__device_current("bench", &dev); /* device start-up is not part of the load */
    double t0 = now_ms();
    const loom__kernel *k = p ? loom__kernel_get("bench", p->steps[0].kernel.name, p->steps[0].kernel.source, h, nh, NULL) : NULL;
    double ms = now_ms() - t0;
    loom_stats st;
    loom_stats_get(&st);
    if (!k || st.disk_cache_hits != 1)
        return failed("disk_load");
    printf("%-14s %-14s median_ms=%10.4f min_ms=%10.4f eff_GBps=%8s\n", "loom", "disk_load", ms, ms, "nan");
    loom__plan_free(p);
    loom_release(y);
    loom_release(x);
    return 0;
}

static bool wanted(int argc, char **argv, const char *name)
{
    bool any = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--cupyx") == 0 || strcmp(argv[i], "--cpu") == 0)
            continue;
        any = true;
        if (strcmp(argv[i], name) == 0)
            return true;
    }
    return !any;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--disk-load") == 0)
        return disk_load_child(argv[2]);
    for (int i = 1; i < argc; i++) {
        cupyx_lines |= strcmp(argv[i], "--cupyx") == 0;
        on_cpu |= strcmp(argv[i], "--cpu") == 0;
    }
    if (on_cpu) {
        if (loom_device_set(LOOM_DEVICE_CPU) != LOOM_OK) {
            fprintf(stderr, "loom_bench: %s\n", loom_last_error());
            return 1;
        }
        reps = CPU_REPS;
        warm = 1;
        framework = "loom_cpu";
        cupyx_lines = false;
    } else if (loom_device_count() <= 0) {
        fprintf(stderr, "loom_bench: no CUDA device\n");
        return 1;
    }
    int bad = 0;
    bench_rng = loom_random_default_rng(2026);
    loom_array *x = random_input(N_BIG, 1);
    if (wanted(argc, argv, "chain"))
        bad |= time_workload("chain", chain, &x, 8.0 * N_BIG);
    if (wanted(argc, argv, "scale"))
        bad |= time_workload("scale", scale, &x, 8.0 * N_BIG);
    if (wanted(argc, argv, "mse")) {
        loom_array *ab[2] = {x, random_input(N_BIG, 1)};
        bad |= time_workload("mse", mse, ab, 8.0 * N_BIG);
        loom_release(ab[1]);
    }
    if (wanted(argc, argv, "sum_full"))
        bad |= time_workload("sum_full", sum_full, &x, 4.0 * N_BIG);
    if (wanted(argc, argv, "take64M")) {
        loom_array *idx = random_indices(N_BIG, N_BIG);
        loom_array *in[2] = {x, idx};
        bad |= time_workload("take64M", take64m, in, 16.0 * N_BIG);
        loom_release(idx);
    }
    if (wanted(argc, argv, "scatter_add")) {
        /* N / 4 float32 values at uniform int64 bins in [0, 2^16) */
        int64_t n = N_BIG / 4;
        loom_array *in[2] = {random_input(n, 1), random_indices(n, 1 << 16)};
        bad |= time_workload("scatter_add", scatter_add, in, 12.0 * (double)n);
        loom_release(in[0]);
        loom_release(in[1]);
    }
    if (wanted(argc, argv, "concat")) {
        loom_array *ab[2] = {random_input(N_BIG / 2, 1), random_input(N_BIG / 2, 1)};
        bad |= time_workload("concat", concat, ab, 8.0 * N_BIG);
        loom_release(ab[0]);
        loom_release(ab[1]);
    }
    if (wanted(argc, argv, "randn64M"))
        bad |= time_workload("randn64M", randn64m, NULL, 4.0 * N_BIG);
    if (wanted(argc, argv, "x_plus_randn"))
        bad |= time_workload("x_plus_randn", x_plus_randn, &x, 8.0 * N_BIG);
    loom_release(x);
    if (wanted(argc, argv, "softmax") || wanted(argc, argv, "layernorm")) {
        loom_array *in[3] = {random_input((int64_t)ROWS * ROWS, ROWS), random_input(ROWS, 1),
                             random_input(ROWS, 1)};
        if (wanted(argc, argv, "softmax"))
            bad |= time_workload("softmax", softmax, in, 8.0 * ROWS * ROWS);
        if (wanted(argc, argv, "layernorm"))
            bad |= time_workload("layernorm", layernorm, in, 8.0 * ROWS * ROWS);
        for (int i = 0; i < 3; i++)
            loom_release(in[i]);
    }
    if (wanted(argc, argv, "rownorm")) {
        loom_array *m = random_input(50000000, 50000);
        bad |= time_workload("rownorm", rownorm, &m, 8.0 * 50000000);
        loom_release(m);
    }
    if (wanted(argc, argv, "sum_cols")) {
        loom_array *m = random_input(N_BIG, 16384);
        bad |= time_workload("sum_cols", sum_cols, &m, 4.0 * N_BIG + 4.0 * 4096);
        loom_release(m);
    }
    if (wanted(argc, argv, "small64")) {
        loom_array *s = random_input(1000, 1);
        bad |= time_workload("small64", small64, &s, 0);
        /* The same one-kernel plan launched directly instead of replayed as a CUDA Graph. */
        setenv("LOOM_GRAPHS", "0", 1);
        bad |= on_cpu ? 0 : time_workload("small64_direct", small64, &s, 0);
        unsetenv("LOOM_GRAPHS");
        loom_release(s);
    }
    if (wanted(argc, argv, "ones2GB"))
        bad |= time_workload("ones2GB", ones2gb, NULL, 8.0 * 1000 * 500 * 500);
    if (wanted(argc, argv, "matmul32"))
        bad |= bench_matmul("matmul32", LOOM_FLOAT32, 2, (int64_t[]){ROWS, ROWS}, false, 0);
    if (wanted(argc, argv, "matmul64_10k"))
        bad |= bench_matmul("matmul64_10k", LOOM_FLOAT64, 2, (int64_t[]){10000, 10000}, false, 0);
    if (wanted(argc, argv, "matmul_relu_bias"))
        bad |= bench_matmul("matmul_relu_bias", LOOM_FLOAT32, 2, (int64_t[]){ROWS, ROWS}, true, 0);
    if (wanted(argc, argv, "bmm64")) /* reads a and b, writes the product: 3 x 4 bytes each */
        bad |= bench_matmul("bmm64", LOOM_FLOAT32, 3, (int64_t[]){4096, 64, 64}, false, 12.0 * 4096 * 64 * 64);
    if (wanted(argc, argv, "sort50M"))
        bad |= time_workload("sort50M", sort50m, NULL, 4.0 * SORT_M);
    if (wanted(argc, argv, "sort_only50M")) {
        loom_array *v = sin_linspace();
        loom_eval(v);
        bad |= time_workload("sort_only50M", sort_last, &v, 8.0 * SORT_M);
        loom_release(v);
    }
    if (wanted(argc, argv, "argsort50M")) {
        loom_array *v = random_input(SORT_M, 1);
        bad |= time_workload("argsort50M", argsort_last, &v, 12.0 * SORT_M);
        loom_release(v);
    }
    if (wanted(argc, argv, "sort_rows")) {
        loom_array *m = random_input((int64_t)8192 * 8192, 8192);
        bad |= time_workload("sort_rows", sort_last, &m, 8.0 * 8192 * 8192);
        loom_release(m);
    }
    if (wanted(argc, argv, "ewk_sum")) {
        my_kernel = loom_elementwise_kernel_create("float32 x, float32 y", "float32 z",
                                                   "if (x - 2 > y) z = x * y; else z = x + y;",
                                                   "my_kernel", NULL, NULL);
        loom_array *ab[2] = {random_input(16384 * 1024, 16384), random_input(16384 * 1024, 16384)};
        bad |= my_kernel ? time_workload("ewk_sum", ewk_sum, ab, 8.0 * 16384 * 1024 + 4.0 * 16384)
                         : failed("ewk_sum");
        loom_release(ab[0]);
        loom_release(ab[1]);
        loom_elementwise_kernel_destroy(my_kernel);
    }
    bad |= bench_lu(argc, argv);
    bad |= bench_fft(argc, argv);
    if (wanted(argc, argv, "compile"))
        bad |= bench_compile();
    loom_rng_destroy(bench_rng);
    return bad;
}
