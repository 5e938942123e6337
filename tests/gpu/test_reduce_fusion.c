/* Reductions fused with their producers and consumers on the GPU: softmax and log-softmax over
 * rows of 8192 and 20000 columns (the latter longer than one block holds), layernorm with gamma
 * and beta, row normalisation (m - mean) / std, mse, sum(a*b) and x - mean(x), each fused and
 * with LOOM_FUSE=0 against a float64 host reference; and determinism: the same reduction
 * evaluated twice gives the same bits.
 *
 * Fused and unfused results are each held to the reference's tolerance, not to each other's
 * bits: a persistent row kernel and a separate reduction kernel may combine partial sums in a
 * different order, which changes rounding but not the error bound. The bit differences are
 * printed. Tolerances: u * (sum_error_terms(n) + 16) relative to the terms involved, for the
 * float32 unit roundoff u (reduce_host.h gives the derivation; 16 covers exp/log/rsqrt ulps). */
#define _POSIX_C_SOURCE 200809L
#include "reduce_host.h"
#include "gpu_main.h"

typedef loom_array *(*pattern_fn)(loom_array *const *in);

static loom_array *softmax(loom_array *const *in)
{
    loom_array *e = loom_exp(loom_subtract(in[0], loom_amax(in[0], (int[]){1}, 1, true)));
    return loom_divide(e, loom_sum(e, (int[]){1}, 1, true));
}

static loom_array *log_softmax(loom_array *const *in)
{
    loom_array *d = loom_subtract(in[0], loom_amax(in[0], (int[]){1}, 1, true));
    return loom_subtract(d, loom_log(loom_sum(loom_exp(d), (int[]){1}, 1, true)));
}

static loom_array *layernorm(loom_array *const *in)
{
    loom_array *mu = loom_mean(in[0], (int[]){1}, 1, true);
    loom_array *xc = loom_subtract(in[0], mu);
    loom_array *var = loom_mean(loom_square(xc), (int[]){1}, 1, true);
    return loom_add(loom_multiply(loom_divide(xc, loom_sqrt(loom_add_scalar(var, 1e-5))), in[1]), in[2]);
}

static loom_array *rownorm(loom_array *const *in)
{
    return loom_divide(loom_subtract(in[0], loom_mean(in[0], (int[]){1}, 1, true)),
                       loom_std(in[0], (int[]){1}, 1, 0, true));
}

static loom_array *mse(loom_array *const *in)
{
    return loom_div_scalar(loom_sum(loom_square(loom_subtract(in[0], in[1])), NULL, 0, false),
                           (double)loom_size(in[0]));
}

static loom_array *dot_sum(loom_array *const *in)
{
    return loom_sum(loom_multiply(in[0], in[1]), NULL, 0, false);
}

static loom_array *centre(loom_array *const *in)
{
    return loom_subtract(in[0], loom_mean(in[0], (int[]){1}, 1, true));
}

/* Evaluates f fused (LOOM_FUSE unset) or unfused into h, counting its kernels with CUDA
 * Graphs off. */
static bool evaluate(pattern_fn f, loom_array *const *in, bool fuse, hdata *h, uint64_t *kernels,
                     const char *what)
{
    if (!fuse)
        setenv("LOOM_FUSE", "0", 1);
    setenv("LOOM_GRAPHS", "0", 1);
    loom_scope_begin();
    loom_stats s0, s1;
    loom_stats_get(&s0);
    bool ok = fetch(f(in), h, what);
    loom_stats_get(&s1);
    loom_scope_end();
    unsetenv("LOOM_GRAPHS");
    unsetenv("LOOM_FUSE");
    *kernels = s1.kernels_launched - s0.kernels_launched;
    return ok;
}

