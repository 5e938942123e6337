/* Replaying a plan's steps (exec/steps.h): runs of capturable steps become CUDA Graph segments,
 * the rest run directly between them.
 *
 * A segment of kernels only is captured once; later runs patch its kernel nodes' arguments
 * (cudaGraphExecKernelNodeSetParams). A segment holding library calls or copies cannot be
 * patched that way (the nodes a library records are its own), so it is captured again whenever
 * an address or value it was captured with changed, and the instantiated graph is updated in
 * place (cudaGraphExecUpdate), or instantiated anew where the update is refused. Steps are never
 * "tried" under capture: whether a step may be captured comes from a fixed table. */
#include "steps.h"

#include <stdlib.h>
#include <string.h>

typedef struct segment {
    int first, end;     /* steps [first, end) */
    bool capturable;    /* every step with work may be captured */
    bool kernels_only;
    int nlaunch;        /* steps with work */
    cudaGraphExec_t exec;
    cudaGraph_t graph;  /* kernels only: kept, since patching names its nodes */
    cudaGraphNode_t *nodes;                /* kernels only: per kernel with work */
    struct cudaKernelNodeParams *params;   /* kernels only: each node's launch as captured */
    unsigned char *signature;              /* otherwise: the arguments captured with */
    size_t signature_len;
    bool failed;        /* capture is impossible on this stream: run directly */
} segment;

struct loom__replay {
    int nsegments;
    segment *segments;
};

static bool graphs_enabled(void)
{
    const char *env = getenv("LOOM_GRAPHS");
    return !(env && strcmp(env, "0") == 0);
}

loom__replay *loom__replay_new(const char *fn, const loom_plan *p)
{
    loom__replay *r = calloc(1, sizeof *r);
    if (r)
        r->segments = calloc((size_t)p->nsteps + 1, sizeof *r->segments);
    if (!r || !r->segments) {
        free(r);
        loom__error(LOOM_ERR_OOM, fn, "out of host memory");
        return NULL;
    }
    for (int i = 0; i < p->nsteps;) {
        segment *sg = &r->segments[r->nsegments++];
        bool cap = loom__step_capturable(&p->steps[i]) || !loom__step_has_work(&p->steps[i]);
        *sg = (segment){.first = i, .capturable = cap, .kernels_only = true};
        do {
            const loom_step *s = &p->steps[i];
            if (loom__step_has_work(s)) {
                sg->nlaunch++;
                sg->kernels_only &= s->kind == LOOM_STEP_KERNEL;
            }
            i++;
        } while (cap && i < p->nsteps &&
                 (loom__step_capturable(&p->steps[i]) || !loom__step_has_work(&p->steps[i])));
        sg->end = i;
    }
    return r;
}

static void segment_drop_graph(segment *sg)
{
    if (sg->exec)
        cudaGraphExecDestroy(sg->exec);
    if (sg->graph)
        cudaGraphDestroy(sg->graph);
    free(sg->nodes);
    free(sg->params);
    free(sg->signature);
    sg->exec = NULL;
    sg->graph = NULL;
    sg->nodes = NULL;
    sg->params = NULL;
    sg->signature = NULL;
}

void loom__replay_free(loom__replay *r)
{
    if (!r)
        return;
    for (int i = 0; i < r->nsegments; i++)
        segment_drop_graph(&r->segments[i]);
    free(r->segments);
    free(r);
}

static int run_direct(const char *fn, const segment *sg, const loom_plan *p,
                      const loom__step_state *runs, void *const *addr, cudaStream_t st,
                      const loom__device_props *props)
{
    for (int i = sg->first; i < sg->end; i++) {
        const loom_step *s = &p->steps[i];
        if (!loom__step_has_work(s))
            continue;
        int rc = loom__step_run(fn, s, &runs[i], addr, st, props);
        if (rc)
            return rc;
        if (s->kind == LOOM_STEP_KERNEL)
            loom__stat_add(LOOM__STAT_KERNELS_LAUNCHED, 1);
    }
    return LOOM_OK;
}

/* The bytes a mixed segment's graph bakes in: kernel arguments, library/copy addresses and
 * library value arguments. */
