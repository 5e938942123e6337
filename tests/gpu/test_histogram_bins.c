/* NumPy's histogram bin estimators on the GPU against NumPy (tests/gpu/histogram_bins_cases.inc
 * from tools/gen_histogram_bins_cases.py): every estimator ('auto', 'fd', 'doane', 'scott',
 * 'stone', 'rice', 'sturges', 'sqrt') on float64, float32, float16, int8, int16 (with a range),
 * int32, int64 and uint64 (values beyond 2^53), uint8 and bool data, constant data (a widened
 * range), one to three elements, data whose interquartile range is 0, a range holding no
 * element and an empty range: NumPy's counts and edges exactly, from loom_histogram_estimator and
 * loom_histogram_bin_edges_estimator, each recording a counted data-dependent read-back.
 * Complex data (complex64, complex128) over a range and with explicit edges, real parts on the
 * edges with imaginary parts of both signs, NaN parts, real weights, density: NumPy's
 * lexicographic bins. Runs
 * fused and with LOOM_FUSE=0 (on the host device 'stone' fused only). Skips (77) without a
 * device. */
#define _POSIX_C_SOURCE 200809L
#include "check.h"
#include "gpu_main.h"
#include "loom.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct bins_data {
    const char *label, *dtype;
    int64_t n;
    const double *d;  /* the data as doubles, or */
    const int64_t *i; /* as int64 (64-bit integers) */
    const double *range;
} bins_data;

typedef struct complex_hist_case {
    const char *dtype;
    int64_t nbins;
    int has_range;
    double range[2];
    int nedges; /* explicit edges (0: equal bins over the range) */
    const double *edges_in;
    int weighted, density;
    const double *hist, *edges; /* NumPy's (the edges' real parts) */
} complex_hist_case;

typedef struct bins_case {
    int data;
    const char *name;
    int64_t nbins;
    const int64_t *hist;
    const double *edges;
} bins_case;

#include "histogram_bins_cases.inc"

#define COUNT(x) (sizeof(x) / sizeof((x)[0]))

static loom_array *make(const bins_data *d)
{
    const int64_t shape[1] = {d->n};
    loom_array *a = d->i ? loom_asarray(d->i, LOOM_INT64, 1, shape)
                         : loom_asarray(d->d, LOOM_FLOAT64, 1, shape);
    return loom_astype(a, loom_dtype_from_name(d->dtype));
}

static void check_edges(const char *what, loom_array *e, const bins_case *c)
{
    int64_t n = c->nbins + 1;
    double *got = calloc((size_t)n, sizeof *got);
    CHECK(e && loom_size(e) == n);
    if (e && loom_size(e) == n &&
        loom_get(loom_astype(e, LOOM_FLOAT64), got, (size_t)n * sizeof *got) == LOOM_OK) {
        int bad = 0;
        for (int64_t i = 0; i < n; i++)
            if (got[i] != c->edges[i] && bad++ < 3)
                fprintf(stderr, "  %s edges[%lld] = %.17g, NumPy %.17g\n", what, (long long)i,
                        got[i], c->edges[i]);
        CHECK_EQ_INT(bad, 0);
    } else {
        CHECK(false);
    }
    free(got);
}

