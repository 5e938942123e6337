/* np.pad's modes computed from the values on the GPU against NumPy: every case of
 * tests/data/pad_cases.txt (maximum, minimum, mean, median, linear_ramp over integer, bool and
 * float dtypes). Integer results are exact; float means and ramps are compared to a relative
 * 1e-6 (float16: 1e-3), since the order of a float sum is Loom's. A median over NaN is NaN.
 * Skips (77) without a device. */
#define _POSIX_C_SOURCE 200809L
#include "check.h"
#include "index_cases.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void check_values(const char *where, loom_array *r, char **p)
{
    char *dt = strtok_r(NULL, " ", p), *shape_s = strtok_r(NULL, " ", p);
    int64_t shape[LOOM_MAXDIMS];
    int nd = parse_shape(shape_s, shape);
    CHECK_STR(loom_dtype_name(loom_dtype_of(r)), dt);
    CHECK_EQ_INT(loom_ndim(r), nd);
    int64_t n = loom_size(r);
    double *v = malloc((size_t)(n ? n : 1) * sizeof *v);
    CHECK_EQ_INT(loom_get(loom_astype(r, LOOM_FLOAT64), v, (size_t)n * sizeof *v), LOOM_OK);
    double tol = loom_dtype_of(r) == LOOM_FLOAT16 ? 1e-3 : 1e-6;
    int bad = 0;
    for (int64_t i = 0; i < n; i++) {
        double want = strtod(strtok_r(NULL, " ", p), NULL);
        if (!(fabs(v[i] - want) <= tol * fabs(want)) && bad++ < 3)
            fprintf(stderr, "%s: element %lld is %.9g, NumPy %.9g\n", where, (long long)i, v[i], want);
    }
    CHECK_EQ_INT(bad, 0);
    free(v);
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
    CHECK_EQ_INT(run_table(LOOM_TEST_DATA "/pad_cases.txt", run_shape, check_values, false), 60);
    median_nan();
    CHECK_EQ_INT(loom_mempool_free_all_blocks(), LOOM_OK);
    return check_summary("gpu_test_pad_modes");
}
