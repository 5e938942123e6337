/* searchsorted, digitize, partition, argpartition, lexsort and the complex sorts on the GPU.
 * Against NumPy (tests/gpu/search_cases.inc, tools/gen_search_cases.py): searchsorted of every
 * real dtype with NaN, +-0, +-inf and duplicates on both sides, with a sorter, with v computed
 * and the result consumed in the same kernel, and of complex values with NaN and infinite
 * parts; digitize on increasing, decreasing, repeated and NaN-ended bins with x on the edges;
 * lexsort of mixed-dtype keys with ties along each axis; complex sort and stable argsort with
 * NaN and infinite parts. By NumPy's definition: partition and argpartition put element kth in
 * its sorted place with no larger element before it and no smaller one after (every real
 * dtype, several kth at once, both axes); a lexsort of 2^20 + 3 elements and a complex argsort
 * of 2^18 + 1 (64 rows and one) order their keys stably; a search in 2^20 + 3 sorted values.
 * Runs fused and with LOOM_FUSE=0. Skips (77) without a device. */
#define _POSIX_C_SOURCE 200809L
#include "check.h"
#include "sort_order.h"
#include "gpu_main.h"

typedef struct search_case {
    const char *dtype;
    int64_t na, nv;
    const uint64_t *a, *v;
    const int64_t *left, *right;
    const uint64_t *u;             /* unsorted, na values */
    const int64_t *sorter, *sleft, *sright;
} search_case;

typedef struct complex_search_case {
    const char *dtype;
    int64_t na, nv;
    const uint64_t *a, *v; /* real and imaginary parts */
    const int64_t *left, *right;
} complex_search_case;

typedef struct digitize_case {
    int64_t nbins;
    const double *bins;
    const int64_t *left, *right; /* right=False, right=True */
} digitize_case;

typedef struct lexsort_case {
    int nkeys;
    const char *dtypes[3];
    const uint64_t *keys[3]; /* shape (4, 9) each */
    int axis;
    const int64_t *order;
} lexsort_case;

typedef struct complex_case {
    const char *dtype;
    int axis;
    const uint64_t *in, *sorted; /* real and imaginary parts, shape (6, 7) */
    const int64_t *arg;
} complex_case;

#include "search_cases.inc"

#define COUNT(x) (sizeof(x) / sizeof *(x))

static loom_array *from_bits(const uint64_t *bits, int64_t n, loom_dtype dt)
{
    void *p = pack(bits, n, loom_dtype_size(dt));
    loom_array *a = loom_asarray(p, dt, 1, &n);
    free(p);
    return a;
}

/* got[0..n) == want[0..n) + add; prints the first mismatch under what. */
static void check_positions(loom_array *r, const int64_t *want, int64_t n, int64_t add,
                            const char *what, const char *dtype)
{
    int64_t *got = malloc((size_t)n * 8 + 8);
    int rc = loom_get(r, got, (size_t)n * 8);
    CHECK_EQ_INT(rc, LOOM_OK);
    if (rc)
        fprintf(stderr, "%s %s: %s\n", what, dtype, loom_last_error());
    int bad = 0;
    for (int64_t i = 0; rc == LOOM_OK && i < n; i++) {
        if (got[i] != want[i] + add && !bad++)
            fprintf(stderr, "%s %s: element %lld is %lld, NumPy %lld\n", what, dtype, (long long)i,
                    (long long)got[i], (long long)(want[i] + add));
    }
    CHECK_EQ_INT(bad, 0);
    free(got);
}

