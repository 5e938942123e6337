/* loom_sort and loom_argsort on the GPU. Against NumPy: small inputs of every dtype NumPy has,
 * with NaN of both signs, +-0, +-inf and duplicates, along every axis and flattened, contiguous
 * and as transposed views (tests/gpu/sort_cases.inc, NumPy's stable sort and argsort). By NumPy's
 * definition of a stable sort, on every dtype (bfloat16 too) at lengths 0, 1, 2, 2^20+3: argsort
 * is a permutation ordering the keys with NaN last and -0.0 == +0.0, equal keys in input order;
 * sort gives the keys in that order. Axis sorts of many short rows and few long rows, a strided
 * view, 50M values of sin(linspace). A plan with a sort replays as one CUDA Graph. Runs fused
 * and with LOOM_FUSE=0. Skips (77) without a device; with LOOM_TEST_DEVICE=cpu runs on the host
 * device with the two largest sizes scaled down and without the CUDA Graph counts. */
#define _POSIX_C_SOURCE 200809L
#include "reduce_host.h"
#include "sort_order.h"

#include <stdlib.h>

typedef struct sort_case {
    const char *dtype;
    int ndim;
    int64_t shape[2];
    int axis;
    int64_t n;
    const uint64_t *in, *sorted;
    const int64_t *arg;
} sort_case;

#include "sort_cases.inc"
#include "gpu_main.h"

/* got[i] is want[j] as a sorted value: the same bits, or both NaN, or both zeros (the table's
 * NumPy sort is not stable and drops zero signs; run_zero_signs checks Loom's order). */
static bool same_key(const void *got, int64_t i, const void *want, int64_t j, loom_dtype dt)
{
    size_t sz = loom_dtype_size(dt);
    if (elem_bits(got, i, sz) == elem_bits(want, j, sz))
        return true;
    if (!loom__is_float(dt))
        return false;
    double x = loom__host_to_double((const char *)got + i * (int64_t)sz, dt);
    double y = loom__host_to_double((const char *)want + j * (int64_t)sz, dt);
    return (isnan(x) && isnan(y)) || (x == 0 && y == 0);
}

/* The NumPy table, on the array itself and on a transposed view of a transposed copy. */
static void run_table(void)
{
    for (size_t c = 0; c < sizeof sort_cases / sizeof *sort_cases; c++) {
        const sort_case *t = &sort_cases[c];
        loom_dtype dt = loom_dtype_from_name(t->dtype);
        size_t sz = loom_dtype_size(dt);
        char *in = pack(t->in, t->n, sz), *want = pack(t->sorted, t->n, sz);
        for (int view = 0; view < 1 + (t->ndim == 2); view++) {
            loom_scope_begin();
            loom_array *a;
            if (view) {
                int64_t r = t->shape[0], k = t->shape[1];
                char *tr = malloc((size_t)t->n * sz);
                for (int64_t i = 0; i < r; i++)
                    for (int64_t j = 0; j < k; j++)
                        memcpy(tr + (j * r + i) * (int64_t)sz, in + (i * k + j) * (int64_t)sz, sz);
                a = loom_transpose(loom_asarray(tr, dt, 2, (int64_t[]){k, r}), NULL);
                free(tr);
            } else {
                a = loom_asarray(in, dt, t->ndim, t->shape);
            }
            char *got = malloc((size_t)t->n * sz + 1);
            int64_t *arg = malloc((size_t)t->n * 8 + 1);
            int rc1 = loom_get(loom_sort(a, t->axis), got, (size_t)t->n * sz);
            int rc2 = loom_get(loom_argsort(a, t->axis), arg, (size_t)t->n * 8);
            CHECK_EQ_INT(rc1, LOOM_OK);
            CHECK_EQ_INT(rc2, LOOM_OK);
            if (rc1 || rc2)
                fprintf(stderr, "case %zu: %s\n", c, loom_last_error());
            int bad = 0;
            for (int64_t i = 0; rc1 == LOOM_OK && rc2 == LOOM_OK && i < t->n; i++) {
                bad += !same_key(got, i, want, i, dt);
                bad += arg[i] != t->arg[i];
            }
            if (bad)
                fprintf(stderr, "case %zu (%s, axis %d, view %d): %d mismatches\n", c, t->dtype,
                        t->axis, view, bad);
            CHECK_EQ_INT(bad, 0);
            free(got);
            free(arg);
            loom_scope_end();
        }
        free(in);
        free(want);
    }
}

