/* Byte sizes and grids of plans near the limits (issue 10 item 11): every node's byte count
 * fits int64 (refused at record time otherwise), but a plan adds temporaries together and
 * divides work into thread blocks, and neither may wrap. Plans are built without a GPU. */
#include "check.h"
#include "exec/steps.h"
#include "fuser/plan.h"

#include <stdint.h>

static loom_plan *plan_of(loom_array *y)
{
    loom_fuse_options o = loom__fuse_options_default();
    return loom__plan_build("loom_eval", &y, 1, &o);
}

/* n scans of 2^59 float64 values (2^62 bytes each), all read by one final kernel, so all n
 * temporaries are alive at once: 4 of them need 2^64 bytes, which wrapped to 0 before. */
static loom_array *live_scans(int n)
{
    loom_array *x = loom_zeros(1, (int64_t[]){(int64_t)1 << 59}, LOOM_FLOAT64);
    loom_array *scans[4], *sum = NULL;
    for (int i = 0; i < n; i++) {
        scans[i] = loom_cumsum(i ? scans[i - 1] : x, 0);
        sum = sum ? loom_add(sum, scans[i]) : scans[i];
    }
    return sum;
}

static void test_arena(void)
{
    loom_scope_begin();
    loom_plan *p = plan_of(live_scans(3)); /* 3 * 2^62 bytes: fits size_t */
    CHECK(p != NULL);
    if (p)
        CHECK(p->arena_bytes >= (size_t)3 << 62);
    loom__plan_free(p);

    loom_clear_error();
    p = plan_of(live_scans(4));
    CHECK(p == NULL);
    CHECK_EQ_INT(loom_last_error_code(), LOOM_ERR_OOM);
    CHECK(strstr(loom_last_error(), "loom_eval: out of memory: the plan's temporaries") != NULL);
    loom__plan_free(p);
    loom_scope_end();
}

/* A reduction to 2^40 values of 2 elements each: 2^37 blocks of 8 outputs, past the grid's
 * 2^31 - 1 blocks, whose count was cast to unsigned. */
static void test_reduction_grid(void)
{
    loom_scope_begin();
    loom_array *x = loom_ones(2, (int64_t[]){(int64_t)1 << 40, 2}, LOOM_INT8);
    loom_clear_error();
    loom_plan *p = plan_of(loom_sum(x, (int[]){1}, 1, false));
    CHECK(p == NULL);
    CHECK_EQ_INT(loom_last_error_code(), LOOM_ERR_UNSUPPORTED);
    CHECK(strstr(loom_last_error(), "loom_eval: a reduction to 1099511627776 values needs") != NULL);
    loom__plan_free(p);

    /* 2^31 - 1 blocks still plan. */
    loom_array *fits = loom_ones(2, (int64_t[]){((int64_t)1 << 31) - 1, 2048}, LOOM_INT8);
    p = plan_of(loom_sum(fits, (int[]){1}, 1, false));
    CHECK(p != NULL);
    loom__plan_free(p);
    loom_scope_end();
}

/* Elementwise grids are capped by the device, and rounding work up to whole blocks must not
 * overflow first (work near INT64_MAX: a generator of 2^63 - 1 bools read by a kernel). */
static void test_elementwise_grid(void)
{
    loom__device_props props = {.sm_count = 132, .max_threads_per_sm = 2048};
    loom_kernel k = {.work = INT64_MAX, .block = 256};
    dim3 g = loom__kernel_grid(&k, &props);
    CHECK_EQ_INT(g.x, 132 * 8 * 4);
    k.work = 300;
    CHECK_EQ_INT(loom__kernel_grid(&k, &props).x, 2);
}

int main(void)
{
    test_arena();
    test_reduction_grid();
    test_elementwise_grid();
    return check_summary("test_plan_sizes");
}
