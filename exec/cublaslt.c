/* cublasLt: a product with its bias (and relu) epilogue in one call, and the probe that decides
 * where that wins. One handle per device, made at its first use outside any capture; the
 * workspace comes from the plan, alpha and beta are host values (captured as they are: the
 * plan's library arguments are part of its replay signature, so a new alpha is captured again).
 *
 * The probe: the epilogue saves the pass of Loom's kernel after the product (read the product,
 * write the result), but cublasLt's epilogue kernels are not always as fast as the plain
 * GEMM's. So for each shape class (device, dtype, m, n, k, relu) it times, once per process,
 * cublasLtMatmul with the epilogue against the plain GEMM plus a device-to-device copy of the
 * result's bytes (the traffic of the kernel after it), best of PROBE_REPS each, on scratch
 * buffers from the pool, and keeps the answer. The epilogue side times each of the first
 * PROBE_ALGOS algorithms cublasLt's heuristic proposes (its first is not always its fastest)
 * and the runner uses the fastest for calls of the probed layout. */
#include "steps.h"

#include <cublasLt.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define PROBE_REPS 3
#define PROBE_ALGOS 8 /* the heuristic's first proposals timed by the probe */
#define PROBE_CACHE 256

static cublasLtHandle_t handles[LOOM__MAX_DEVICES];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

int loom__cublaslt_prepare(const char *fn, int device)
{
    pthread_mutex_lock(&lock);
    int rc = handles[device] ? LOOM_OK
                             : loom__cublas_check(cublasLtCreate(&handles[device]), fn,
                                        "creating the cublasLt handle");
    pthread_mutex_unlock(&lock);
    return rc;
}

static cublasOperation_t op_of(int8_t op)
{
    return op == 'T' ? CUBLAS_OP_T : op == 'C' ? CUBLAS_OP_C : CUBLAS_OP_N;
}

/* The descriptors of one call; each is NULL until made. */
typedef struct lt_call {
    cublasLtMatmulDesc_t op;
    cublasLtMatrixLayout_t a, b, c;
    cublasLtMatmulPreference_t pref;
} lt_call;

static void lt_call_free(lt_call *c)
{
    if (c->pref)
        cublasLtMatmulPreferenceDestroy(c->pref);
    if (c->c)
        cublasLtMatrixLayoutDestroy(c->c);
    if (c->b)
        cublasLtMatrixLayoutDestroy(c->b);
    if (c->a)
        cublasLtMatrixLayoutDestroy(c->a);
    if (c->op)
        cublasLtMatmulDescDestroy(c->op);
}

/* The descriptors of D = epilogue(alpha op_a(A) op_b(B) + bias) with g's shapes (float32
 * accumulation: float16, bfloat16 and float32 only, as the fuser asks). */