/* keys (n values, C order) sorted by argsort `arg` and by sort `got` along rows of length len. */
static int check_sorted_rows(const void *keys, const int64_t *arg, const void *got, int64_t n,
                             int64_t len, loom_dtype dt)
{
    int bad = 0;
    char *seen = calloc((size_t)(len ? len : 1), 1);
    for (int64_t r = 0; len && r < n / len; r++) {
        memset(seen, 0, (size_t)len);
        const int64_t *g = arg + r * len;
        for (int64_t i = 0; i < len; i++) {
            if (g[i] < 0 || g[i] >= len || seen[g[i]]++) {
                bad++;
                continue;
            }
            if (got && !same_key(got, r * len + i, keys, r * len + g[i], dt))
                bad++;
            if (i > 0 && g[i - 1] >= 0 && g[i - 1] < len) {
                int c = compare(keys, r * len + g[i - 1], r * len + g[i], dt);
                bad += c > 0 || (c == 0 && g[i - 1] > g[i]);
            }
        }
    }
    free(seen);
    return bad;
}

/* v (a float, an infinity or a multiple of 1/4 in [-12.5, 12.5]: exact in every float dtype)
 * as dt's bits. */
static uint64_t float_bits(double v, loom_dtype dt)
{
    if (dt == LOOM_FLOAT64) {
        uint64_t b;
        memcpy(&b, &v, 8);
        return b;
    }
    float f = (float)v;
    uint32_t b;
    memcpy(&b, &f, 4);
    if (dt == LOOM_FLOAT32)
        return b;
    if (dt == LOOM_BFLOAT16)
        return b >> 16;
    /* float16: sign, exponent rebiased from 127 to 15, 10 mantissa bits (no subnormals here) */
    uint32_t sign = (b >> 16) & 0x8000u, exp = (b >> 23) & 0xffu, man = b & 0x7fffffu;
    if (exp == 0xff)
        return sign | 0x7c00u | (man ? 0x200u : 0);
    if (exp == 0)
        return sign;
    return sign | ((exp - 127 + 15) << 10) | (man >> 13);
}

/* Random keys of dt: few distinct values (duplicates), specials for floats (NaN of both signs,
 * +-0, +-inf). */
static void *random_keys(loom_dtype dt, int64_t n)
{
    size_t sz = loom_dtype_size(dt);
    char *p = malloc((size_t)(n ? n : 1) * sz);
    static const double sp[] = {0.0, -0.0, 1.0 / 0.0, -1.0 / 0.0, 0.5, -2.5};
    for (int64_t i = 0; i < n; i++) {
        uint64_t bits = rng_next();
        if (loom__is_float(dt)) {
            double v = rng_int(0, 9) < 2 ? sp[rng_int(0, 5)] : (double)rng_int(-50, 50) / 4;
            if (rng_int(0, 40) == 0)
                v = rng_int(0, 1) ? NAN : -NAN;
            bits = rng_int(0, 40) == 0 ? ~0ull : float_bits(v, dt); /* ~0: a negative NaN */
        } else if (dt == LOOM_BOOL) {
            bits &= 1;
        } else if (rng_int(0, 1)) {
            bits %= 5; /* duplicates */
        }
        memcpy(p + i * (int64_t)sz, &bits, sz);
    }
    return p;
}

