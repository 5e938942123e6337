/* np.pad's modes computed from the values on the GPU against NumPy: every case of
 * tests/data/pad_cases.txt (maximum, minimum, mean, median, with and without stat_length,
 * linear_ramp over integer, bool and float dtypes) and of tests/data/pad_odd_cases.txt
 * (reflect_type="odd", exact: small integers, integer dtypes wrapping). Integer results are exact; float means and ramps are compared to a relative
 * 1e-6 (float16: 1e-3), since the order of a float sum is Loom's. A median over NaN is NaN.
 * Skips (77) without a device. */
#define _POSIX_C_SOURCE 200809L
#include "check.h"
#include "table_values.h"

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

int main(void)
{
    if (loom_device_count() <= 0) {
        printf("gpu_test_pad_modes: no CUDA device, skipped\n");
        return 77;
    }
    CHECK_EQ_INT(run_table(LOOM_TEST_DATA "/pad_cases.txt", run_shape, check_pad, false), 103);
    CHECK_EQ_INT(run_table(LOOM_TEST_DATA "/pad_odd_cases.txt", run_shape, check_values, false), 60);
    median_nan();
    CHECK_EQ_INT(loom_mempool_free_all_blocks(), LOOM_OK);
    return check_summary("gpu_test_pad_modes");
}
