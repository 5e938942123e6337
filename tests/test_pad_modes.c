/* np.pad's modes computed from the values (maximum, minimum, mean, median, with and without
 * stat_length; linear_ramp) without a GPU: result dtypes, shapes and errors of
 * tests/data/pad_cases.txt (tools/gen_pad_cases.py, NumPy's answers; the values are checked on
 * the device by gpu_test_pad_modes); reflect_type="odd" (tests/data/pad_odd_cases.txt) in full,
 * values through tests/graph_eval.h; and NVRTC compiles every mode's plan. */
#define _POSIX_C_SOURCE 200809L
#include "check.h"
#include "graph_eval.h"
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
    int64_t s3[] = {3, 4};
    loom_pad_options odd = {.reflect_odd = true}, stat = {.stat_length = (int64_t[]){2, 1}, .nstat = 2};
    loom_array *x = loom_reshape(loom_arange(0, 12, 1, LOOM_FLOAT32), 2, s3);
    loom_array *ro = loom_pad_ex(loom_sin(x), w, 4, "reflect", &odd);
    CHECK(ro != NULL && test_compile_plan(&ro, 1, true, false) > 0);
    loom_array *so = loom_pad_ex(loom_astype(x, LOOM_BOOL), w, 4, "symmetric", &odd);
    CHECK(so != NULL && test_compile_plan(&so, 1, true, false) > 0);
    loom_array *mx = loom_pad_ex(x, w, 4, "median", &stat);
    CHECK(mx != NULL && test_compile_plan(&mx, 1, true, false) > 0);
    CHECK(loom_pad_ex(x, w, 4, "mean", &(loom_pad_options){.stat_length = (int64_t[]){1}, .nstat = 3}) == NULL);
    CHECK_STR(loom_last_error(), "loom_pad_ex: stat_length needs 1, 2 or 2 * ndim = 4 entries, not 3");
    CHECK(loom_pad(c, w, 2, "odd", 0) == NULL);
    CHECK_STR(loom_last_error(), "loom_pad: mode 'odd' is not supported");
    loom_scope_end();
}

int main(void)
{
    CHECK_EQ_INT(run_table(LOOM_TEST_DATA "/pad_cases.txt", run_shape, check_dtype_shape, true), 103);
    CHECK_EQ_INT(run_table(LOOM_TEST_DATA "/pad_odd_cases.txt", run_shape, ge_check_result, true), 60);
    compile_modes();
    return check_summary("test_pad_modes");
}