static void run_searchsorted(void)
{
    for (size_t c = 0; c < COUNT(search_cases); c++) {
        const search_case *t = &search_cases[c];
        loom_dtype dt = loom_dtype_from_name(t->dtype);
        loom_scope_begin();
        loom_array *a = from_bits(t->a, t->na, dt), *v = from_bits(t->v, t->nv, dt);
        loom_array *u = from_bits(t->u, t->na, dt);
        loom_array *sorter = loom_asarray(t->sorter, LOOM_INT64, 1, &t->na);
        for (int right = 0; right < 2; right++) {
            const int64_t *want = right ? t->right : t->left;
            check_positions(loom_searchsorted(a, v, right), want, t->nv, 0, "searchsorted",
                            t->dtype);
            /* v computed and the positions consumed by the search's own kernel (for bool,
             * v + 0 is int64: a search in int64 finds the same positions) */
            loom_array *v0 = loom_add(v, loom_scalar_int(0));
            check_positions(loom_add(loom_searchsorted(a, v0, right), loom_scalar_int(1)), want,
                            t->nv, 1, "fused searchsorted", t->dtype);
            check_positions(loom_searchsorted_sorter(u, v, right, sorter),
                            right ? t->sright : t->sleft, t->nv, 0, "sorter", t->dtype);
            /* v of shape (5, 6): the first 30 values */
            loom_array *v2 = loom_reshape(loom_slice(v, 0, 0, 30, 1), 2, (int64_t[]){5, 6});
            loom_array *r2 = loom_searchsorted(a, v2, right);
            CHECK(r2 && loom_ndim(r2) == 2 && loom_shape(r2)[0] == 5);
            check_positions(r2, want, 30, 0, "2-D searchsorted", t->dtype);
        }
        loom_scope_end();
    }
    /* a weak float scalar against int8 values: compared in float64 (NumPy: 1) */
    loom_scope_begin();
    int8_t small[] = {1, 2, 3};
    int64_t three = 3, got = -1;
    loom_array *r = loom_searchsorted(loom_asarray(small, LOOM_INT8, 1, &three), loom_scalar(1.5),
                                      false);
    CHECK(r && loom_ndim(r) == 0 && loom_dtype_of(r) == LOOM_INT64);
    CHECK_EQ_INT(loom_get(r, &got, 8), LOOM_OK);
    CHECK_EQ_INT(got, 1);
    /* a sorter index out of range fails when the result is read */
    int64_t bad_sorter[] = {0, 7, 1};
    r = loom_searchsorted_sorter(loom_asarray(small, LOOM_INT8, 1, &three), loom_scalar_int(2),
                                 false, loom_asarray(bad_sorter, LOOM_INT64, 1, &three));
    CHECK(r != NULL);
    CHECK(loom_get(r, &got, 8) != LOOM_OK);
    CHECK(strstr(loom_last_error(), "loom_searchsorted") != NULL);
    loom_clear_error();
    loom_scope_end();
}

static void run_complex_searchsorted(void)
{
    for (size_t c = 0; c < COUNT(complex_search_cases); c++) {
        const complex_search_case *t = &complex_search_cases[c];
        loom_dtype dt = loom_dtype_from_name(t->dtype);
        size_t part = loom_dtype_size(dt) / 2;
        loom_scope_begin();
        char *pa = pack(t->a, 2 * t->na, part), *pv = pack(t->v, 2 * t->nv, part);
        loom_array *a = loom_asarray(pa, dt, 1, &t->na), *v = loom_asarray(pv, dt, 1, &t->nv);
        for (int right = 0; right < 2; right++)
            check_positions(loom_searchsorted(a, v, right), right ? t->right : t->left, t->nv, 0,
                            "complex searchsorted", t->dtype);
        free(pa);
        free(pv);
        loom_scope_end();
    }
}

/* 2^20 + 3 sorted values 0, 1, ... (a generator written to memory first) and v = k / 2 for
 * k in [-4, 2n + 4): side left finds ceil(v), right floor(v) + 1, both clipped to [0, n]. */
static void run_large(void)
{
    const int64_t n = (1 << 20) + 3, m = 2 * n + 8;
    loom_scope_begin();
    loom_array *a = loom_arange(0, (double)n, 1, LOOM_FLOAT32);
    loom_array *v = loom_multiply(loom_arange(-4, (double)(m - 4), 1, LOOM_FLOAT64), loom_scalar(0.5));
    int64_t *got = malloc((size_t)m * 8);
    for (int right = 0; right < 2; right++) {
        CHECK_EQ_INT(loom_get(loom_searchsorted(a, v, right), got, (size_t)m * 8), LOOM_OK);
        int bad = 0;
        for (int64_t i = 0; i < m; i++) {
            double x = (double)(i - 4) / 2;
            double w = right ? floor(x) + 1 : ceil(x);
            int64_t want = w < 0 ? 0 : w > (double)n ? n : (int64_t)w;
            bad += got[i] != want;
        }
        CHECK_EQ_INT(bad, 0);
    }
    free(got);
    loom_scope_end();
}

