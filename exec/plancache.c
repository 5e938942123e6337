/* Plan cache and CUDA Graph replay (DESIGN.md sections 4-5). */
#include "plancache.h"

#include "cudart.h"

#include <stdlib.h>
#include <string.h>

#define BUCKETS 1024
#define MAX_ENTRIES 4096

struct loom__cached_plan {
    char *key;
    size_t len;
    uint64_t hash;
    int device;
    loom_plan *plan;
    const loom__kernel **compiled; /* per kernel; NULL where the kernel has no work */
    int nlaunch;                   /* kernels with work */
    cudaGraph_t graph;             /* kept: patching names its nodes */
    cudaGraphExec_t exec;
    cudaGraphNode_t *nodes;        /* per kernel with work, in launch order */
    struct cudaKernelNodeParams *params; /* each node's parameters as captured */
    bool graph_failed;             /* capture is impossible on this stream: launch directly */
    struct loom__cached_plan *next;
};

static loom__cached_plan *buckets[BUCKETS];

/* Keys are compared in full on a hit, so the hash only spreads them: 8 bytes a step. */
static uint64_t key_hash(const char *key, size_t len)
{
    uint64_t h = 0x9e3779b97f4a7c15ull ^ len;
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t w;
        memcpy(&w, key + i, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdull;
        h ^= h >> 32;
    }
    for (; i < len; i++)
        h = (h ^ (unsigned char)key[i]) * 0x100000001b3ull;
    return h;
}
static int nentries;

