/* The data-dependent-shape ops on the GPU against NumPy (tests/gpu/unique_cases.inc from
 * tools/gen_unique_cases.py): nonzero, flatnonzero, argwhere and their _size variants; unique
 * with every return and both equal_nan, the Array API forms; isin (invert, assume_unique);
 * intersect1d with indices, union1d, setdiff1d, setxor1d; x[mask]; on inputs with NaN, +-0,
 * +-inf and duplicates in several dtypes. bincount (minlength, weights; the same bits on a second
 * run) and histogram (equal bins with and without range, explicit edges, weights, density). Long masks (2^20 + 3 and 2^24 + 5 elements, many CUB
 * tiles; a sized result shorter than the count goes through scratch) and a transposed mask.
 * The sized form replays as one CUDA Graph launch with no host synchronisation. Runs fused and
 * with LOOM_FUSE=0. Skips (77) without a device. */
#define _POSIX_C_SOURCE 200809L
#include "check.h"
#include "loom.h"
#include "gpu_main.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct unique_case {
    const char *dtype;
    int ndim;
    int64_t shape[3];
    int64_t n;
    const double *a;
    const char *dtype_b;
    int64_t nb;
    const double *b;
    int64_t nnz;
    const int64_t *nz, *flat;
    int64_t nu;
    const double *uv;
    const int64_t *ui, *uinv, *uc;
    int64_t nu2;
    const double *uv2;
    const int64_t *uc2;
    const uint8_t *isin, *isinv;
    int64_t nua;
    const uint8_t *isu;
    int64_t ni;
    const double *iv;
    const int64_t *i1, *i2;
    int64_t nun;
    const double *un;
    int64_t nd;
    const double *df;
    int64_t nx;
    const double *xr;
    const uint8_t *mask;
    int64_t nsel;
    const double *sel;
} unique_case;

#include "unique_cases.inc"

static loom_array *make(const char *dtype, int ndim, const int64_t *shape, const double *v)
{
    int64_t n = 1;
    for (int i = 0; i < ndim; i++)
        n *= shape[i];
    static const double none = 0;
    loom_array *f = loom_asarray(n ? v : &none, LOOM_FLOAT64, ndim, shape);
    return loom_astype(f, loom_dtype_from_name(dtype));
}

/* r's n values as doubles (NULL and a failed check when its size is not n). */
static double *values(loom_array *r, int64_t n)
{
    if (!r || loom_size(r) != n) {
        CHECK(false);
        fprintf(stderr, "  size %lld, want %lld (%s)\n", r ? (long long)loom_size(r) : -1LL,
                (long long)n, loom_last_error());
        return NULL;
    }
    double *d = malloc((size_t)(n ? n : 1) * sizeof *d);
    if (loom_get(loom_astype(r, LOOM_FLOAT64), d, (size_t)n * sizeof *d) != LOOM_OK) {
        CHECK(false);
        fprintf(stderr, "  read failed: %s\n", loom_last_error());
        free(d);
        return NULL;
    }
    return d;
}

static bool same(double x, double y)
{
    return x == y || (isnan(x) && isnan(y));
}

static void check_doubles(const char *what, loom_array *r, const double *want, int64_t n)
{
    double *d = values(r, n);
    int bad = 0;
    for (int64_t i = 0; d && i < n; i++)
        if (!same(d[i], want[i]) && bad++ < 3)
            fprintf(stderr, "  %s[%lld] = %g, want %g\n", what, (long long)i, d[i], want[i]);
    CHECK(d && bad == 0);
    free(d);
}

static void check_ints(const char *what, loom_array *r, const int64_t *want, int64_t n)
{
    CHECK(!r || n == 0 || loom_dtype_of(r) == LOOM_INT64);
    double *d = values(r, n);
    int bad = 0;
    for (int64_t i = 0; d && i < n; i++)
        if (d[i] != (double)want[i] && bad++ < 3)
            fprintf(stderr, "  %s[%lld] = %g, want %lld\n", what, (long long)i, d[i],
                    (long long)want[i]);
    CHECK(d && bad == 0);
    free(d);
}

