/* The shape routines without a GPU: tile, repeat, resize, pad, flips, rot90, copies, meshgrid,
 * indices, ix_, tri, diag, diagflat, fill_diagonal, isclose and select against NumPy's
 * dtypes, shapes, values (through tests/graph_eval.h) and errors
 * (tools/gen_shape_cases.py -> tests/data/shape_cases.txt), and how they plan: index maps and
 * generators fuse into one kernel with their consumer. */
#define _POSIX_C_SOURCE 200809L
#include "graph_eval.h"
#include "index_cases.h"
#include "plans.h"

static void plans(void)
{
    loom_scope_begin();
    int64_t s[] = {3, 4};
    float data[12] = {0};
    loom_array *a = loom_asarray(data, LOOM_FLOAT32, 2, s);
    loom_array *x = loom_sin(a);
    /* gathers with generated indices, fused with producers and consumers */
    CHECK_EQ_INT(test_plan_kernels(loom_mul_scalar(loom_tile(a, (int64_t[]){2, 3}, 2), 2.0)), 1);
    CHECK_EQ_INT(test_plan_kernels(loom_mul_scalar(loom_repeat(a, 3, 1), 2.0)), 1);
    /* a computed source is read flattened: written once, then gathered */
    CHECK_EQ_INT(test_plan_kernels(loom_tile(x, (int64_t[]){2, 3}, 2)), 2);
    /* one kernel per padded axis; a gather's consumer computes it */
    CHECK_EQ_INT(test_plan_kernels(loom_pad(a, (int64_t[]){1, 2}, 2, "reflect", 0)), 2);
    CHECK_EQ_INT(test_plan_kernels(loom_pad(a, (int64_t[]){0, 0, 1, 2}, 4, "edge", 0)), 1);
    CHECK_EQ_INT(test_plan_kernels(loom_pad(a, (int64_t[]){0, 0, 1, 2}, 4, "constant", 5)), 1);
    /* generator expressions: one kernel each */
    CHECK_EQ_INT(test_plan_kernels(loom_tri(5, 7, 1, LOOM_FLOAT64)), 1);
    CHECK_EQ_INT(test_plan_kernels(loom_indices(2, s, LOOM_INT64)), 1);
    int64_t n5 = 5;
    loom_array *v = loom_arange(0, 5, 1, LOOM_FLOAT32);
    CHECK_EQ_INT(test_plan_kernels(loom_diag(loom_asarray(data, LOOM_FLOAT32, 1, &n5), 1)), 1);
    CHECK_EQ_INT(test_plan_kernels(loom_fill_diagonal(a, 1.0, false)), 1);
    CHECK_EQ_INT(test_plan_kernels(loom_isclose(a, loom_cos(a), 1e-5, 1e-8, true)), 1);
    CHECK_EQ_INT(test_plan_kernels(loom_resize(v, 2, (int64_t[]){3, 4})), 1);
    loom_array *tiled = loom_tile(x, (int64_t[]){2}, 1);
    CHECK_EQ_INT(test_compile_plan(&tiled, 1, true, false), 2);
    loom_array *padded = loom_pad(x, (int64_t[]){1, 2}, 2, "symmetric", 0);
    CHECK_EQ_INT(test_compile_plan(&padded, 1, true, false), 2);
    loom_array *d = loom_diag(v, -2);
    CHECK_EQ_INT(test_compile_plan(&d, 1, true, false), 1);
    loom_scope_end();
}

static void unsupported(void)
{
    loom_scope_begin();
    int64_t n = 4;
    loom_array *a = loom_zeros(1, &n, LOOM_FLOAT32);
    CHECK(loom_pad(loom_zeros(1, &n, LOOM_COMPLEX64), (int64_t[]){1, 1}, 2, "median", 0) == NULL);
    CHECK_EQ_INT(loom_last_error_code(), LOOM_ERR_UNSUPPORTED);
    CHECK(loom_pad(a, (int64_t[]){1, 1}, 2, "foo", 0) == NULL);
    CHECK_STR(loom_last_error(), "loom_pad: mode 'foo' is not supported");
    loom_scope_end();
}

int main(void)
{
    CHECK(run_table(LOOM_TEST_DATA "/shape_cases.txt", run_shape, ge_check_result, true) > 200);
    plans();
    unsupported();
    return check_summary("test_shape_routines");
}
