/* np.pad's modes computed from the values (maximum, minimum, mean, median, linear_ramp)
 * without a GPU: result dtypes, shapes and errors of tests/data/pad_cases.txt
 * (tools/gen_pad_cases.py, NumPy's answers; the values are checked on the device by
 * gpu_test_pad_modes), and NVRTC compiles every mode's plan. */
#define _POSIX_C_SOURCE 200809L
#include "check.h"
#include "index_cases.h"
#include "plans.h"

#include <string.h>

/* The result's dtype and shape, skipping the values (reductions have no CPU reference). */
static void check_dtype_shape(const char *where, loom_array *r, char **p)
{
    check_layout(where, r, p);
    for (int64_t i = 0; i < loom_size(r); i++)
        strtok_r(NULL, " ", p);
}

static void compile_modes(void)
{
    loom_scope_begin();
    int64_t s[] = {3, 5};
    int64_t w[] = {1, 2, 0, 3};
    static const char *const modes[] = {"maximum", "minimum", "mean", "median", "linear_ramp"};
    static const loom_dtype dts[] = {LOOM_INT32, LOOM_FLOAT16, LOOM_FLOAT64, LOOM_FLOAT32, LOOM_UINT8};
    for (int m = 0; m < 5; m++) {
        loom_array *a = loom_astype(loom_reshape(loom_arange(0, 15, 1, LOOM_INT64), 2, s), dts[m]);
        loom_array *r = loom_pad(a, w, 4, modes[m], 9);
        CHECK(r != NULL);
        CHECK_EQ_INT(loom_shape(r)[0], 6);
        CHECK_EQ_INT(loom_shape(r)[1], 8);
        CHECK(test_compile_plan(&r, 1, true, false) > 0);
    }
    int64_t two = 2;
    loom_array *c = loom_zeros(1, &two, LOOM_COMPLEX64);
    CHECK(loom_pad(c, w, 2, "median", 0) == NULL);
    CHECK_EQ_INT(loom_last_error_code(), LOOM_ERR_UNSUPPORTED);
    CHECK(loom_pad(c, w, 2, "odd", 0) == NULL);
    CHECK_STR(loom_last_error(), "loom_pad: mode 'odd' is not supported");
    loom_scope_end();
}

int main(void)
{
    CHECK_EQ_INT(run_table(LOOM_TEST_DATA "/pad_cases.txt", run_shape, check_dtype_shape, true), 60);
    compile_modes();
    return check_summary("test_pad_modes");
}
