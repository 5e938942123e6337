/* Loom's demo: the chain workload of docs/PERF.md on 2^26 float32 values, fused into one kernel
 * and then with fusion off (LOOM_FUSE=0: one kernel per op), with the time and the launches of
 * each, a checksum of the result, and the fused plan drawn as chain.dot (and chain.svg). Then
 * the seed exercise: 50 million random float64 values made on the device, sorted, as a
 * 50000x1000 matrix whose rows are normalised, (m - mean(m,1)) / std(m,1), fused and unfused,
 * each checked on the host: every row is increasing with mean ~0 and std ~1, and the two
 * results agree within allclose's tolerances. Last the seeds' SVD:
 * a 1000x1000 float64 matrix times 2, u, s, vh = svd(x), with its time and the reconstruction
 * error max|u diag(s) vh - x| / max|x|.
 * With --cpu: the seed exercise on the host device and on the GPU (where there is one), times
 * side by side and the results compared.
 *     cmake -B build && cmake --build build -j && ./build/demo [--cpu]
 */
#define _POSIX_C_SOURCE 200809L
#include <loom.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#define N ((int64_t)1 << 26)
#define RUNS 7
#define ROWS 50000
#define COLS 1000

/* sin(x)*2 + cos(x)**2 - exp(-x)/(1 + x*x): ten ops, and nothing runs yet. */
static loom_array *chain(loom_array *x)
{
    loom_array *a = loom_mul_scalar(loom_sin(x), 2.0);
    loom_array *b = loom_power(loom_cos(x), loom_scalar(2.0));
    loom_array *c = loom_divide(loom_exp(loom_negative(x)), loom_add_scalar(loom_multiply(x, x), 1.0));
    return loom_subtract(loom_add(a, b), c);
}

/* (m - mean(m, 1, keepdims)) / std(m, 1, keepdims): two row reductions and their consumers. */
static loom_array *rownorm(loom_array *m)
{
    int axis = 1;
    return loom_divide(loom_subtract(m, loom_mean(m, &axis, 1, true)), loom_std(m, &axis, 1, 0, true));
}

typedef loom_array *(*workload)(loom_array *);

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

typedef struct result {
    double ms;                /* median of RUNS: build + evaluate + synchronise */
    double kernels, graphs;   /* launches per evaluation (loom_stats) */
    uint64_t plan_kernels;    /* kernels in the plan, counted with CUDA Graphs off */
    void *y;                  /* the result on the host */
} result;

/* Runs f(x) with LOOM_FUSE=fuse: one warm-up (it compiles), runs timed, one copied out. */
static int measure_runs(const char *fuse, workload f, loom_array *x, result *r, int runs)
{
    setenv("LOOM_FUSE", fuse, 1);
    double t[RUNS];
    loom_stats s0, s1;
    for (int i = -1; i < runs; i++) {
        if (i == 0)
            loom_stats_get(&s0);
        double t0 = now_ms();
        loom_scope_begin();
        int rc = loom_eval(f(x));
        loom_scope_end();
        if (rc == LOOM_OK)
            rc = loom_stream_synchronize(NULL);
        if (rc != LOOM_OK)
            return rc;
        if (i >= 0)
            t[i] = now_ms() - t0;
    }
    loom_stats_get(&s1);
    qsort(t, (size_t)runs, sizeof *t, by_value);
    r->ms = t[runs / 2];
    r->kernels = (double)(s1.kernels_launched - s0.kernels_launched) / runs;
    r->graphs = (double)(s1.graph_launches - s0.graph_launches) / runs;

    /* Once more without CUDA Graphs, so that every kernel counts, and copy the result out. */
    setenv("LOOM_GRAPHS", "0", 1);
    loom_stats_get(&s0);
    loom_scope_begin();
    loom_array *y = f(x);
    size_t bytes = y ? (size_t)loom_size(y) * loom_dtype_size(loom_dtype_of(y)) : 0;
    int rc = loom_get(y, r->y, bytes);
    loom_scope_end();
    loom_stats_get(&s1);
    unsetenv("LOOM_GRAPHS");
    unsetenv("LOOM_FUSE");
    r->plan_kernels = s1.kernels_launched - s0.kernels_launched;
    return rc;
}

static int measure(const char *fuse, workload f, loom_array *x, result *r)
{
    return measure_runs(fuse, f, x, r, RUNS);
}

