/* cuBLAS: one handle per device, created at its first product (evaluations are serialised, so
 * one handle serves every thread), with the settings that let a CUDA Graph capture its calls:
 * a workspace from the plan (cublasSetWorkspace, set before each call) and alpha/beta read from
 * device memory. float32 stays exact (no TF32) unless LOOM_TF32=1, as CuPy's CUPY_TF32. */
#include "steps.h"

#include <cublas_v2.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* alpha/beta constants in device memory: 1 and 0 for each scale type. */
enum { ONE_F32 = 0, ZERO_F32 = 4, ONE_F64 = 8, ZERO_F64 = 16, ONE_C64 = 24, ZERO_C64 = 32,
       ONE_C128 = 48, ZERO_C128 = 64, CONSTANTS_BYTES = 80 };

typedef struct device_blas {
    cublasHandle_t handle;
    void *constants;
} device_blas;

static device_blas devices[LOOM__MAX_DEVICES];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static int blas_check(cublasStatus_t st, const char *fn, const char *what)
{
    if (st == CUBLAS_STATUS_SUCCESS)
        return LOOM_OK;
    int code = st == CUBLAS_STATUS_ALLOC_FAILED ? LOOM_ERR_OOM : LOOM_ERR_LIBRARY;
    loom__error(code, fn, "%s: %s", what, cublasGetStatusString(st));
    loom__error_set_detail((int)st);
    return code;
}

/* The device's handle and constants, made on first use (the calling thread has device current). */
static int device_get(const char *fn, int device, device_blas **out)
{
    pthread_mutex_lock(&lock);
    device_blas *d = &devices[device];
    int rc = LOOM_OK;
    if (!d->handle) {
        unsigned char host[CONSTANTS_BYTES] = {0};
        float f1 = 1.0f;
        double d1 = 1.0;
        memcpy(host + ONE_F32, &f1, 4);
        memcpy(host + ONE_F64, &d1, 8);
        memcpy(host + ONE_C64, &f1, 4);
        memcpy(host + ONE_C128, &d1, 8);
        cublasHandle_t h = NULL;
        rc = blas_check(cublasCreate(&h), fn, "creating the cuBLAS handle");
        if (rc == LOOM_OK)
            rc = blas_check(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_DEVICE), fn,
                            "setting cuBLAS's pointer mode");
        if (rc == LOOM_OK)
            rc = loom__cuda_check(cudaMalloc(&d->constants, CONSTANTS_BYTES), fn,
                                  "allocating cuBLAS constants");
        if (rc == LOOM_OK) {
            /* once per device and process: the only host wait a product ever costs */
            rc = loom__cuda_check(cudaMemcpy(d->constants, host, CONSTANTS_BYTES,
                                             cudaMemcpyHostToDevice),
                                  fn, "writing cuBLAS constants");
            loom__stat_add(LOOM__STAT_HOST_SYNCS, 1);
        }
        if (rc == LOOM_OK) {
            d->handle = h;
        } else {
            if (h)
                cublasDestroy(h);
            if (d->constants)
                cudaFree(d->constants);
            d->constants = NULL;
        }
    }
    pthread_mutex_unlock(&lock);
    *out = d;
    return rc;
}

int loom__cublas_prepare(const char *fn, int device)
{
    device_blas *d;
    return device_get(fn, device, &d);
}

static bool tf32_allowed(void)
{
    const char *env = getenv("LOOM_TF32");
    return env && strcmp(env, "1") == 0;
}

static cublasOperation_t op_of(int8_t op)
{
    return op == 'T' ? CUBLAS_OP_T : op == 'C' ? CUBLAS_OP_C : CUBLAS_OP_N;
}

