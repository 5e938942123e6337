/* Joins, splits, gathers and shape routines on the GPU against NumPy: every case of
 * tests/data/join_cases.txt, shape_cases.txt, take_cases.txt and getitem_cases.txt (every dtype, 0-size and 1-element results, negative indices,
 * modes) is evaluated on the device, fused and with LOOM_FUSE=0, and compared with NumPy's
 * values exactly (they are small integers in every dtype). Indices out of bounds: reading the
 * result fails with LOOM_ERR_INVALID naming NumPy's axis and size, and the source and indices
 * stay readable. Also: joins of transposed, generated and broadcast inputs, a long join, and
 * x[idx] * 2 + 1 with a computed idx against host references. Skips (77) without a device. */
#define _POSIX_C_SOURCE 200809L
#include "check.h"
#include "index_cases.h"
#include "gpu_main.h"
#include "table_values.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void join_tables(void)
{
    CHECK(run_table(LOOM_TEST_DATA "/join_cases.txt", run_join, check_values, false) > 400);
    CHECK(run_table(LOOM_TEST_DATA "/shape_cases.txt", run_shape, check_values, false) > 200);
}

/* run_gather_table's oob_checker: the read fails naming the function, axis and size, and
 * the source stays readable. */
static void check_oob(const char *where, loom_array *r, loom_array *a, const char *func,
                      int64_t axis, int64_t size)
{
    char want[160];
    snprintf(want, sizeof want, "loom_%s: index out of bounds for axis %lld with size %lld",
             func, (long long)axis, (long long)size);
    /* evaluation itself succeeds without waiting; reading reports it */
    CHECK_EQ_INT(loom_eval(r), LOOM_OK);
    double *v = read_back(r);
    CHECK(v == NULL);
    free(v);
    CHECK_EQ_INT(loom_last_error_code(), LOOM_ERR_INVALID);
    CHECK_STR(loom_last_error(), want);
    if (!loom_last_error() || strcmp(loom_last_error(), want))
        fprintf(stderr, "%s\n", where);
    double *av = read_back(a);
    CHECK(av != NULL);
    free(av);
}

static void gather_tables(void)
{
    CHECK_EQ_INT(run_gather_table(LOOM_TEST_DATA "/take_cases.txt", check_values, check_oob, false),
                 300);
    CHECK(run_gather_table(LOOM_TEST_DATA "/getitem_cases.txt", check_values, check_oob, false) > 400);
}

/* Non-contiguous, generated and broadcast inputs along a middle axis; a join of 2^20 + 7. */
static void join_layouts(void)
{
    loom_scope_begin();
    double data[36];
    for (int i = 0; i < 36; i++)
        data[i] = i;
    int64_t s1[] = {3, 2, 4}, s2[] = {4, 3, 3};
    loom_array *x = loom_asarray(data, LOOM_FLOAT64, 3, s1);
    loom_array *y = loom_transpose(loom_asarray(data, LOOM_FLOAT64, 3, s2), (int[]){1, 2, 0});
    loom_array *z = loom_reshape(loom_arange(0, 12, 1, LOOM_FLOAT64), 3, (int64_t[]){3, 1, 4});
    loom_array *w = loom_broadcast_to(loom_scalar(5.0), 3, (int64_t[]){3, 2, 4});
    loom_array *xs[] = {x, y, loom_flip(z, NULL, 0), loom_sqrt(w)};
    loom_array *j = loom_concatenate(xs, 4, 1);
    double got[3 * 8 * 4];
    CHECK_EQ_INT(loom_get(j, got, sizeof got), LOOM_OK);
    int bad = 0;
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 8; b++)
            for (int c = 0; c < 4; c++) {
                double want;
                if (b < 2)
                    want = data[(a * 2 + b) * 4 + c];
                else if (b < 5) /* y[a][b-2][c] = orig[c][a][b-2], orig (4,3,3) */
                    want = data[(c * 3 + a) * 3 + (b - 2)];
                else if (b < 6) /* flip of every axis of z (3,1,4) */
                    want = (double)((2 - a) * 4 + (3 - c));
                else
                    want = sqrt(5.0);
                bad += got[(a * 8 + b) * 4 + c] != want;
            }
    CHECK_EQ_INT(bad, 0);

    int64_t n1 = (1 << 20) + 7, n2 = 3;
    loom_array *l1 = loom_arange(0, (double)n1, 1, LOOM_FLOAT32);
    loom_array *l2 = loom_full(1, &n2, -1.0, LOOM_FLOAT32);
    loom_array *ls[] = {loom_mul_scalar(l1, 2.0), loom_add_scalar(l2, 1.0)};
    loom_array *big = loom_concatenate(ls, 2, 0);
    float *out = malloc((size_t)(n1 + n2) * sizeof *out);
    CHECK_EQ_INT(loom_get(big, out, (size_t)(n1 + n2) * sizeof *out), LOOM_OK);
    bad = 0;
    for (int64_t i = 0; i < n1 + n2; i++)
        bad += out[i] != (i < n1 ? 2.0f * (float)i : 0.0f);
    CHECK_EQ_INT(bad, 0);
    free(out);
    loom_scope_end();
}

