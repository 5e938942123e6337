/* The plan cache: a graph whose structure was seen before reuses its plan, its compiled
 * kernels and its replay state (exec/replay.c); only addresses and scalar values change. */
#include "plancache.h"

#include "steps.h"

#include <stdlib.h>
#include <string.h>

#define BUCKETS 1024
#define MAX_ENTRIES 4096

struct loom__cached_plan {
    loom_plan_sig *sig; /* its key, and how to match a graph against it */
    uint64_t hash;      /* loom__plan_roots_hash of its requested arrays, with the device */
    int device;
    loom_plan *plan;
    loom__step_state *runs;   /* per step */
    loom__replay *replay;
    char *range; /* its NVTX range's name, made at the first run that asks */
    /* One evaluation's scratch (evaluations are serialised, and a plan runs once in each):
     * buffer addresses, fresh buffers, the kernels' argument pointers; so that a repeat
     * allocates no host memory for them. */
    void **addr;
    loom_buffer **fresh;
    void **ptrs, **argv;
    struct loom__cached_plan *next;
};

/* Chained by the hash of the requested arrays, so that a repeat is found before any walk. */
static loom__cached_plan *buckets[BUCKETS];

static uint64_t roots_hash(loom_array *const *arrays, int n, int device)
{
    return loom__plan_roots_hash(arrays, n) ^ (uint64_t)device;
}
static int nentries;

static void entry_free(loom__cached_plan *e)
{
    loom__replay_free(e->replay);
    for (int i = 0; e->runs && i < e->plan->nsteps; i++) {
        loom__kernel_drop(e->runs[i].kernel);
        if (e->runs[i].fft)
            loom__cufft_drop(e->runs[i].fft);
    }
    free(e->runs);
    free(e->addr);
    free(e->fresh);
    free(e->ptrs);
    free(e->argv);
    loom__plan_free(e->plan);
    free(e->range);
    loom__plan_sig_free(e->sig);
    free(e);
}

void loom__plan_cache_clear(void)
{
    for (int b = 0; b < BUCKETS; b++) {
        while (buckets[b]) {
            loom__cached_plan *e = buckets[b];
            buckets[b] = e->next;
            entry_free(e);
        }
    }
    nentries = 0;
}

void loom__plan_cache_clear_except(const loom__cached_plan *keep)
{
    for (int b = 0; b < BUCKETS; b++) {
        for (loom__cached_plan **pp = &buckets[b]; *pp;) {
            loom__cached_plan *e = *pp;
            if (e == keep) {
                pp = &e->next;
                continue;
            }
            *pp = e->next;
            entry_free(e);
            nentries--;
        }
    }
}

const loom_plan *loom__cached_plan_plan(const loom__cached_plan *e)
{
    return e->plan;
}

void **loom__cached_plan_addresses(loom__cached_plan *e)
{
    memset(e->addr, 0, ((size_t)e->plan->nbuffers + 1) * sizeof *e->addr);
    return e->addr;
}

loom_buffer **loom__cached_plan_fresh(loom__cached_plan *e)
{
    memset(e->fresh, 0, ((size_t)e->plan->nbuffers + 1) * sizeof *e->fresh);
    return e->fresh;
}

void loom__exec_clear_memory_caches(void)
{
    loom__plan_cache_clear(); /* cached plans point at the kernels about to go */
    loom__kcache_clear_kernels();
}

static int prepare_steps(const char *fn, loom__cached_plan *e)
{
    loom_plan *p = e->plan;
    size_t nargs = 1;
    for (int i = 0; i < p->nsteps; i++)
        if (p->steps[i].kind == LOOM_STEP_KERNEL)
            nargs += (size_t)p->steps[i].kernel.nargs;
    e->runs = calloc((size_t)p->nsteps + 1, sizeof *e->runs);
    e->addr = calloc((size_t)p->nbuffers + 1, sizeof *e->addr);
    e->fresh = calloc((size_t)p->nbuffers + 1, sizeof *e->fresh);
    e->ptrs = calloc(nargs, sizeof *e->ptrs);
    e->argv = calloc(nargs, sizeof *e->argv);
    if (!e->runs || !e->addr || !e->fresh || !e->ptrs || !e->argv) {
        loom__error(LOOM_ERR_OOM, fn, "out of host memory");
        return LOOM_ERR_OOM;
    }
    for (int i = 0; i < p->nsteps; i++) {
        const loom_step *s = &p->steps[i];
        int rc = s->kind == LOOM_STEP_KERNEL    ? loom__kernel_step_prepare(fn, s, &e->runs[i])
                 : s->kind == LOOM_STEP_LIBRARY && s->lib.routine == LOOM_LIB_CUFFT
                     ? loom__cufft_prepare(fn, p, i, &e->runs[i])
                 : s->kind == LOOM_STEP_LIBRARY ? loom__library_prepare(fn, &s->lib, s->device)
                                                : LOOM_OK;
        if (rc)
            return rc;
    }
    e->replay = loom__replay_new(fn, p);
    return e->replay ? LOOM_OK : LOOM_ERR_OOM;
}