int loom__cublas_gemm(const char *fn, const loom_libcall *l, int device, void *const *addr,
                      cudaStream_t st)
{
    const loom_gemm_args *g = &l->args.gemm;
    cudaDataType_t type;
    cublasComputeType_t compute;
    size_t one, zero;
    switch ((loom_dtype)g->dtype) {
    case LOOM_FLOAT16:
    case LOOM_BFLOAT16:
        type = g->dtype == LOOM_FLOAT16 ? CUDA_R_16F : CUDA_R_16BF;
        compute = CUBLAS_COMPUTE_32F; /* float32 accumulation */
        one = ONE_F32, zero = ZERO_F32;
        break;
    case LOOM_FLOAT32:
    case LOOM_COMPLEX64:
        type = g->dtype == LOOM_FLOAT32 ? CUDA_R_32F : CUDA_C_32F;
        compute = tf32_allowed() ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
        one = g->dtype == LOOM_FLOAT32 ? ONE_F32 : ONE_C64;
        zero = g->dtype == LOOM_FLOAT32 ? ZERO_F32 : ZERO_C64;
        break;
    case LOOM_FLOAT64:
    case LOOM_COMPLEX128:
        type = g->dtype == LOOM_FLOAT64 ? CUDA_R_64F : CUDA_C_64F;
        compute = CUBLAS_COMPUTE_64F;
        one = g->dtype == LOOM_FLOAT64 ? ONE_F64 : ONE_C128;
        zero = g->dtype == LOOM_FLOAT64 ? ZERO_F64 : ZERO_C128;
        break;
    default:
        loom__error(LOOM_ERR_INVALID, fn, "internal error: cuBLAS has no %s product",
                    loom_dtype_name((loom_dtype)g->dtype));
        return LOOM_ERR_INVALID;
    }
    device_blas *d;
    int rc = device_get(fn, device, &d);
    if (rc)
        return rc;
    rc = blas_check(cublasSetStream(d->handle, st), fn, "setting cuBLAS's stream");
    if (rc == LOOM_OK && l->workspace >= 0)
        rc = blas_check(cublasSetWorkspace(d->handle, addr[l->workspace], l->workspace_bytes),
                        fn, "setting cuBLAS's workspace");
    if (rc)
        return rc;
    /* alpha and beta: 1 and 0 (or 1) from the device constants; a folded scalar factor
     * (s * (a @ b)) is a value of the plan, read from host memory when the call is made or
     * captured (a changed value is captured again). */
    const char *c = d->constants;
    const void *alpha = c + one, *beta = c + (g->beta_one ? one : zero);
    float hf[4] = {(float)g->alpha_re, (float)g->alpha_im, g->beta_one ? 1.0f : 0.0f, 0.0f};
    double hd[4] = {g->alpha_re, g->alpha_im, g->beta_one ? 1.0 : 0.0, 0.0};
    if (g->nfactors) {
        bool single = compute != CUBLAS_COMPUTE_64F;
        alpha = single ? (const void *)hf : (const void *)hd;
        beta = single ? (const void *)(hf + 2) : (const void *)(hd + 2);
        rc = blas_check(cublasSetPointerMode(d->handle, CUBLAS_POINTER_MODE_HOST), fn,
                        "setting cuBLAS's pointer mode");
        if (rc)
            return rc;
    }
    const void *A = loom__lib_operand(l, addr, 0), *B = loom__lib_operand(l, addr, 1);
    void *C = loom__lib_operand(l, addr, 2);
    cublasStatus_t s = cublasGemmStridedBatchedEx(
        d->handle, op_of(g->op_a), op_of(g->op_b), (int)g->m, (int)g->n, (int)g->k, alpha, A,
        type, (int)g->lda, g->stride_a, B, type, (int)g->ldb, g->stride_b, beta, C, type,
        (int)g->ldc, g->stride_c, (int)g->batch, compute, CUBLAS_GEMM_DEFAULT);
    rc = blas_check(s, fn, "cublasGemmStridedBatchedEx");
    if (g->nfactors) {
        int back = blas_check(cublasSetPointerMode(d->handle, CUBLAS_POINTER_MODE_DEVICE), fn,
                              "setting cuBLAS's pointer mode");
        rc = rc ? rc : back;
    }
    return rc;
}