static int lt_describe(const char *fn, const loom_gemm_args *g, const void *bias,
                       size_t workspace_bytes, lt_call *c)
{
    cudaDataType_t type = g->dtype == LOOM_FLOAT16    ? CUDA_R_16F
                          : g->dtype == LOOM_BFLOAT16 ? CUDA_R_16BF
                                                      : CUDA_R_32F;
    const char *env = getenv("LOOM_TF32");
    cublasComputeType_t compute = g->dtype == LOOM_FLOAT32 && env && strcmp(env, "1") == 0
                                      ? CUBLAS_COMPUTE_32F_FAST_TF32
                                      : CUBLAS_COMPUTE_32F;
    cublasOperation_t ta = op_of(g->op_a), tb = op_of(g->op_b);
    cublasLtEpilogue_t ep = g->epilogue == LOOM_EPILOGUE_RELU_BIAS ? CUBLASLT_EPILOGUE_RELU_BIAS
                                                                   : CUBLASLT_EPILOGUE_BIAS;
    uint64_t ws = workspace_bytes;
    /* layouts as stored: op N reads rows x cols, T and C read the transpose */
    uint64_t ar = g->op_a == 'N' ? g->m : g->k, ac = g->op_a == 'N' ? g->k : g->m;
    uint64_t br = g->op_b == 'N' ? g->k : g->n, bc = g->op_b == 'N' ? g->n : g->k;
    *c = (lt_call){0};
    cublasStatus_t s = cublasLtMatmulDescCreate(&c->op, compute, CUDA_R_32F);
    if (s == CUBLAS_STATUS_SUCCESS)
        s = cublasLtMatmulDescSetAttribute(c->op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta);
    if (s == CUBLAS_STATUS_SUCCESS)
        s = cublasLtMatmulDescSetAttribute(c->op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb);
    if (s == CUBLAS_STATUS_SUCCESS)
        s = cublasLtMatmulDescSetAttribute(c->op, CUBLASLT_MATMUL_DESC_EPILOGUE, &ep, sizeof ep);
    if (s == CUBLAS_STATUS_SUCCESS)
        s = cublasLtMatmulDescSetAttribute(c->op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias,
                                           sizeof bias);
    if (s == CUBLAS_STATUS_SUCCESS)
        s = cublasLtMatrixLayoutCreate(&c->a, type, ar, ac, g->lda);
    if (s == CUBLAS_STATUS_SUCCESS)
        s = cublasLtMatrixLayoutCreate(&c->b, type, br, bc, g->ldb);
    if (s == CUBLAS_STATUS_SUCCESS)
        s = cublasLtMatrixLayoutCreate(&c->c, type, (uint64_t)g->m, (uint64_t)g->n, g->ldc);
    if (s == CUBLAS_STATUS_SUCCESS)
        s = cublasLtMatmulPreferenceCreate(&c->pref);
    if (s == CUBLAS_STATUS_SUCCESS)
        s = cublasLtMatmulPreferenceSetAttribute(c->pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                 &ws, sizeof ws);
    int rc = loom__cublas_check(s, fn, "describing a cublasLt matmul");
    if (rc)
        lt_call_free(c);
    return rc;
}

/* Up to max algorithms cublasLt's heuristic proposes for c, best first; *found of them. */
static int lt_algos(const char *fn, int device, const lt_call *c, int max,
                    cublasLtMatmulHeuristicResult_t *out, int *found)
{
    int rc = loom__cublas_check(cublasLtMatmulAlgoGetHeuristic(handles[device], c->op, c->a, c->b, c->c,
                                                     c->c, c->pref, max, out, found),
                      fn, "cublasLtMatmulAlgoGetHeuristic");
    if (rc == LOOM_OK && *found == 0) {
        loom__error(LOOM_ERR_UNSUPPORTED, fn, "cublasLt has no algorithm for this epilogue");
        rc = LOOM_ERR_UNSUPPORTED;
    }
    return rc;
}

static int lt_run(const char *fn, int device, const loom_gemm_args *g, const lt_call *c,
                  const cublasLtMatmulAlgo_t *algo, const void *A, const void *B, void *D,
                  void *workspace, size_t workspace_bytes, cudaStream_t st)
{
    float alpha = (float)g->alpha_re, beta = 0;
    return loom__cublas_check(cublasLtMatmul(handles[device], c->op, &alpha, A, c->a, B, c->b, &beta, D,
                                   c->c, D, c->c, algo, workspace, workspace_bytes, st),
                    fn, "cublasLtMatmul");
}

static bool tuned_algo(int device, const loom_gemm_args *g, cublasLtMatmulAlgo_t *algo);

int loom__cublaslt_matmul(const char *fn, const loom_libcall *l, int device, void *const *addr,
                          cudaStream_t st)
{
    const loom_gemm_args *g = &l->args.gemm;
    int rc = loom__cublaslt_prepare(fn, device);
    lt_call c;
    if (rc == LOOM_OK)
        rc = lt_describe(fn, g, loom__lib_operand(l, addr, 3), l->workspace_bytes, &c);
    if (rc)
        return rc;
    /* the algorithm the probe measured fastest for this class, else the heuristic's first */
    cublasLtMatmulHeuristicResult_t h;
    int found = 0;
    if (!tuned_algo(device, g, &h.algo))
        rc = lt_algos(fn, device, &c, 1, &h, &found);
    if (rc == LOOM_OK)
        rc = lt_run(fn, device, g, &c, &h.algo, loom__lib_operand(l, addr, 0),
                    loom__lib_operand(l, addr, 1), loom__lib_operand(l, addr, 2),
                    addr[l->workspace], l->workspace_bytes, st);
    lt_call_free(&c);
    return rc;
}