loom__cached_plan *loom__plan_cache_find(loom_array *const *arrays, int n,
                                         const loom_fuse_options *o, int device, loom_walk *w)
{
    uint64_t hash = roots_hash(arrays, n, device);
    for (loom__cached_plan *e = buckets[hash % BUCKETS]; e; e = e->next) {
        if (e->hash == hash && e->device == device && loom__plan_sig_match(e->sig, arrays, n, o, w)) {
            loom__plan_rebind(e->plan, w);
            return e;
        }
    }
    return NULL;
}

loom__cached_plan *loom__plan_cache_get(const char *fn, loom_walk *w, const loom_fuse_options *o,
                                        int device)
{
    char *key;
    size_t len;
    if (loom__plan_key(w, o, &key, &len)) {
        loom__error(LOOM_ERR_OOM, fn, "out of host memory while planning");
        return NULL;
    }
    uint64_t hash = roots_hash(w->roots, w->nroots, device);
    loom__cached_plan **slot = &buckets[hash % BUCKETS];
    for (loom__cached_plan *e = *slot; e; e = e->next) {
        size_t elen;
        const char *ekey = loom__plan_sig_key(e->sig, &elen);
        if (e->hash == hash && e->device == device && elen == len && memcmp(ekey, key, len) == 0) {
            free(key);
            loom__plan_rebind(e->plan, w);
            return e;
        }
    }
    free(key);
    if (nentries >= MAX_ENTRIES)
        loom__plan_cache_clear(); /* a program generating endless structures: start over */
    loom__cached_plan *e = calloc(1, sizeof *e);
    if (!e || !(e->sig = loom__plan_sig_new(w, o))) {
        free(e);
        loom__error(LOOM_ERR_OOM, fn, "out of host memory while planning");
        return NULL;
    }
    e->hash = hash;
    e->device = device;
    if (!(e->plan = loom__plan_from_walk(fn, w, o)) || prepare_steps(fn, e)) {
        entry_free(e);
        return NULL;
    }
    e->next = *slot;
    *slot = e;
    nentries++;
    return e;
}

/* "loom run: loom_ew_3fa2 (sin multiply) + cublas gemm": the NVTX range of a plan's run. */
static void range_name(char *buf, size_t cap, const loom_plan *p)
{
    size_t used = (size_t)snprintf(buf, cap, "loom run:");
    for (int i = 0; i < p->nsteps && used < cap; i++) {
        const loom_step *st = &p->steps[i];
        const char *sep = i ? " +" : "";
        if (st->kind == LOOM_STEP_KERNEL)
            used += (size_t)snprintf(buf + used, cap - used, "%s %s (%s)", sep, st->kernel.name,
                                     st->kernel.summary ? st->kernel.summary : "");
        else
            used += (size_t)snprintf(buf + used, cap - used, "%s %s", sep,
                                     st->summary ? st->summary : loom__step_kind_name(st->kind));
    }
}

const char *loom__cached_plan_range(loom__cached_plan *e)
{
    enum { CAP = 400 };
    if (!e->range && (e->range = malloc(CAP)))
        range_name(e->range, CAP, e->plan);
    return e->range ? e->range : "loom run";
}

int loom__plan_cache_run(const char *fn, loom__cached_plan *e, void **addr, loom_stream *s,
                         const loom__device_props *props)
{
    const loom_plan *p = e->plan;
    int rc = LOOM_OK;
    for (int i = 0, at = 0; i < p->nsteps && rc == LOOM_OK; i++) {
        if (p->steps[i].kind != LOOM_STEP_KERNEL)
            continue;
        const loom_kernel *k = &p->steps[i].kernel;
        e->runs[i].argv = e->argv + at;
        rc = loom__kernel_args(fn, k, addr, e->ptrs + at, e->argv + at);
        at += k->nargs;
    }
    if (rc == LOOM_OK)
        rc = loom__replay_run(fn, e->replay, p, e->runs, addr, s, props);
    for (int i = 0; i < p->nsteps; i++)
        e->runs[i].argv = NULL; /* they point into this run's arguments */
    return rc;
}
