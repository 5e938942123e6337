/* choice from an array's elements, permutation and shuffle of arrays, and permuted, on the GPU.
 * Exact: results are slices of the input, each taken once where no replacement is drawn, and
 * equal the input gathered at the index draws of a generator with the same seed (shuffle gives
 * what permutation gives). Statistical (chi-square at significance 1e-6): positions x values of
 * permuted rows and of the flattened shuffle are uniform, rows are shuffled independently, and
 * choice with p follows p. Sizes are small (at most 2^20 draws; 2^16 on the host device).
 * Skips (77) without a GPU. */
#define _POSIX_C_SOURCE 200809L
#include "check.h"
#include "host_values.h"
#include "gpu_main.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The standard normal quantile of 1 - 1e-6, for the chi-square bound. */
#define Z_1E6 4.7534

/* Chi-square of counts against probabilities p (each bin expects at least 20 here), at
 * significance 1e-6 (Wilson-Hilferty bound); bins of probability 0 must be empty. */
static void chi_square(const double *count, const double *p, int nb, double n, const char *label)
{
    double stat = 0;
    int df = -1;
    bool zero_ok = true;
    for (int b = 0; b < nb; b++) {
        if (p[b] == 0) {
            zero_ok = zero_ok && count[b] == 0;
            continue;
        }
        stat += (count[b] - p[b] * n) * (count[b] - p[b] * n) / (p[b] * n);
        df++;
    }
    const double t = 2.0 / (9 * df), crit = df * pow(1 - t + Z_1E6 * sqrt(t), 3);
    CHECK(zero_ok && stat <= crit);
    if (!zero_ok || stat > crit)
        fprintf(stderr, "%s: chi-square %.2f > %.2f (%d df)%s\n", label, stat, crit, df,
                zero_ok ? "" : ", a zero-probability bin drawn");
}

/* v[0..n) holds each of 0..n-1 exactly once. */
static bool is_permutation(const double *v, int64_t n)
{
    char *seen = calloc((size_t)n + 1, 1);
    bool ok = true;
    for (int64_t i = 0; i < n && ok; i++) {
        ok = v[i] >= 0 && v[i] < (double)n && v[i] == floor(v[i]) && !seen[(int64_t)v[i]];
        if (ok)
            seen[(int64_t)v[i]] = 1;
    }
    free(seen);
    return ok;
}

/* rows x cols with element (i, j) = i + 1000 j: a slice along either axis names its index. */
static loom_array *labelled(int64_t rows, int64_t cols)
{
    loom_array *i = loom_reshape(loom_arange(0, (double)rows, 1, LOOM_FLOAT64), 2, (int64_t[]){rows, 1});
    loom_array *j = loom_reshape(loom_arange(0, (double)cols, 1, LOOM_FLOAT64), 2, (int64_t[]){1, cols});
    return loom_add(i, loom_multiply(j, loom_scalar(1000.0)));
}

/* permutation and shuffle of a (1000, 3) array along axis 0 and of (3, 1000) along axis 1: the
 * slices are the input's, each once, and equal take(a, permutation(n)) under the same seed;
 * shuffle gives the permutation's result. */
static void check_permutation_array(void)
{
    for (int axis = 0; axis < 2; axis++) {
        loom_scope_begin();
        const int64_t n = 1000, rows = axis ? 3 : n, cols = axis ? n : 3;
        loom_rng *g1 = loom_random_default_rng(71), *g2 = loom_random_default_rng(71),
                 *g3 = loom_random_default_rng(71);
        loom_array *a = labelled(rows, cols);
        double *v = host_values(loom_rng_permutation_array(g1, a, axis), n * 3);
        double *idx = host_values(loom_rng_permutation(g2, n), n);
        double *sh = host_values(loom_rng_shuffle(g3, a, axis), n * 3);
        CHECK(is_permutation(idx, n));
        int bad = 0;
        for (int64_t r = 0; r < rows; r++)
            for (int64_t c = 0; c < cols; c++) {
                const double want = axis ? r + 1000 * idx[c] : idx[r] + 1000.0 * c;
                bad += v[r * cols + c] != want || sh[r * cols + c] != want;
            }
        CHECK_EQ_INT(bad, 0);
        free(v);
        free(idx);
        free(sh);
        loom_rng_destroy(g1);
        loom_rng_destroy(g2);
        loom_rng_destroy(g3);
        loom_scope_end();
    }
}

/* Positions x values in 8 x 8 cells over `lines` shuffles of 0..7 (or of 0..n-1 in 8 bands):
 * uniform by chi-square. */
static void position_value_cells(const double *v, int64_t lines, int64_t len, int64_t stride_line,
                                 int64_t stride_pos, const char *label)
{
    double count[64] = {0}, p[64];
    for (int64_t l = 0; l < lines; l++)
        for (int64_t k = 0; k < len; k++) {
            const double x = v[l * stride_line + k * stride_pos];
            count[(k * 8 / len) * 8 + (int64_t)x * 8 / len] += 1;
        }
    for (int c = 0; c < 64; c++)
        p[c] = 1.0 / 64;
    chi_square(count, p, 64, (double)(lines * len), label);
}

