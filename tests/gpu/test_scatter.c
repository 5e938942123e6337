/* Updates that scatter on the GPU against NumPy: every second case of
 * tests/data/scatter_cases.txt (ufunc.at, setitem, put; every dtype, repeated indices,
 * negative indices, modes; values compared exactly: they are small integers) evaluated on the
 * device; indices out of bounds fail when read, naming the function, and the input stays
 * readable. Then: at_add of 2^20 float32 values into 1000 bins equals NumPy's sequential
 * float32 accumulation bit for bit and is the same bits on a second evaluation; all values in
 * one bin; at_minimum with NaN; setitem through a slice of a transposed view; the input never
 * changes. Fused only (LOOM_FUSE=0 plans the same scatter kernel), small sizes: few kernels to
 * compile. Skips (77) without a device. */
#define _POSIX_C_SOURCE 200809L
#include "check.h"
#include "scatter_cases.h"
#include "table_values.h"
#include "gpu_main.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void check_oob(const char *where, loom_array *r, loom_array *a, const char *func,
                      int64_t axis, int64_t size)
{
    char want[160];
    snprintf(want, sizeof want, "%s: index out of bounds for axis %lld with size %lld", func,
             (long long)axis, (long long)size);
    CHECK_EQ_INT(loom_eval(r), LOOM_OK); /* no host wait: reading reports it */
    double *v = read_back(r);
    CHECK(v == NULL);
    free(v);
    CHECK_EQ_INT(loom_last_error_code(), LOOM_ERR_INVALID);
    CHECK_STR(loom_last_error(), want);
    if (!loom_last_error() || strcmp(loom_last_error(), want))
        fprintf(stderr, "%s\n", where);
    /* the old version is intact */
    double *av = read_back(a);
    CHECK(av != NULL);
    free(av);
}

/* Keeps every second case: half the kernels to compile, every kind still covered. */
static int every_other;
static void check_half(const char *where, loom_array *r, char **p)
{
    if (every_other++ % 2 == 0)
        check_values(where, r, p);
}

static void table(void)
{
    CHECK_EQ_INT(run_scatter_table(LOOM_TEST_DATA "/scatter_cases.txt", check_half, check_oob,
                                   false),
                 400);
}

static uint32_t lcg(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}

/* 2^20 float32 values into 1000 bins: NumPy's add.at adds them one by one in float32, in
 * input order; so does each bin's fold. Two evaluations give the same bits. */
static void at_add_bits(void)
{
    loom_scope_begin();
    enum { N = 1 << 20, BINS = 1000 };
    int64_t n = N, bins = BINS;
    int32_t *idx = malloc(N * sizeof *idx);
    float *val = malloc(N * sizeof *val), want[BINS], got[2][BINS], base[BINS];
    uint32_t s = 7;
    for (int i = 0; i < BINS; i++)
        want[i] = base[i] = (float)i * 0.25f;
    for (int i = 0; i < N; i++) {
        idx[i] = (int32_t)(lcg(&s) % BINS) - (i % 3 == 0 ? BINS : 0); /* some negative */
        val[i] = (float)(lcg(&s) % 100000) * 1e-3f - 50.0f;
    }
    for (int i = 0; i < N; i++) {
        int b = idx[i] < 0 ? idx[i] + BINS : idx[i];
        want[b] = want[b] + val[i];
    }
    for (int run = 0; run < 2; run++) {
        loom_array *x = loom_asarray(base, LOOM_FLOAT32, 1, &bins);
        loom_index_term t[] = {{.kind = LOOM_INDEX_ARRAY,
                                .array = loom_asarray(idx, LOOM_INT32, 1, &n)}};
        loom_array *y = loom_at_add(x, t, 1, loom_asarray(val, LOOM_FLOAT32, 1, &n));
        CHECK_EQ_INT(loom_get(y, got[run], sizeof got[run]), LOOM_OK);
        float xs[BINS];
        CHECK_EQ_INT(loom_get(x, xs, sizeof xs), LOOM_OK);
        CHECK(memcmp(xs, base, sizeof xs) == 0); /* the old version is unchanged */
    }
    CHECK(memcmp(got[0], want, sizeof want) == 0);
    CHECK(memcmp(got[0], got[1], sizeof want) == 0);
    int bad = 0;
    for (int i = 0; i < BINS; i++)
        if (got[0][i] != want[i] && bad++ < 3)
            fprintf(stderr, "at_add bin %d: %.9g, sequential float32 %.9g\n", i, got[0][i], want[i]);
    /* every value in one bin: one long run */
    int64_t one = 1;
    loom_array *z = loom_zeros(1, &one, LOOM_FLOAT64);
    loom_index_term t0[] = {{.kind = LOOM_INDEX_ARRAY,
                             .array = loom_zeros(1, &(int64_t){1 << 16}, LOOM_INT64)}};
    double total = 0;
    CHECK_EQ_INT(loom_get(loom_at_add(z, t0, 1, loom_scalar(0.5)), &total, sizeof total), LOOM_OK);
    CHECK(total == 32768.0);
    free(idx);
    free(val);
    loom_scope_end();
}

static void nan_and_views(void)
{
    loom_scope_begin();
    /* np.minimum.at([1, 2, 3], [0, 0, 1], [nan, 0, 5]) -> [nan, 2, 3] */
    int64_t three = 3;
    double av[] = {1, 2, 3}, vv[] = {NAN, 0, 5}, out[3];
    int64_t iv[] = {0, 0, 1};
    loom_index_term t[] = {{.kind = LOOM_INDEX_ARRAY, .array = loom_asarray(iv, LOOM_INT64, 1, &three)}};
    loom_array *m = loom_at_minimum(loom_asarray(av, LOOM_FLOAT64, 1, &three), t, 1,
                                    loom_asarray(vv, LOOM_FLOAT64, 1, &three));
    CHECK_EQ_INT(loom_get(m, out, sizeof out), LOOM_OK);
    CHECK(isnan(out[0]) && out[1] == 2 && out[2] == 3);
    /* b = arange(12).reshape(3, 4).T (4 x 3); b[1:3, ::2] = [[-1], [-2]] */
    int64_t s34[] = {3, 4};
    loom_array *b = loom_transpose(loom_reshape(loom_arange(0, 12, 1, LOOM_INT32), 2, s34), NULL);
    loom_index_term st[] = {{.kind = LOOM_INDEX_SLICE, .start = 1, .stop = 3, .step = 1},
                            {.kind = LOOM_INDEX_SLICE, .start = LOOM_NONE, .stop = LOOM_NONE, .step = 2}};
    int64_t s21[] = {2, 1};
    int32_t nv[] = {-1, -2}, got[12];
    loom_array *r = loom_setitem(b, st, 2, loom_asarray(nv, LOOM_INT32, 2, s21));
    CHECK_EQ_INT(loom_get(r, got, sizeof got), LOOM_OK);
    int bad = 0;
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 3; j++) {
            int want = j * 4 + i;
            if (i >= 1 && i < 3 && j % 2 == 0)
                want = i == 1 ? -1 : -2;
            bad += got[i * 3 + j] != want;
        }
    CHECK_EQ_INT(bad, 0);
    loom_scope_end();
}

int main(void)
{
    if (!gpu_test_start("gpu_test_scatter"))
        return 77;
    table();
    at_add_bits();
    nan_and_views();
    return gpu_test_finish("gpu_test_scatter");
}
