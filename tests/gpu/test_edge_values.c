/* Values at the edges where Loom once differed from NumPy 2 (issue 10), on the GPU, fused and
 * with LOOM_FUSE=0: sums over no axes give +0.0 for -0.0 (NumPy adds to the identity), a
 * skipped NaN ties with -inf/+inf in nanargmax/nanargmin so the first index wins, and
 * float32/float64 powers with a scalar exponent of 0.5, -1, 1, 2 are NumPy's direct forms.
 * The complex Annex G cases are rows of tests/gpu/device_cases.inc. Skips (77) without a
 * device. */
#define _POSIX_C_SOURCE 200809L
#include "reduce_host.h"
#include "gpu_main.h"

#include <stdlib.h>

/* a float64 host array of n values cast to dt (exact for the values used here) */
static loom_array *values(loom_dtype dt, int ndim, const int64_t *shape, const double *v)
{
    loom_array *a = loom_asarray(v, LOOM_FLOAT64, ndim, shape);
    return loom_astype(a, dt);
}

/* r's one element: a real that must equal want bit for bit after widening (zero signs
 * included; any NaN matches any NaN). */
static void check_real(const char *what, loom_array *r, double want)
{
    hdata h = {0};
    if (!fetch(r, &h, what))
        return;
    bool ok = h.n == 1 && (isnan(want) ? isnan(h.re[0])
                                       : h.re[0] == want && signbit(h.re[0]) == signbit(want));
    CHECK(ok);
    if (!ok)
        fprintf(stderr, "  %s: got %g (%s), want %g\n", what, h.n ? h.re[0] : NAN,
                h.n && signbit(h.re[0]) ? "sign set" : "sign clear", want);
    hdata_free(&h);
}

static void check_int(const char *what, loom_array *r, int64_t want)
{
    hdata h = {0};
    if (!fetch(r, &h, what))
        return;
    CHECK(h.n == 1 && h.iv[0] == want);
    if (!(h.n == 1 && h.iv[0] == want))
        fprintf(stderr, "  %s: got %lld, want %lld\n", what, h.n ? (long long)h.iv[0] : -1LL,
                (long long)want);
    hdata_free(&h);
}

static void test_sums_of_nothing(void)
{
    static const loom_dtype dts[] = {LOOM_FLOAT16, LOOM_BFLOAT16, LOOM_FLOAT32, LOOM_FLOAT64,
                                     LOOM_COMPLEX64, LOOM_COMPLEX128};
    const double mz = -0.0;
    for (size_t k = 0; k < sizeof dts / sizeof *dts; k++) {
        loom_dtype dt = dts[k];
        char what[96];
        loom_scope_begin();
        loom_array *z0 = values(dt, 0, NULL, &mz), *z1 = values(dt, 1, (int64_t[]){1}, &mz);
        loom_array *re[] = {
            loom_sum(z0, NULL, 0, false),  loom_sum(z1, (int[]){0}, 0, false),
            loom_mean(z0, NULL, 0, false), loom_mean(z1, (int[]){0}, 0, false),
            loom_nansum(z0, NULL, 0, false), loom_nanmean(z1, (int[]){0}, 0, false),
            loom_average(z0, NULL, 0, NULL, false),
            loom_sum(z1, NULL, 0, false), /* a real reduction over one element */
        };
        for (size_t i = 0; i < sizeof re / sizeof *re; i++) {
            snprintf(what, sizeof what, "%s sum-like %zu of -0.0", loom_dtype_name(dt), i);
            loom_array *part = loom__is_complex(dt) ? loom_real(re[i]) : re[i];
            check_real(what, part, 0.0);
            if (loom__is_complex(dt))
                check_real(what, loom_imag(re[i]), 0.0);
        }
        /* a product keeps it: 1 * -0.0 */
        snprintf(what, sizeof what, "%s prod over () of -0.0", loom_dtype_name(dt));
        loom_array *p = loom_prod(z1, (int[]){0}, 0, false);
        check_real(what, loom__is_complex(dt) ? loom_real(p) : p, -0.0);
        loom_scope_end();
    }
}

