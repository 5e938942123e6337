/* a[terms] without a GPU against NumPy (tools/gen_getitem_cases.py ->
 * tests/data/getitem_cases.txt): every mix of integers, slices, newaxis, an ellipsis and integer
 * arrays, adjacent or separated, as dtypes, shapes and values (tests/graph_eval.h), errors at
 * the call, and array indices out of bounds, found by the reference evaluator and named with
 * the first advanced axis and its size. Plans: a basic index is a view; x[idx] * 2 is one
 * kernel. */
#define _POSIX_C_SOURCE 200809L
#include "graph_eval.h"
#include "index_cases.h"
#include "plans.h"

static void table(void)
{
    CHECK(run_gather_table(LOOM_TEST_DATA "/getitem_cases.txt", ge_check_result, ge_check_oob,
                           true) > 400);
}

static void plans(void)
{
    loom_scope_begin();
    int64_t s[] = {6, 8};
    loom_array *x = loom_astype(loom_reshape(loom_arange(0, 48, 1, LOOM_INT64), 2, s), LOOM_FLOAT32);
    loom_array *basic = loom_getitem(x, (loom_index_term[]){{LOOM_INDEX_INT, 2, 0, 0, NULL},
                                                            {LOOM_INDEX_SLICE, 1, LOOM_NONE, 2, NULL}},
                                     2);
    CHECK(basic != NULL && loom_is_view(basic));
    int64_t n = 5;
    int64_t iv[] = {0, 5, -1, 3, 2};
    loom_array *idx = loom_asarray(iv, LOOM_INT64, 1, &n);
    loom_array *g = loom_mul_scalar(
        loom_getitem(x, (loom_index_term[]){{LOOM_INDEX_ARRAY, 0, 0, 0, idx},
                                            {LOOM_INDEX_SLICE, LOOM_NONE, LOOM_NONE, -1, NULL}},
                     2),
        2.0);
    CHECK_EQ_INT(test_compile_plan(&g, 1, true, false), 2); /* the cast x, then the gather */
    loom_scope_end();
}

int main(void)
{
    table();
    plans();
    return check_summary("test_getitem");
}
