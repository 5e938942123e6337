/* np.pad's modes computed from the values on the GPU against NumPy: every case of
 * tests/data/pad_cases.txt (maximum, minimum, mean, median, with and without stat_length,
 * linear_ramp over integer, bool and float dtypes) and of tests/data/pad_odd_cases.txt
 * (reflect_type="odd", exact: small integers, integer dtypes wrapping), and odd reflections
 * beside infinite and NaN elements. Integer results are exact; float means and ramps are compared to a relative
 * 1e-6 (float16: 1e-3), since the order of a float sum is Loom's. A median over NaN is NaN.
 * Skips (77) without a device. */
#define _POSIX_C_SOURCE 200809L
#include "check.h"
#include "table_values.h"
#include "gpu_main.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Float means and ramps within a relative 1e-6 (float16: 1e-3), the rest exact. */
static void check_pad(const char *where, loom_array *r, char **p)
{
    loom_dtype dt = loom_dtype_of(r);
    check_values_rtol(where, r, p,
                      dt == LOOM_FLOAT16 ? 1e-3 : dt == LOOM_FLOAT32 || dt == LOOM_FLOAT64 ? 1e-6 : 0);
}

/* np.pad([[1, nan, 3], [4, 5, 6]] (float32), 1, mode="median"): NaN where the axis holds one. */
static void median_nan(void)
{
    loom_scope_begin();
    int64_t s[] = {2, 3};
    float in[] = {1, NAN, 3, 4, 5, 6}, got[20];
    const float N = NAN, want[20] = {N, 2.5f, N, 4.5f, N, N, 1, N, 3, N,
                                     5, 4, 5, 6, 5, N, 2.5f, N, 4.5f, N};
    loom_array *r = loom_pad(loom_asarray(in, LOOM_FLOAT32, 2, s), (int64_t[]){1}, 1, "median", 0);
    CHECK_EQ_INT(loom_get(r, got, sizeof got), LOOM_OK);
    int bad = 0;
    for (int i = 0; i < 20; i++)
        bad += isnan(want[i]) ? !isnan(got[i]) : got[i] != want[i];
    CHECK_EQ_INT(bad, 0);
    loom_scope_end();
}

/* reflect_type="odd" beside an infinite or NaN element (NumPy's values): the drift of the far
 * periods must not reach the first reflection or the array itself. */
static void odd_nonfinite(void)
{
    loom_scope_begin();
    const float I = INFINITY, N = NAN;
    const float in1[] = {I, 1, 2}, in2[] = {1, 2, N, 4};
    const float want1[] = {I, I, 1, 2, 3}, want2[] = {N, 0, 1, 2, N, 4, N, 6}, want3[] = {N, I, 1, 2, 2};
    int64_t three = 3, four = 4;
    loom_pad_options odd = {.reflect_odd = true};
    loom_array *a1 = loom_asarray(in1, LOOM_FLOAT32, 1, &three);
    loom_array *r[] = {loom_pad_ex(a1, (int64_t[]){1}, 1, "reflect", &odd),
                       loom_pad_ex(loom_asarray(in2, LOOM_FLOAT32, 1, &four), (int64_t[]){2}, 1,
                                   "reflect", &odd),
                       loom_pad_ex(a1, (int64_t[]){1}, 1, "symmetric", &odd)};
    const float *want[] = {want1, want2, want3};
    const int len[] = {5, 8, 5};
    for (int k = 0; k < 3; k++) {
        float got[8];
        CHECK_EQ_INT(loom_get(r[k], got, (size_t)len[k] * sizeof *got), LOOM_OK);
        int bad = 0;
        for (int i = 0; i < len[k]; i++)
            bad += isnan(want[k][i]) ? !isnan(got[i]) : got[i] != want[k][i];
        CHECK_EQ_INT(bad, 0);
    }
    /* complex: the edge times 2 + 0j, so a NaN part makes both parts NaN (NumPy's
     * np.pad([1+nanj, 2, 3], 1, "reflect", reflect_type="odd") real parts: nan 1 2 3 4) */
    const float cin[] = {1, N, 2, 0, 3, 0}, cre[] = {N, 1, 2, 3, 4}, cim[] = {N, N, 0, 0, 0};
    loom_array *c = loom_pad_ex(loom_asarray(cin, LOOM_COMPLEX64, 1, &three), (int64_t[]){1}, 1,
                                "reflect", &odd);
    float cg[10];
    CHECK_EQ_INT(loom_get(c, cg, sizeof cg), LOOM_OK);
    int bad = 0;
    for (int i = 0; i < 5; i++)
        bad += (isnan(cre[i]) ? !isnan(cg[2 * i]) : cg[2 * i] != cre[i]) +
               (isnan(cim[i]) ? !isnan(cg[2 * i + 1]) : cg[2 * i + 1] != cim[i]);
    CHECK_EQ_INT(bad, 0);
    loom_scope_end();
}

int main(void)
{
    if (!gpu_test_start("gpu_test_pad_modes"))
        return 77;
    CHECK_EQ_INT(run_table(LOOM_TEST_DATA "/pad_cases.txt", run_shape, check_pad, false), 103);
    CHECK_EQ_INT(run_table(LOOM_TEST_DATA "/pad_odd_cases.txt", run_shape, check_values, false), 60);
    median_nan();
    odd_nonfinite();
    return gpu_test_finish("gpu_test_pad_modes");
}
