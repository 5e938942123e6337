/* unique along an axis and the complex set operations on the GPU against NumPy
 * (tests/gpu/unique_axis_cases.inc from tools/gen_unique_axis_cases.py):
 * - np.unique(a, axis=k) with every return, values alone and equal_nan=False, on float64,
 *   float32 (a transposed view), int32 (each axis of a 3-D array), uint8, bool, float16 (NaN
 *   first, as NumPy compares float16 fields), complex128, complex64, 1-element and 0-size
 *   inputs, a 1-D input (the flattened case) and rows of 300 int8 columns; zeros' signs and NaN
 *   rows as NumPy gives them;
 * - by definition, 2^16 + 3 rows of two int8 columns (2^12 + 3 on the host device): values
 *   strictly increasing, index the first occurrence, values[inverse] the input, counts the
 *   occurrences;
 * - complex unique (every return, both equal_nan, the values alone: NumPy's first NaN of the
 *   input), isin (invert), intersect1d (indices), union1d, setdiff1d, setxor1d with NaN and
 *   signed-zero parts.
 * Runs fused and with LOOM_FUSE=0 (on the host device the 300 columns fused only). Skips (77)
 * without a device. */
#define _POSIX_C_SOURCE 200809L
#include "check.h"
#include "gpu_main.h"
#include "loom.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct unique_axis_case {
    const char *dtype;
    int ndim;
    int64_t shape[3];
    int transposed; /* the input is the transpose of the stored (shape) array */
    int axis;
    const double *a_re, *a_im;
    int64_t vshape[3];
    const double *v_re, *v_im;
    int64_t nu;
    const int64_t *index, *counts;
    int64_t n;
    const int64_t *inverse;
} unique_axis_case;

typedef struct complex_set_case {
    const char *dtype;
    int ndim;
    int64_t shape[2];
    int64_t n;
    const double *a_re, *a_im;
    int64_t nb;
    const double *b_re, *b_im;
    int64_t nu;
    const double *uv_re, *uv_im;
    const int64_t *ui, *uinv, *uc;
    int64_t nu2;
    const double *uv2_re, *uv2_im;
    const int64_t *ui2, *uinv2, *uc2;
    int64_t nv;
    const double *v_re, *v_im;
    const uint8_t *isin, *isinv;
    int64_t ni;
    const double *iv_re, *iv_im;
    const int64_t *i1, *i2;
    int64_t nun;
    const double *un_re, *un_im;
    int64_t nd;
    const double *df_re, *df_im;
    int64_t nx;
    const double *xr_re, *xr_im;
} complex_set_case;

#include "unique_axis_cases.inc"

#define COUNT(x) (sizeof(x) / sizeof((x)[0]))

static int64_t product(int ndim, const int64_t *shape)
{
    int64_t n = 1;
    for (int i = 0; i < ndim; i++)
        n *= shape[i];
    return n;
}

/* An array of dtype from float64 parts (im NULL: real). */
static loom_array *make(const char *dtype, int ndim, const int64_t *shape, const double *re,
                        const double *im)
{
    int64_t n = product(ndim, shape);
    double *buf = calloc((size_t)(n ? n : 1) * 2, sizeof *buf);
    for (int64_t i = 0; i < n; i++) {
        buf[im ? 2 * i : i] = re[i];
        if (im)
            buf[2 * i + 1] = im[i];
    }
    loom_array *f = loom_asarray(buf, im ? LOOM_COMPLEX128 : LOOM_FLOAT64, ndim, shape);
    free(buf);
    return loom_astype(f, loom_dtype_from_name(dtype));
}

/* NumPy's value bit for bit but for NaN payloads: equal with the same sign, or both NaN. */
static bool same(double x, double y)
{
    return (isnan(x) && isnan(y)) || (x == y && signbit(x) == signbit(y));
}

/* Compares r (n elements) with want_re/want_im (im NULL: real), zero signs too unless
 * any_zero_sign; prints the first mismatches. */