static void run_digitize(void)
{
    int64_t nx = COUNT(dig_x);
    for (size_t c = 0; c < COUNT(digitize_cases); c++) {
        const digitize_case *t = &digitize_cases[c];
        loom_scope_begin();
        loom_array *x = loom_asarray(dig_x, LOOM_FLOAT64, 1, &nx);
        loom_array *bins = loom_asarray(t->bins, LOOM_FLOAT64, 1, &t->nbins);
        for (int right = 0; right < 2; right++) {
            const int64_t *want = right ? t->right : t->left;
            check_positions(loom_digitize(x, bins, right), want, nx, 0, "digitize", "float64");
            /* float32 x holds the same values; computed x fuses into the search */
            check_positions(loom_digitize(loom_astype(x, LOOM_FLOAT32), bins, right), want, nx, 0,
                            "digitize", "float32");
        }
        loom_scope_end();
    }
    loom_scope_begin();
    double up_down[] = {1, 3, 2};
    int64_t three = 3;
    loom_array *x = loom_asarray(dig_x, LOOM_FLOAT64, 1, &nx);
    CHECK(loom_digitize(x, loom_asarray(up_down, LOOM_FLOAT64, 1, &three), false) == NULL);
    CHECK_STR(loom_last_error(), "loom_digitize: bins must be monotonically increasing or decreasing");
    loom_scope_end();
}

/* NumPy's guarantee on one row (n elements, stride apart) of p for each kth: no element before
 * it is larger, none after it smaller (NumPy's order), and p holds the input's keys. */
static int check_partitioned(const char *p, const char *in, int64_t n, int64_t stride,
                             const int64_t *kth, int nkth, loom_dtype dt)
{
    size_t sz = loom_dtype_size(dt);
    char *row = malloc((size_t)n * sz), *orig = malloc((size_t)n * sz);
    for (int64_t i = 0; i < n; i++) {
        memcpy(row + i * (int64_t)sz, p + i * stride * (int64_t)sz, sz);
        memcpy(orig + i * (int64_t)sz, in + i * stride * (int64_t)sz, sz);
    }
    int bad = 0;
    for (int k = 0; k < nkth; k++) {
        int64_t at = kth[k] < 0 ? kth[k] + n : kth[k];
        for (int64_t i = 0; i < n; i++)
            bad += i < at ? compare(row, i, at, dt) > 0 : i > at ? compare(row, i, at, dt) < 0 : 0;
    }
    /* the same keys: both rows in NumPy's order (insertion sorts), pairwise equal */
    char *both = malloc(2 * (size_t)n * sz), *tmp = malloc(sz);
    memcpy(both, row, (size_t)n * sz);
    memcpy(both + n * (int64_t)sz, orig, (size_t)n * sz);
    for (int h = 0; h < 2; h++) {
        char *b = both + h * n * (int64_t)sz;
        for (int64_t i = 1; i < n; i++)
            for (int64_t j = i; j > 0 && compare(b, j - 1, j, dt) > 0; j--) {
                memcpy(tmp, b + (j - 1) * (int64_t)sz, sz);
                memcpy(b + (j - 1) * (int64_t)sz, b + j * (int64_t)sz, sz);
                memcpy(b + j * (int64_t)sz, tmp, sz);
            }
    }
    for (int64_t i = 0; i < n; i++)
        bad += compare(both, i, n + i, dt) != 0;
    free(both);
    free(tmp);
    free(row);
    free(orig);
    return bad;
}

static void run_partition(void)
{
    static const int64_t kths[][3] = {{0, 0, 0}, {30, 0, 0}, {15, 0, 0}, {-1, 3, 10}};
    static const int nk[] = {1, 1, 1, 3};
    for (size_t c = 0; c < COUNT(search_cases); c++) {
        const search_case *t = &search_cases[c];
        loom_dtype dt = loom_dtype_from_name(t->dtype);
        size_t sz = loom_dtype_size(dt);
        char *in = pack(t->v, t->nv, sz);
        char *got = malloc((size_t)t->nv * sz);
        int64_t *idx = malloc((size_t)t->nv * 8);
        char *gathered = malloc((size_t)t->nv * sz);
        for (size_t k = 0; k < COUNT(nk); k++) {
            loom_scope_begin();
            loom_array *v = loom_asarray(in, dt, 1, &t->nv);
            int rc1 = loom_get(loom_partition(v, kths[k], nk[k], 0), got, (size_t)t->nv * sz);
            int rc2 = loom_get(loom_argpartition(v, kths[k], nk[k], -1), idx, (size_t)t->nv * 8);
            CHECK(rc1 == LOOM_OK && rc2 == LOOM_OK);
            if (rc1 == LOOM_OK && rc2 == LOOM_OK) {
                int bad = check_partitioned(got, in, t->nv, 1, kths[k], nk[k], dt);
                /* argpartition: a permutation whose gather is partitioned */
                bool *seen = calloc((size_t)t->nv, 1);
                for (int64_t i = 0; i < t->nv; i++) {
                    bool ok = idx[i] >= 0 && idx[i] < t->nv && !seen[idx[i]];
                    bad += !ok;
                    if (ok) {
                        seen[idx[i]] = true;
                        memcpy(gathered + i * (int64_t)sz, in + idx[i] * (int64_t)sz, sz);
                    }
                }
                free(seen);
                bad += check_partitioned(gathered, in, t->nv, 1, kths[k], nk[k], dt);
                if (bad)
                    fprintf(stderr, "partition %s kth case %zu: %d mismatches\n", t->dtype, k, bad);
                CHECK_EQ_INT(bad, 0);
            }
            loom_scope_end();
        }
        /* shape (5, 6): along axis 0 (columns of 5) and axis 1 (rows of 6) */
        for (int axis = 0; axis < 2; axis++) {
            loom_scope_begin();
            loom_array *v = loom_asarray(in, dt, 2, (int64_t[]){5, 6});
            int64_t kth[] = {1, -1};
            CHECK_EQ_INT(loom_get(loom_partition(v, kth, 2, axis), got, 30 * sz), LOOM_OK);
            int bad = 0;
            for (int64_t r = 0; r < (axis ? 5 : 6); r++) {
                int64_t start = axis ? r * 6 : r, n = axis ? 6 : 5, stride = axis ? 1 : 6;
                bad += check_partitioned(got + start * (int64_t)sz, in + start * (int64_t)sz, n,
                                         stride, kth, 2, dt);
            }
            CHECK_EQ_INT(bad, 0);
            loom_scope_end();
        }
        free(in);
        free(got);
        free(idx);
        free(gathered);
    }
}