/* ---- the probe ---- */

/* A class's answer, and the fastest algorithm measured for its layout (contiguous operands:
 * op N, leading dimensions m, k, m in cuBLAS's terms). */
typedef struct probe_answer {
    int device;
    int8_t dtype, epilogue;
    int64_t m, n, k;
    bool wins, tuned;
    cublasLtMatmulAlgo_t algo;
} probe_answer;

static probe_answer answers[PROBE_CACHE];
static int nanswers, next_answer; /* past PROBE_CACHE, the oldest answer is replaced */

static bool same_class(const probe_answer *p, int device, const loom_gemm_args *g)
{
    return p->device == device && p->dtype == g->dtype && p->epilogue == g->epilogue &&
           p->m == g->m && p->n == g->n && p->k == g->k;
}

/* The probe's layout: the only one its algorithm was measured on. */
static bool probe_layout(const loom_gemm_args *g)
{
    return g->op_a == 'N' && g->op_b == 'N' && g->lda == g->m && g->ldb == g->k &&
           g->ldc == g->m && g->batch == 1;
}

static bool tuned_algo(int device, const loom_gemm_args *g, cublasLtMatmulAlgo_t *algo)
{
    bool found = false;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < nanswers && !found; i++)
        if (same_class(&answers[i], device, g) && answers[i].tuned && probe_layout(g)) {
            *algo = answers[i].algo;
            found = true;
        }
    pthread_mutex_unlock(&lock);
    return found;
}

/* Timing of one variant on the probe's scratch buffers (A, B, D, bias, workspace, copy target). */
typedef struct probe_ctx {
    const char *fn;
    int device;
    const loom_gemm_args *g;
    void *buf[6];
    size_t ws_bytes, out_bytes;
    cudaStream_t st;
    cudaEvent_t e0, e1;
} probe_ctx;

/* Best of PROBE_REPS runs (after a warm-up) in milliseconds, of the epilogue call with algo
 * (c: its descriptors), or with algo NULL of the plain GEMM plus a copy of the result's bytes;
 * < 0 on failure. */
static float best_time(const probe_ctx *p, const lt_call *c, const cublasLtMatmulAlgo_t *algo)
{
    float best = -1;
    loom_gemm_args plain = *p->g;
    plain.epilogue = LOOM_EPILOGUE_NONE;
    loom_libcall l = {.routine = LOOM_LIB_CUBLAS_GEMM, .nbuffers = 3, .buffer = {0, 1, 2},
                      .workspace = 4, .workspace_bytes = p->ws_bytes, .args.gemm = plain};
    for (int r = 0; r <= PROBE_REPS; r++) {
        int rc = cudaEventRecord(p->e0, p->st) == cudaSuccess ? LOOM_OK : LOOM_ERR_CUDA;
        if (rc == LOOM_OK && algo)
            rc = lt_run(p->fn, p->device, p->g, c, algo, p->buf[0], p->buf[1], p->buf[2],
                        p->buf[4], p->ws_bytes, p->st);
        if (rc == LOOM_OK && !algo)
            rc = loom__cublas_gemm(p->fn, &l, p->device, p->buf, p->st);
        if (rc == LOOM_OK && !algo &&
            cudaMemcpyAsync(p->buf[5], p->buf[2], p->out_bytes, cudaMemcpyDeviceToDevice,
                            p->st) != cudaSuccess)
            rc = LOOM_ERR_CUDA;
        float ms = 0;
        if (rc == LOOM_OK && (cudaEventRecord(p->e1, p->st) != cudaSuccess ||
                              cudaEventSynchronize(p->e1) != cudaSuccess ||
                              cudaEventElapsedTime(&ms, p->e0, p->e1) != cudaSuccess))
            rc = LOOM_ERR_CUDA;
        loom__stat_add(LOOM__STAT_HOST_SYNCS, 1);
        if (rc)
            return -1;
        if (r > 0 && (best < 0 || ms < best))
            best = ms;
    }
    return best;
}