static void check_values(const char *what, loom_array *r, int64_t n, const double *want_re,
                         const double *want_im, bool any_zero_sign)
{
    if (!r || loom_size(r) != n) {
        CHECK(false);
        fprintf(stderr, "  %s: size %lld, want %lld (%s)\n", what,
                r ? (long long)loom_size(r) : -1LL, (long long)n, loom_last_error());
        return;
    }
    int parts = want_im ? 2 : 1;
    double *got = calloc((size_t)(n ? n : 1) * 2, sizeof *got);
    loom_array *as = loom_astype(r, want_im ? LOOM_COMPLEX128 : LOOM_FLOAT64);
    int rc = loom_get(as, got, (size_t)(n * parts) * sizeof *got);
    CHECK_EQ_INT(rc, LOOM_OK);
    int bad = 0;
    for (int64_t i = 0; rc == LOOM_OK && i < n; i++)
        for (int p = 0; p < parts; p++) {
            double g = got[i * parts + p], w = p ? want_im[i] : want_re[i];
            bool ok = same(g, w) || (any_zero_sign && g == w);
            if (!ok && bad++ < 4)
                fprintf(stderr, "  %s[%lld] part %d = %g, want %g\n", what, (long long)i, p, g, w);
        }
    CHECK_EQ_INT(bad, 0);
    free(got);
}

static void check_ints(const char *what, loom_array *r, const int64_t *want, int64_t n)
{
    if (!r || loom_size(r) != n || loom_dtype_of(r) != LOOM_INT64) {
        CHECK(false);
        fprintf(stderr, "  %s: size %lld, want int64 of %lld (%s)\n", what,
                r ? (long long)loom_size(r) : -1LL, (long long)n, loom_last_error());
        return;
    }
    int64_t *got = calloc((size_t)(n ? n : 1), sizeof *got);
    CHECK_EQ_INT(loom_get(r, got, (size_t)n * sizeof *got), LOOM_OK);
    int bad = 0;
    for (int64_t i = 0; i < n; i++)
        if (got[i] != want[i] && bad++ < 4)
            fprintf(stderr, "  %s[%lld] = %lld, want %lld\n", what, (long long)i,
                    (long long)got[i], (long long)want[i]);
    CHECK_EQ_INT(bad, 0);
    free(got);
}

static void check_bools(const char *what, loom_array *r, const uint8_t *want, int64_t n)
{
    CHECK(r && loom_dtype_of(r) == LOOM_BOOL && loom_size(r) == n);
    uint8_t *got = calloc((size_t)(n ? n : 1), 1);
    CHECK_EQ_INT(loom_get(r, got, (size_t)n), LOOM_OK);
    int bad = 0;
    for (int64_t i = 0; i < n; i++)
        if (got[i] != want[i] && bad++ < 4)
            fprintf(stderr, "  %s[%lld] = %d, want %d\n", what, (long long)i, got[i], want[i]);
    CHECK_EQ_INT(bad, 0);
    free(got);
}

static void check_shape(loom_array *r, int ndim, const int64_t *shape)
{
    CHECK(r && loom_ndim(r) == ndim);
    for (int i = 0; r && i < ndim && i < loom_ndim(r); i++)
        CHECK_EQ_INT(loom_shape(r)[i], shape[i]);
}

/* Whether the host device leaves out a's LOOM_FUSE=0 run: a lexsort of many columns, whose
 * chain of gathered indices is evaluated again for every column (300 columns: 1.8 million
 * launches, 80 s under AddressSanitizer on CI's host; the fused run takes 20 s). */
static bool host_skips_unfused(loom_array *a, int axis)
{
    const int nd = loom_ndim(a), ax = axis < 0 ? axis + nd : axis;
    int64_t columns = 1;
    for (int d = 0; d < nd; d++)
        columns *= d == ax ? 1 : loom_shape(a)[d];
    return columns >= 100 && gpu_test_host_fused_only("a lexsort of 100 columns or more");
}