static void print_table(const result *fused, const result *unfused)
{
    printf("              time (median of %d)  kernels in the plan  launches per evaluation\n",
           RUNS);
    printf("fused         %8.3f ms %20llu  %5.1f kernels + %.1f CUDA Graphs\n", fused->ms,
           (unsigned long long)fused->plan_kernels, fused->kernels, fused->graphs);
    printf("LOOM_FUSE=0   %8.3f ms %20llu  %5.1f kernels + %.1f CUDA Graphs\n", unfused->ms,
           (unsigned long long)unfused->plan_kernels, unfused->kernels, unfused->graphs);
}

/* The largest |mean| and |std - 1| over the rows of a normalised ROWS x COLS matrix, and
 * whether every row is increasing (the sort's order survives the normalisation). */
static void row_moments(const double *z, double *worst_mean, double *worst_std, bool *increasing)
{
    *worst_mean = *worst_std = 0;
    *increasing = true;
    for (int64_t r = 0; r < ROWS; r++) {
        const double *row = z + r * COLS;
        for (int64_t c = 1; c < COLS; c++)
            *increasing &= row[c - 1] <= row[c];
        double sum = 0, sq = 0;
        for (int64_t c = 0; c < COLS; c++)
            sum += row[c];
        double mean = sum / COLS;
        for (int64_t c = 0; c < COLS; c++)
            sq += (row[c] - mean) * (row[c] - mean);
        double dm = fabs(mean), ds = fabs(sqrt(sq / COLS) - 1);
        /* written so that a NaN counts as the worst */
        *worst_mean = dm > *worst_mean || dm != dm ? dm : *worst_mean;
        *worst_std = ds > *worst_std || ds != ds ? ds : *worst_std;
    }
}

/* The seed exercise's workload: x sorted, as a ROWS x COLS matrix with its rows normalised. */
static loom_array *sort_rownorm(loom_array *x)
{
    return rownorm(loom_reshape(loom_sort(x, 0), 2, (int64_t[]){ROWS, COLS}));
}

/* np.allclose(a, b) on the host: |a - b| <= atol + rtol * |b| everywhere (NaN fails). */
static bool host_allclose(const double *a, const double *b, int64_t n, double rtol, double atol)
{
    for (int64_t i = 0; i < n; i++)
        if (!(fabs(a[i] - b[i]) <= atol + rtol * fabs(b[i])))
            return false;
    return true;
}

/* Whether every row of the normalised z is increasing with mean ~0 and std ~1, printed after
 * label. A row of 1000 sorted values spans ~2e-5: float64 keeps z good to ~1e-10. */
static bool rows_ok(const char *label, const double *z)
{
    const double tol = 1e-6;
    double wm, ws;
    bool up;
    row_moments(z, &wm, &ws, &up);
    bool ok = wm <= tol && ws <= tol && up;
    printf("%s every row of z: %s, |mean| <= %.2e, |std - 1| <= %.2e: %s\n", label,
           up ? "increasing" : "NOT increasing", wm, ws, ok ? "ok" : "WRONG");
    return ok;
}

/* The seed exercise's input, made on the current device: ROWS * COLS random float64 values of
 * seed 2026 (the same numbers on every device). */
static loom_array *seed_values(loom_rng **rng)
{
    *rng = loom_random_default_rng(2026);
    return loom_rng_random(*rng, 1, (int64_t[]){(int64_t)ROWS * COLS}, LOOM_FLOAT64);
}

/* The seed exercise; returns 0 when both results have every row increasing at mean ~0, std ~1,
 * and agree with each other. */
static int seed_exercise(void)
{
    /* x is made on the device and kept, so each run reads it once and writes the result. */
    loom_rng *rng;
    loom_array *x = seed_values(&rng);
    result fused = {.y = malloc((size_t)ROWS * COLS * sizeof(double))};
    result unfused = {.y = malloc((size_t)ROWS * COLS * sizeof(double))};
    int rc = !fused.y || !unfused.y ? LOOM_ERR_OOM : loom_eval(x);
    if (rc == LOOM_OK)
        rc = measure("1", sort_rownorm, x, &fused);
    if (rc == LOOM_OK)
        rc = measure("0", sort_rownorm, x, &unfused);
    int bad = 0;
    if (rc != LOOM_OK) {
        fprintf(stderr, "demo: %s\n", loom_last_error() ? loom_last_error() : "out of host memory");
        bad = 1;
    } else {
        printf("\nx = %d random float64 values in [0, 1), sorted, as a %dx%d matrix m whose rows\n"
               "are normalised: z = (m - mean(m, 1, keepdims)) / std(m, 1, keepdims)\n\n",
               ROWS * COLS, ROWS, COLS);
        print_table(&fused, &unfused);
        printf("\nfusion is %.1fx faster.\n", unfused.ms / fused.ms);
        bad |= !rows_ok("fused      ", fused.y);
        bad |= !rows_ok("LOOM_FUSE=0", unfused.y);
        bool close = host_allclose(fused.y, unfused.y, (int64_t)ROWS * COLS, 1e-9, 1e-9);
        printf("fused and LOOM_FUSE=0 results allclose (rtol 1e-9, atol 1e-9): %s\n",
               close ? "ok" : "WRONG");
        bad |= !close;
    }
    free(fused.y);
    free(unfused.y);
    loom_release(x);
    loom_rng_destroy(rng);
    return bad;
}

