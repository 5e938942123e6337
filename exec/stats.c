/* Process-wide counters (atomic, relaxed: they are statistics, not synchronization). */
#include "exec.h"

#include <string.h>


static atomic_uint_least64_t counters[LOOM__STAT_COUNT];
static atomic_uint_least64_t forced[LOOM_EVAL_NUM_REASONS];

static const char *const reason_names[LOOM_EVAL_NUM_REASONS] = {
    [LOOM_EVAL_HOST_READ] = "host_read",
    [LOOM_EVAL_DEPTH_LIMIT] = "depth_limit",
    [LOOM_EVAL_NODE_LIMIT] = "node_limit",
    [LOOM_EVAL_MEMORY_PRESSURE] = "memory_pressure",
    [LOOM_EVAL_DATA_DEPENDENT_SHAPE] = "data_dependent_shape",
};

void loom__stat_add(loom__stat which, uint64_t n)
{
    atomic_fetch_add_explicit(&counters[which], n, memory_order_relaxed);
}

void loom__stat_forced_eval(loom_eval_reason reason)
{
    if ((unsigned)reason >= LOOM_EVAL_NUM_REASONS)
        return;
    atomic_fetch_add_explicit(&forced[reason], 1, memory_order_relaxed);
    LOOM__LOG("forced eval (%s)", reason_names[reason]);
}

const char *loom_eval_reason_name(loom_eval_reason reason)
{
    return (unsigned)reason < LOOM_EVAL_NUM_REASONS ? reason_names[reason] : NULL;
}

static uint64_t get(atomic_uint_least64_t *c)
{
    return atomic_load_explicit(c, memory_order_relaxed);
}

void loom_stats_get(loom_stats *out)
{
    if (!out)
        return;
    memset(out, 0, sizeof *out);
    out->kernels_compiled = get(&counters[LOOM__STAT_KERNELS_COMPILED]);
    out->memory_cache_hits = get(&counters[LOOM__STAT_MEMORY_CACHE_HITS]);
    out->disk_cache_hits = get(&counters[LOOM__STAT_DISK_CACHE_HITS]);
    out->kernels_launched = get(&counters[LOOM__STAT_KERNELS_LAUNCHED]);
    out->graph_launches = get(&counters[LOOM__STAT_GRAPH_LAUNCHES]);
    out->bytes_allocated = get(&counters[LOOM__STAT_BYTES_ALLOCATED]);
    out->host_syncs = get(&counters[LOOM__STAT_HOST_SYNCS]);
    out->fft_plan_cache_hits = get(&counters[LOOM__STAT_FFT_PLAN_HITS]);
    out->fft_plan_cache_misses = get(&counters[LOOM__STAT_FFT_PLAN_MISSES]);
    out->updates_in_place = get(&counters[LOOM__STAT_UPDATES_IN_PLACE]);
    for (int i = 0; i < LOOM_EVAL_NUM_REASONS; i++) {
        out->forced_evals_by_reason[i] = get(&forced[i]);
        out->forced_evals += out->forced_evals_by_reason[i];
    }
}

void loom_stats_reset(void)
{
    for (int i = 0; i < LOOM__STAT_COUNT; i++)
        atomic_store_explicit(&counters[i], 0, memory_order_relaxed);
    for (int i = 0; i < LOOM_EVAL_NUM_REASONS; i++)
        atomic_store_explicit(&forced[i], 0, memory_order_relaxed);
}
