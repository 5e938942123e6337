/* The plan cache: a graph whose structure was seen before reuses its plan, compiled kernels
 * and CUDA Graph; only pointers and scalar values change. Used under the executor's lock. */
#ifndef LOOM_EXEC_PLANCACHE_H
#define LOOM_EXEC_PLANCACHE_H

#include "exec.h"
#include "fuser/plan.h"
#include "fuser/walk.h"

typedef struct loom__cached_plan loom__cached_plan;

/* The cached plan for arrays[0..n) on device, found without a walk (loom__plan_sig_match) and
 * rebound to them; w is then the match's walk. NULL when none matches (w untouched). */
loom__cached_plan *loom__plan_cache_find(loom_array *const *arrays, int n,
                                         const loom_fuse_options *o, int device, loom_walk *w);
/* The plan for walk w on device: a cached one rebound to w, or a new one (planned, compiled
 * and cached). NULL with the error recorded on failure. */
loom__cached_plan *loom__plan_cache_get(const char *fn, loom_walk *w, const loom_fuse_options *o,
                                        int device);
const loom_plan *loom__cached_plan_plan(const loom__cached_plan *e);
/* e's scratch for one evaluation, zeroed: an address and a fresh buffer per plan buffer. Valid
 * until e's next evaluation (evaluations are serialised). */
void **loom__cached_plan_addresses(loom__cached_plan *e);
loom_buffer **loom__cached_plan_fresh(loom__cached_plan *e);
/* The NVTX range name of e's runs ("loom run: loom_ew_3fa2 (sin multiply) + cublas gemm"),
 * formatted once per cached plan: evaluations do not pay for it. */
const char *loom__cached_plan_range(loom__cached_plan *e);
/* Runs the plan's steps on s with buffer addresses addr (one per plan buffer), replayed as CUDA
 * Graph segments (exec/replay.c). */
int loom__plan_cache_run(const char *fn, loom__cached_plan *e, void **addr, loom_stream *s,
                         const loom__device_props *props);
/* Drops every cached plan (and its CUDA Graph). */
void loom__plan_cache_clear(void);
/* Drops every cached plan but keep (NULL: all), releasing their CUDA Graphs and kernels. */
void loom__plan_cache_clear_except(const loom__cached_plan *keep);

#endif