/* f fused and unfused, each against ref within tol (per element). */
static void run_pattern(const char *name, pattern_fn f, loom_array *const *in, const double *ref,
                        const double *tol, int64_t n)
{
    hdata r[2];
    uint64_t kernels[2] = {0, 0};
    for (int fuse = 1; fuse >= 0; fuse--) {
        char what[96];
        snprintf(what, sizeof what, "%s (%s)", name, fuse ? "fused" : "LOOM_FUSE=0");
        if (!evaluate(f, in, fuse, &r[fuse], &kernels[fuse], what)) {
            if (fuse == 0)
                hdata_free(&r[1]);
            return;
        }
        int64_t bad = 0, first = -1;
        double worst = 0;
        for (int64_t i = 0; i < n && i < r[fuse].n; i++) {
            double err = fabs(r[fuse].re[i] - ref[i]) / tol[i];
            worst = err > worst || isnan(err) ? err : worst;
            if (!close_to(r[fuse].re[i], ref[i], tol[i]) && bad++ == 0)
                first = i;
        }
        check_count++;
        if (bad || r[fuse].n != n) {
            check_failures++;
            fprintf(stderr, "FAIL %s: %lld of %lld elements off", what, (long long)bad, (long long)n);
            if (first >= 0)
                fprintf(stderr, "; first [%lld] got %.9g expected %.9g tol %.3g", (long long)first,
                        r[fuse].re[first], ref[first], tol[first]);
            fprintf(stderr, "\n");
        }
        printf("%-34s %-11s %3llu kernels, worst error %.3f of the tolerance\n", name,
               fuse ? "fused" : "LOOM_FUSE=0", (unsigned long long)kernels[fuse], worst);
    }
    printf("%-34s fused and unfused differ in %lld of %lld elements' bits\n", name,
           (long long)count_bit_differences(&r[0], &r[1]), (long long)n);
    /* fusion must save kernels on every one of these patterns */
    CHECK(kernels[1] < kernels[0]);
    hdata_free(&r[0]);
    hdata_free(&r[1]);
}

/* Per-row mean, standard deviation (ddof 0), max and mean |x| of a C-ordered (rows, cols). */
typedef struct rowstat {
    double mean, sd, max, mabs;
} rowstat;

static rowstat *row_stats(const hdata *x, int64_t rows, int64_t cols)
{
    rowstat *s = calloc((size_t)rows, sizeof *s);
    for (int64_t r = 0; r < rows; r++) {
        const double *v = x->re + r * cols;
        ksum sum = {0, 0}, m2 = {0, 0};
        double mx = -INFINITY, a = 0;
        for (int64_t c = 0; c < cols; c++)
            ksum_add(&sum, v[c]), mx = fmax(mx, v[c]), a += fabs(v[c]);
        double mean = ksum_value(&sum) / (double)cols;
        for (int64_t c = 0; c < cols; c++)
            ksum_add(&m2, (v[c] - mean) * (v[c] - mean));
        s[r] = (rowstat){mean, sqrt(ksum_value(&m2) / (double)cols), mx, a / (double)cols};
    }
    return s;
}

static void test_softmax(int64_t rows, int64_t cols)
{
    loom_scope_begin();
    loom_array *x = loom_mul_scalar(make_input(LOOM_FLOAT32, 2, (int64_t[]){rows, cols}, IN_SIGNED), 4.0);
    hdata hx = {0};
    if (loom_eval(x) != LOOM_OK || !fetch(x, &hx, "softmax input")) {
        loom_scope_end();
        return;
    }
    int64_t n = rows * cols;
    double *ref = malloc((size_t)n * 8), *tol = malloc((size_t)n * 8);
    double *lref = malloc((size_t)n * 8), *ltol = malloc((size_t)n * 8);
    double u = 0x1p-24, G = sum_error_terms(cols) + 16;
    rowstat *st = row_stats(&hx, rows, cols);
    for (int64_t r = 0; r < rows; r++) {
        ksum s = {0, 0};
        for (int64_t c = 0; c < cols; c++)
            ksum_add(&s, exp(hx.re[r * cols + c] - st[r].max));
        double ls = log(ksum_value(&s));
        for (int64_t c = 0; c < cols; c++) {
            int64_t i = r * cols + c;
            double d = hx.re[i] - st[r].max;
            ref[i] = exp(d) / ksum_value(&s);
            tol[i] = u * (G + 4 * fabs(d)) * ref[i];
            lref[i] = d - ls;
            ltol[i] = u * (G + 4 * (fabs(d) + fabs(ls)));
        }
    }
    char name[64];
    snprintf(name, sizeof name, "softmax (%lld,%lld)", (long long)rows, (long long)cols);
    run_pattern(name, softmax, &x, ref, tol, n);
    snprintf(name, sizeof name, "log_softmax (%lld,%lld)", (long long)rows, (long long)cols);
    run_pattern(name, log_softmax, &x, lref, ltol, n);
    free(ref), free(tol), free(lref), free(ltol), free(st);
    hdata_free(&hx);
    loom_scope_end();
}