static void check_bools(const char *what, loom_array *r, const uint8_t *want, int64_t n)
{
    CHECK(!r || loom_dtype_of(r) == LOOM_BOOL);
    double *d = values(r, n);
    int bad = 0;
    for (int64_t i = 0; d && i < n; i++)
        if (d[i] != (double)want[i] && bad++ < 3)
            fprintf(stderr, "  %s[%lld] = %g, want %d\n", what, (long long)i, d[i], want[i]);
    CHECK(d && bad == 0);
    free(d);
}

static void check_shape(loom_array *r, int ndim, const int64_t *shape)
{
    CHECK(r && loom_ndim(r) == ndim);
    for (int i = 0; r && i < ndim && i < loom_ndim(r); i++)
        CHECK_EQ_INT(loom_shape(r)[i], shape[i]);
}

static void test_nonzero(const unique_case *c, loom_array *a)
{
    check_ints("flatnonzero", loom_flatnonzero(a), c->flat, c->nnz);
    loom_array *nz[3] = {NULL, NULL, NULL};
    CHECK_EQ_INT(loom_nonzero(a, nz, 3), c->ndim);
    for (int k = 0; k < c->ndim; k++)
        check_ints("nonzero", nz[k], c->nz + k * c->nnz, c->nnz);
    loom_array *w = loom_argwhere(a);
    check_shape(w, 2, (const int64_t[]){c->nnz, c->ndim});
    double *d = values(w, c->nnz * c->ndim);
    for (int64_t i = 0; d && i < c->nnz; i++)
        for (int k = 0; k < c->ndim; k++)
            CHECK(d[i * c->ndim + k] == (double)c->nz[k * c->nnz + i]);
    free(d);
    /* sized: longer (padded with fill_value) and shorter (the first positions) */
    for (int64_t size = c->nnz + 2; size >= 0; size -= c->nnz > 1 ? c->nnz : 3) {
        d = values(loom_flatnonzero_size(a, size, -7), size);
        for (int64_t i = 0; d && i < size; i++)
            CHECK(d[i] == (i < c->nnz ? (double)c->flat[i] : -7.0));
        free(d);
        CHECK_EQ_INT(loom_nonzero_size(a, size, -1, nz, 3), c->ndim);
        for (int k = 0; k < c->ndim; k++) {
            d = values(nz[k], size);
            for (int64_t i = 0; d && i < size; i++)
                CHECK(d[i] == (i < c->nnz ? (double)c->nz[k * c->nnz + i] : -1.0));
            free(d);
        }
    }
}

static void test_unique(const unique_case *c, loom_array *a)
{
    loom_array *r[4] = {NULL};
    CHECK_EQ_INT(loom_unique(a, true, true, true, LOOM_AXIS_NONE, true, r, 4), 4);
    CHECK(r[0] && loom_dtype_of(r[0]) == loom_dtype_from_name(c->dtype));
    check_doubles("unique", r[0], c->uv, c->nu);
    check_ints("unique index", r[1], c->ui, c->nu);
    check_shape(r[2], c->ndim, c->shape);
    check_ints("unique inverse", r[2], c->uinv, c->n);
    check_ints("unique counts", r[3], c->uc, c->nu);
    CHECK_EQ_INT(loom_unique(a, false, false, true, LOOM_AXIS_NONE, false, r, 2), 2);
    check_doubles("unique equal_nan=False", r[0], c->uv2, c->nu2);
    check_ints("unique counts equal_nan=False", r[1], c->uc2, c->nu2);
    check_doubles("unique_values", loom_unique_values(a), c->uv2, c->nu2);
    CHECK_EQ_INT(loom_unique_counts(a, r, 2), 2);
    check_ints("unique_counts", r[1], c->uc2, c->nu2);
    CHECK_EQ_INT(loom_unique_all(a, r, 4), 4);
    check_doubles("unique_all values", r[0], c->uv2, c->nu2);
    check_ints("unique_all counts", r[3], c->uc2, c->nu2);
    check_shape(r[2], c->ndim, c->shape);
    /* equal_nan=False: values[inverse] is a, indices point at equal elements */
    double *v = values(r[0], c->nu2), *idx = values(r[1], c->nu2), *inv = values(r[2], c->n);
    for (int64_t i = 0; v && inv && i < c->n; i++)
        CHECK(same(v[(int64_t)inv[i]], c->a[i]) || (c->dtype[0] == 'b' && v[(int64_t)inv[i]] == (c->a[i] != 0)));
    for (int64_t j = 0; v && idx && j < c->nu2; j++)
        CHECK(same(v[j], c->a[(int64_t)idx[j]]) || c->dtype[0] == 'b');
    free(v);
    free(idx);
    free(inv);
    CHECK_EQ_INT(loom_unique_inverse(a, r, 2), 2);
    check_shape(r[1], c->ndim, c->shape);
}