/* x[idx] * 2 + 1 with idx computed in the same kernel; a wrapped take of a transposed source. */
static void fused_gathers(void)
{
    loom_scope_begin();
    enum { N = 4096 };
    static float xs[N], got[N];
    for (int i = 0; i < N; i++)
        xs[i] = (float)(i % 977) * 0.5f;
    int64_t n = N;
    loom_array *x = loom_asarray(xs, LOOM_FLOAT32, 1, &n);
    loom_array *idx = loom_remainder(loom_multiply(loom_arange(0, N, 1, LOOM_INT64), loom_scalar_int(7)),
                                     loom_scalar_int(N));
    loom_array *y = loom_add_scalar(loom_mul_scalar(loom_take(x, idx, 0), 2.0), 1.0);
    CHECK_EQ_INT(loom_get(y, got, sizeof got), LOOM_OK);
    int bad = 0;
    for (int i = 0; i < N; i++)
        bad += got[i] != xs[(int64_t)i * 7 % N] * 2.0f + 1.0f;
    CHECK_EQ_INT(bad, 0);

    /* an index past the end in a fused gather: the consumer's read reports it */
    loom_array *past = loom_add(idx, loom_scalar_int(1));
    loom_array *yp = loom_mul_scalar(loom_take(x, past, 0), 2.0);
    CHECK(loom_get(yp, got, sizeof got) == LOOM_ERR_INVALID);
    CHECK_STR(loom_last_error(), "loom_take: index out of bounds for axis 0 with size 4096");
    CHECK_EQ_INT(loom_get(x, got, sizeof got), LOOM_OK);

    /* a long gather with scattered indices (negative ones too) from a strided source */
    enum { M = (1 << 20) + 5 };
    float *big = malloc(2 * (size_t)M * sizeof *big), *gout = malloc((size_t)M * sizeof *gout);
    int64_t *bi = malloc((size_t)M * sizeof *bi), m2 = 2 * (int64_t)M, m1 = M;
    for (int64_t i = 0; i < 2 * (int64_t)M; i++)
        big[i] = (float)(i % 10007);
    for (int64_t i = 0; i < M; i++)
        bi[i] = (i * 2654435761LL) % M - (i % 3 == 0 ? M : 0);
    loom_array *src2 = loom_slice(loom_asarray(big, LOOM_FLOAT32, 1, &m2), 0, 1, LOOM_NONE, 2);
    loom_array *gbig = loom_take(src2, loom_asarray(bi, LOOM_INT64, 1, &m1), 0);
    CHECK_EQ_INT(loom_get(gbig, gout, (size_t)M * sizeof *gout), LOOM_OK);
    bad = 0;
    for (int64_t i = 0; i < M; i++) {
        int64_t k = bi[i] < 0 ? bi[i] + M : bi[i];
        bad += gout[i] != big[2 * k + 1];
    }
    CHECK_EQ_INT(bad, 0);
    free(big);
    free(gout);
    free(bi);

    /* np.choose in mode raise: a choice out of range fails the read, naming loom_choose */
    int64_t two1 = 2, cv[] = {0, 5};
    loom_array *ch[] = {loom_zeros(1, &two1, LOOM_FLOAT32), loom_ones(1, &two1, LOOM_FLOAT32)};
    loom_array *chosen = loom_choose(loom_asarray(cv, LOOM_INT64, 1, &two1), ch, 2, LOOM_MODE_RAISE);
    float cg[2];
    CHECK(loom_get(chosen, cg, sizeof cg) == LOOM_ERR_INVALID);
    CHECK_STR(loom_last_error(), "loom_choose: index out of bounds for axis 0 with size 2");
    int64_t s3[] = {3, 4, 5};
    loom_array *src = loom_transpose(loom_reshape(loom_arange(0, 60, 1, LOOM_FLOAT64), 3, s3), NULL);
    int64_t two[] = {2, 2}, iv[] = {0, -1, 7, 2};
    loom_array *ix = loom_asarray(iv, LOOM_INT64, 2, two);
    loom_array *g = loom_take_mode(src, ix, 1, LOOM_MODE_WRAP); /* (5, 2, 2, 3) */
    double out[60];
    CHECK_EQ_INT(loom_get(g, out, sizeof out), LOOM_OK);
    bad = 0;
    for (int a = 0; a < 5; a++)
        for (int k = 0; k < 4; k++)
            for (int c = 0; c < 3; c++) {
                int64_t j = ((iv[k] % 4) + 4) % 4; /* src[a][j][c] = arange[c][j][a] */
                bad += out[(a * 4 + k) * 3 + c] != (double)((c * 4 + j) * 5 + a);
            }
    CHECK_EQ_INT(bad, 0);
    loom_scope_end();
}

static void run_all(void)
{
    join_tables();
    gather_tables();
    join_layouts();
    fused_gathers();
}

int main(void)
{
    return gpu_test_main("gpu_test_index", run_all);
}
