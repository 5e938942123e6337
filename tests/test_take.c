/* Gathers without a GPU: take (raise, wrap, clip) and take_along_axis against NumPy's answers
 * (tools/gen_take_cases.py -> tests/data/take_cases.txt): dtypes, shapes, values through the
 * CPU reference evaluator (tests/graph_eval.h), errors at record time, and indices out of
 * bounds, which Loom records and reports on the device naming NumPy's axis and size. Plans:
 * x[idx] * 2 with a computed idx is one kernel; NVRTC compiles every mode. */
#define _POSIX_C_SOURCE 200809L
#include "check.h"
#include "graph_eval.h"
#include "index_cases.h"
#include "plans.h"

#include <stdlib.h>
#include <string.h>

static void table_cases(void)
{
    CHECK_EQ_INT(run_gather_table(LOOM_TEST_DATA "/take_cases.txt", ge_check_result, ge_check_oob,
                                  true),
                 300);
}

static int kernels(const loom_plan *p)
{
    int n = 0;
    for (int i = 0; i < p->nsteps; i++)
        n += p->steps[i].kind == LOOM_STEP_KERNEL;
    return n;
}

static void take_plans(void)
{
    loom_scope_begin();
    int64_t n = 4096;
    float xs[4096];
    for (int i = 0; i < 4096; i++)
        xs[i] = (float)i;
    loom_array *x = loom_asarray(xs, LOOM_FLOAT32, 1, &n);
    /* idx = (arange(n) * 7) % n, computed inline; x[idx] * 2 + 1 is one kernel */
    loom_array *idx = loom_remainder(loom_multiply(loom_arange(0, 4096, 1, LOOM_INT64),
                                                   loom_scalar_int(7)),
                                     loom_scalar_int(4096));
    CHECK(idx != NULL);
    loom_array *y = loom_add_scalar(loom_mul_scalar(loom_take(x, idx, 0), 2.0), 1.0);
    loom_plan *p = test_plan(&y, 1, true);
    CHECK(p != NULL);
    if (p) {
        CHECK_EQ_INT(kernels(p), 1);
        CHECK_EQ_INT(p->nchecks, 1); /* mode raise: one status word */
        loom__plan_free(p);
    }
    CHECK_EQ_INT(test_compile_plan(&y, 1, true, false), 1);
    /* LOOM_FUSE=0: idx's multiply and remainder, the take, multiply, add */
    CHECK_EQ_INT(test_compile_plan(&y, 1, false, false), 5);

    /* every mode along a middle axis of a transposed source, and a gather of a computed
     * source: each one kernel */
    int64_t s3[] = {3, 4, 5};
    loom_array *src = loom_transpose(loom_reshape(loom_arange(0, 60, 1, LOOM_FLOAT64), 3, s3), NULL);
    int64_t two[] = {2, 2};
    int64_t iv[] = {0, -1, 7, 2};
    loom_array *ix = loom_asarray(iv, LOOM_INT64, 2, two);
    for (int m = LOOM_MODE_RAISE; m <= LOOM_MODE_CLIP; m++) {
        loom_array *g = loom_take_mode(loom_sin(src), ix, 1, (loom_index_mode)m);
        CHECK_EQ_INT(loom_ndim(g), 4);
        CHECK_EQ_INT(test_compile_plan(&g, 1, true, false), 1);
        p = test_plan(&g, 1, true);
        if (p) {
            CHECK_EQ_INT(p->nchecks, m == LOOM_MODE_RAISE);
            loom__plan_free(p);
        }
    }
    /* a gather read by two consumers is written once, then read by both */
    loom_array *t = loom_take(x, idx, 0);
    loom_array *both[] = {loom_sin(t), loom_cos(t)};
    p = test_plan(both, 2, true);
    if (p) {
        CHECK_EQ_INT(kernels(p), 2);
        loom__plan_free(p);
    }
    /* a consumer of two gathers absorbs neither: each is written, then added */
    loom_array *two_takes = loom_add(loom_take(x, idx, 0), loom_take_mode(x, idx, 0, LOOM_MODE_CLIP));
    p = test_plan(&two_takes, 1, true);
    if (p) {
        CHECK_EQ_INT(kernels(p), 3);
        loom__plan_free(p);
    }
    /* every index dtype compiles */
    static const loom_dtype idts[] = {LOOM_BOOL, LOOM_INT8, LOOM_INT16, LOOM_INT32, LOOM_INT64,
                                      LOOM_UINT8, LOOM_UINT16, LOOM_UINT32, LOOM_UINT64};
    for (int d = 0; d < 9; d++) {
        loom_array *gi = loom_take(x, loom_astype(idx, idts[d]), 0);
        CHECK_EQ_INT(test_compile_plan(&gi, 1, true, false), 1);
    }
    /* take_along_axis: the flat indices are computed inside the gather's kernel */
    int64_t s2[] = {4, 5};
    loom_array *arr = loom_reshape(loom_arange(0, 20, 1, LOOM_FLOAT32), 2, s2);
    int64_t i2[] = {1, 5};
    int64_t ivals[] = {0, 3, -1, 2, 1};
    loom_array *along = loom_take_along_axis(arr, loom_asarray(ivals, LOOM_INT64, 2, i2), 0);
    CHECK_EQ_INT(test_compile_plan(&along, 1, true, false), 1);
    loom_scope_end();
}

int main(void)
{
    table_cases();
    take_plans();
    return check_summary("test_take");
}