static void run_axis_case(size_t k, const unique_axis_case *c)
{
    loom_scope_begin();
    loom_array *a = make(c->dtype, c->ndim, c->shape, c->a_re, c->a_im);
    if (c->transposed)
        a = loom_transpose(a, NULL);
    if (host_skips_unfused(a, c->axis)) {
        loom_scope_end();
        return;
    }
    loom_array *r[4] = {NULL};
    char what[64];
    snprintf(what, sizeof what, "case %zu %s axis %d", k, c->dtype, c->axis);
    CHECK_EQ_INT(loom_unique(a, true, true, true, c->axis, true, r, 4), 4);
    check_shape(r[0], c->ndim, c->vshape);
    CHECK(r[0] && loom_dtype_of(r[0]) == loom_dtype_of(a));
    int64_t nv = product(c->ndim, c->vshape);
    check_values(what, r[0], nv, c->v_re, c->v_im, false);
    check_ints("index", r[1], c->index, c->nu);
    check_ints("inverse", r[2], c->inverse, c->n);
    check_ints("counts", r[3], c->counts, c->nu);
    /* the values alone, and one return at a time */
    CHECK_EQ_INT(loom_unique(a, false, false, false, c->axis, true, r, 1), 1);
    check_values(what, r[0], nv, c->v_re, c->v_im, false);
    CHECK_EQ_INT(loom_unique(a, false, true, false, c->axis, true, r, 2), 2);
    check_ints("inverse alone", r[1], c->inverse, c->n);
    CHECK_EQ_INT(loom_unique(a, false, false, true, c->axis, true, r, 2), 2);
    check_ints("counts alone", r[1], c->counts, c->nu);
    if (c->ndim > 1) { /* along an axis NumPy ignores equal_nan */
        CHECK_EQ_INT(loom_unique(a, true, false, false, c->axis, false, r, 2), 2);
        check_values(what, r[0], nv, c->v_re, c->v_im, false);
        check_ints("index, equal_nan=False", r[1], c->index, c->nu);
    }
    loom_scope_end();
}

/* 2^16 + 3 rows (i % 4, (3 i) % 5 - 2) as int8, by definition (2^12 + 3 on the host device,
 * which runs the row reductions' 32 threads a row as fibers: 2^16 rows took 13 s a reduction). */
static void run_long_rows(void)
{
    const int64_t n = gpu_test_scaled((1 << 16) + 3, (1 << 12) + 3);
    loom_scope_begin();
    int8_t *rows = malloc((size_t)n * 2);
    int64_t count[4][5] = {{0}}, first[4][5];
    for (int64_t i = 0; i < n; i++) {
        int x = (int)(i % 4), y = (int)((3 * i) % 5);
        rows[2 * i] = (int8_t)x;
        rows[2 * i + 1] = (int8_t)(y - 2);
        if (count[x][y]++ == 0)
            first[x][y] = i;
    }
    loom_array *a = loom_asarray(rows, LOOM_INT8, 2, (const int64_t[]){n, 2});
    loom_array *r[4] = {NULL};
    CHECK_EQ_INT(loom_unique(a, true, true, true, 0, true, r, 4), 4);
    CHECK(r[0] && loom_ndim(r[0]) == 2 && loom_shape(r[0])[1] == 2);
    int64_t nu = r[0] ? loom_shape(r[0])[0] : 0;
    CHECK_EQ_INT(nu, 20);
    int8_t v[40];
    int64_t idx[20], cnt[20], *inv = malloc((size_t)n * sizeof *inv);
    if (nu == 20 && loom_get(r[0], v, sizeof v) == LOOM_OK &&
        loom_get(r[1], idx, sizeof idx) == LOOM_OK && loom_get(r[3], cnt, sizeof cnt) == LOOM_OK &&
        loom_get(r[2], inv, (size_t)n * sizeof *inv) == LOOM_OK) {
        int bad = 0;
        for (int u = 0; u < 20; u++) {
            int x = v[2 * u], y = v[2 * u + 1] + 2;
            bad += u > 0 && !(v[2 * u - 2] < x || (v[2 * u - 2] == x && v[2 * u - 1] < y - 2));
            bad += x < 0 || x > 3 || y < 0 || y > 4 || cnt[u] != count[x][y] ||
                   idx[u] != first[x][y];
        }
        for (int64_t i = 0; i < n; i++)
            bad += inv[i] < 0 || inv[i] >= 20 || v[2 * inv[i]] != rows[2 * i] ||
                   v[2 * inv[i] + 1] != rows[2 * i + 1];
        CHECK_EQ_INT(bad, 0);
    } else {
        CHECK(false);
    }
    free(inv);
    free(rows);
    loom_scope_end();
}