/* permuted along axis 1 of (4096, 8) and axis 0 of (8, 4096) rows 0..7: each line is a
 * permutation of 0..7, placed uniformly, lines shuffled independently (one shared permutation
 * fails the cells); along LOOM_AXIS_NONE a (64, 64) arange keeps its shape and holds a
 * permutation of 0..4095, values uniform over positions. */
static void check_permuted(void)
{
    loom_scope_begin();
    loom_rng *g = loom_random_default_rng(81);
    const int64_t lines = 4096, len = 8;
    loom_array *row = loom_arange(0, (double)len, 1, LOOM_FLOAT64);
    loom_array *a1 = loom_broadcast_to(loom_reshape(row, 2, (int64_t[]){1, len}), 2, (int64_t[]){lines, len});
    loom_array *a0 = loom_broadcast_to(loom_reshape(row, 2, (int64_t[]){len, 1}), 2, (int64_t[]){len, lines});
    double *v1 = host_values(loom_rng_permuted(g, a1, 1), lines * len);
    double *v0 = host_values(loom_rng_permuted(g, a0, -2), lines * len);
    int bad = 0;
    for (int64_t l = 0; l < lines; l++) {
        double line[8];
        for (int64_t k = 0; k < len; k++)
            line[k] = v0[k * lines + l];
        bad += !is_permutation(v1 + l * len, len) + !is_permutation(line, len);
    }
    CHECK_EQ_INT(bad, 0);
    position_value_cells(v1, lines, len, len, 1, "permuted(axis=1) positions x values");
    position_value_cells(v0, lines, len, 1, lines, "permuted(axis=0) positions x values");
    free(v1);
    free(v0);

    loom_array *sq = loom_reshape(loom_arange(0, 4096, 1, LOOM_FLOAT64), 2, (int64_t[]){64, 64});
    loom_array *flat = loom_rng_permuted(g, sq, LOOM_AXIS_NONE);
    CHECK(flat && loom_ndim(flat) == 2 && loom_shape(flat)[0] == 64 && loom_shape(flat)[1] == 64);
    double *vf = host_values(flat, 4096);
    CHECK(is_permutation(vf, 4096));
    position_value_cells(vf, 1, 4096, 0, 1, "permuted(axis=None) positions x values");
    free(vf);
    loom_rng_destroy(g);
    loom_scope_end();
}

/* choice from the rows of a (5, 2) array with p: 2^20 rows, each one of a's (column 1 = column
 * 0 + 1000), following p by chi-square, the zero-probability row never drawn, and equal to the
 * rows at loom_rng_choice's indices under the same seed (2^16 rows on the host device: p's
 * inverse CDF is a row reduction, 32 fibers per draw there; each bin still expects over 6500,
 * and the chi-square bound depends on the bins alone). Without replacement along axis 1 of
 * (2, 1000): 500 distinct columns of a; with p, a sample of every nonzero entry is exactly
 * those entries. */
static void check_choice_array(void)
{
    loom_scope_begin();
    const double p[5] = {0.1, 0.2, 0, 0.3, 0.4};
    const int64_t n = gpu_test_scaled(1 << 20, 1 << 16);
    loom_rng *g1 = loom_random_default_rng(91), *g2 = loom_random_default_rng(91);
    loom_array *a = labelled(5, 2);
    double *v = host_values(loom_rng_choice_array(g1, a, 1, &n, true, p, 0), n * 2);
    double *idx = host_values(loom_rng_choice(g2, 5, 1, &n, true, p), n);
    double count[5] = {0};
    int bad = 0;
    for (int64_t i = 0; i < n; i++) {
        const bool ok = v[2 * i] == idx[i] && v[2 * i + 1] == idx[i] + 1000;
        bad += !ok;
        if (ok && idx[i] >= 0 && idx[i] < 5)
            count[(int)idx[i]] += 1;
    }
    CHECK_EQ_INT(bad, 0);
    chi_square(count, p, 5, (double)n, "choice_array(rows, p) with replacement");
    free(v);
    free(idx);

    loom_array *b = labelled(2, 1000);
    double *w = host_values(loom_rng_choice_array(g1, b, 1, (int64_t[]){500}, false, NULL, 1), 1000);
    char seen[1000] = {0};
    bad = 0;
    for (int64_t k = 0; k < 500; k++) {
        const double j = w[k] / 1000; /* row 0 holds 1000 j, row 1 holds 1 + 1000 j */
        const bool ok = w[500 + k] == w[k] + 1 && j >= 0 && j < 1000 && j == floor(j) && !seen[(int)j];
        bad += !ok;
        if (ok)
            seen[(int)j] = 1;
    }
    CHECK_EQ_INT(bad, 0);
    free(w);

    double *all = host_values(loom_rng_choice_array(g1, a, 1, (int64_t[]){4}, false, p, 0), 8);
    double got[4] = {all[0], all[2], all[4], all[6]};
    int mask = 0;
    for (int k = 0; k < 4; k++)
        mask |= got[k] >= 0 && got[k] < 5 ? 1 << (int)got[k] : 64;
    CHECK_EQ_INT(mask, 1 | 2 | 8 | 16);
    free(all);
    loom_rng_destroy(g1);
    loom_rng_destroy(g2);
    loom_scope_end();
}

int main(void)
{
    if (!gpu_test_start("gpu_test_random_shuffle"))
        return 77;
    check_permutation_array();
    check_permuted();
    check_choice_array();
    return gpu_test_finish("gpu_test_random_shuffle");
}