static void test_sets(const unique_case *c, loom_array *a)
{
    loom_array *b = make(c->dtype_b, 1, (const int64_t[]){c->nb}, c->b);
    check_bools("isin", loom_isin(a, b, false, false), c->isin, c->n);
    check_bools("isin invert", loom_isin(a, b, false, true), c->isinv, c->n);
    check_bools("in1d", loom_in1d(a, b, false, false), c->isin, c->n);
    loom_array *ua = loom_unique_values(a), *ub = loom_unique_values(b);
    if (c->dtype[0] != 'f') /* no NaN: unique_values is np.unique */
        check_bools("isin assume_unique", loom_isin(ua, ub, true, false), c->isu, c->nua);
    loom_array *r[3] = {NULL};
    CHECK_EQ_INT(loom_intersect1d(a, b, false, true, r, 3), 3);
    check_doubles("intersect1d", r[0], c->iv, c->ni);
    check_ints("intersect1d ar1 indices", r[1], c->i1, c->ni);
    check_ints("intersect1d ar2 indices", r[2], c->i2, c->ni);
    CHECK_EQ_INT(loom_intersect1d(a, b, false, false, r, 1), 1);
    check_doubles("intersect1d", r[0], c->iv, c->ni);
    check_doubles("union1d", loom_union1d(a, b), c->un, c->nun);
    check_doubles("setdiff1d", loom_setdiff1d(a, b, false), c->df, c->nd);
    check_doubles("setxor1d", loom_setxor1d(a, b, false), c->xr, c->nx);
}

/* Within rtol of want, relative above 1 and absolute below. */
static void check_close(const char *what, loom_array *r, const double *want, int64_t n,
                        double rtol)
{
    double *d = values(r, n);
    int bad = 0;
    for (int64_t i = 0; d && i < n; i++)
        if (!(fabs(d[i] - want[i]) <= rtol * fmax(fabs(want[i]), 1.0)) && bad++ < 3)
            fprintf(stderr, "  %s[%lld] = %.17g, want %.17g\n", what, (long long)i, d[i], want[i]);
    CHECK(d && bad == 0);
    free(d);
}

static void test_mask(const unique_case *c, loom_array *a)
{
    loom_array *m = loom_asarray(c->mask, LOOM_BOOL, c->ndim, c->shape);
    loom_index_term t = {.kind = LOOM_INDEX_ARRAY, .array = m};
    check_doubles("x[mask]", loom_getitem(a, &t, 1), c->sel, c->nsel);
}