static void run_lexsort(void)
{
    for (size_t c = 0; c < COUNT(lexsort_cases); c++) {
        const lexsort_case *t = &lexsort_cases[c];
        loom_scope_begin();
        loom_array *keys[3];
        for (int k = 0; k < t->nkeys; k++) {
            loom_dtype dt = loom_dtype_from_name(t->dtypes[k]);
            keys[k] = loom_reshape(from_bits(t->keys[k], 36, dt), 2, (int64_t[]){4, 9});
        }
        check_positions(loom_lexsort(keys, t->nkeys, t->axis), t->order, 36, 0, "lexsort",
                        t->dtypes[0]);
        loom_scope_end();
    }
}

static int bit_mismatches(const void *got, const void *want, int64_t n, size_t size)
{
    int bad = 0;
    for (int64_t i = 0; i < n; i++)
        bad += elem_bits(got, i, size) != elem_bits(want, i, size);
    return bad;
}

static void run_complex(void)
{
    for (size_t c = 0; c < COUNT(complex_cases); c++) {
        const complex_case *t = &complex_cases[c];
        loom_dtype dt = loom_dtype_from_name(t->dtype);
        size_t part = loom_dtype_size(dt) / 2;
        loom_scope_begin();
        char *in = pack(t->in, 84, part), *want = pack(t->sorted, 84, part);
        loom_array *a = loom_asarray(in, dt, 2, (int64_t[]){6, 7});
        char *got = malloc(84 * part);
        CHECK_EQ_INT(loom_get(loom_sort(a, t->axis), got, 84 * part), LOOM_OK);
        int bad = bit_mismatches(got, want, 84, part);
        if (bad)
            fprintf(stderr, "complex sort case %zu: %d mismatches\n", c, bad);
        CHECK_EQ_INT(bad, 0);
        check_positions(loom_argsort(a, t->axis), t->arg, 42, 0, "complex argsort", t->dtype);
        if (t->axis == -1) {
            CHECK_EQ_INT(loom_get(loom_sort_complex(a), got, 84 * part), LOOM_OK);
            CHECK_EQ_INT(bit_mismatches(got, want, 84, part), 0);
        }
        free(in);
        free(want);
        free(got);
        loom_scope_end();
    }
    /* sort_complex of float32: complex128 */
    loom_scope_begin();
    float x[] = {3, -1, 2};
    int64_t three = 3;
    double out[6] = {0};
    loom_array *r = loom_sort_complex(loom_asarray(x, LOOM_FLOAT32, 1, &three));
    CHECK(r && loom_dtype_of(r) == LOOM_COMPLEX128);
    CHECK_EQ_INT(loom_get(r, out, sizeof out), LOOM_OK);
    CHECK(out[0] == -1 && out[2] == 2 && out[4] == 3 && out[1] == 0 && out[3] == 0 && out[5] == 0);
    loom_scope_end();
}

/* lexsort of three int8 keys with many ties over 2^20 + 3 elements, by definition: a
 * permutation along which (k2, k1, k0, index) increases strictly. Keys from a fixed hash. */
