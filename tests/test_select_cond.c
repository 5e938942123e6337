/* Selections by a condition and boolean assignment without a GPU (tests/select_cases.h):
 * compress, extract, one-argument where, ix_ of a mask, a[mask] = values and place against
 * NumPy's table.
 * A case that needs no read-back (an empty condition, an error the call sees, one value
 * through a mask, place with values) is checked in full: dtype, shape, values through
 * tests/graph_eval.h, NumPy's message. A case whose length or check needs the condition's count
 * must try exactly one read-back (a forced evaluation of reason data_dependent_shape), fail
 * with LOOM_ERR_NO_DEVICE and leave its inputs as they were; the GPU test checks its values. */
#define _POSIX_C_SOURCE 200809L
#include "graph_eval.h"
#include "select_cases.h"
#include "plans.h"

static loom_stats before;
static int full, deferred;

static bool check_numpy(bool reads)
{
    loom_stats_get(&before);
    full += !reads;
    deferred += reads;
    return !reads;
}

static void done_read(const char *where, int nout)
{
    loom_stats after;
    loom_stats_get(&after);
    if (loom_device_count() <= 0) { /* with a device the GPU test checks the result */
        CHECK_EQ_INT(nout, 0);
        CHECK_EQ_INT(loom_last_error_code(), LOOM_ERR_NO_DEVICE);
    }
    uint64_t reads = after.forced_evals_by_reason[LOOM_EVAL_DATA_DEPENDENT_SHAPE] -
                     before.forced_evals_by_reason[LOOM_EVAL_DATA_DEPENDENT_SHAPE];
    CHECK_EQ_INT(reads, 1);
    if (nout || reads != 1)
        fprintf(stderr, "%s: %s\n", where, loom_last_error());
}

/* One value through a whole mask is one where() kernel with the mask's producer (and the
 * value's one-element cast); place is a scan of the mask, then a kernel; both compile. */
static void plans(void)
{
    loom_scope_begin();
    int64_t s[] = {3, 4};
    float data[12] = {0};
    loom_array *a = loom_asarray(data, LOOM_FLOAT32, 2, s);
    loom_array *m = loom_greater_scalar(loom_sin(a), 0.0);
    loom_index_term t = {.kind = LOOM_INDEX_ARRAY, .array = m};
    loom_array *r = loom_setitem(a, &t, 1, loom_scalar(7.0));
    CHECK_EQ_INT(test_plan_kernels(r), 2);
    CHECK(test_compile_plan(&r, 1, true, false) > 0);
    loom_array *p = loom_place(a, m, loom_arange(0, 3, 1, LOOM_FLOAT32));
    CHECK(p != NULL && loom_shape(p)[0] == 3);
    CHECK(test_plan_kernels(p) >= 2);
    CHECK(test_compile_plan(&p, 1, true, false) > 0);
    loom_scope_end();
}

int main(void)
{
    CHECK_EQ_INT(run_select_table(LOOM_TEST_DATA "/select_cases.txt", check_numpy, done_read,
                                  ge_check_result),
                 246);
    /* without a device every read-back case fails cleanly; with one, this test is the GPU's */
    printf("test_select_cond: %d cases checked against NumPy, %d need the device\n", full,
           deferred);
    CHECK(full >= 70);
    plans();
    return check_summary("test_select_cond");
}
