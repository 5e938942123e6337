/* Scans on the GPU against float64 host references, on fresh random inputs with outputs
 * poisoned first: every strategy (sizes 0, 1, 31, 32, 33, 1023, 1025, 2^20 + 3 and the
 * three-kernel scan), leading / middle / trailing axes and axis=None, transposed inputs,
 * dtypes (integers and bool exact, float16 exact on small integers, complex), the nan forms,
 * fused producers and consumers, and determinism (two runs, same bits). */
#define _POSIX_C_SOURCE 200809L
#include "check.h"
#include "gpu_main.h"
#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <time.h>

static unsigned seed;

static double urand(void) { return rand_r(&seed) / (double)RAND_MAX; }

/* Fills the pool's free blocks with 0xFF so unwritten outputs show up as garbage. */
static void poison(size_t bytes)
{
    loom_scope_begin();
    CHECK_EQ_INT(loom_eval(loom_full(1, (int64_t[]){(int64_t)bytes}, 255, LOOM_UINT8)), LOOM_OK);
    loom_scope_end();
}

/* Inclusive scan of the C-ordered x (shape, axis; LOOM_AXIS_NONE: flat) into out, and the
 * running sum of |x| into mag (the scale of a sum's rounding error); prod: products. */
static void reference(const double *x, int ndim, const int64_t *shape, int axis, bool prod,
                      double *out, double *mag)
{
    int64_t outer = 1, len = 1, inner = 1;
    for (int d = 0; d < ndim; d++) {
        if (axis == LOOM_AXIS_NONE || d == axis)
            len *= shape[d];
        else if (d < axis)
            outer *= shape[d];
        else
            inner *= shape[d];
    }
    for (int64_t o = 0; o < outer; o++)
        for (int64_t i = 0; i < inner; i++) {
            double acc = prod ? 1 : 0, m = 0;
            for (int64_t l = 0; l < len; l++) {
                int64_t at = (o * len + l) * inner + i;
                acc = prod ? acc * x[at] : acc + x[at];
                m += fabs(x[at]);
                out[at] = acc;
                mag[at] = prod ? fabs(acc) : m;
            }
        }
}

/* y's values as float64, with NaN where the copy failed. */
static double *values(loom_array *y, int64_t n)
{
    double *v = malloc((size_t)(n ? n : 1) * 8);
    poison((size_t)n * 8 + 8);
    CHECK_EQ_INT(loom_get(loom_astype(y, LOOM_FLOAT64), v, (size_t)n * 8), LOOM_OK);
    return v;
}

/* Compares y with the reference of x's scan; tol scales the error allowed per element. */
static void check_scan(const char *what, loom_array *y, const double *x, int ndim,
                       const int64_t *shape, int axis, bool prod, double tol)
{
    int64_t n = 1;
    for (int d = 0; d < ndim; d++)
        n *= shape[d];
    double *ref = malloc((size_t)(n ? n : 1) * 8), *mag = malloc((size_t)(n ? n : 1) * 8);
    reference(x, ndim, shape, axis, prod, ref, mag);
    CHECK(y && loom_size(y) == n);
    double *got = values(y, n);
    int64_t bad = 0;
    double worst = 0;
    for (int64_t i = 0; i < n; i++) {
        double err = fabs(got[i] - ref[i]) / (mag[i] + 1e-300);
        if (!(fabs(got[i] - ref[i]) <= tol * mag[i]) && got[i] != ref[i])
            bad++;
        worst = err > worst ? err : worst;
    }
    printf("%s: n=%lld, worst error %.3g of the scale, %lld bad\n", what, (long long)n, worst,
           (long long)bad);
    CHECK_EQ_INT(bad, 0);
    free(got);
    free(ref);
    free(mag);
}

static double *random_doubles(int64_t n, double lo, double hi)
{
    double *x = malloc((size_t)(n ? n : 1) * 8);
    for (int64_t i = 0; i < n; i++)
        x[i] = lo + (hi - lo) * urand();
    return x;
}

/* float32 1-D cumsum of every size class: each strategy and the tails of its chunks. */
static void test_sizes(void)
{
    const int64_t sizes[] = {0, 1, 31, 32, 33, 1023, 1025, 4097, (1 << 20) + 3};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        loom_scope_begin();
        int64_t n = sizes[s];
        double *x = random_doubles(n, -1, 1);
        float *xf = malloc((size_t)(n ? n : 1) * 4);
        for (int64_t i = 0; i < n; i++)
            xf[i] = (float)x[i], x[i] = xf[i];
        loom_array *a = loom_asarray(xf, LOOM_FLOAT32, 1, &n);
        char what[64];
        snprintf(what, sizeof what, "cumsum float32 (%lld,)", (long long)n);
        check_scan(what, loom_cumsum(a, 0), x, 1, &n, 0, false, 1e-5);
        free(x);
        free(xf);
        loom_scope_end();
    }
}