static void run_lexsort_large(void)
{
    const int64_t n = (1 << 20) + 3;
    int8_t *k = malloc((size_t)n * 3);
    int64_t *order = malloc((size_t)n * 8);
    bool *seen = calloc((size_t)n, 1);
    for (int64_t i = 0; i < 3 * n; i++)
        k[i] = (int8_t)((int)(((uint64_t)i * 0x9E3779B97F4A7C15ull >> 60) % 3) - 1);
    loom_scope_begin();
    loom_array *keys[3];
    for (int j = 0; j < 3; j++)
        keys[j] = loom_asarray(k + j * n, LOOM_INT8, 1, &n);
    int rc = loom_get(loom_lexsort(keys, 3, 0), order, (size_t)n * 8);
    CHECK_EQ_INT(rc, LOOM_OK);
    int bad = 0;
    for (int64_t i = 0; rc == LOOM_OK && i < n; i++) {
        int64_t o = order[i];
        if (o < 0 || o >= n || seen[o]) {
            bad++;
            continue;
        }
        seen[o] = true;
        if (i == 0)
            continue;
        int64_t p = order[i - 1];
        if (p < 0 || p >= n)
            continue;
        int c = 0;
        for (int j = 2; j >= 0 && c == 0; j--)
            c = (k[j * n + p] > k[j * n + o]) - (k[j * n + p] < k[j * n + o]);
        bad += c > 0 || (c == 0 && p > o);
    }
    CHECK_EQ_INT(bad, 0);
    loom_scope_end();
    free(k);
    free(order);
    free(seen);
}

/* NumPy's complex order (npysort's CFLOAT_LT), on the host. */
static bool complex_less(const double *a, const double *b)
{
    if (a[0] < b[0])
        return a[1] == a[1] || b[1] != b[1];
    if (a[0] > b[0])
        return b[1] != b[1] && a[1] == a[1];
    if (a[0] == b[0] || (a[0] != a[0] && b[0] != b[0]))
        return a[1] < b[1] || (b[1] != b[1] && a[1] == a[1]);
    return b[0] != b[0];
}

/* A complex128 argsort of 2^18 + 1 values whose parts are 0, -0, 1, -1.5, 2, +-inf or NaN, in
 * 64 rows (axis 1) and flattened, by definition: each row a permutation ordered by NumPy's
 * complex order, equal values in input order. */
static void run_complex_large(void)
{
    static const double parts[] = {0.0, -0.0, 1.0, -1.5, 2.0, INFINITY, -INFINITY, NAN};
    const int64_t n = (1 << 18) + 1;
    double *z = malloc((size_t)n * 16);
    int64_t *order = malloc((size_t)n * 8);
    bool *seen = calloc((size_t)n, 1);
    for (int64_t i = 0; i < 2 * n; i++)
        z[i] = parts[((uint64_t)(i + 1) * 0x9E3779B97F4A7C15ull) >> 61];
    for (int rows = 1; rows <= 64; rows *= 64) {
        int64_t len = n / rows, total = len * rows;
        loom_scope_begin();
        loom_array *a = loom_asarray(z, LOOM_COMPLEX128, 2, (int64_t[]){rows, len});
        int rc = loom_get(loom_argsort(a, 1), order, (size_t)total * 8);
        CHECK_EQ_INT(rc, LOOM_OK);
        memset(seen, 0, (size_t)n);
        int bad = 0;
        for (int64_t i = 0; rc == LOOM_OK && i < total; i++) {
            int64_t r = i / len, o = order[i];
            if (o < 0 || o >= len || seen[r * len + o]) {
                bad++;
                continue;
            }
            seen[r * len + o] = true;
            if (i % len == 0)
                continue;
            int64_t p = order[i - 1];
            if (p < 0 || p >= len)
                continue;
            const double *zp = z + 2 * (r * len + p), *zo = z + 2 * (r * len + o);
            bad += complex_less(zo, zp) || (!complex_less(zp, zo) && p > o);
        }
        if (bad)
            fprintf(stderr, "complex argsort, %lld rows: %d mismatches\n", (long long)rows, bad);
        CHECK_EQ_INT(bad, 0);
        loom_scope_end();
    }
    free(z);
    free(order);
    free(seen);
}

static void run_all(void)
{
    run_searchsorted();
    run_complex_searchsorted();
    run_large();
    run_digitize();
    run_partition();
    run_lexsort();
    run_lexsort_large();
    run_complex();
    run_complex_large();
}

int main(void)
{
    return gpu_test_main("gpu_test_search", run_all);
}
