/* cuBLAS: one handle per device, created at its first product (evaluations are serialised, so
 * one handle serves every thread), with the settings that let a CUDA Graph capture its calls:
 * a workspace from the plan (cublasSetWorkspace, set before each call) and alpha/beta read from
 * device memory. float32 stays exact (no TF32) unless LOOM_TF32=1, as CuPy's CUPY_TF32. */
#include "steps.h"

#include <cublas_v2.h>
#include <pthread.h>
#include <limits.h>
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

int loom__cublas_check(int st, const char *fn, const char *what)
{
    if (st == CUBLAS_STATUS_SUCCESS)
        return LOOM_OK;
    int code = st == CUBLAS_STATUS_ALLOC_FAILED ? LOOM_ERR_OOM : LOOM_ERR_LIBRARY;
    loom__error(code, fn, "%s: %s", what, cublasGetStatusString((cublasStatus_t)st));
    loom__error_set_detail(st);
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
        rc = loom__cublas_check(cublasCreate(&h), fn, "creating the cuBLAS handle");
        if (rc == LOOM_OK)
            rc = loom__cublas_check(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_DEVICE), fn,
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
    rc = loom__cublas_check(cublasSetStream(d->handle, st), fn, "setting cuBLAS's stream");
    if (rc == LOOM_OK && l->workspace >= 0)
        rc = loom__cublas_check(cublasSetWorkspace(d->handle, addr[l->workspace], l->workspace_bytes),
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
        rc = loom__cublas_check(cublasSetPointerMode(d->handle, CUBLAS_POINTER_MODE_HOST), fn,
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
    rc = loom__cublas_check(s, fn, "cublasGemmStridedBatchedEx");
    if (g->nfactors) {
        int back = loom__cublas_check(cublasSetPointerMode(d->handle, CUBLAS_POINTER_MODE_DEVICE), fn,
                              "setting cuBLAS's pointer mode");
        rc = rc ? rc : back;
    }
    return rc;
}

/* ---- batched LU and QR of stacks of small matrices: cublas<t>getrfBatched / getrsBatched /
 * geqrfBatched over the pointer arrays the plan's kernels wrote ---- */

/* The handle on st, with no workspace: a GEMM's workspace may belong to a finished plan.
 * fits: the call's sizes fit cuBLAS's 32-bit arguments (else LOOM_ERR_UNSUPPORTED naming
 * what, with batch matrices). */
static int batched_handle(const char *fn, bool fits, const char *what, int64_t batch,
                          int device, cudaStream_t st, device_blas **d)
{
    if (!fits) {
        loom__error(LOOM_ERR_UNSUPPORTED, fn, "a stack of %lld matrices is beyond cuBLAS's "
                    "32-bit batched %s routines", (long long)batch, what);
        return LOOM_ERR_UNSUPPORTED;
    }
    int rc = device_get(fn, device, d);
    if (rc == LOOM_OK)
        rc = loom__cublas_check(cublasSetStream((*d)->handle, st), fn, "setting cuBLAS's stream");
    if (rc == LOOM_OK)
        rc = loom__cublas_check(cublasSetWorkspace((*d)->handle, NULL, 0), fn,
                        "setting cuBLAS's workspace");
    return rc;
}

static bool lu_fits(const loom_lu_args *u)
{
    return u->n <= INT_MAX && u->nrhs <= INT_MAX && u->batch <= INT_MAX;
}

int loom__cublas_getrf_batched(const char *fn, const loom_libcall *l, int device,
                               void *const *addr, cudaStream_t st)
{
    const loom_lu_args *u = &l->args.lu;
    device_blas *d;
    int rc = batched_handle(fn, lu_fits(u), "LU", u->batch, device, st, &d);
    if (rc)
        return rc;
    void *A = loom__lib_operand(l, addr, 0);
    int *ipiv = loom__lib_operand(l, addr, 1), *info = loom__lib_operand(l, addr, 2);
    int n = (int)u->n, batch = (int)u->batch;
    cublasStatus_t s;
    LOOM__TYPED_CALL(s, u->dtype, cublas, getrfBatched, getrfBatched, d->handle, n, A, n, ipiv,
                     info, batch);
    return loom__cublas_check(s, fn, "cublas<t>getrfBatched");
}

int loom__cublas_getrs_batched(const char *fn, const loom_libcall *l, int device,
                               void *const *addr, cudaStream_t st)
{
    const loom_lu_args *u = &l->args.lu;
    device_blas *d;
    int rc = batched_handle(fn, lu_fits(u), "LU", u->batch, device, st, &d);
    if (rc)
        return rc;
    void *A = loom__lib_operand(l, addr, 0), *B = loom__lib_operand(l, addr, 2);
    const int *ipiv = loom__lib_operand(l, addr, 1);
    int n = (int)u->n, nrhs = (int)u->nrhs, batch = (int)u->batch, info = 0;
    cublasOperation_t trans = u->trans ? CUBLAS_OP_T : CUBLAS_OP_N;
    cublasStatus_t s;
    LOOM__TYPED_CALL(s, u->dtype, cublas, getrsBatched, getrsBatched, d->handle, trans, n, nrhs, A,
                     n, ipiv, B, n, &info, batch);
    rc = loom__cublas_check(s, fn, "cublas<t>getrsBatched");
    if (rc == LOOM_OK && info != 0) {
        loom__error(LOOM_ERR_INVALID, fn, "internal error: cublas<t>getrsBatched rejected "
                    "argument %d", -info);
        rc = LOOM_ERR_INVALID;
    }
    return rc;
}

/* QR of a stack of small matrices: R and the reflectors in place, tau beside them. */
int loom__cublas_geqrf_batched(const char *fn, const loom_libcall *l, int device,
                               void *const *addr, cudaStream_t st)
{
    const loom_qr_args *q = &l->args.qr;
    device_blas *d;
    bool fits = q->m <= INT_MAX && q->n <= INT_MAX && q->batch <= INT_MAX;
    int rc = batched_handle(fn, fits, "QR", q->batch, device, st, &d);
    if (rc)
        return rc;
    void *A = loom__lib_operand(l, addr, 0), *tau = loom__lib_operand(l, addr, 1);
    int m = (int)q->m, n = (int)q->n, batch = (int)q->batch, info = 0;
    cublasStatus_t s;
    LOOM__TYPED_CALL(s, q->dtype, cublas, geqrfBatched, geqrfBatched, d->handle, m, n, A, m, tau,
                     &info, batch);
    rc = loom__cublas_check(s, fn, "cublas<t>geqrfBatched");
    if (rc == LOOM_OK && info != 0) {
        loom__error(LOOM_ERR_INVALID, fn, "internal error: cublas<t>geqrfBatched rejected "
                    "argument %d", -info);
        rc = LOOM_ERR_INVALID;
    }
    return rc;
}

int loom__cublas_adjoint(const char *fn, int device, cudaStream_t st, loom_dtype dt, int64_t n,
                         const void *src, void *dst)
{
    device_blas *d;
    int rc = device_get(fn, device, &d);
    if (rc == LOOM_OK)
        rc = loom__cublas_check(cublasSetStream(d->handle, st), fn, "setting cuBLAS's stream");
    if (rc)
        return rc;
    if (n > INT_MAX) {
        loom__error(LOOM_ERR_UNSUPPORTED, fn, "matrices of order %lld are beyond cuBLAS's "
                    "32-bit geam", (long long)n);
        return LOOM_ERR_UNSUPPORTED;
    }
    const char *c = d->constants;
    int k = (int)n;
    cublasStatus_t s;
    switch (dt) {
    case LOOM_FLOAT32:
        s = cublasSgeam(d->handle, CUBLAS_OP_T, CUBLAS_OP_N, k, k, (const float *)(c + ONE_F32),
                        src, k, (const float *)(c + ZERO_F32), dst, k, dst, k);
        break;
    case LOOM_COMPLEX64:
        s = cublasCgeam(d->handle, CUBLAS_OP_C, CUBLAS_OP_N, k, k,
                        (const cuComplex *)(c + ONE_C64), src, k,
                        (const cuComplex *)(c + ZERO_C64), dst, k, dst, k);
        break;
    case LOOM_COMPLEX128:
        s = cublasZgeam(d->handle, CUBLAS_OP_C, CUBLAS_OP_N, k, k,
                        (const cuDoubleComplex *)(c + ONE_C128), src, k,
                        (const cuDoubleComplex *)(c + ZERO_C128), dst, k, dst, k);
        break;
    default:
        s = cublasDgeam(d->handle, CUBLAS_OP_T, CUBLAS_OP_N, k, k, (const double *)(c + ONE_F64),
                        src, k, (const double *)(c + ZERO_F64), dst, k, dst, k);
        break;
    }
    return loom__cublas_check(s, fn, "cublas<t>geam");
}