/* Sort and argsort of an array of shape (rows, len) along its last axis, by definition. */
static void check_rows(loom_dtype dt, int64_t rows, int64_t len)
{
    int64_t n = rows * len;
    size_t sz = loom_dtype_size(dt);
    void *keys = random_keys(dt, n);
    loom_scope_begin();
    loom_array *a = rows == 1 ? loom_asarray(keys, dt, 1, &len)
                              : loom_asarray(keys, dt, 2, (int64_t[]){rows, len});
    char *got = malloc((size_t)n * sz + 1);
    int64_t *arg = malloc((size_t)n * 8 + 1);
    CHECK_EQ_INT(loom_get(loom_sort(a, -1), got, (size_t)n * sz), LOOM_OK);
    CHECK_EQ_INT(loom_get(loom_argsort(a, -1), arg, (size_t)n * 8), LOOM_OK);
    int bad = check_sorted_rows(keys, arg, got, n, len, dt);
    if (bad)
        fprintf(stderr, "%s (%lld, %lld): %d mismatches\n", loom_dtype_name(dt), (long long)rows,
                (long long)len, bad);
    CHECK_EQ_INT(bad, 0);
    free(got);
    free(arg);
    free(keys);
    loom_scope_end();
}

static void run_properties(void)
{
    static const loom_dtype dts[] = {LOOM_BOOL, LOOM_INT8, LOOM_INT16, LOOM_INT32, LOOM_INT64,
                                     LOOM_UINT8, LOOM_UINT16, LOOM_UINT32, LOOM_UINT64,
                                     LOOM_FLOAT16, LOOM_BFLOAT16, LOOM_FLOAT32, LOOM_FLOAT64};
    for (size_t d = 0; d < sizeof dts / sizeof *dts; d++) {
        for (int64_t len = 0; len <= 2; len++)
            check_rows(dts[d], 1, len);
        check_rows(dts[d], 1, (1 << 20) + 3);
        check_rows(dts[d], 4096, 33);  /* many short rows */
        check_rows(dts[d], 3, 100003); /* few long rows */
    }
    if (gpu_test_on_host()) /* CI's time: the host sorts each row on one core */
        check_rows(LOOM_FLOAT32, 1024, 1024);
    else
        check_rows(LOOM_FLOAT32, 8192, 8192);
}

/* Axis 0 of a (1000, 7) array and a strided view: the keys as the host sees them. */
static void run_views(void)
{
    loom_scope_begin();
    int64_t n = 2001;
    void *keys = random_keys(LOOM_FLOAT32, n);
    loom_array *a = loom_asarray(keys, LOOM_FLOAT32, 1, &n);
    loom_array *v = loom_slice(a, 0, 1, n, 2); /* 1000 values */
    float *vk = malloc(1000 * sizeof *vk), *got = malloc(1000 * sizeof *got);
    int64_t *arg = malloc(1000 * 8);
    for (int i = 0; i < 1000; i++)
        vk[i] = ((float *)keys)[1 + 2 * i];
    CHECK_EQ_INT(loom_get(loom_sort(v, 0), got, 4000), LOOM_OK);
    CHECK_EQ_INT(loom_get(loom_argsort(v, 0), arg, 8000), LOOM_OK);
    CHECK_EQ_INT(check_sorted_rows(vk, arg, got, 1000, 1000, LOOM_FLOAT32), 0);
    /* (1000, 2) along axis 0 = the columns of the first 2000 values */
    loom_array *m = loom_reshape(loom_slice(a, 0, 0, 2000, 1), 2, (int64_t[]){1000, 2});
    float *cols = malloc(2000 * sizeof *cols), *mg = malloc(2000 * sizeof *mg);
    int64_t *ma = malloc(2000 * 8);
    for (int i = 0; i < 2000; i++)
        cols[(i % 2) * 1000 + i / 2] = ((float *)keys)[i];
    CHECK_EQ_INT(loom_get(loom_transpose(loom_sort(m, 0), NULL), mg, 8000), LOOM_OK);
    CHECK_EQ_INT(loom_get(loom_transpose(loom_argsort(m, 0), NULL), ma, 16000), LOOM_OK);
    CHECK_EQ_INT(check_sorted_rows(cols, ma, mg, 2000, 1000, LOOM_FLOAT32), 0);
    free(keys), free(vk), free(got), free(arg), free(cols), free(mg), free(ma);
    loom_scope_end();
}

/* 50M values of sin(linspace): the seed exercise's sort, fused with its producer (2^20 + 7 on
 * the host device, for CI's time). */
