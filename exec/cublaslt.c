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
 * buffers from the pool, and keeps the answer. */
#include "steps.h"

#include <cublasLt.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define PROBE_REPS 3
#define PROBE_CACHE 256

static cublasLtHandle_t handles[LOOM__MAX_DEVICES];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static int lt_check(cublasStatus_t st, const char *fn, const char *what)
{
    if (st == CUBLAS_STATUS_SUCCESS)
        return LOOM_OK;
    int code = st == CUBLAS_STATUS_ALLOC_FAILED ? LOOM_ERR_OOM : LOOM_ERR_LIBRARY;
    loom__error(code, fn, "%s: %s", what, cublasGetStatusString(st));
    loom__error_set_detail((int)st);
    return code;
}

int loom__cublaslt_prepare(const char *fn, int device)
{
    pthread_mutex_lock(&lock);
    int rc = handles[device] ? LOOM_OK
                             : lt_check(cublasLtCreate(&handles[device]), fn,
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

/* D = epilogue(alpha op_a(A) op_b(B) + bias) with g's shapes (float32 accumulation: float16,
 * bfloat16 and float32 only, as the fuser asks). */
static int lt_matmul(const char *fn, int device, const loom_gemm_args *g, const void *A,
                     const void *B, void *D, const void *bias, void *workspace,
                     size_t workspace_bytes, cudaStream_t st)
{
    cudaDataType_t type = g->dtype == LOOM_FLOAT16    ? CUDA_R_16F
                          : g->dtype == LOOM_BFLOAT16 ? CUDA_R_16BF
                                                      : CUDA_R_32F;
    const char *env = getenv("LOOM_TF32");
    cublasComputeType_t compute = g->dtype == LOOM_FLOAT32 && env && strcmp(env, "1") == 0
                                      ? CUBLAS_COMPUTE_32F_FAST_TF32
                                      : CUBLAS_COMPUTE_32F;
    int rc = loom__cublaslt_prepare(fn, device);
    if (rc)
        return rc;
    lt_call c = {0};
    cublasOperation_t ta = op_of(g->op_a), tb = op_of(g->op_b);
    cublasLtEpilogue_t ep = g->epilogue == LOOM_EPILOGUE_RELU_BIAS ? CUBLASLT_EPILOGUE_RELU_BIAS
                                                                   : CUBLASLT_EPILOGUE_BIAS;
    uint64_t ws = workspace_bytes;
    /* layouts as stored: op N reads rows x cols, T and C read the transpose */
    uint64_t ar = g->op_a == 'N' ? g->m : g->k, ac = g->op_a == 'N' ? g->k : g->m;
    uint64_t br = g->op_b == 'N' ? g->k : g->n, bc = g->op_b == 'N' ? g->n : g->k;
    cublasStatus_t s = cublasLtMatmulDescCreate(&c.op, compute, CUDA_R_32F);
    if (s == CUBLAS_STATUS_SUCCESS)
        s = cublasLtMatmulDescSetAttribute(c.op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta);
    if (s == CUBLAS_STATUS_SUCCESS)
        s = cublasLtMatmulDescSetAttribute(c.op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb);
    if (s == CUBLAS_STATUS_SUCCESS)
        s = cublasLtMatmulDescSetAttribute(c.op, CUBLASLT_MATMUL_DESC_EPILOGUE, &ep, sizeof ep);
    if (s == CUBLAS_STATUS_SUCCESS)
        s = cublasLtMatmulDescSetAttribute(c.op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias,
                                           sizeof bias);
    if (s == CUBLAS_STATUS_SUCCESS)
        s = cublasLtMatrixLayoutCreate(&c.a, type, ar, ac, g->lda);
    if (s == CUBLAS_STATUS_SUCCESS)
        s = cublasLtMatrixLayoutCreate(&c.b, type, br, bc, g->ldb);
    if (s == CUBLAS_STATUS_SUCCESS)
        s = cublasLtMatrixLayoutCreate(&c.c, type, (uint64_t)g->m, (uint64_t)g->n, g->ldc);
    if (s == CUBLAS_STATUS_SUCCESS)
        s = cublasLtMatmulPreferenceCreate(&c.pref);
    if (s == CUBLAS_STATUS_SUCCESS)
        s = cublasLtMatmulPreferenceSetAttribute(c.pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                 &ws, sizeof ws);
    rc = lt_check(s, fn, "describing a cublasLt matmul");
    cublasLtMatmulHeuristicResult_t best;
    int found = 0;
    if (rc == LOOM_OK)
        rc = lt_check(cublasLtMatmulAlgoGetHeuristic(handles[device], c.op, c.a, c.b, c.c, c.c,
                                                     c.pref, 1, &best, &found),
                      fn, "cublasLtMatmulAlgoGetHeuristic");
    if (rc == LOOM_OK && found == 0) {
        loom__error(LOOM_ERR_UNSUPPORTED, fn, "cublasLt has no algorithm for this epilogue");
        rc = LOOM_ERR_UNSUPPORTED;
    }
    float alpha = (float)g->alpha_re, beta = 0;
    if (rc == LOOM_OK)
        rc = lt_check(cublasLtMatmul(handles[device], c.op, &alpha, A, c.a, B, c.b, &beta, D, c.c,
                                     D, c.c, &best.algo, workspace, workspace_bytes, st),
                      fn, "cublasLtMatmul");
    lt_call_free(&c);
    return rc;
}

int loom__cublaslt_matmul(const char *fn, const loom_libcall *l, int device, void *const *addr,
                          cudaStream_t st)
{
    return lt_matmul(fn, device, &l->args.gemm, loom__lib_operand(l, addr, 0),
                     loom__lib_operand(l, addr, 1), loom__lib_operand(l, addr, 2),
                     loom__lib_operand(l, addr, 3), addr[l->workspace], l->workspace_bytes, st);
}

/* ---- the probe ---- */

typedef struct probe_answer {
    int device;
    int8_t dtype, epilogue;
    int64_t m, n, k;
    bool wins;
} probe_answer;

static probe_answer answers[PROBE_CACHE];
static int nanswers, next_answer; /* past PROBE_CACHE, the oldest answer is replaced */

static bool same_class(const probe_answer *p, int device, const loom_gemm_args *g)
{
    return p->device == device && p->dtype == g->dtype && p->epilogue == g->epilogue &&
           p->m == g->m && p->n == g->n && p->k == g->k;
}

/* Best of PROBE_REPS runs of one variant (after a warm-up), in milliseconds; < 0 on failure. */
static float best_time(const char *fn, int device, const loom_gemm_args *g, void **buf,
                       size_t ws_bytes, size_t out_bytes, bool epilogue, cudaStream_t st,
                       cudaEvent_t e0, cudaEvent_t e1)
{
    float best = -1;
    loom_gemm_args plain = *g;
    plain.epilogue = LOOM_EPILOGUE_NONE;
    loom_libcall l = {.routine = LOOM_LIB_CUBLAS_GEMM, .nbuffers = 3, .buffer = {0, 1, 2},
                      .workspace = 4, .workspace_bytes = ws_bytes, .args.gemm = plain};
    for (int r = 0; r <= PROBE_REPS; r++) {
        int rc = cudaEventRecord(e0, st) == cudaSuccess ? LOOM_OK : LOOM_ERR_CUDA;
        if (rc == LOOM_OK && epilogue)
            rc = lt_matmul(fn, device, g, buf[0], buf[1], buf[2], buf[3], buf[4], ws_bytes, st);
        if (rc == LOOM_OK && !epilogue)
            rc = loom__cublas_gemm(fn, &l, device, buf, st);
        if (rc == LOOM_OK && !epilogue &&
            cudaMemcpyAsync(buf[5], buf[2], out_bytes, cudaMemcpyDeviceToDevice, st) != cudaSuccess)
            rc = LOOM_ERR_CUDA;
        float ms = 0;
        if (rc == LOOM_OK && (cudaEventRecord(e1, st) != cudaSuccess ||
                              cudaEventSynchronize(e1) != cudaSuccess ||
                              cudaEventElapsedTime(&ms, e0, e1) != cudaSuccess))
            rc = LOOM_ERR_CUDA;
        loom__stat_add(LOOM__STAT_HOST_SYNCS, 1);
        if (rc)
            return -1;
        if (r > 0 && (best < 0 || ms < best))
            best = ms;
    }
    return best;
}

/* Times both variants on scratch buffers: A, B, D, bias, workspace, and the copy's target. */
static bool measure(int device, const loom_gemm_args *g)
{
    static const char fn[] = "cublasLt epilogue probe";
    size_t es = loom_dtype_size((loom_dtype)g->dtype), ws = (size_t)32 << 20;
    size_t bytes[6] = {(size_t)(g->m * g->k) * es, (size_t)(g->k * g->n) * es,
                       (size_t)(g->m * g->n) * es, (size_t)g->m * es, ws,
                       (size_t)(g->m * g->n) * es};
    loom_stream *s = loom__stream_current(fn, device);
    if (!s)
        return false;
    cudaStream_t st = (cudaStream_t)s->handle;
    loom_buffer *b[6] = {0};
    void *ptr[6];
    bool ok = true;
    for (int i = 0; i < 6 && ok; i++) {
        ok = (b[i] = loom__buffer_alloc(fn, bytes[i], device, s)) != NULL;
        ok = ok && cudaMemsetAsync(ptr[i] = b[i]->ptr, 0, bytes[i], st) == cudaSuccess;
    }
    cudaEvent_t e0 = NULL, e1 = NULL;
    ok = ok && cudaEventCreate(&e0) == cudaSuccess && cudaEventCreate(&e1) == cudaSuccess;
    float lt = ok ? best_time(fn, device, g, ptr, ws, bytes[2], true, st, e0, e1) : -1;
    float plain = lt >= 0 ? best_time(fn, device, g, ptr, ws, bytes[2], false, st, e0, e1) : -1;
    if (e0)
        cudaEventDestroy(e0);
    if (e1)
        cudaEventDestroy(e1);
    for (int i = 0; i < 6; i++)
        loom__buffer_release(b[i]);
    bool wins = lt >= 0 && plain >= 0 && lt < plain;
    LOOM__LOG("cublasLt probe: %s (%lld,%lld,%lld)%s: epilogue %.4f ms, gemm + pass %.4f ms: %s",
              loom_dtype_name((loom_dtype)g->dtype), (long long)g->m, (long long)g->n,
              (long long)g->k, g->epilogue == LOOM_EPILOGUE_RELU_BIAS ? " relu" : "", lt, plain,
              wins ? "epilogue" : "gemm + kernel");
    return wins;
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
    loom__saved_error saved;
    loom__error_save(&saved);
    bool wins = measure(device, g);
    loom__error_restore(&saved);
    pthread_mutex_lock(&lock);
    answers[next_answer] = (probe_answer){device, g->dtype, g->epilogue, g->m, g->n, g->k, wins};
    next_answer = (next_answer + 1) % PROBE_CACHE;
    nanswers = nanswers < PROBE_CACHE ? nanswers + 1 : nanswers;
    pthread_mutex_unlock(&lock);
    return wins;
}