static void run_complex_case(size_t k, const complex_set_case *c)
{
    loom_scope_begin();
    printf("complex case %zu: %s\n", k, c->dtype);
    loom_array *a = make(c->dtype, c->ndim, c->shape, c->a_re, c->a_im);
    loom_array *b = make(c->dtype, 1, &c->nb, c->b_re, c->b_im);
    loom_array *r[4] = {NULL};
    CHECK_EQ_INT(loom_unique(a, true, true, true, LOOM_AXIS_NONE, true, r, 4), 4);
    check_values("unique", r[0], c->nu, c->uv_re, c->uv_im, false);
    check_ints("unique index", r[1], c->ui, c->nu);
    check_shape(r[2], c->ndim, c->shape);
    check_ints("unique inverse", r[2], c->uinv, c->n);
    check_ints("unique counts", r[3], c->uc, c->nu);
    CHECK_EQ_INT(loom_unique(a, true, true, true, LOOM_AXIS_NONE, false, r, 4), 4);
    check_values("unique equal_nan=False", r[0], c->nu2, c->uv2_re, c->uv2_im, false);
    check_ints("unique index equal_nan=False", r[1], c->ui2, c->nu2);
    check_ints("unique inverse equal_nan=False", r[2], c->uinv2, c->n);
    check_ints("unique counts equal_nan=False", r[3], c->uc2, c->nu2);
    CHECK_EQ_INT(loom_unique(a, false, false, false, LOOM_AXIS_NONE, true, r, 1), 1);
    check_values("unique values alone", r[0], c->nv, c->v_re, c->v_im, false);
    check_bools("isin", loom_isin(a, b, false, false), c->isin, c->n);
    check_bools("isin invert", loom_isin(a, b, false, true), c->isinv, c->n);
    CHECK_EQ_INT(loom_intersect1d(a, b, false, true, r, 3), 3);
    check_values("intersect1d", r[0], c->ni, c->iv_re, c->iv_im, false);
    check_ints("intersect1d ar1 indices", r[1], c->i1, c->ni);
    check_ints("intersect1d ar2 indices", r[2], c->i2, c->ni);
    /* without indices NumPy's sort is not stable: either zero of a pair may be shown */
    CHECK_EQ_INT(loom_intersect1d(a, b, false, false, r, 1), 1);
    check_values("intersect1d", r[0], c->ni, c->iv_re, c->iv_im, true);
    check_values("union1d", loom_union1d(a, b), c->nun, c->un_re, c->un_im, false);
    check_values("setdiff1d", loom_setdiff1d(a, b, false), c->nd, c->df_re, c->df_im, false);
    check_values("setxor1d", loom_setxor1d(a, b, false), c->nx, c->xr_re, c->xr_im, false);
    loom_scope_end();
}

static void run_all(void)
{
    for (size_t k = 0; k < COUNT(unique_axis_cases); k++) {
        printf("axis case %zu: %s axis %d\n", k, unique_axis_cases[k].dtype,
               unique_axis_cases[k].axis);
        run_axis_case(k, &unique_axis_cases[k]);
    }
    run_long_rows();
    for (size_t k = 0; k < COUNT(complex_set_cases); k++)
        run_complex_case(k, &complex_set_cases[k]);
}

int main(void)
{
    return gpu_test_main("gpu_test_unique_axis", run_all);
}