#define CPU_RUNS 1

/* demo --cpu: the seed exercise on the host device and, where there is one, on GPU 0, from the
 * same random values (Loom's generator gives both devices the same numbers); times side by
 * side, each result checked, and the two compared. Returns 0 when all is well. */
static int cpu_exercise(void)
{
    static const char *names[2] = {"host device (CPU)", "GPU 0"};
    static const int devices[2] = {LOOM_DEVICE_CPU, 0};
    static const int runs[2] = {CPU_RUNS, RUNS};
    const int ndev = loom_device_count() > 0 ? 2 : 1;
    result r[2] = {{0}};
    int rc = LOOM_OK, bad = 0;
    for (int d = 0; d < ndev && rc == LOOM_OK; d++) {
        rc = loom_device_set(devices[d]);
        if (rc == LOOM_OK && !(r[d].y = malloc((size_t)ROWS * COLS * sizeof(double))))
            rc = LOOM_ERR_OOM;
        if (rc != LOOM_OK)
            break;
        loom_rng *rng;
        loom_array *x = seed_values(&rng);
        rc = loom_eval(x);
        if (rc == LOOM_OK)
            rc = measure_runs("1", sort_rownorm, x, &r[d], runs[d]);
        loom_release(x);
        loom_rng_destroy(rng);
    }
    if (rc != LOOM_OK) {
        fprintf(stderr, "demo --cpu: %s\n", loom_last_error() ? loom_last_error() : "out of host memory");
        bad = 1;
    } else {
        printf("x = %d random float64 values in [0, 1), sorted, as a %dx%d matrix m whose rows\n"
               "are normalised: z = (m - mean(m, 1, keepdims)) / std(m, 1, keepdims), fused\n\n",
               ROWS * COLS, ROWS, COLS);
        for (int d = 0; d < ndev; d++) {
            printf("%-18s %9.1f ms (median of %d)\n", names[d], r[d].ms, runs[d]);
            bad |= !rows_ok(names[d], r[d].y);
        }
        if (ndev == 2) {
            const int64_t n = (int64_t)ROWS * COLS;
            const double *h = r[0].y, *g = r[1].y;
            double worst = 0;
            for (int64_t i = 0; i < n; i++)
                worst = fabs(h[i] - g[i]) > worst ? fabs(h[i] - g[i]) : worst;
            bool same = memcmp(h, g, (size_t)n * sizeof(double)) == 0;
            bool close = host_allclose(h, g, n, 1e-9, 1e-9);
            printf("\nthe GPU is %.1fx faster. host and GPU results: %s (largest difference %.1e)\n",
                   r[0].ms / r[1].ms, same ? "the same bits" : close ? "allclose" : "DIFFER", worst);
            bad |= !close;
        } else {
            printf("\nno CUDA device: the host device alone.\n");
        }
    }
    free(r[0].y);
    free(r[1].y);
    return bad;
}

#define SVD_N 1000
#define SVD_RUNS 5