static void test_bincount(void)
{
    loom_array *x = loom_asarray(bc_x, LOOM_INT64, 1, (const int64_t[]){bc_n});
    loom_array *w = loom_asarray(bc_w, LOOM_FLOAT64, 1, (const int64_t[]){bc_n});
    int64_t len = bc_len > 12 ? bc_len : 12;
    check_ints("bincount", loom_bincount(x, NULL, 12), bc_counts, len);
    check_ints("bincount of int8", loom_bincount(loom_astype(x, LOOM_INT8), NULL, 12), bc_counts, len);
    check_close("bincount weights", loom_bincount(x, w, 0), bc_weighted, bc_len, 1e-13);
    loom_array *neg = loom_subtract(x, loom_scalar_int(1));
    CHECK(loom_bincount(neg, NULL, 0) == NULL);
    CHECK_STR(loom_last_error(), "loom_bincount: 'list' argument must have no negative elements");
    /* determinism: 2^20 weights into 1000 bins, recorded and run twice, the same bits */
    int64_t n = 1 << 20;
    loom_array *bins = loom_remainder(loom_multiply(loom_arange(0, (double)n, 1, LOOM_INT64),
                                                    loom_scalar_int(7919)),
                                      loom_scalar_int(1000));
    double *r[2];
    for (int k = 0; k < 2; k++) {
        loom_array *wk = loom_sin(loom_arange(0, (double)n, 1, LOOM_FLOAT64));
        r[k] = values(loom_bincount(bins, wk, 0), 1000);
    }
    CHECK(r[0] && r[1] && memcmp(r[0], r[1], 1000 * sizeof(double)) == 0);
    free(r[0]);
    free(r[1]);
}

static void test_histogram(void)
{
    loom_array *a = loom_asarray(hx, LOOM_FLOAT64, 1, (const int64_t[]){hn});
    loom_array *w = loom_asarray(hw, LOOM_FLOAT64, 1, (const int64_t[]){hn});
    loom_array *h = NULL, *e = NULL;
    CHECK_EQ_INT(loom_histogram(a, 7, NULL, NULL, false, &h, &e), LOOM_OK);
    check_ints("histogram", h, h1, 7);
    check_close("histogram edges", e, e1, 8, 1e-14);
    check_close("histogram_bin_edges", loom_histogram_bin_edges(a, 7, NULL), e1, 8, 1e-14);
    CHECK_EQ_INT(loom_histogram(a, 5, (const double[]){-1.0, 1.0}, NULL, false, &h, &e), LOOM_OK);
    check_ints("histogram range", h, h2, 5);
    check_close("histogram range edges", e, e2, 6, 1e-14);
    CHECK_EQ_INT(loom_histogram_edges(a, hedges, 6, NULL, false, &h), LOOM_OK);
    check_ints("histogram edges", h, h3, 5);
    CHECK_EQ_INT(loom_histogram(a, 6, (const double[]){-1.0, 2.0}, w, true, &h, NULL), LOOM_OK);
    check_close("histogram weights density", h, h4, 6, 1e-12);
    CHECK_EQ_INT(loom_histogram_edges(a, hedges, 6, NULL, true, &h), LOOM_OK);
    check_close("histogram edges density", h, h5, 5, 1e-12);
    CHECK_EQ_INT(loom_histogram(a, 4, NULL, w, false, &h, NULL), LOOM_OK);
    check_close("histogram weights", h, h6, 4, 1e-12);
    /* integer input: float64 edges; the values on edges in NumPy's bins */
    loom_array *ai = loom_astype(loom_asarray(bc_x, LOOM_INT64, 1, (const int64_t[]){bc_n}),
                                 LOOM_INT16);
    CHECK_EQ_INT(loom_histogram(ai, 4, NULL, NULL, false, &h, &e), LOOM_OK);
    CHECK(e && loom_dtype_of(e) == LOOM_FLOAT64);
    double *d = values(h, 4), *ed = values(e, 5);
    int64_t want[4] = {0, 0, 0, 0};
    for (int64_t i = 0; ed && i < bc_n; i++) {
        int b = 0;
        while (b < 3 && (double)bc_x[i] >= ed[b + 1])
            b++;
        want[b]++;
    }
    for (int b = 0; d && b < 4; b++)
        CHECK(d[b] == (double)want[b]);
    free(d);
    free(ed);
}