/* Layernorm (gamma, beta), row normalisation and x - mean(x) over rows. */
static void test_row_normalisations(int64_t rows, int64_t cols)
{
    loom_scope_begin();
    loom_array *in[3] = {make_input(LOOM_FLOAT32, 2, (int64_t[]){rows, cols}, IN_POSITIVE),
                         make_input(LOOM_FLOAT32, 1, &cols, IN_SIGNED),
                         make_input(LOOM_FLOAT32, 1, &cols, IN_SIGNED)};
    hdata hx = {0}, hg = {0}, hb = {0};
    if (!fetch(in[0], &hx, "input") || !fetch(in[1], &hg, "gamma") || !fetch(in[2], &hb, "beta")) {
        loom_scope_end();
        return;
    }
    int64_t n = rows * cols;
    double *ln = malloc((size_t)n * 8), *lt = malloc((size_t)n * 8), *rn = malloc((size_t)n * 8);
    double *rt = malloc((size_t)n * 8), *ce = malloc((size_t)n * 8), *ct = malloc((size_t)n * 8);
    double u = 0x1p-24, G = sum_error_terms(cols) + 16;
    rowstat *st = row_stats(&hx, rows, cols);
    for (int64_t r = 0; r < rows; r++) {
        /* the mean's error relative to the spread it is divided by */
        double rel_mu = st[r].mabs / st[r].sd;
        for (int64_t c = 0; c < cols; c++) {
            int64_t i = r * cols + c;
            double z = (hx.re[i] - st[r].mean) / st[r].sd;
            double zl = (hx.re[i] - st[r].mean) / sqrt(st[r].sd * st[r].sd + 1e-5);
            ln[i] = zl * hg.re[c] + hb.re[c];
            lt[i] = u * G * (fabs(zl * hg.re[c]) + fabs(hb.re[c]) + fabs(hg.re[c]) * (1 + rel_mu));
            rn[i] = z;
            rt[i] = u * G * (fabs(z) + 1 + rel_mu);
            ce[i] = hx.re[i] - st[r].mean;
            ct[i] = u * G * (fabs(ce[i]) + st[r].mabs);
        }
    }
    char name[64];
    snprintf(name, sizeof name, "layernorm (%lld,%lld)", (long long)rows, (long long)cols);
    run_pattern(name, layernorm, in, ln, lt, n);
    snprintf(name, sizeof name, "rownorm (%lld,%lld)", (long long)rows, (long long)cols);
    run_pattern(name, rownorm, in, rn, rt, n);
    snprintf(name, sizeof name, "x - mean(x,1) (%lld,%lld)", (long long)rows, (long long)cols);
    run_pattern(name, centre, in, ce, ct, n);
    free(ln), free(lt), free(rn), free(rt), free(ce), free(ct), free(st);
    hdata_free(&hx), hdata_free(&hg), hdata_free(&hb);
    loom_scope_end();
}

/* mse = sum((a-b)**2)/n and sum(a*b): elementwise producers inside a full reduction. */
static void test_full_patterns(int64_t n)
{
    loom_scope_begin();
    loom_array *in[2] = {make_input(LOOM_FLOAT32, 1, &n, IN_SIGNED),
                         make_input(LOOM_FLOAT32, 1, &n, IN_SIGNED)};
    hdata ha = {0}, hb = {0};
    if (!fetch(in[0], &ha, "a") || !fetch(in[1], &hb, "b")) {
        loom_scope_end();
        return;
    }
    ksum sq = {0, 0}, dot = {0, 0};
    double adot = 0;
    for (int64_t i = 0; i < n; i++) {
        double d = (double)(float)(ha.re[i] - hb.re[i]); /* a - b is rounded to float32 first */
        ksum_add(&sq, d * d);
        ksum_add(&dot, ha.re[i] * hb.re[i]);
        adot += fabs(ha.re[i] * hb.re[i]);
    }
    double u = 0x1p-24, G = sum_error_terms(n);
    double m = ksum_value(&sq) / (double)n, mt = u * (G + 4) * m;
    double d = ksum_value(&dot), dt = u * (G + 4) * adot;
    run_pattern("mse (2^20+3)", mse, in, &m, &mt, 1);
    run_pattern("sum(a*b) (2^20+3)", dot_sum, in, &d, &dt, 1);
    hdata_free(&ha), hdata_free(&hb);
    loom_scope_end();
}