/* float64 3-D: every axis and None, dense and transposed, sums and products. */
static void test_axes(void)
{
    const int64_t shapes[][3] = {{37, 45, 29}, {3, 70000, 2}, {4100, 70, 1}, {2, 5, 40000}};
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
        loom_scope_begin();
        const int64_t *shape = shapes[s];
        int64_t n = shape[0] * shape[1] * shape[2];
        double *x = random_doubles(n, 0.999, 1.001);
        loom_array *a = loom_asarray(x, LOOM_FLOAT64, 3, shape);
        for (int axis = -1; axis < 3; axis++) {
            int ax = axis < 0 ? LOOM_AXIS_NONE : axis;
            char what[96];
            snprintf(what, sizeof what, "cumsum float64 (%lld,%lld,%lld) axis %d", (long long)shape[0],
                     (long long)shape[1], (long long)shape[2], axis);
            check_scan(what, loom_cumsum(a, ax), x, 3, shape, ax, false, 1e-13);
            snprintf(what, sizeof what, "cumprod float64 (%lld,%lld,%lld) axis %d", (long long)shape[0],
                     (long long)shape[1], (long long)shape[2], axis);
            check_scan(what, loom_cumprod(a, ax), x, 3, shape, ax, true, 1e-11);
        }
        free(x);
        loom_scope_end();
    }
    /* A transposed input is read in place: compare with the scan of its host copy. */
    loom_scope_begin();
    int64_t r = 300, c = 200, n = r * c;
    double *x = random_doubles(n, -1, 1), *t = malloc((size_t)n * 8);
    for (int64_t i = 0; i < r; i++)
        for (int64_t j = 0; j < c; j++)
            t[j * r + i] = x[i * c + j];
    loom_array *a = loom_transpose(loom_asarray(x, LOOM_FLOAT64, 2, (int64_t[]){r, c}), NULL);
    for (int axis = 0; axis < 2; axis++)
        check_scan("cumsum of a transpose", loom_cumsum(a, axis), t, 2, (int64_t[]){c, r}, axis,
                   false, 1e-14);
    check_scan("cumsum of a transpose, axis None", loom_cumsum(a, LOOM_AXIS_NONE), t, 2,
               (int64_t[]){c, r}, LOOM_AXIS_NONE, false, 1e-14);
    /* Reversed rows (negative strides) of a long flat scan. */
    loom_array *f = loom_flip(loom_asarray(x, LOOM_FLOAT64, 1, &n), NULL, 0);
    double *rev = malloc((size_t)n * 8);
    for (int64_t i = 0; i < n; i++)
        rev[i] = x[n - 1 - i];
    check_scan("cumsum of a flip", loom_cumsum(f, 0), rev, 1, &n, 0, false, 1e-14);
    free(rev);
    free(x);
    free(t);
    loom_scope_end();
}

/* Integers and bool are exact (int64 accumulators, wrapping as NumPy's); float16 on small
 * integers too; complex against two real scans. */
static void test_dtypes(void)
{
    loom_scope_begin();
    int64_t n = 5000;
    int8_t *i8 = malloc((size_t)n);
    unsigned char *b = malloc((size_t)n);
    uint16_t *h = malloc((size_t)n * 2);
    double *xi = malloc((size_t)n * 8), *xb = malloc((size_t)n * 8), *xh = malloc((size_t)n * 8);
    for (int64_t i = 0; i < n; i++) {
        i8[i] = (int8_t)(rand_r(&seed) % 256 - 128);
        xi[i] = i8[i];
        b[i] = rand_r(&seed) % 2;
        xb[i] = b[i];
        int v = rand_r(&seed) % 3 - 1; /* partial sums stay within float16's exact integers */
        h[i] = v == 0 ? 0x0000 : v > 0 ? 0x3c00 : 0xbc00;
        xh[i] = v;
    }
    check_scan("cumsum int8", loom_cumsum(loom_asarray(i8, LOOM_INT8, 1, &n), 0), xi, 1, &n, 0,
               false, 0);
    check_scan("cumsum bool", loom_cumsum(loom_asarray(b, LOOM_BOOL, 1, &n), 0), xb, 1, &n, 0,
               false, 0);
    check_scan("cumsum float16", loom_cumsum(loom_asarray(h, LOOM_FLOAT16, 1, &n), 0), xh, 1, &n,
               0, false, 0);
    /* bfloat16 holds integers exactly only up to 256: one rounding of the float32 sum. */
    check_scan("cumsum bfloat16", loom_cumsum(loom_astype(loom_asarray(h, LOOM_FLOAT16, 1, &n),
                                                          LOOM_BFLOAT16), 0),
               xh, 1, &n, 0, false, 1.0 / 256);
    /* int8 accumulator (dtype=int8) wraps like NumPy's. */
    int8_t *w = malloc((size_t)n);
    CHECK_EQ_INT(loom_get(loom_cumsum_dtype(loom_asarray(i8, LOOM_INT8, 1, &n), 0, LOOM_INT8), w,
                          (size_t)n), LOOM_OK);
    int8_t acc = 0;
    int64_t bad = 0;
    for (int64_t i = 0; i < n; i++) {
        acc = (int8_t)(uint8_t)((uint8_t)acc + (uint8_t)i8[i]);
        bad += w[i] != acc;
    }
    CHECK_EQ_INT(bad, 0);
    /* complex64: the real and imaginary parts are two sums. */
    float *z = malloc((size_t)n * 8), *zout = malloc((size_t)n * 8);
    for (int64_t i = 0; i < n; i++) {
        z[2 * i] = (float)(urand() * 2 - 1);
        z[2 * i + 1] = (float)(urand() * 2 - 1);
    }
    double sr = 0, si = 0, mr = 0, mi = 0;
    CHECK_EQ_INT(loom_get(loom_cumsum(loom_asarray(z, LOOM_COMPLEX64, 1, &n), 0), zout,
                          (size_t)n * 8), LOOM_OK);
    bad = 0;
    for (int64_t i = 0; i < n; i++) {
        sr += z[2 * i], si += z[2 * i + 1];
        mr += fabs(z[2 * i]), mi += fabs(z[2 * i + 1]);
        bad += fabs(zout[2 * i] - sr) > 2e-6 * mr || fabs(zout[2 * i + 1] - si) > 2e-6 * mi;
    }
    CHECK_EQ_INT(bad, 0);
    free(i8);
    free(b);
    free(h);
    free(xi);
    free(xb);
    free(xh);
    free(w);
    free(z);
    free(zout);
    loom_scope_end();
}

