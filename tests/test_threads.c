/* Recording from several threads at once, with forced evaluations cutting each thread's chain
 * (issue 10 item 10: the ThreadSanitizer build runs this; docs/testing.md). The threads share
 * one input, which the first forced evaluation on a GPU uploads while the others record from
 * it. Without a GPU the evaluations fail quietly and the decisions and counts are the same. */
#include "check.h"
#include "exec/exec.h"
#include "inputs.h"

#include <pthread.h>

#define THREADS 4
#define ADDS 2000
#define DEPTH 64

static loom_array *shared;

static void *record_chain(void *arg)
{
    int *cuts = arg;
    loom_scope_begin();
    loom_array *a = loom_zeros(1, (int64_t[]){16}, LOOM_FLOAT64);
    for (int i = 0; i < ADDS && a; i++)
        a = loom_add(a, shared);
    *cuts = a && a->depth < DEPTH;
    loom_clear_error();
    loom_scope_end();
    return NULL;
}

int main(void)
{
    loom__force_set_limits(DEPTH, 0, 0);
    loom_stats_reset();
    shared = test_input(1, (int64_t[]){16}, LOOM_FLOAT64);
    pthread_t t[THREADS];
    int ok[THREADS] = {0};
    for (int i = 0; i < THREADS; i++)
        CHECK_EQ_INT(pthread_create(&t[i], NULL, record_chain, &ok[i]), 0);
    for (int i = 0; i < THREADS; i++) {
        pthread_join(t[i], NULL);
        CHECK(ok[i]);
    }
    loom_stats s;
    loom_stats_get(&s);
    /* Each chain: zeros then 63 adds reach depth 64, then every 64 adds: 1 + (2000 - 63) / 64. */
    CHECK_EQ_INT(s.forced_evals_by_reason[LOOM_EVAL_DEPTH_LIMIT], THREADS * (1 + (ADDS - 63) / 64));
    loom_release(shared);
    loom__force_set_limits(0, 0, 0);
    loom__exec_clear_memory_caches();
    return check_summary("test_threads");
}