/* Same input, same reduction, twice: the same bits (no float atomics, fixed combine order). */
static void check_deterministic(const char *name, loom_array *x, const int *axes, int naxes)
{
    hdata r[2];
    for (int k = 0; k < 2; k++) {
        loom_scope_begin();
        bool ok = fetch(loom_sum(x, axes, naxes, false), &r[k], name);
        loom_scope_end();
        if (!ok) {
            if (k)
                hdata_free(&r[0]);
            return;
        }
    }
    check_count++;
    if (r[0].n != r[1].n || count_bit_differences(&r[0], &r[1]) != 0) {
        check_failures++;
        fprintf(stderr, "FAIL %s: two evaluations differ in %lld of %lld elements\n", name,
                (long long)count_bit_differences(&r[0], &r[1]), (long long)r[0].n);
    }
    hdata_free(&r[0]);
    hdata_free(&r[1]);
}

static void test_determinism(void)
{
    loom_scope_begin();
    int64_t n = (1 << 20) + 3;
    check_deterministic("full sum of 2^20+3 float32", make_input(LOOM_FLOAT32, 1, &n, IN_SIGNED), NULL, 0);
    loom_array *m = make_input(LOOM_FLOAT32, 2, (int64_t[]){1024, 1025}, IN_SIGNED);
    check_deterministic("row sums of (1024,1025) float32", m, (int[]){1}, 1);
    check_deterministic("column sums of (1024,1025) float32", m, (int[]){0}, 1);
    check_deterministic("column sums of (3,2^20+3) float32",
                        make_input(LOOM_FLOAT32, 2, (int64_t[]){3, n}, IN_SIGNED), (int[]){0}, 1);
    loom_scope_end();
}

/* A requested keepdims argmax, its floor division and the variance of it evaluated together
 * (a random program's): the variance read the argmax's reduction temporary after the arena
 * had given its bytes to the mean. var of one value is 0. */
static void test_argmax_read_late(void)
{
    loom_scope_begin();
    const int8_t xs[15] = {4, 4, 7, 65, 1, -124, 57, -3, -12, -3, 27, -1, -6, 12, -5};
    loom_array *x = loom_asarray(xs, LOOM_INT8, 3, (int64_t[]){5, 3, 1});
    loom_array *am = loom_argmax(x, LOOM_AXIS_NONE, true);
    loom_array *q = loom_floor_divide(am, loom_asarray((uint16_t[]){4}, LOOM_UINT16, 1, (int64_t[]){1}));
    loom_array *all[4] = {am, q, loom_signbit(q), loom_var(am, (int[]){0}, 1, 0, false)};
    CHECK_EQ_INT(loom_eval_many(all, 4), LOOM_OK);
    int64_t i = -1, j = -1;
    double v = -1;
    CHECK_EQ_INT(loom_get(am, &i, sizeof i), LOOM_OK);
    CHECK_EQ_INT(loom_get(q, &j, sizeof j), LOOM_OK);
    CHECK_EQ_INT(loom_get(all[3], &v, sizeof v), LOOM_OK);
    CHECK_EQ_INT(i, 3);
    CHECK_EQ_INT(j, 0);
    CHECK(v == 0.0);
    loom_scope_end();
}

int main(void)
{
    if (!gpu_test_start("gpu_test_reduce_fusion"))
        return 77;
    setvbuf(stdout, NULL, _IONBF, 0);
    rng_seed_from_env();
    test_softmax(64, 8192);
    test_softmax(16, 20000);
    test_row_normalisations(64, 8192);
    test_row_normalisations(5000, 1000);
    test_full_patterns((1 << 20) + 3);
    test_determinism();
    test_argmax_read_late();
    CHECK_EQ_INT(loom_mempool_free_all_blocks(), LOOM_OK);
    return check_summary("gpu_test_reduce_fusion");
}