/* nan forms, and scans between fused elementwise producers and consumers. */
static void test_nan_and_fusion(void)
{
    loom_scope_begin();
    int64_t n = 3000;
    double *x = random_doubles(n, -1, 1), *clean = malloc((size_t)n * 8);
    double *ones = malloc((size_t)n * 8), *e = malloc((size_t)n * 8);
    for (int64_t i = 0; i < n; i++) {
        if (i % 7 == 3)
            x[i] = NAN;
        clean[i] = isnan(x[i]) ? 0 : x[i];
        ones[i] = isnan(x[i]) ? 1 : 1 + x[i] * 1e-3;
        e[i] = exp(clean[i]);
    }
    loom_array *a = loom_asarray(x, LOOM_FLOAT64, 1, &n);
    check_scan("nancumsum", loom_nancumsum(a, 0), clean, 1, &n, 0, false, 1e-14);
    loom_array *near1 = loom_add_scalar(loom_mul_scalar(a, 1e-3), 1.0);
    check_scan("nancumprod", loom_nancumprod(near1, 0), ones, 1, &n, 0, true, 1e-12);
    /* exp(nan_to_zero(x)) scanned, then a consumer: sqrt(cumsum) vs the reference's sqrt. */
    loom_array *s = loom_cumsum(loom_exp(loom_where(loom_isnan(a), loom_scalar(0), a)), 0);
    double *ref = malloc((size_t)n * 8), *mag = malloc((size_t)n * 8);
    reference(e, 1, &n, 0, false, ref, mag);
    double *got = values(loom_sqrt(s), n);
    int64_t bad = 0;
    for (int64_t i = 0; i < n; i++)
        bad += fabs(got[i] - sqrt(ref[i])) > 1e-12 * sqrt(ref[i]);
    CHECK_EQ_INT(bad, 0);
    free(got);
    free(ref);
    free(mag);
    free(x);
    free(clean);
    free(ones);
    free(e);
    loom_scope_end();
}

/* The same input gives the same bits, run after run (the geometry comes from sizes alone). */
static void test_determinism(void)
{
    loom_scope_begin();
    int64_t n = (1 << 22) + 17;
    float *x = malloc((size_t)n * 4), *r1 = malloc((size_t)n * 4), *r2 = malloc((size_t)n * 4);
    for (int64_t i = 0; i < n; i++)
        x[i] = (float)(urand() * 2 - 1);
    loom_array *a = loom_asarray(x, LOOM_FLOAT32, 1, &n);
    poison((size_t)n * 4);
    CHECK_EQ_INT(loom_get(loom_cumsum(a, 0), r1, (size_t)n * 4), LOOM_OK);
    poison((size_t)n * 4);
    CHECK_EQ_INT(loom_get(loom_cumsum(a, 0), r2, (size_t)n * 4), LOOM_OK);
    CHECK(memcmp(r1, r2, (size_t)n * 4) == 0);
    free(x);
    free(r1);
    free(r2);
    loom_scope_end();
}

int main(void)
{
    if (!gpu_test_start("gpu_test_scan"))
        return 77;
    const char *env = getenv("LOOM_TEST_SEED");
    seed = env ? (unsigned)atoi(env) : (unsigned)time(NULL);
    printf("seed %u (set LOOM_TEST_SEED to repeat)\n", seed);
    setvbuf(stdout, NULL, _IONBF, 0);
    test_sizes();
    test_axes();
    test_dtypes();
    test_nan_and_fusion();
    test_determinism();
    return check_summary("gpu_test_scan");
}