static void entry_free(loom__cached_plan *e)
{
    if (e->exec)
        cudaGraphExecDestroy(e->exec);
    if (e->graph)
        cudaGraphDestroy(e->graph);
    free(e->nodes);
    free(e->params);
    free(e->compiled);
    loom__plan_free(e->plan);
    free(e->key);
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

const loom_plan *loom__cached_plan_plan(const loom__cached_plan *e)
{
    return e->plan;
}

static int compile_kernels(const char *fn, loom__cached_plan *e)
{
    int nh;
    const loom__header *h = loom__device_headers(&nh);
    e->compiled = calloc((size_t)e->plan->nkernels + 1, sizeof *e->compiled);
    if (!e->compiled) {
        loom__error(LOOM_ERR_OOM, fn, "out of host memory");
        return LOOM_ERR_OOM;
    }
    for (int k = 0; k < e->plan->nkernels; k++) {
        const loom_kernel *pk = &e->plan->kernels[k];
        if (pk->work == 0)
            continue;
        if (!(e->compiled[k] = loom__kernel_get(fn, pk->name, pk->source, h, nh, NULL)))
            return loom_last_error_code();
        e->nlaunch++;
    }
    return LOOM_OK;
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
    uint64_t hash = key_hash(key, len) ^ (uint64_t)device;
    loom__cached_plan **slot = &buckets[hash % BUCKETS];
    for (loom__cached_plan *e = *slot; e; e = e->next) {
        if (e->hash == hash && e->device == device && e->len == len && memcmp(e->key, key, len) == 0) {
            free(key);
            loom__plan_rebind(e->plan, w);
            return e;
        }
    }
    if (nentries >= MAX_ENTRIES)
        loom__plan_cache_clear(); /* a program generating endless structures: start over */
    loom__cached_plan *e = calloc(1, sizeof *e);
    if (!e) {
        free(key);
        loom__error(LOOM_ERR_OOM, fn, "out of host memory while planning");
        return NULL;
    }
    *e = (loom__cached_plan){.key = key, .len = len, .hash = hash, .device = device};
    if (!(e->plan = loom__plan_from_walk(fn, w, o)) || compile_kernels(fn, e)) {
        entry_free(e);
        return NULL;
    }
    e->next = *slot;
    *slot = e;
    nentries++;
    return e;
}

static dim3 grid_for(const loom_kernel *k, const loom__device_props *props)
{
    if (k->grid[0])
        return (dim3){k->grid[0], k->grid[1], k->grid[2]};
    int64_t blocks = (k->work + k->block - 1) / k->block;
    int64_t cap = (int64_t)props->sm_count * (props->max_threads_per_sm / k->block) * 4;
    if (blocks > cap)
        blocks = cap;
    return (dim3){blocks < 1 ? 1u : (unsigned)blocks, 1, 1};
}

/* Argument pointers for kernel k: argv[i] points at the value (or at ptrs[i]). */
static int pack_args(const char *fn, const loom_kernel *k, void **addr, void **ptrs, void **argv)
{
    for (int i = 0; i < k->nargs; i++) {
        const loom_karg *a = &k->args[i];
        if (a->kind == LOOM_KARG_VALUE) {
            argv[i] = (void *)a->value;
            continue;
        }
        ptrs[i] = (char *)addr[a->buffer] + a->byte_offset;
        if (a->align > 1 && (uintptr_t)ptrs[i] % (uintptr_t)a->align) {
            loom__error(LOOM_ERR_INVALID, fn, "internal error: kernel %s argument %d is not %d-byte aligned",
                        k->name, i, a->align);
            return LOOM_ERR_INVALID;
        }
        argv[i] = &ptrs[i];
    }
    return LOOM_OK;
}

/* Every plan replays as a CUDA Graph, even of one launch: patching one node and launching the
 * graph measured faster than cudaLaunchKernel of the library kernel (small64 on an H200:
 * 21.9 vs 25.1 us, docs/PERF.md). LOOM_GRAPHS=0 launches kernels one by one. */
static bool graphs_enabled(void)
{
    const char *env = getenv("LOOM_GRAPHS");
    return !(env && strcmp(env, "0") == 0);
}

/* Captures the launches once; afterwards only their arguments are patched. */
static int run_graph(const char *fn, loom__cached_plan *e, void ***argvs, loom_stream *s,
                     const loom__device_props *props)
{
    const loom_plan *p = e->plan;
    cudaStream_t st = loom__stream_handle(s);
    if (!e->exec) {
        e->nodes = calloc((size_t)e->nlaunch, sizeof *e->nodes);
        e->params = calloc((size_t)e->nlaunch, sizeof *e->params);
        if (!e->nodes || !e->params) {
            loom__error(LOOM_ERR_OOM, fn, "out of host memory");
            return LOOM_ERR_OOM;
        }
        cudaError_t begin = cudaStreamBeginCapture(st, cudaStreamCaptureModeThreadLocal);
        if (begin != cudaSuccess) {
            LOOM__LOG("no CUDA Graph for this plan: %s", cudaGetErrorString(begin));
            cudaGetLastError();
            e->graph_failed = true;
            return LOOM_ERR_UNSUPPORTED;
        }
        int n = 0;
        cudaError_t err = cudaSuccess;
        for (int k = 0; k < p->nkernels && err == cudaSuccess; k++) {
            const loom_kernel *pk = &p->kernels[k];
            if (!e->compiled[k])
                continue;
            dim3 g = grid_for(pk, props), b = {(unsigned)pk->block, 1, 1};
            err = cudaLaunchKernel((const void *)e->compiled[k]->handle, g, b, argvs[k], 0, st);
            const cudaGraphNode_t *deps = NULL;
            size_t ndeps = 0;
            enum cudaStreamCaptureStatus status;
            if (err == cudaSuccess)
                err = cudaStreamGetCaptureInfo(st, &status, NULL, NULL, &deps, NULL, &ndeps);
            if (err == cudaSuccess && ndeps == 1)
                e->nodes[n++] = deps[0];
        }
        cudaError_t end = cudaStreamEndCapture(st, &e->graph);
        if (err == cudaSuccess)
            err = end;
        /* A patch restates each node's launch (the runtime cannot read back a node that runs a
         * library kernel); only the arguments change. */
        for (int k = 0, i = 0; k < p->nkernels && i < n; k++) {
            if (!e->compiled[k])
                continue;
            e->params[i++] = (struct cudaKernelNodeParams){
                .func = (void *)e->compiled[k]->handle,
                .gridDim = grid_for(&p->kernels[k], props),
                .blockDim = {(unsigned)p->kernels[k].block, 1, 1},
            };
        }
        if (err == cudaSuccess && n == e->nlaunch)
            err = cudaGraphInstantiate(&e->exec, e->graph, 0);
        if (err != cudaSuccess || n != e->nlaunch || !e->exec) {
            LOOM__LOG("no CUDA Graph for this plan: %s (%d of %d kernels captured)",
                      cudaGetErrorString(err), n, e->nlaunch);
            cudaGetLastError();
            e->graph_failed = true;
            return LOOM_ERR_UNSUPPORTED;
        }
    } else {
        int n = 0;
        for (int k = 0; k < p->nkernels; k++) {
            if (!e->compiled[k])
                continue;
            struct cudaKernelNodeParams kp = e->params[n];
            kp.kernelParams = argvs[k];
            kp.extra = NULL;
            cudaError_t err = cudaGraphExecKernelNodeSetParams(e->exec, e->nodes[n++], &kp);
            if (err != cudaSuccess)
                return loom__cuda_check(err, fn, "updating a CUDA Graph kernel node");
        }
    }
    int rc = loom__cuda_check(cudaGraphLaunch(e->exec, st), fn, "launching a CUDA Graph");
    if (rc == LOOM_OK) {
        loom__stat_add(LOOM__STAT_GRAPH_LAUNCHES, 1);
        LOOM__LOG("graph launch: %d kernels", e->nlaunch);
    }
    return rc;
}

int loom__plan_cache_run(const char *fn, loom__cached_plan *e, void **addr, loom_stream *s,
                         const loom__device_props *props)
{
    const loom_plan *p = e->plan;
    int total = 0;
    for (int k = 0; k < p->nkernels; k++)
        total += p->kernels[k].nargs;
    void **ptrs = malloc((size_t)(total + 1) * sizeof *ptrs);
    void **argv = malloc((size_t)(total + 1) * sizeof *argv);
    void ***argvs = malloc((size_t)(p->nkernels + 1) * sizeof *argvs);
    int rc = LOOM_OK;
    if (!ptrs || !argv || !argvs) {
        loom__error(LOOM_ERR_OOM, fn, "out of host memory");
        rc = LOOM_ERR_OOM;
        goto done;
    }
    for (int k = 0, at = 0; k < p->nkernels && rc == LOOM_OK; k++) {
        argvs[k] = argv + at;
        rc = pack_args(fn, &p->kernels[k], addr, ptrs + at, argv + at);
        at += p->kernels[k].nargs;
    }
    if (rc)
        goto done;
    if (e->nlaunch >= 1 && !e->graph_failed && graphs_enabled()) {
        rc = run_graph(fn, e, argvs, s, props);
        if (rc != LOOM_ERR_UNSUPPORTED)
            goto done;
        rc = LOOM_OK; /* capture is not possible on this stream: launch one by one */
    }
    for (int k = 0; k < p->nkernels && rc == LOOM_OK; k++) {
        const loom_kernel *pk = &p->kernels[k];
        if (!e->compiled[k])
            continue;
        dim3 g = grid_for(pk, props);
        loom__dim3 grid = {g.x, g.y, g.z}, block = {(unsigned)pk->block, 1, 1};
        LOOM__LOG("launch %s (%s) grid %u,%u,%u block %d", pk->name, pk->summary, grid.x, grid.y,
                  grid.z, pk->block);
        rc = loom__kernel_launch(fn, e->compiled[k], grid, block, 0, s, argvs[k]);
    }
done:
    free(ptrs);
    free(argv);
    free(argvs);
    return rc;
}
