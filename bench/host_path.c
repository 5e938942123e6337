/* Host cost of evaluating a graph whose plan is cached, without a GPU: BENCH's small64 (64
 * elementwise ops with a weak scalar each on 1000 float32 values) recorded, its cached plan
 * found, rebound, and the graph released, median over many repetitions. What an evaluation
 * adds on a device (pool allocations, kernel arguments, patching and launching the CUDA Graph,
 * the synchronize) is not timed: docs/PERF.md has the device's end-to-end number.
 *   host_path record ns=...     recording the 64 ops (scope begin to the last op)
 *   host_path find ns=...       the fuse options and the match of the graph with the cached
 *                               plan's key from its requested array (what a repeat runs)
 *   host_path find_walk ns=...  the same found by a walk and a new key compared with the cached
 *                               one (what a first evaluation of a graph runs; the only way
 *                               before the match)
 *   host_path rebind ns=...     pointing the cached plan at the new nodes and scalars
 *   host_path release ns=...    dropping the graph at the scope's end
 *   host_path total ns=...      record, find, rebind and release
 */
#define _POSIX_C_SOURCE 200809L
#include "fuser/plan.h"
#include "fuser/walk.h"
#include "graph/internal.h"
#include "bench_time.h"
#include "loom.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WARM 200
#define REPS 5000

enum { RECORD, FIND, FIND_WALK, REBIND, RELEASE, TOTAL, NSTAGES };
static const char *const stage_names[NSTAGES] = {"record", "find",    "find_walk",
                                                 "rebind", "release", "total"};

static loom_array *small64(loom_array *x)
{
    for (int i = 0; i < 32; i++)
        x = loom_add_scalar(loom_mul_scalar(x, 1.0001), 0.5);
    return x;
}

/* Whether the graph of y has the cached key, found by a walk and a new key. */
static bool found_by_walk(loom_array *y, const loom_plan_sig *cached)
{
    loom_fuse_options o = loom__fuse_options_default();
    loom_walk w;
    char *key = NULL;
    size_t len, cached_len;
    const char *cached_key = loom__plan_sig_key(cached, &cached_len);
    bool hit = loom__walk_build("host_path", &w, &y, 1) == 0 &&
               loom__plan_key(&w, &o, &key, &len) == 0 && len == cached_len &&
               memcmp(key, cached_key, len) == 0;
    free(key);
    loom__walk_free(&w);
    return hit;
}

int main(void)
{
    static float data[1000];
    loom_array *x = loom_asarray(data, LOOM_FLOAT32, 1, (int64_t[]){1000});
    /* x as a value in memory, as on the device: an array in host memory is never matched */
    loom_buffer fake = {.ptr = data, .bytes = sizeof data};
    atomic_init(&fake.refcount, 1);
    x->buffer = &fake;
    loom_fuse_options o = loom__fuse_options_default();
    loom_scope_begin();
    loom_array *y = small64(x);
    loom_plan *plan = loom__plan_build("host_path", &y, 1, &o);
    loom_walk w;
    loom_plan_sig *cached = NULL;
    if (loom__walk_build("host_path", &w, &y, 1) == 0)
        cached = loom__plan_sig_new(&w, &o);
    loom__walk_free(&w);
    loom_scope_end();
    if (!plan || !cached) {
        printf("host_path FAILED %s\n", loom_last_error());
        return 1;
    }
    static double t[NSTAGES][REPS];
    for (int r = -WARM; r < REPS; r++) {
        double t0 = bench_now_ns();
        loom_scope_begin();
        y = small64(x);
        double t1 = bench_now_ns();
        loom_fuse_options opts = loom__fuse_options_default();
        bool hit = loom__plan_roots_hash(&y, 1) != 0 && loom__plan_sig_match(cached, &y, 1, &opts, &w);
        double t2 = bench_now_ns();
        if (hit)
            loom__plan_rebind(plan, &w);
        double t3 = bench_now_ns();
        loom__walk_free(&w);
        loom_scope_end();
        double t4 = bench_now_ns();
        loom_scope_begin();
        y = small64(x);
        double t5 = bench_now_ns();
        hit = hit && found_by_walk(y, cached);
        double t6 = bench_now_ns();
        loom_scope_end();
        if (!hit) {
            printf("host_path FAILED: the repeat missed the cached plan\n");
            return 1;
        }
        if (r >= 0) {
            t[RECORD][r] = t1 - t0;
            t[FIND][r] = t2 - t1;
            t[FIND_WALK][r] = t6 - t5;
            t[REBIND][r] = t3 - t2;
            t[RELEASE][r] = t4 - t3;
            t[TOTAL][r] = t4 - t0;
        }
    }
    for (int s = 0; s < NSTAGES; s++) {
        qsort(t[s], REPS, sizeof *t[s], bench_by_value);
        printf("host_path %s ns=%.0f min_ns=%.0f reps=%d\n", stage_names[s], t[s][REPS / 2],
               t[s][0], REPS);
    }
    loom__plan_sig_free(cached);
    loom__plan_free(plan);
    x->buffer = NULL;
    loom_release(x);
    return 0;
}