static void run_case(const bins_case *c)
{
    const bins_data *d = &bins_data_sets[c->data];
    char what[96];
    snprintf(what, sizeof what, "%s %s (%s)", c->name, d->label, d->dtype);
    printf("%s\n", what);
    /* stone's 100 candidate histograms compile about 100 kernels a data set: 80 s of CI's time
     * on the host with LOOM_FUSE=0, where the other estimators' histograms run unfused */
    if (!strcmp(c->name, "stone") && gpu_test_host_fused_only("stone"))
        return;
    loom_scope_begin();
    loom_array *a = make(d), *h = NULL, *e = NULL;
    loom_stats before, after;
    loom_stats_get(&before);
    int rc = loom_histogram_estimator(a, c->name, d->range, NULL, false, &h, &e);
    loom_stats_get(&after);
    CHECK_EQ_INT(rc, LOOM_OK);
    if (rc != LOOM_OK)
        fprintf(stderr, "  %s: %s\n", what, loom_last_error());
    CHECK(after.forced_evals_by_reason[LOOM_EVAL_DATA_DEPENDENT_SHAPE] >
          before.forced_evals_by_reason[LOOM_EVAL_DATA_DEPENDENT_SHAPE]);
    int64_t *got = calloc((size_t)c->nbins, sizeof *got);
    CHECK(h && loom_size(h) == c->nbins && loom_dtype_of(h) == LOOM_INT64);
    if (h && loom_size(h) == c->nbins &&
        loom_get(h, got, (size_t)c->nbins * sizeof *got) == LOOM_OK) {
        int bad = 0;
        for (int64_t i = 0; i < c->nbins; i++)
            if (got[i] != c->hist[i] && bad++ < 3)
                fprintf(stderr, "  %s hist[%lld] = %lld, NumPy %lld\n", what, (long long)i,
                        (long long)got[i], (long long)c->hist[i]);
        CHECK_EQ_INT(bad, 0);
    } else {
        fprintf(stderr, "  %s: %lld bins, NumPy %lld\n", what, h ? (long long)loom_size(h) : -1LL,
                (long long)c->nbins);
        CHECK(false);
    }
    free(got);
    check_edges(what, e, c);
    check_edges(what, loom_histogram_bin_edges_estimator(a, c->name, d->range), c);
    loom_scope_end();
}

static void check_doubles(const char *what, loom_array *r, const double *want, int64_t n,
                          double rtol)
{
    double *got = calloc((size_t)n, sizeof *got);
    CHECK(r && loom_size(r) == n);
    if (r && loom_size(r) == n &&
        loom_get(loom_astype(loom_real(r), LOOM_FLOAT64), got, (size_t)n * sizeof *got) ==
            LOOM_OK) {
        int bad = 0;
        for (int64_t i = 0; i < n; i++)
            if (!(fabs(got[i] - want[i]) <= rtol * fabs(want[i])) && bad++ < 3)
                fprintf(stderr, "  %s[%lld] = %.17g, NumPy %.17g\n", what, (long long)i, got[i],
                        want[i]);
        CHECK_EQ_INT(bad, 0);
    } else {
        CHECK(false);
    }
    free(got);
}

/* Complex data, compared with the edges lexicographically as NumPy compares it. */
static void run_complex(const complex_hist_case *c)
{
    printf("complex histogram: %s, %lld bins\n", c->dtype, (long long)c->nbins);
    loom_scope_begin();
    double *v = calloc((size_t)hc_n * 2, sizeof *v);
    for (int64_t i = 0; i < hc_n; i++) {
        v[2 * i] = hc_re[i];
        v[2 * i + 1] = hc_im[i];
    }
    loom_array *a = loom_astype(loom_asarray(v, LOOM_COMPLEX128, 1, &hc_n),
                                loom_dtype_from_name(c->dtype));
    free(v);
    loom_array *w = c->weighted ? loom_asarray(hc_w, LOOM_FLOAT64, 1, &hc_n) : NULL;
    loom_array *h = NULL, *e = NULL;
    int rc = c->nedges ? loom_histogram_edges(a, c->edges_in, c->nedges, w, c->density, &h)
                       : loom_histogram(a, c->nbins, c->range, w, c->density, &h, &e);
    CHECK_EQ_INT(rc, LOOM_OK);
    /* counts exactly; weighted sums and densities to rounding */
    check_doubles("complex hist", h, c->hist, c->nbins, c->weighted || c->density ? 1e-12 : 0);
    if (!c->nedges) {
        CHECK(e && loom_dtype_of(e) == loom_dtype_of(a));
        check_doubles("complex edges", e, c->edges, c->nbins + 1, 0);
    }
    loom_scope_end();
}

static void run_all(void)
{
    for (size_t k = 0; k < COUNT(bins_cases); k++)
        run_case(&bins_cases[k]);
    for (size_t k = 0; k < COUNT(complex_hist_cases); k++)
        run_complex(&complex_hist_cases[k]);
}

int main(void)
{
    return gpu_test_main("gpu_test_histogram_bins", run_all);
}