static unsigned char *signature(const segment *sg, const loom_plan *p,
                                const loom__step_state *runs, void *const *addr, size_t *len)
{
    size_t n = 0;
    for (int i = sg->first; i < sg->end; i++) {
        const loom_step *s = &p->steps[i];
        if (s->kind == LOOM_STEP_KERNEL && loom__step_has_work(s))
            n += (size_t)s->kernel.nargs * 16;
        else if (s->kind == LOOM_STEP_LIBRARY)
            n += (LOOM_LIB_MAX_BUFFERS + 1) * sizeof(void *) + sizeof s->lib.args;
        else if (s->kind == LOOM_STEP_COPY)
            n += 2 * sizeof(void *);
    }
    unsigned char *sig = calloc(n + 1, 1), *at = sig;
    for (int i = sg->first; sig && i < sg->end; i++) {
        const loom_step *s = &p->steps[i];
        if (s->kind == LOOM_STEP_KERNEL && loom__step_has_work(s)) {
            for (int a = 0; a < s->kernel.nargs; a++, at += 16)
                memcpy(at, runs[i].argv[a], s->kernel.args[a].kind == LOOM_KARG_PTR ? sizeof(void *)
                                                                                    : (size_t)s->kernel.args[a].size);
        } else if (s->kind == LOOM_STEP_LIBRARY) {
            for (int b = 0; b < s->lib.nbuffers; b++, at += sizeof(void *))
                memcpy(at, &addr[s->lib.buffer[b]], sizeof(void *));
            at += (size_t)(LOOM_LIB_MAX_BUFFERS - s->lib.nbuffers) * sizeof(void *);
            void *ws = s->lib.workspace >= 0 ? addr[s->lib.workspace] : NULL;
            memcpy(at, &ws, sizeof ws);
            at += sizeof(void *);
            memcpy(at, &s->lib.args, sizeof s->lib.args); /* values baked in (alpha) */
            at += sizeof s->lib.args;
        } else if (s->kind == LOOM_STEP_COPY) {
            memcpy(at, &addr[s->copy.dst], sizeof(void *));
            memcpy(at + sizeof(void *), &addr[s->copy.src], sizeof(void *));
            at += 2 * sizeof(void *);
        }
    }
    *len = n;
    return sig;
}

/* Records the segment's steps into a new graph; kernel nodes are noted when nodes != NULL. */
static cudaError_t capture(const char *fn, const segment *sg, const loom_plan *p,
                           const loom__step_state *runs, void *const *addr, cudaStream_t st,
                           const loom__device_props *props, cudaGraphNode_t *nodes, int *nnodes,
                           cudaGraph_t *graph, int *rc)
{
    *rc = LOOM_OK;
    *nnodes = 0;
    loom__capture_lock();
    cudaError_t err = cudaStreamBeginCapture(st, cudaStreamCaptureModeThreadLocal);
    if (err != cudaSuccess) {
        loom__capture_unlock();
        return err;
    }
    for (int i = sg->first; i < sg->end && err == cudaSuccess && *rc == LOOM_OK; i++) {
        const loom_step *s = &p->steps[i];
        if (!loom__step_has_work(s))
            continue;
        *rc = loom__step_run(fn, s, &runs[i], addr, st, props);
        if (*rc == LOOM_OK && nodes && s->kind == LOOM_STEP_KERNEL) {
            const cudaGraphNode_t *deps = NULL;
            size_t ndeps = 0;
            enum cudaStreamCaptureStatus status;
#if CUDART_VERSION >= 13000 /* CUDA 13 added the edge data output */
            err = cudaStreamGetCaptureInfo(st, &status, NULL, NULL, &deps, NULL, &ndeps);
#else
            err = cudaStreamGetCaptureInfo(st, &status, NULL, NULL, &deps, &ndeps);
#endif
            if (err == cudaSuccess && ndeps == 1)
                nodes[(*nnodes)++] = deps[0];
        }
    }
    cudaError_t end = cudaStreamEndCapture(st, graph);
    loom__capture_unlock();
    return err != cudaSuccess ? err : end;
}

static int give_up(segment *sg, cudaError_t err, const char *why)
{
    LOOM__LOG("no CUDA Graph for steps %d..%d: %s (%s)", sg->first, sg->end - 1, why,
              cudaGetErrorString(err));
    cudaGetLastError();
    segment_drop_graph(sg);
    sg->failed = true;
    return LOOM_ERR_UNSUPPORTED;
}

