/* Host cost of recording one op (target <= 100 ns, docs/PERF.md; CuPy eager spends ~8 us): build
 * a 1000-op elementwise chain inside a scope and release it, median over many repetitions.
 * Nothing is evaluated, so no GPU is needed: the depth limit of forced evaluation (256, which
 * a 1000-op chain passes) is raised unless LOOM_MAX_DEPTH is set, or a machine with a GPU would
 * time three evaluations per chain.
 *   record_overhead scalar_ops ns_per_op=...   x = x*1.0001 + 0.5, alternating
 *   record_overhead binary_ops ns_per_op=...   x = x + y, same shapes
 */
#define _POSIX_C_SOURCE 200809L
#include "bench_time.h"
#include "loom.h"

#include <stdlib.h>

#define OPS 1000
#define WARM 20
#define REPS 500

static void scalar_ops(loom_array *x, loom_array *y)
{
    (void)y;
    for (int i = 0; i < OPS / 2; i++)
        x = loom_add_scalar(loom_mul_scalar(x, 1.0001), 0.5);
}

static void binary_ops(loom_array *x, loom_array *y)
{
    for (int i = 0; i < OPS; i++)
        x = loom_add(x, y);
}

static int measure(const char *name, void (*build)(loom_array *, loom_array *), loom_array *x,
                   loom_array *y)
{
    static double t[REPS];
    for (int r = -WARM; r < REPS; r++) {
        double t0 = bench_now_ns();
        loom_scope_begin();
        build(x, y);
        loom_scope_end(); /* releasing the graph is part of the cost */
        if (r >= 0)
            t[r] = (bench_now_ns() - t0) / OPS;
    }
    if (loom_last_error()) {
        printf("record_overhead %s FAILED %s\n", name, loom_last_error());
        return 1;
    }
    qsort(t, REPS, sizeof *t, bench_by_value);
    printf("record_overhead %s ns_per_op=%.1f min_ns_per_op=%.1f ops=%d reps=%d\n", name,
           t[REPS / 2], t[0], OPS, REPS);
    return 0;
}

int main(void)
{
    setenv("LOOM_MAX_DEPTH", "1000000", 0);
    float data[1024] = {0};
    int64_t shape[1] = {1024};
    loom_array *x = loom_asarray(data, LOOM_FLOAT32, 1, shape);
    loom_array *y = loom_asarray(data, LOOM_FLOAT32, 1, shape);
    int failed = measure("scalar_ops", scalar_ops, x, y);
    failed |= measure("binary_ops", binary_ops, x, y);
    loom_release(x);
    loom_release(y);
    return failed;
}