/* Masks far longer than one CUB tile: every 7th element of n, flattened and sized. */
static void test_long(int64_t n)
{
    loom_array *m = loom_equal(loom_remainder(loom_arange(0, (double)n, 1, LOOM_INT64),
                                              loom_scalar_int(7)),
                               loom_scalar_int(0));
    int64_t count = (n + 6) / 7;
    loom_stats before, after;
    loom_stats_get(&before);
    loom_array *p = loom_flatnonzero(m);
    loom_stats_get(&after);
    CHECK_EQ_INT(after.forced_evals_by_reason[LOOM_EVAL_DATA_DEPENDENT_SHAPE] -
                     before.forced_evals_by_reason[LOOM_EVAL_DATA_DEPENDENT_SHAPE], 1);
    CHECK(p && loom_size(p) == count);
    double *d = values(p, count);
    int bad = 0;
    for (int64_t i = 0; d && i < count; i++)
        bad += d[i] != (double)(7 * i);
    CHECK(d && bad == 0);
    free(d);
    int64_t size = count / 2 + 1;
    d = values(loom_flatnonzero_size(m, size, 0), size);
    bad = 0;
    for (int64_t i = 0; d && i < size; i++)
        bad += d[i] != (double)(7 * i);
    CHECK(d && bad == 0);
    free(d);
}

/* The mask of a transposed view: positions in the view's C order. */
static void test_view(void)
{
    double v[6] = {0, 1, 2, 0, 0, 3}; /* [[0 1 2] [0 0 3]] */
    loom_array *t = loom_transpose(loom_asarray(v, LOOM_FLOAT64, 2, (const int64_t[]){2, 3}), NULL);
    check_ints("flatnonzero of a transposed view", loom_flatnonzero(t),
               (const int64_t[]){2, 4, 5}, 3); /* [[0 0] [1 0] [2 3]] */
}

/* The sized form never waits for the device: the same structure evaluated again replays as one
 * CUDA Graph launch (mask kernel, CUB's select, the fill kernel) with no other launch, no host
 * synchronisation and no forced evaluation. */
static void test_sized_replay(void)
{
    loom_stats s0, s1;
    for (int k = 0; k < 3; k++) {
        loom_scope_begin();
        loom_array *x = loom_sin(loom_arange(0, 10000, 1, LOOM_FLOAT32));
        loom_array *r = loom_flatnonzero_size(loom_greater_scalar(x, 0.1 * k), 3000, -1);
        loom_stats_get(&s0);
        CHECK_EQ_INT(loom_eval(r), LOOM_OK);
        loom_stats_get(&s1);
        /* the host device neither caches plans nor replays CUDA Graphs */
        if (k > 0 && !getenv("LOOM_GRAPHS") && !gpu_test_on_host()) {
            CHECK_EQ_INT(s1.graph_launches - s0.graph_launches, 1);
            CHECK_EQ_INT(s1.kernels_launched - s0.kernels_launched, 0);
            CHECK_EQ_INT(s1.host_syncs - s0.host_syncs, 0);
        }
        CHECK_EQ_INT(s1.forced_evals - s0.forced_evals, 0);
        loom_scope_end();
    }
}

static void run_all(void)
{
    int ncases = (int)(sizeof unique_cases / sizeof unique_cases[0]);
    for (int k = 0; k < ncases; k++) {
        const unique_case *c = &unique_cases[k];
        printf("case %d: %s\n", k, c->dtype);
        loom_scope_begin();
        loom_array *a = make(c->dtype, c->ndim, c->shape, c->a);
        test_nonzero(c, a);
        test_unique(c, a);
        test_sets(c, a);
        test_mask(c, a);
        loom_scope_end();
    }
    loom_scope_begin();
    test_long((1 << 20) + 3);
    test_long((1 << 24) + 5);
    test_view();
    test_bincount();
    test_histogram();
    loom_scope_end();
    test_sized_replay();
}

int main(void)
{
    return gpu_test_main("gpu_test_unique", run_all);
}