static void test_nanarg_ties(void)
{
    static const loom_dtype dts[] = {LOOM_FLOAT16, LOOM_BFLOAT16, LOOM_FLOAT32, LOOM_FLOAT64};
    for (size_t k = 0; k < sizeof dts / sizeof *dts; k++) {
        loom_dtype dt = dts[k];
        char what[96];
        loom_scope_begin();
        /* NumPy: nanargmax([nan, -inf]) == 0, nanargmin([nan, inf]) == 0 */
        snprintf(what, sizeof what, "%s nanargmax([nan, -inf])", loom_dtype_name(dt));
        check_int(what, loom_nanargmax(values(dt, 1, (int64_t[]){2}, (double[]){NAN, -INFINITY}),
                                       LOOM_AXIS_NONE, false), 0);
        snprintf(what, sizeof what, "%s nanargmin([nan, inf])", loom_dtype_name(dt));
        check_int(what, loom_nanargmin(values(dt, 1, (int64_t[]){2}, (double[]){NAN, INFINITY}),
                                       LOOM_AXIS_NONE, false), 0);
        snprintf(what, sizeof what, "%s nanargmax([-inf, nan, -inf])", loom_dtype_name(dt));
        check_int(what, loom_nanargmax(values(dt, 1, (int64_t[]){3},
                                              (double[]){-INFINITY, NAN, -INFINITY}),
                                       LOOM_AXIS_NONE, false), 0);
        snprintf(what, sizeof what, "%s nanargmax([1, nan, -inf])", loom_dtype_name(dt));
        check_int(what, loom_nanargmax(values(dt, 1, (int64_t[]){3}, (double[]){1, NAN, -INFINITY}),
                                       LOOM_AXIS_NONE, false), 0);
        /* long rows, so ties meet across warps and blocks: -inf and NaN tie, so index 0
         * wins, unless one finite value (at p) beats them all */
        enum { N = 5000 };
        double *v = malloc(N * sizeof *v);
        static const int at[] = {0, 1237, 2474, N - 1};
        for (size_t j = 0; v && j < sizeof at / sizeof *at; j++) {
            for (int i = 0; i < N; i++)
                v[i] = i % 3 ? NAN : -INFINITY;
            if (at[j])
                v[at[j]] = -1e4; /* finite in float16 too */
            snprintf(what, sizeof what, "%s nanargmax of %d -inf/nan, finite at %d",
                     loom_dtype_name(dt), N, at[j]);
            check_int(what, loom_nanargmax(values(dt, 1, (int64_t[]){N}, v), LOOM_AXIS_NONE, false),
                      at[j]);
            for (int i = 0; i < N; i++)
                v[i] = -v[i];
            snprintf(what, sizeof what, "%s nanargmin of %d inf/nan, finite at %d",
                     loom_dtype_name(dt), N, at[j]);
            check_int(what, loom_nanargmin(values(dt, 1, (int64_t[]){N}, v), LOOM_AXIS_NONE, false),
                      at[j]);
        }
        free(v);
        loom_scope_end();
    }
    /* complex: NaN reads as -inf+0j, compared lexicographically (NumPy's definition) */
    loom_scope_begin();
    double c1[] = {NAN, 0, -INFINITY, 1}, c2[] = {NAN, 0, -INFINITY, -1}, c3[] = {NAN, 0, -INFINITY, 0};
    loom_array *a1 = loom_asarray(c1, LOOM_COMPLEX128, 1, (int64_t[]){2});
    loom_array *a2 = loom_asarray(c2, LOOM_COMPLEX128, 1, (int64_t[]){2});
    loom_array *a3 = loom_asarray(c3, LOOM_COMPLEX128, 1, (int64_t[]){2});
    check_int("complex nanargmax([nan, -inf+1j])", loom_nanargmax(a1, 0, false), 1);
    check_int("complex nanargmax([nan, -inf-1j])", loom_nanargmax(a2, 0, false), 0);
    check_int("complex nanargmax([nan, -inf+0j])", loom_nanargmax(a3, 0, false), 0);
    loom_scope_end();
}

static void test_scalar_powers(void)
{
    static const double x[] = {-0.0, -INFINITY, 4.0, 2.0, 3.0, -1.0, 0.0, INFINITY, 1e-300};
    enum { N = sizeof x / sizeof *x };
    static const loom_dtype dts[] = {LOOM_FLOAT32, LOOM_FLOAT64};
    for (size_t k = 0; k < 2; k++) {
        loom_dtype dt = dts[k];
        loom_scope_begin();
        loom_array *a = values(dt, 1, (int64_t[]){N}, x);
        struct {
            double e;
            loom_array *r, *want;
        } cases[] = {
            {0.5, loom_power_scalar(a, 0.5), loom_sqrt(a)},
            {-1.0, loom_power_scalar(a, -1.0), loom_reciprocal(a)},
            {1.0, loom_power_scalar(a, 1.0), a},
            {2.0, loom_power_scalar(a, 2.0), loom_multiply(a, a)},
        };
        for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
            hdata g = {0}, w = {0};
            char what[96];
            snprintf(what, sizeof what, "%s ** %g", loom_dtype_name(dt), cases[c].e);
            if (!fetch(cases[c].r, &g, what) || !fetch(cases[c].want, &w, what))
                continue;
            int bad = 0;
            for (int i = 0; i < N; i++)
                bad += !(isnan(w.re[i]) ? isnan(g.re[i])
                                        : g.re[i] == w.re[i] && signbit(g.re[i]) == signbit(w.re[i]));
            CHECK_EQ_INT(bad, 0);
            if (bad)
                fprintf(stderr, "  %s: %d elements differ from NumPy's direct form\n", what, bad);
            hdata_free(&g);
            hdata_free(&w);
        }
        /* NumPy: power(-0.0, 0.5) is -0.0 and power(-inf, 0.5) is nan (C's pow: +0, +inf) */
        check_real("power(-0.0, 0.5)", loom_index(cases[0].r, 0, 0), -0.0);
        check_real("power(-inf, 0.5)", loom_index(cases[0].r, 0, 1), NAN);
        loom_scope_end();
    }
}

static void run_all(void)
{
    test_sums_of_nothing();
    test_nanarg_ties();
    test_scalar_powers();
}

int main(void)
{
    return gpu_test_main("gpu_test_edge_values", run_all);
}
