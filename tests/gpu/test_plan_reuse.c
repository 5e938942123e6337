/* Repeats of a graph on the device: a cached plan found without a walk (fuser/plan_key.c) runs
 * with the new inputs, scalars and outputs, compiles nothing and launches one CUDA Graph;
 * graphs that only look alike (equal structure hashes) get plans of their own. */
#include "check.h"

#include <stdlib.h>

enum { N = 1001 }; /* odd: the vector loop and its tail */

/* small64: x*a + b 32 times, in float32 as the device computes it (no contraction: one rounding
 * per op) */
static loom_array *small64(loom_array *x, double a, double b)
{
    for (int i = 0; i < 32; i++)
        x = loom_add_scalar(loom_mul_scalar(x, a), b);
    return x;
}

static float small64_host(float x, double a, double b)
{
    for (int i = 0; i < 32; i++) {
        float t = x * (float)a;
        x = t + (float)b;
    }
    return x;
}

/* A float32 array of N values from start, evaluated (in device memory). */
static loom_array *device_values(float start)
{
    float h[N];
    for (int i = 0; i < N; i++)
        h[i] = start + (float)i / N;
    loom_array *x = loom_asarray(h, LOOM_FLOAT32, 1, (int64_t[]){N});
    CHECK_EQ_INT(loom_eval(x), LOOM_OK);
    return x;
}

static int mismatches(loom_array *y, loom_array *x, double a, double b)
{
    float xs[N], ys[N];
    if (loom_get(x, xs, sizeof xs) != LOOM_OK || loom_get(y, ys, sizeof ys) != LOOM_OK)
        return N;
    int bad = 0;
    for (int i = 0; i < N; i++)
        bad += ys[i] != small64_host(xs[i], a, b);
    return bad;
}

static void test_repeats(void)
{
    loom_scope_begin();
    loom_array *x1 = device_values(0.25f), *x2 = device_values(-3.0f);
    loom_array *y = small64(x1, 1.0001, 0.5);
    CHECK_EQ_INT(loom_eval(y), LOOM_OK);
    CHECK_EQ_INT(mismatches(y, x1, 1.0001, 0.5), 0);
    const double as[3] = {0.75, 1.5, -1.25}, bs[3] = {0.125, -2.0, 3.5};
    for (int r = 0; r < 3; r++) {
        loom_array *x = r % 2 ? x2 : x1;
        loom_stats_reset();
        y = small64(x, as[r], bs[r]);
        CHECK_EQ_INT(loom_eval(y), LOOM_OK);
        loom_stats st;
        loom_stats_get(&st);
        CHECK_EQ_INT(st.kernels_compiled + st.memory_cache_hits + st.disk_cache_hits, 0);
        CHECK_EQ_INT(st.graph_launches + st.kernels_launched, 1);
        CHECK_EQ_INT(mismatches(y, x, as[r], bs[r]), 0);
    }
    /* host data not uploaded yet: walked, then the same plan */
    float h[N];
    for (int i = 0; i < N; i++)
        h[i] = 1.0f - (float)i / N;
    loom_array *xh = loom_asarray(h, LOOM_FLOAT32, 1, (int64_t[]){N});
    y = small64(xh, 0.5, 0.25);
    CHECK_EQ_INT(loom_eval(y), LOOM_OK);
    CHECK_EQ_INT(mismatches(y, xh, 0.5, 0.25), 0);
    loom_scope_end();
}

/* sin(x) * sin(y) and sin(x) * sin(x) have equal structure hashes; so do (a, b) and (b, a)
 * requested together. Each must compute its own products. */
static void test_look_alikes(void)
{
    loom_scope_begin();
    loom_array *x = device_values(0.5f), *y = device_values(2.0f);
    loom_array *sx = loom_sin(x), *sy = loom_sin(y);
    CHECK_EQ_INT(loom_eval(sx), LOOM_OK);
    CHECK_EQ_INT(loom_eval(sy), LOOM_OK);
    float a[N], b[N], xy[N], xx[N];
    CHECK_EQ_INT(loom_get(sx, a, sizeof a), LOOM_OK);
    CHECK_EQ_INT(loom_get(sy, b, sizeof b), LOOM_OK);
    for (int i = 0; i < N; i++) {
        xy[i] = a[i] * b[i];
        xx[i] = a[i] * a[i];
    }
    float out[4][N];
    CHECK_EQ_INT(loom_get(loom_multiply(sx, sy), out[0], sizeof out[0]), LOOM_OK);
    CHECK_EQ_INT(loom_get(loom_multiply(sx, sx), out[1], sizeof out[1]), LOOM_OK);
    CHECK_EQ_INT(loom_get(loom_multiply(sy, sx), out[2], sizeof out[2]), LOOM_OK);
    CHECK_EQ_INT(loom_get(loom_multiply(sx, sy), out[3], sizeof out[3]), LOOM_OK);
    int bad = 0;
    for (int i = 0; i < N; i++)
        bad += out[0][i] != xy[i] || out[1][i] != xx[i] || out[2][i] != xy[i] || out[3][i] != xy[i];
    CHECK_EQ_INT(bad, 0);
    loom_array *ab[2] = {loom_multiply(sx, sy), loom_multiply(sx, sx)};
    loom_array *ba[2] = {loom_multiply(sx, sx), loom_multiply(sx, sy)};
    CHECK_EQ_INT(loom_eval_many(ab, 2), LOOM_OK);
    CHECK_EQ_INT(loom_eval_many(ba, 2), LOOM_OK);
    CHECK_EQ_INT(loom_get(ab[0], out[0], sizeof out[0]), LOOM_OK);
    CHECK_EQ_INT(loom_get(ab[1], out[1], sizeof out[1]), LOOM_OK);
    CHECK_EQ_INT(loom_get(ba[0], out[2], sizeof out[2]), LOOM_OK);
    CHECK_EQ_INT(loom_get(ba[1], out[3], sizeof out[3]), LOOM_OK);
    bad = 0;
    for (int i = 0; i < N; i++)
        bad += out[0][i] != xy[i] || out[1][i] != xx[i] || out[2][i] != xx[i] || out[3][i] != xy[i];
    CHECK_EQ_INT(bad, 0);
    loom_scope_end();
}

int main(void)
{
    if (loom_device_count() <= 0) {
        printf("gpu_test_plan_reuse: no CUDA device, skipped\n");
        return 77;
    }
    test_repeats();
    test_look_alikes();
    CHECK_EQ_INT(loom_mempool_free_all_blocks(), LOOM_OK);
    return check_summary("gpu_test_plan_reuse");
}