/* Kernels only: capture once, then patch each kernel node's arguments. */
static int prepare_kernels_only(const char *fn, segment *sg, const loom_plan *p,
                                const loom__step_state *runs, void *const *addr, cudaStream_t st,
                                const loom__device_props *props)
{
    if (sg->exec) {
        for (int i = sg->first, n = 0; i < sg->end; i++) {
            if (!loom__step_has_work(&p->steps[i]))
                continue;
            struct cudaKernelNodeParams kp = sg->params[n];
            kp.kernelParams = runs[i].argv;
            kp.extra = NULL;
            cudaError_t err = cudaGraphExecKernelNodeSetParams(sg->exec, sg->nodes[n++], &kp);
            if (err != cudaSuccess)
                return loom__cuda_check(err, fn, "updating a CUDA Graph kernel node");
        }
        return LOOM_OK;
    }
    sg->nodes = calloc((size_t)sg->nlaunch + 1, sizeof *sg->nodes);
    sg->params = calloc((size_t)sg->nlaunch + 1, sizeof *sg->params);
    if (!sg->nodes || !sg->params) {
        loom__error(LOOM_ERR_OOM, fn, "out of host memory");
        return LOOM_ERR_OOM;
    }
    int n = 0, rc;
    cudaError_t err = capture(fn, sg, p, runs, addr, st, props, sg->nodes, &n, &sg->graph, &rc);
    if (rc)
        return rc;
    /* A patch restates each node's launch (the runtime cannot read back a node that runs a
     * library kernel); only the arguments change. */
    for (int i = sg->first, j = 0; i < sg->end && j < n; i++) {
        const loom_step *s = &p->steps[i];
        if (!loom__step_has_work(s))
            continue;
        sg->params[j++] = (struct cudaKernelNodeParams){
            .func = (void *)runs[i].kernel->handle,
            .gridDim = loom__kernel_grid(&s->kernel, props),
            .blockDim = loom__kernel_block(&s->kernel),
            .sharedMemBytes = s->kernel.shared_mem,
        };
    }
    if (err == cudaSuccess && n == sg->nlaunch)
        err = cudaGraphInstantiate(&sg->exec, sg->graph, 0);
    if (err != cudaSuccess || n != sg->nlaunch || !sg->exec)
        return give_up(sg, err, "capture failed");
    return LOOM_OK;
}

/* Library calls or copies inside: capture again when what the graph baked in changed. */
static int prepare_mixed(const char *fn, segment *sg, const loom_plan *p,
                         const loom__step_state *runs, void *const *addr, cudaStream_t st,
                         const loom__device_props *props)
{
    size_t len;
    unsigned char *sig = signature(sg, p, runs, addr, &len);
    if (!sig) {
        loom__error(LOOM_ERR_OOM, fn, "out of host memory");
        return LOOM_ERR_OOM;
    }
    if (sg->exec && len == sg->signature_len && memcmp(sig, sg->signature, len) == 0) {
        free(sig);
        return LOOM_OK;
    }
    cudaGraph_t graph = NULL;
    int n, rc;
    cudaError_t err = capture(fn, sg, p, runs, addr, st, props, NULL, &n, &graph, &rc);
    if (rc) {
        if (graph)
            cudaGraphDestroy(graph);
        free(sig);
        return rc;
    }
    if (err == cudaSuccess && sg->exec) {
        cudaGraphExecUpdateResultInfo info;
        if (cudaGraphExecUpdate(sg->exec, graph, &info) != cudaSuccess) {
            cudaGetLastError();
            cudaGraphExecDestroy(sg->exec);
            sg->exec = NULL;
        }
    }
    if (err == cudaSuccess && !sg->exec)
        err = cudaGraphInstantiate(&sg->exec, graph, 0);
    if (graph)
        cudaGraphDestroy(graph);
    free(sg->signature);
    sg->signature = sig;
    sg->signature_len = len;
    if (err != cudaSuccess || !sg->exec)
        return give_up(sg, err, "capture failed");
    return LOOM_OK;
}

int loom__replay_run(const char *fn, loom__replay *r, const loom_plan *p,
                     const loom__step_state *runs, void *const *addr, loom_stream *s,
                     const loom__device_props *props)
{
    cudaStream_t st = loom__stream_handle(s);
    bool graphs = graphs_enabled();
    for (int g = 0; g < r->nsegments; g++) {
        segment *sg = &r->segments[g];
        if (sg->nlaunch == 0)
            continue;
        int rc = LOOM_ERR_UNSUPPORTED;
        if (sg->capturable && graphs && !sg->failed) {
            rc = sg->kernels_only ? prepare_kernels_only(fn, sg, p, runs, addr, st, props)
                                  : prepare_mixed(fn, sg, p, runs, addr, st, props);
            if (rc == LOOM_OK) {
                rc = loom__cuda_check(cudaGraphLaunch(sg->exec, st), fn, "launching a CUDA Graph");
                if (rc)
                    return rc;
                loom__stat_add(LOOM__STAT_GRAPH_LAUNCHES, 1);
                LOOM__LOG("graph launch: steps %d..%d (%d with work)", sg->first, sg->end - 1,
                          sg->nlaunch);
                continue;
            }
            if (rc != LOOM_ERR_UNSUPPORTED)
                return rc;
        }
        rc = run_direct(fn, sg, p, runs, addr, st, props);
        if (rc)
            return rc;
    }
    return LOOM_OK;
}