/* The seeds' SVD; returns 0 when the reconstruction error is at float64's level. */
static int svd_exercise(void)
{
    loom_rng *rng = loom_random_default_rng(7);
    loom_array *a = loom_rng_standard_normal(rng, 2, (int64_t[]){SVD_N, SVD_N}, LOOM_FLOAT64);
    int rc = loom_eval(a);
    double t[SVD_RUNS], err = -1;
    for (int r = 0; rc == LOOM_OK && r <= SVD_RUNS; r++) { /* run 0 warms up (plans, handles) */
        loom_scope_begin();
        double t0 = now_ms();
        loom_array *x = loom_mul_scalar(a, 2.0), *u, *s, *vh;
        rc = loom_linalg_svd(x, true, &u, &s, &vh);
        if (rc == LOOM_OK) {
            loom_array *outs[3] = {u, s, vh};
            rc = loom_eval_many(outs, 3);
        }
        if (rc == LOOM_OK)
            rc = loom_stream_synchronize(NULL);
        if (r > 0)
            t[r - 1] = now_ms() - t0;
        if (rc == LOOM_OK && r == SVD_RUNS) {
            loom_array *us = loom_multiply(u, loom_expand_dims(s, 0));
            loom_array *diff = loom_abs(loom_subtract(loom_matmul(us, vh), x));
            double num = 0, den = 1;
            rc = loom_item(loom_amax(diff, NULL, 0, false), &num);
            if (rc == LOOM_OK)
                rc = loom_item(loom_amax(loom_abs(x), NULL, 0, false), &den);
            err = num / den;
        }
        loom_scope_end();
    }
    loom_release(a);
    loom_rng_destroy(rng);
    if (rc != LOOM_OK) {
        fprintf(stderr, "demo: svd: %s\n", loom_last_error());
        return 1;
    }
    qsort(t, SVD_RUNS, sizeof *t, by_value);
    bool ok = err >= 0 && err <= 1e-12;
    printf("\nx = 2 * a, a %dx%d float64 normal values; u, s, vh = svd(x) (full matrices):\n"
           "%.1f ms (median of %d; building, evaluating and waiting), reconstruction error\n"
           "max|u diag(s) vh - x| / max|x| = %.2e: %s\n", SVD_N, SVD_N, t[SVD_RUNS / 2], SVD_RUNS,
           err, ok ? "ok" : "WRONG");
    return !ok;
}

static double checksum(const float *y)
{
    double sum = 0;
    for (int64_t i = 0; i < N; i++)
        sum += y[i];
    return sum;
}

/* The fused plan for the chain, as Graphviz DOT and, where Graphviz is installed, as SVG. */
static void draw(loom_array *x)
{
    loom_scope_begin();
    loom_array *y = chain(x);
    if (loom_dump_dot_file("chain.dot", &y, 1) != LOOM_OK) {
        printf("could not write chain.dot: %s\n", loom_last_error());
    } else if (system("command -v dot > /dev/null 2>&1") != 0) {
        printf("wrote chain.dot (install Graphviz for chain.svg)\n");
    } else {
        int status = system("dot -Tsvg chain.dot -o chain.svg");
        if (status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0)
            printf("wrote chain.dot and chain.svg (the fused plan)\n");
        else
            printf("wrote chain.dot; 'dot -Tsvg chain.dot -o chain.svg' failed\n");
    }
    loom_scope_end();
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--cpu") == 0)
        return cpu_exercise();
    if (argc > 1) {
        fprintf(stderr, "usage: demo [--cpu]\n");
        return 2;
    }
    if (loom_device_count() <= 0) {
        fprintf(stderr, "demo: no CUDA device found. Loom runs arrays on an NVIDIA GPU; on this "
                        "machine 'demo --cpu' runs the seed exercise on the host device.\n");
        return 1;
    }
    /* x is generated on the device and kept in memory, so each run reads 4N bytes and
     * writes 4N, as docs/PERF.md counts them. */
    loom_array *x = loom_linspace(-3, 3, N, true, LOOM_FLOAT32);
    result fused = {.y = malloc((size_t)N * sizeof(float))};
    result unfused = {.y = malloc((size_t)N * sizeof(float))};
    int rc = !fused.y || !unfused.y ? LOOM_ERR_OOM : loom_eval(x);
    if (rc == LOOM_OK)
        rc = measure("1", chain, x, &fused);
    if (rc == LOOM_OK)
        rc = measure("0", chain, x, &unfused);
    if (rc != LOOM_OK) {
        fprintf(stderr, "demo: %s\n", loom_last_error() ? loom_last_error() : "out of host memory");
        free(fused.y);
        free(unfused.y);
        loom_release(x);
        return 1;
    }

    printf("y = sin(x)*2 + cos(x)**2 - exp(-x)/(1 + x*x) for x = linspace(-3, 3) "
           "(%lld float32 values)\n\n", (long long)N);
    print_table(&fused, &unfused);
    printf("\nfusion is %.1fx faster. Times cover building the graph, evaluating it and waiting\n"
           "for the GPU. A plan of several kernels is replayed as one CUDA Graph: loom_stats\n"
           "counts that as one graph launch (graph_launches), not as kernels_launched.\n\n",
           unfused.ms / fused.ms);
    bool same = memcmp(fused.y, unfused.y, (size_t)N * sizeof(float)) == 0;
    printf("checksum sum(y) = %.6e fused, %.6e unfused: %s\n", checksum(fused.y),
           checksum(unfused.y), same ? "the same bits" : "the results DIFFER");
    draw(x);
    free(fused.y);
    free(unfused.y);
    loom_release(x);
    int bad = seed_exercise();
    bad |= svd_exercise();
    return same && !bad ? 0 : 1;
}