/* Times the PROBE_ALGOS algorithms cublasLt's heuristic proposes with the epilogue, keeps the
 * fastest in *a, and compares it with the plain GEMM plus a pass. */
static void measure(int device, const loom_gemm_args *g, probe_answer *a)
{
    probe_ctx p = {.fn = "cublasLt epilogue probe", .device = device, .g = g,
                   .ws_bytes = (size_t)32 << 20};
    size_t es = loom_dtype_size((loom_dtype)g->dtype);
    p.out_bytes = (size_t)(g->m * g->n) * es;
    size_t bytes[6] = {(size_t)(g->m * g->k) * es, (size_t)(g->k * g->n) * es, p.out_bytes,
                       (size_t)g->m * es, p.ws_bytes, p.out_bytes};
    loom_stream *s = loom__stream_current(p.fn, device);
    if (!s || loom__cublaslt_prepare(p.fn, device))
        return;
    p.st = (cudaStream_t)s->handle;
    loom_buffer *b[6] = {0};
    bool ok = true;
    for (int i = 0; i < 6 && ok; i++) {
        ok = (b[i] = loom__buffer_alloc(p.fn, bytes[i], device, s)) != NULL;
        ok = ok && cudaMemsetAsync(p.buf[i] = b[i]->ptr, 0, bytes[i], p.st) == cudaSuccess;
    }
    ok = ok && cudaEventCreate(&p.e0) == cudaSuccess && cudaEventCreate(&p.e1) == cudaSuccess;
    lt_call c;
    ok = ok && lt_describe(p.fn, g, p.buf[3], p.ws_bytes, &c) == LOOM_OK;
    cublasLtMatmulHeuristicResult_t h[PROBE_ALGOS];
    int found = 0;
    float lt = -1;
    if (ok && lt_algos(p.fn, device, &c, PROBE_ALGOS, h, &found) == LOOM_OK) {
        for (int i = 0; i < found; i++) {
            float t = h[i].state == CUBLAS_STATUS_SUCCESS ? best_time(&p, &c, &h[i].algo) : -1;
            if (t >= 0 && (lt < 0 || t < lt)) {
                lt = t;
                a->algo = h[i].algo;
                a->tuned = true;
            }
        }
    }
    if (ok)
        lt_call_free(&c);
    float plain = lt >= 0 ? best_time(&p, NULL, NULL) : -1;
    if (p.e0)
        cudaEventDestroy(p.e0);
    if (p.e1)
        cudaEventDestroy(p.e1);
    for (int i = 0; i < 6; i++)
        loom__buffer_release(b[i]);
    a->wins = lt >= 0 && plain >= 0 && lt < plain;
    LOOM__LOG("cublasLt probe: %s (%lld,%lld,%lld)%s: epilogue %.4f ms (best of %d algorithms), "
              "gemm + pass %.4f ms: %s",
              loom_dtype_name((loom_dtype)g->dtype), (long long)g->m, (long long)g->n,
              (long long)g->k, g->epilogue == LOOM_EPILOGUE_RELU_BIAS ? " relu" : "", lt, found,
              plain, a->wins ? "epilogue" : "gemm + kernel");
}

bool loom__cublaslt_epilogue_wins(int device, const loom_gemm_args *g)
{
    pthread_mutex_lock(&lock);
    for (int i = 0; i < nanswers; i++)
        if (same_class(&answers[i], device, g)) {
            bool wins = answers[i].wins;
            pthread_mutex_unlock(&lock);
            return wins;
        }
    pthread_mutex_unlock(&lock);
    /* a failed probe (no device, no memory) answers no and leaves no error behind */
    probe_answer a = {device, g->dtype, g->epilogue, g->m, g->n, g->k, false, false, {{0}}};
    loom__saved_error saved;
    loom__error_save(&saved);
    measure(device, g, &a);
    loom__error_restore(&saved);
    pthread_mutex_lock(&lock);
    answers[next_answer] = a;
    next_answer = (next_answer + 1) % PROBE_CACHE;
    nanswers = nanswers < PROBE_CACHE ? nanswers + 1 : nanswers;
    pthread_mutex_unlock(&lock);
    return a.wins;
}