static void run_50m(void)
{
    loom_scope_begin();
    int64_t n = gpu_test_on_host() ? (1 << 20) + 7 : 50000000;
    loom_array *x = loom_sin(loom_linspace(0, 6.283185307179586, n, true, LOOM_FLOAT32));
    float *keys = malloc((size_t)n * 4), *got = malloc((size_t)n * 4);
    int64_t *arg = malloc((size_t)n * 8);
    CHECK_EQ_INT(loom_get(x, keys, (size_t)n * 4), LOOM_OK);
    CHECK_EQ_INT(loom_get(loom_sort(x, 0), got, (size_t)n * 4), LOOM_OK);
    CHECK_EQ_INT(loom_get(loom_argsort(x, LOOM_AXIS_NONE), arg, (size_t)n * 8), LOOM_OK);
    CHECK_EQ_INT(check_sorted_rows(keys, arg, got, n, n, LOOM_FLOAT32), 0);
    free(keys), free(got), free(arg);
    loom_scope_end();
}

/* The producer kernel and the sort are one CUDA Graph segment: evaluations after the first
 * launch one graph and nothing else. */
static void run_replay(void)
{
    if (gpu_test_on_host()) /* the host device neither caches plans nor replays CUDA Graphs */
        return;
    loom_stats s0, s1;
    for (int k = 0; k < 3; k++) {
        loom_scope_begin();
        /* the same structure each time: only the scalar changes */
        loom_array *r =
            loom_sort(loom_mul_scalar(loom_sin(loom_arange(0, 10000, 1, LOOM_FLOAT32)), k + 1.0), 0);
        loom_stats_get(&s0);
        CHECK_EQ_INT(loom_eval(r), LOOM_OK);
        loom_stats_get(&s1);
        if (k > 0 && !getenv("LOOM_GRAPHS")) {
            CHECK_EQ_INT(s1.graph_launches - s0.graph_launches, 1);
            CHECK_EQ_INT(s1.kernels_launched - s0.kernels_launched, 0);
            CHECK_EQ_INT(s1.host_syncs - s0.host_syncs, 0);
        }
        loom_scope_end();
    }
}

/* -0.0 and +0.0 are equal keys: loom_sort keeps each zero's sign and, being stable, the
 * zeros' input order (CUB treats the two zeros as one key; docs/sorting.md). */
static void run_zero_signs(void)
{
    static const double in[] = {0.0, -0.0, 1.0, -0.0, 0.0, -1.0, -0.0, 0.0};
    static const double want[] = {-1.0, 0.0, -0.0, -0.0, 0.0, -0.0, 0.0, 1.0};
    static const loom_dtype dts[] = {LOOM_FLOAT16, LOOM_BFLOAT16, LOOM_FLOAT32, LOOM_FLOAT64};
    for (size_t d = 0; d < sizeof dts / sizeof *dts; d++) {
        loom_scope_begin();
        double got[8];
        loom_array *x = loom_astype(loom_asarray(in, LOOM_FLOAT64, 1, (int64_t[]){8}), dts[d]);
        int rc = loom_get(loom_astype(loom_sort(x, -1), LOOM_FLOAT64), got, sizeof got);
        CHECK_EQ_INT(rc, LOOM_OK);
        for (int i = 0; rc == LOOM_OK && i < 8; i++) {
            CHECK(got[i] == want[i] && signbit(got[i]) == signbit(want[i]));
            if (got[i] != want[i] || signbit(got[i]) != signbit(want[i]))
                fprintf(stderr, "%s: sorted zeros [%d] = %g, want %g\n", loom_dtype_name(dts[d]), i,
                        got[i], want[i]);
        }
        loom_scope_end();
    }
}

static void run_all(void)
{
    run_zero_signs();
    run_table();
    run_properties();
    run_views();
    run_50m();
    run_replay();
}

int main(void)
{
    if (!gpu_test_start("gpu_test_sort"))
        return 77;
    rng_seed_from_env();
    run_all();
    gpu_test_unfused(run_all);
    return gpu_test_finish("gpu_test_sort");
}
