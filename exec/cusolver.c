/* cuSOLVER: one dense handle per device, created when a plan first needs it (outside any
 * capture). Workspaces are sized by cuSOLVER's queries when the call runs and taken from
 * Loom's memory pool, stream-ordered; status words (info) stay on the device and are checked
 * when a result is read (exec/check.c). */
#include "steps.h"

#include <cusolverDn.h>
#include <pthread.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdlib.h>

typedef struct device_solver {
    cusolverDnHandle_t handle;
    cusolverDnParams_t params;
    gesvdjInfo_t gesvdj; /* made at the first gesvdj call (evaluations are serialised) */
    syevjInfo_t syevj;   /* likewise, at the first syevjBatched call */
} device_solver;

static device_solver devices[LOOM__MAX_DEVICES];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static int solver_check(cusolverStatus_t st, const char *fn, const char *what)
{
    if (st == CUSOLVER_STATUS_SUCCESS)
        return LOOM_OK;
    int code = st == CUSOLVER_STATUS_ALLOC_FAILED ? LOOM_ERR_OOM : LOOM_ERR_LIBRARY;
    loom__error(code, fn, "%s failed (cuSOLVER status %d)", what, (int)st);
    loom__error_set_detail((int)st);
    return code;
}

static int device_get(const char *fn, int device, device_solver **out)
{
    pthread_mutex_lock(&lock);
    device_solver *d = &devices[device];
    int rc = LOOM_OK;
    if (!d->handle) {
        cusolverDnHandle_t h = NULL;
        cusolverDnParams_t p = NULL;
        rc = solver_check(cusolverDnCreate(&h), fn, "creating the cuSOLVER handle");
        if (rc == LOOM_OK)
            rc = solver_check(cusolverDnCreateParams(&p), fn, "creating cuSOLVER parameters");
        if (rc == LOOM_OK) {
            d->handle = h;
            d->params = p;
        } else if (h) {
            cusolverDnDestroy(h);
        }
    }
    pthread_mutex_unlock(&lock);
    *out = d;
    return rc;
}

/* The device's handle, set to run on st. */
static int solver_on(const char *fn, int device, cudaStream_t st, device_solver **d)
{
    int rc = device_get(fn, device, d);
    return rc ? rc : solver_check(cusolverDnSetStream((*d)->handle, st), fn,
                                  "setting cuSOLVER's stream");
}

int loom__cusolver_prepare(const char *fn, int device)
{
    device_solver *d;
    return device_get(fn, device, &d);
}

static cudaDataType_t data_type(loom_dtype dt)
{
    switch (dt) {
    case LOOM_FLOAT32:
        return CUDA_R_32F;
    case LOOM_COMPLEX64:
        return CUDA_C_32F;
    case LOOM_COMPLEX128:
        return CUDA_C_64F;
    default:
        return CUDA_R_64F;
    }
}

static cudaDataType_t real_type(loom_dtype dt)
{
    return dt == LOOM_FLOAT32 || dt == LOOM_COMPLEX64 ? CUDA_R_32F : CUDA_R_64F;
}

/* Device and host workspaces of the sizes a cuSOLVER query returned: the device one from the
 * pool on the current stream (freed stream-ordered after the call), the host one malloc'd. */
typedef struct workspace {
    loom_buffer *device;
    void *host;
} workspace;

static int workspace_get(const char *fn, int device, size_t dev_bytes, size_t host_bytes,
                         workspace *w)
{
    *w = (workspace){0};
    if (!(w->device = loom__buffer_alloc(fn, dev_bytes, device, NULL)))
        return loom_last_error_code();
    if (host_bytes && !(w->host = malloc(host_bytes))) {
        loom__buffer_release(w->device);
        loom__error(LOOM_ERR_OOM, fn, "out of host memory for %zu bytes", host_bytes);
        return LOOM_ERR_OOM;
    }
    return LOOM_OK;
}

static void workspace_put(workspace *w)
{
    loom__buffer_release(w->device);
    free(w->host);
}

/* cusolverDnXsyevBatched addresses its stack with 32-bit indices. */
#define BATCHED_ELEMENTS_MAX 2147483647LL

/* One call over `batch` matrices from A and W: Xsyevd for one, XsyevBatched for more. */
static int syev_call(const char *fn, device_solver *d, int device, const loom_eigh_args *e,
                     int64_t batch, void *A, void *W, int *info)
{
    cusolverEigMode_t jobz = e->vectors ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR;
    cublasFillMode_t uplo = e->upper ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
    cudaDataType_t ta = data_type((loom_dtype)e->dtype), tw = real_type((loom_dtype)e->dtype);
    size_t dev_bytes = 0, host_bytes = 0;
    workspace ws;
    int rc;
    if (batch == 1) {
        rc = solver_check(cusolverDnXsyevd_bufferSize(d->handle, d->params, jobz, uplo, e->n, ta,
                                                      A, e->n, tw, W, ta, &dev_bytes,
                                                      &host_bytes),
                          fn, "cusolverDnXsyevd_bufferSize");
        if (rc || (rc = workspace_get(fn, device, dev_bytes, host_bytes, &ws)))
            return rc;
        rc = solver_check(cusolverDnXsyevd(d->handle, d->params, jobz, uplo, e->n, ta, A, e->n,
                                           tw, W, ta, ws.device->ptr, dev_bytes, ws.host,
                                           host_bytes, info),
                          fn, "cusolverDnXsyevd");
    } else {
        rc = solver_check(cusolverDnXsyevBatched_bufferSize(d->handle, d->params, jobz, uplo,
                                                            e->n, ta, A, e->n, tw, W, ta,
                                                            &dev_bytes, &host_bytes, batch),
                          fn, "cusolverDnXsyevBatched_bufferSize");
        if (rc || (rc = workspace_get(fn, device, dev_bytes, host_bytes, &ws)))
            return rc;
        rc = solver_check(cusolverDnXsyevBatched(d->handle, d->params, jobz, uplo, e->n, ta, A,
                                                 e->n, tw, W, ta, ws.device->ptr, dev_bytes,
                                                 ws.host, host_bytes, info, batch),
                          fn, "cusolverDnXsyevBatched");
    }
    workspace_put(&ws);
    return rc;
}

int loom__cusolver_syevd(const char *fn, const loom_libcall *l, int device, void *const *addr,
                         cudaStream_t st)
{
    const loom_eigh_args *e = &l->args.eigh;
    device_solver *d;
    int rc = solver_on(fn, device, st, &d);
    if (rc)
        return rc;
    size_t item = loom_dtype_size((loom_dtype)e->dtype);
    size_t witem = loom__is_complex((loom_dtype)e->dtype) ? item / 2 : item;
    char *A = loom__lib_operand(l, addr, 0), *W = loom__lib_operand(l, addr, 1);
    int *info = loom__lib_operand(l, addr, 2);
    /* Stacks go to the batched routine in chunks it can index; matrices too large for it one
     * at a time (few of them fit in memory). */
    int64_t per = e->n * e->n, chunk = per <= BATCHED_ELEMENTS_MAX ? BATCHED_ELEMENTS_MAX / per : 1;
    for (int64_t b = 0; rc == LOOM_OK && b < e->batch; b += chunk) {
        int64_t count = e->batch - b < chunk ? e->batch - b : chunk;
        rc = syev_call(fn, d, device, e, count, A + (size_t)(b * per) * item,
                       W + (size_t)(b * e->n) * witem, info + b);
    }
    return rc;
}

/* ---- cholesky: potrf per matrix (legacy 32-bit API, workspace in the plan), potrfBatched
 * over a pointer array for stacks of small matrices ---- */

static int potrf_sizes_fit(const char *fn, const loom_potrf_args *f)
{
    if (f->n <= INT_MAX)
        return LOOM_OK;
    loom__error(LOOM_ERR_UNSUPPORTED, fn, "matrices of order %lld are beyond cuSOLVER's 32-bit "
                "cholesky routines", (long long)f->n);
    return LOOM_ERR_UNSUPPORTED;
}

static cublasFillMode_t potrf_uplo(const loom_potrf_args *f)
{
    return f->upper ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
}

int loom__cusolver_potrf_workspace(const char *fn, const loom_libcall *l, int device,
                                   size_t *bytes)
{
    const loom_potrf_args *f = &l->args.potrf;
    device_solver *d;
    int lwork = 0, rc = potrf_sizes_fit(fn, f);
    if (rc || (rc = device_get(fn, device, &d)))
        return rc;
    int n = (int)f->n;
    cusolverStatus_t st;
    LOOM__TYPED_CALL(st, f->dtype, cusolverDn, potrf_bufferSize, potrf_bufferSize, d->handle,
                     potrf_uplo(f), n, NULL, n, &lwork);
    *bytes = (size_t)(lwork > 0 ? lwork : 0) * loom_dtype_size((loom_dtype)f->dtype);
    return solver_check(st, fn, "cusolverDn<t>potrf_bufferSize");
}

int loom__cusolver_potrf(const char *fn, const loom_libcall *l, int device, void *const *addr,
                         cudaStream_t st)
{
    const loom_potrf_args *f = &l->args.potrf;
    device_solver *d;
    size_t needed = 0;
    int rc = potrf_sizes_fit(fn, f);
    if (rc || (rc = solver_on(fn, device, st, &d)) ||
        (rc = loom__cusolver_potrf_workspace(fn, l, device, &needed)))
        return rc;
    if (needed > l->workspace_bytes) {
        loom__error(LOOM_ERR_INVALID, fn, "internal error: potrf needs %zu bytes of workspace, "
                    "the plan has %zu", needed, l->workspace_bytes);
        return LOOM_ERR_INVALID;
    }
    size_t item = loom_dtype_size((loom_dtype)f->dtype);
    void *ws = l->workspace >= 0 ? addr[l->workspace] : NULL;
    char *A = loom__lib_operand(l, addr, 0);
    int *info = loom__lib_operand(l, addr, 1);
    int n = (int)f->n, lwork = (int)(l->workspace_bytes / item);
    for (int64_t b = 0; rc == LOOM_OK && b < f->batch; b++) {
        void *Ab = A + (size_t)(b * f->n * f->n) * item;
        cusolverStatus_t s;
        LOOM__TYPED_CALL(s, f->dtype, cusolverDn, potrf, potrf, d->handle, potrf_uplo(f), n, Ab,
                         n, ws, lwork, info + b);
        rc = solver_check(s, fn, "cusolverDn<t>potrf");
    }
    return rc;
}

int loom__cusolver_potrf_batched(const char *fn, const loom_libcall *l, int device,
                                 void *const *addr, cudaStream_t st)
{
    const loom_potrf_args *f = &l->args.potrf;
    device_solver *d;
    int rc = potrf_sizes_fit(fn, f);
    if (rc || (rc = solver_on(fn, device, st, &d)))
        return rc;
    void **ptrs = loom__lib_operand(l, addr, 0);
    int *info = loom__lib_operand(l, addr, 1);
    int n = (int)f->n;
    /* batchSize is an int: longer stacks in chunks of the pointer array */
    for (int64_t b = 0; rc == LOOM_OK && b < f->batch; b += INT_MAX) {
        int count = f->batch - b < INT_MAX ? (int)(f->batch - b) : INT_MAX;
        cusolverStatus_t s;
        LOOM__TYPED_CALL(s, f->dtype, cusolverDn, potrfBatched, potrfBatched, d->handle,
                         potrf_uplo(f), n, (void *)(ptrs + b), n, info + b, count);
        rc = solver_check(s, fn, "cusolverDn<t>potrfBatched");
    }
    return rc;
}

/* ---- eigh of stacks of tiny matrices: syevjBatched (Jacobi; eigenvalues ascending) ---- */

int loom__cusolver_syevj_batched(const char *fn, const loom_libcall *l, int device,
                                 void *const *addr, cudaStream_t st)
{
    const loom_eigh_args *e = &l->args.eigh;
    device_solver *d;
    int rc = solver_on(fn, device, st, &d);
    if (rc == LOOM_OK && !d->syevj)
        rc = solver_check(cusolverDnCreateSyevjInfo(&d->syevj), fn, "creating syevj parameters");
    if (rc)
        return rc;
    cusolverEigMode_t jobz = e->vectors ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR;
    cublasFillMode_t uplo = e->upper ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
    size_t item = loom_dtype_size((loom_dtype)e->dtype);
    size_t witem = loom__is_complex((loom_dtype)e->dtype) ? item / 2 : item;
    char *A = loom__lib_operand(l, addr, 0), *W = loom__lib_operand(l, addr, 1);
    int *info = loom__lib_operand(l, addr, 2);
    int n = (int)e->n;
    for (int64_t b = 0; rc == LOOM_OK && b < e->batch; b += INT_MAX) {
        int count = e->batch - b < INT_MAX ? (int)(e->batch - b) : INT_MAX, lwork = 0;
        void *Ab = A + (size_t)(b * e->n * e->n) * item, *Wb = W + (size_t)(b * e->n) * witem;
        cusolverStatus_t s;
        LOOM__TYPED_CALL(s, e->dtype, cusolverDn, syevjBatched_bufferSize,
                         heevjBatched_bufferSize, d->handle, jobz, uplo, n, Ab, n, Wb, &lwork,
                         d->syevj, count);
        rc = solver_check(s, fn, "cusolverDn<t>syevjBatched_bufferSize");
        workspace ws;
        if (rc || (rc = workspace_get(fn, device, (size_t)(lwork > 0 ? lwork : 1) * item, 0,
                                      &ws)))
            break;
        LOOM__TYPED_CALL(s, e->dtype, cusolverDn, syevjBatched, heevjBatched, d->handle, jobz,
                         uplo, n, Ab, n, Wb, ws.device->ptr, lwork, info + b, d->syevj, count);
        rc = solver_check(s, fn, "cusolverDn<t>syevjBatched");
        workspace_put(&ws);
    }
    return rc;
}

/* ---- LU: getrf and getrs, one call per matrix (legacy API: its pivots are int32, as cuBLAS's
 * batched routines' are) ---- */

static int lu_sizes_fit(const char *fn, const loom_lu_args *u)
{
    if (u->n <= INT_MAX && u->nrhs <= INT_MAX)
        return LOOM_OK;
    loom__error(LOOM_ERR_UNSUPPORTED, fn, "matrices of order %lld are beyond cuSOLVER's 32-bit "
                "LU routines", (long long)u->n);
    return LOOM_ERR_UNSUPPORTED;
}

int loom__cusolver_getrf_workspace(const char *fn, const loom_libcall *l, int device,
                                   size_t *bytes)
{
    const loom_lu_args *u = &l->args.lu;
    device_solver *d;
    int lwork = 0, rc = lu_sizes_fit(fn, u);
    if (rc || (rc = device_get(fn, device, &d)))
        return rc;
    int n = (int)u->n;
    cusolverStatus_t st;
    LOOM__TYPED_CALL(st, u->dtype, cusolverDn, getrf_bufferSize, getrf_bufferSize, d->handle, n, n,
                     NULL, n, &lwork);
    rc = solver_check(st, fn, "cusolverDn<t>getrf_bufferSize");
    *bytes = (size_t)(lwork > 0 ? lwork : 0) * loom_dtype_size((loom_dtype)u->dtype);
    return rc;
}

int loom__cusolver_getrf(const char *fn, const loom_libcall *l, int device, void *const *addr,
                         cudaStream_t st)
{
    const loom_lu_args *u = &l->args.lu;
    device_solver *d;
    int rc = lu_sizes_fit(fn, u);
    if (rc || (rc = solver_on(fn, device, st, &d)))
        return rc;
    size_t item = loom_dtype_size((loom_dtype)u->dtype);
    size_t needed = 0;
    if ((rc = loom__cusolver_getrf_workspace(fn, l, device, &needed)))
        return rc;
    if (needed > l->workspace_bytes) {
        loom__error(LOOM_ERR_INVALID, fn, "internal error: getrf needs %zu bytes of workspace, "
                    "the plan has %zu", needed, l->workspace_bytes);
        return LOOM_ERR_INVALID;
    }
    void *ws = l->workspace >= 0 ? addr[l->workspace] : NULL;
    char *A = loom__lib_operand(l, addr, 0);
    int *ipiv = loom__lib_operand(l, addr, 1), *info = loom__lib_operand(l, addr, 2);
    int n = (int)u->n;
    for (int64_t b = 0; rc == LOOM_OK && b < u->batch; b++) {
        void *Ab = A + (size_t)(b * u->n * u->n) * item;
        int *pb = ipiv + b * u->n, *ib = info + b;
        cusolverStatus_t s;
        LOOM__TYPED_CALL(s, u->dtype, cusolverDn, getrf, getrf, d->handle, n, n, Ab, n, ws, pb, ib);
        rc = solver_check(s, fn, "cusolverDn<t>getrf");
    }
    return rc;
}

int loom__cusolver_getrs(const char *fn, const loom_libcall *l, int device, void *const *addr,
                         cudaStream_t st)
{
    const loom_lu_args *u = &l->args.lu;
    device_solver *d;
    int rc = lu_sizes_fit(fn, u);
    if (rc || (rc = solver_on(fn, device, st, &d)))
        return rc;
    size_t item = loom_dtype_size((loom_dtype)u->dtype);
    cublasOperation_t trans = u->trans ? CUBLAS_OP_T : CUBLAS_OP_N;
    char *A = loom__lib_operand(l, addr, 0), *B = loom__lib_operand(l, addr, 2);
    int *ipiv = loom__lib_operand(l, addr, 1), *info = loom__lib_operand(l, addr, 3);
    int n = (int)u->n, nrhs = (int)u->nrhs;
    for (int64_t b = 0; rc == LOOM_OK && b < u->batch; b++) {
        void *Ab = A + (size_t)(b * u->n * u->n) * item;
        void *Bb = B + (size_t)(b * u->n * u->nrhs) * item;
        const int *pb = ipiv + b * u->n;
        cusolverStatus_t s;
        LOOM__TYPED_CALL(s, u->dtype, cusolverDn, getrs, getrs, d->handle, trans, n, nrhs, Ab, n,
                         pb, Bb, n, info);
        rc = solver_check(s, fn, "cusolverDn<t>getrs");
    }
    return rc;
}

/* ---- SVD: Xgesvdp (polar decomposition), Xgesvd (QR iterations), <t>gesvdj (Jacobi) ---- */

static atomic_uint_fast64_t svd_fallbacks;

uint64_t loom__cusolver_svd_fallbacks(void)
{
    return atomic_load(&svd_fallbacks);
}

/* One matrix: A (R x C, destroyed), S, U (R x ucols), V (C x C), info; column-major. */
typedef struct svd_one {
    void *A, *S, *U, *V;
    int *info;
} svd_one;

static double unit_roundoff(loom_dtype dt)
{
    return dt == LOOM_FLOAT32 || dt == LOOM_COMPLEX64 ? 0x1p-24 : 0x1p-53;
}

static cusolverEigMode_t svd_jobz(const loom_svd_args *e)
{
    return e->vectors ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR;
}

static int gesvdp_size(const char *fn, device_solver *d, const loom_svd_args *e, size_t *dev,
                       size_t *host)
{
    cudaDataType_t t = data_type((loom_dtype)e->dtype), r = real_type((loom_dtype)e->dtype);
    return solver_check(cusolverDnXgesvdp_bufferSize(d->handle, d->params, svd_jobz(e), !e->full,
                                                     e->rows, e->cols, t, NULL, e->rows, r, NULL,
                                                     t, NULL, e->rows, t, NULL, e->cols, t, dev,
                                                     host),
                        fn, "cusolverDnXgesvdp_bufferSize");
}

static int gesvd_size(const char *fn, device_solver *d, const loom_svd_args *e, size_t *dev,
                      size_t *host)
{
    cudaDataType_t t = data_type((loom_dtype)e->dtype), r = real_type((loom_dtype)e->dtype);
    signed char ju = e->vectors ? (e->full ? 'A' : 'S') : 'N', jv = e->vectors ? 'A' : 'N';
    return solver_check(cusolverDnXgesvd_bufferSize(d->handle, d->params, ju, jv, e->rows, e->cols,
                                                    t, NULL, e->rows, r, NULL, t, NULL, e->rows,
                                                    t, NULL, e->cols, t, dev, host),
                        fn, "cusolverDnXgesvd_bufferSize");
}

static int gesvdj_info(const char *fn, device_solver *d)
{
    return d->gesvdj ? LOOM_OK : solver_check(cusolverDnCreateGesvdjInfo(&d->gesvdj), fn,
                                              "creating gesvdj parameters");
}

static int gesvdj_size(const char *fn, device_solver *d, const loom_svd_args *e, size_t *dev)
{
    int rc = gesvdj_info(fn, d), lwork = 0, m = (int)e->rows, n = (int)e->cols;
    if (rc)
        return rc;
    cusolverEigMode_t jobz = svd_jobz(e);
    cusolverStatus_t s;
    LOOM__TYPED_CALL(s, e->dtype, cusolverDn, gesvdj_bufferSize, gesvdj_bufferSize, d->handle, jobz,
                     !e->full, m, n, NULL, m, NULL, NULL, m, NULL, n, &lwork, d->gesvdj);
    *dev = (size_t)(lwork > 0 ? lwork : 0) * loom_dtype_size((loom_dtype)e->dtype);
    return solver_check(s, fn, "cusolverDn<t>gesvdj_bufferSize");
}

static int run_gesvdp(const char *fn, device_solver *d, const loom_svd_args *e, const svd_one *o,
                      const workspace *ws, size_t dev, size_t host, double *err)
{
    cudaDataType_t t = data_type((loom_dtype)e->dtype), r = real_type((loom_dtype)e->dtype);
    return solver_check(cusolverDnXgesvdp(d->handle, d->params, svd_jobz(e), !e->full, e->rows,
                                          e->cols, t, o->A, e->rows, r, o->S, t, o->U, e->rows, t,
                                          o->V, e->cols, t, ws->device->ptr, dev, ws->host, host,
                                          o->info, err),
                        fn, "cusolverDnXgesvdp");
}

/* gesvd writes V^H: it goes to V, and its adjoint through scratch (the destroyed A) back. */
static int run_gesvd(const char *fn, device_solver *d, int device, cudaStream_t st,
                     const loom_svd_args *e, const svd_one *o, const workspace *ws, size_t dev,
                     size_t host)
{
    cudaDataType_t t = data_type((loom_dtype)e->dtype), r = real_type((loom_dtype)e->dtype);
    signed char ju = e->vectors ? (e->full ? 'A' : 'S') : 'N', jv = e->vectors ? 'A' : 'N';
    int rc = solver_check(cusolverDnXgesvd(d->handle, d->params, ju, jv, e->rows, e->cols, t, o->A,
                                           e->rows, r, o->S, t, o->U, e->rows, t, o->V, e->cols,
                                           t, ws->device->ptr, dev, ws->host, host, o->info),
                          fn, "cusolverDnXgesvd");
    if (rc || !e->vectors)
        return rc;
    size_t bytes = (size_t)(e->cols * e->cols) * loom_dtype_size((loom_dtype)e->dtype);
    rc = loom__cublas_adjoint(fn, device, st, (loom_dtype)e->dtype, e->cols, o->V, o->A);
    return rc ? rc : loom__cuda_check(cudaMemcpyAsync(o->V, o->A, bytes, cudaMemcpyDeviceToDevice,
                                                      st),
                                      fn, "copying singular vectors");
}

static int run_gesvdj(const char *fn, device_solver *d, const loom_svd_args *e, const svd_one *o,
                      const workspace *ws, size_t dev)
{
    int m = (int)e->rows, n = (int)e->cols;
    int lwork = (int)(dev / loom_dtype_size((loom_dtype)e->dtype));
    cusolverEigMode_t jobz = svd_jobz(e);
    void *w = ws->device->ptr;
    cusolverStatus_t s;
    LOOM__TYPED_CALL(s, e->dtype, cusolverDn, gesvdj, gesvdj, d->handle, jobz, !e->full, m, n, o->A,
                     m, o->S, o->U, m, o->V, n, w, lwork, o->info, d->gesvdj);
    return solver_check(s, fn, "cusolverDn<t>gesvdj");
}

/* cusolverDn<t>gesvdjBatched takes matrices of at most this order. */
#define GESVDJ_BATCHED_MAX 32

/* A stack of small matrices in one gesvdjBatched call (Jacobi: accurate without a second
 * try). It forms full U (R x R): for a reduced U it writes to scratch and copies the first C
 * columns of each matrix (contiguous column-major) into the result. */
static int svd_batched(const char *fn, device_solver *d, int device, cudaStream_t st,
                       const loom_svd_args *e, char *A, char *S, char *U, char *V, int *info)
{
    int m = (int)e->rows, n = (int)e->cols, batch = (int)e->batch, lwork = 0;
    size_t item = loom_dtype_size((loom_dtype)e->dtype);
    cusolverEigMode_t jobz = svd_jobz(e);
    bool reduced_u = e->vectors && !e->full && e->rows > e->cols;
    int rc = gesvdj_info(fn, d);
    /* U and V are written even without vectors: scratch then (and for a reduced U) */
    loom_buffer *full_u = NULL, *scratch_v = NULL;
    if (rc == LOOM_OK && (reduced_u || !e->vectors) &&
        !(full_u = loom__buffer_alloc(fn, (size_t)(e->batch * e->rows * e->rows) * item, device,
                                      NULL)))
        rc = loom_last_error_code();
    if (rc == LOOM_OK && !e->vectors &&
        !(scratch_v = loom__buffer_alloc(fn, (size_t)(e->batch * e->cols * e->cols) * item,
                                         device, NULL)))
        rc = loom_last_error_code();
    void *u = full_u ? full_u->ptr : (void *)U;
    if (scratch_v)
        V = scratch_v->ptr;
    cusolverStatus_t s = CUSOLVER_STATUS_SUCCESS;
    if (rc == LOOM_OK) {
        LOOM__TYPED_CALL(s, e->dtype, cusolverDn, gesvdjBatched_bufferSize,
                         gesvdjBatched_bufferSize, d->handle, jobz, m, n, (void *)A, m, (void *)S,
                         u, m, (void *)V, n, &lwork, d->gesvdj, batch);
        rc = solver_check(s, fn, "cusolverDn<t>gesvdjBatched_bufferSize");
    }
    workspace ws = {0};
    if (rc == LOOM_OK)
        rc = workspace_get(fn, device, (size_t)(lwork > 0 ? lwork : 1) * item, 0, &ws);
    if (rc == LOOM_OK) {
        void *w = ws.device->ptr;
        LOOM__TYPED_CALL(s, e->dtype, cusolverDn, gesvdjBatched, gesvdjBatched, d->handle, jobz, m,
                         n, (void *)A, m, (void *)S, u, m, (void *)V, n, w, lwork, info, d->gesvdj,
                         batch);
        rc = solver_check(s, fn, "cusolverDn<t>gesvdjBatched");
        workspace_put(&ws);
    }
    if (rc == LOOM_OK && reduced_u) {
        size_t width = (size_t)(e->rows * e->cols) * item;
        rc = loom__cuda_check(cudaMemcpy2DAsync(U, width, full_u->ptr,
                                                (size_t)(e->rows * e->rows) * item, width,
                                                (size_t)e->batch, cudaMemcpyDeviceToDevice, st),
                              fn, "copying singular vectors");
    }
    loom__buffer_release(full_u);
    loom__buffer_release(scratch_v);
    return rc;
}

/* The automatic driver's test: gesvdp's error estimate above max(R, C) eps sigma_max (or not
 * a number) means its perturbation of tiny singular values shows; sigma_max is read back
 * (gesvdp has waited for the device already). */
static int gesvdp_inaccurate(const char *fn, const loom_svd_args *e, const svd_one *o,
                             cudaStream_t st, double err, bool *out)
{
    double smax = 0;
    float f = 0;
    bool single = real_type((loom_dtype)e->dtype) == CUDA_R_32F;
    int rc = loom__cuda_check(cudaMemcpyAsync(single ? (void *)&f : (void *)&smax, o->S,
                                              single ? sizeof f : sizeof smax,
                                              cudaMemcpyDeviceToHost, st),
                              fn, "reading sigma_max");
    if (rc == LOOM_OK)
        rc = loom__cuda_check(cudaStreamSynchronize(st), fn, "waiting for gesvdp");
    loom__stat_add(LOOM__STAT_HOST_SYNCS, 1);
    if (single)
        smax = f;
    double bound = (double)(e->rows > e->cols ? e->rows : e->cols) *
                   unit_roundoff((loom_dtype)e->dtype) * smax;
    *out = !(err <= bound);
    return rc;
}

int loom__cusolver_svd(const char *fn, const loom_libcall *l, int device, void *const *addr,
                       cudaStream_t st)
{
    const loom_svd_args *e = &l->args.svd;
    device_solver *d;
    int rc = solver_on(fn, device, st, &d);
    if (rc)
        return rc;
    if (e->batch > 1 && e->rows <= GESVDJ_BATCHED_MAX &&
        (e->driver == LOOM_SVD_AUTO || e->driver == LOOM_SVD_GESVDJ))
        return svd_batched(fn, d, device, st, e, loom__lib_operand(l, addr, 1),
                           (char *)loom__lib_operand(l, addr, 2) + e->s_at,
                           e->vectors ? (char *)loom__lib_operand(l, addr, 2) + e->u_at : NULL,
                           e->vectors ? (char *)loom__lib_operand(l, addr, 2) + e->v_at : NULL,
                           loom__lib_operand(l, addr, 3));
    bool jacobi = e->driver == LOOM_SVD_GESVDJ;
    bool polar = e->driver == LOOM_SVD_GESVDP || e->driver == LOOM_SVD_AUTO;
    bool qr = e->driver == LOOM_SVD_GESVD || e->driver == LOOM_SVD_AUTO;
    if (jacobi && (e->rows > INT_MAX || e->cols > INT_MAX)) {
        loom__error(LOOM_ERR_UNSUPPORTED, fn, "gesvdj takes 32-bit sizes");
        return LOOM_ERR_UNSUPPORTED;
    }
    size_t pd = 0, ph = 0, qd = 0, qh = 0, jd = 0;
    if (polar)
        rc = gesvdp_size(fn, d, e, &pd, &ph);
    if (rc == LOOM_OK && qr)
        rc = gesvd_size(fn, d, e, &qd, &qh);
    if (rc == LOOM_OK && jacobi)
        rc = gesvdj_size(fn, d, e, &jd);
    size_t dev = pd > qd ? pd : qd, host = ph > qh ? ph : qh;
    dev = dev > jd ? dev : jd;
    workspace ws;
    if (rc || (rc = workspace_get(fn, device, dev ? dev : 1, host, &ws)))
        return rc;
    size_t item = loom_dtype_size((loom_dtype)e->dtype);
    size_t ritem = real_type((loom_dtype)e->dtype) == CUDA_R_32F ? 4 : 8;
    int64_t ucols = e->full ? e->rows : e->cols, per = e->rows * e->cols;
    char *in = loom__lib_operand(l, addr, 0), *work = loom__lib_operand(l, addr, 1);
    char *base = loom__lib_operand(l, addr, 2);
    int *info = loom__lib_operand(l, addr, 3);
    /* gesvdp writes U and V even without vectors (a tall matrix's R goes through U): scratch
     * for one matrix, reused along the stack */
    loom_buffer *scratch = NULL;
    if (polar && !e->vectors &&
        !(scratch = loom__buffer_alloc(fn, (size_t)(e->rows * ucols + e->cols * e->cols) * item,
                                       device, NULL)))
        rc = loom_last_error_code();
    for (int64_t b = 0; rc == LOOM_OK && b < e->batch; b++) {
        svd_one o = {
            work + (size_t)(b * per) * item, base + e->s_at + (size_t)(b * e->cols) * ritem,
            e->vectors ? base + e->u_at + (size_t)(b * e->rows * ucols) * item : NULL,
            e->vectors ? base + e->v_at + (size_t)(b * e->cols * e->cols) * item : NULL, info + b};
        if (scratch) {
            o.U = scratch->ptr;
            o.V = (char *)scratch->ptr + (size_t)(e->rows * ucols) * item;
        }
        if (jacobi) {
            rc = run_gesvdj(fn, d, e, &o, &ws, dev);
            continue;
        }
        if (!polar) {
            rc = run_gesvd(fn, d, device, st, e, &o, &ws, dev, host);
            continue;
        }
        double err = 0;
        bool again = false;
        rc = run_gesvdp(fn, d, e, &o, &ws, dev, host, &err);
        if (rc == LOOM_OK && e->driver == LOOM_SVD_AUTO)
            rc = gesvdp_inaccurate(fn, e, &o, st, err, &again);
        if (rc == LOOM_OK && again) {
            LOOM__LOG("svd: gesvdp error %g above the bound, recomputing with gesvd", err);
            atomic_fetch_add(&svd_fallbacks, 1);
            rc = loom__cuda_check(cudaMemcpyAsync(o.A, in + (size_t)(b * per) * item,
                                                  (size_t)per * item, cudaMemcpyDeviceToDevice, st),
                                  fn, "copying the matrix again");
            if (rc == LOOM_OK)
                rc = run_gesvd(fn, d, device, st, e, &o, &ws, dev, host);
        }
    }
    loom__buffer_release(scratch);
    workspace_put(&ws);
    return rc;
}

/* ---- QR: geqrf, orgqr / ungqr, one call per matrix ---- */

static int qr_sizes_fit(const char *fn, const loom_qr_args *q)
{
    if (q->m <= INT_MAX && q->n <= INT_MAX && q->qcols <= INT_MAX)
        return LOOM_OK;
    loom__error(LOOM_ERR_UNSUPPORTED, fn, "a %lld x %lld matrix is beyond cuSOLVER's 32-bit QR "
                "routines", (long long)q->m, (long long)q->n);
    return LOOM_ERR_UNSUPPORTED;
}

int loom__cusolver_qr_workspace(const char *fn, const loom_libcall *l, int device, size_t *bytes)
{
    const loom_qr_args *q = &l->args.qr;
    device_solver *d;
    int lwork = 0, rc = qr_sizes_fit(fn, q);
    if (rc || (rc = device_get(fn, device, &d)))
        return rc;
    int m = (int)q->m, n = (int)q->n, k = (int)q->k, qc = (int)q->qcols;
    bool geqrf = l->routine == LOOM_LIB_CUSOLVER_GEQRF;
    cusolverStatus_t s;
    if (geqrf)
        LOOM__TYPED_CALL(s, q->dtype, cusolverDn, geqrf_bufferSize, geqrf_bufferSize, d->handle, m,
                         n, NULL, m, &lwork);
    else
        LOOM__TYPED_CALL(s, q->dtype, cusolverDn, orgqr_bufferSize, ungqr_bufferSize, d->handle, m,
                         qc, k, NULL, m, NULL, &lwork);
    *bytes = (size_t)(lwork > 0 ? lwork : 0) * loom_dtype_size((loom_dtype)q->dtype);
    return solver_check(s, fn, geqrf ? "cusolverDn<t>geqrf_bufferSize"
                                     : "cusolverDn<t>orgqr_bufferSize");
}

int loom__cusolver_qr(const char *fn, const loom_libcall *l, int device, void *const *addr,
                      cudaStream_t st)
{
    const loom_qr_args *q = &l->args.qr;
    device_solver *d;
    size_t needed = 0;
    int rc = qr_sizes_fit(fn, q);
    if (rc || (rc = solver_on(fn, device, st, &d)) ||
        (rc = loom__cusolver_qr_workspace(fn, l, device, &needed)))
        return rc;
    if (needed > l->workspace_bytes) {
        loom__error(LOOM_ERR_INVALID, fn, "internal error: QR needs %zu bytes of workspace, the "
                    "plan has %zu", needed, l->workspace_bytes);
        return LOOM_ERR_INVALID;
    }
    bool geqrf = l->routine == LOOM_LIB_CUSOLVER_GEQRF;
    size_t item = loom_dtype_size((loom_dtype)q->dtype);
    char *base = loom__lib_operand(l, addr, 0);
    int *info = loom__lib_operand(l, addr, 1);
    void *ws = l->workspace >= 0 ? addr[l->workspace] : NULL;
    int m = (int)q->m, n = (int)q->n, k = (int)q->k, qc = (int)q->qcols;
    int lwork = (int)(l->workspace_bytes / item);
    int64_t copied = q->qcols < q->n ? q->qcols : q->n;
    for (int64_t b = 0; rc == LOOM_OK && b < q->batch; b++) {
        char *h = base + q->h_at + (size_t)(b * q->m * q->n) * item;
        char *tau = base + q->tau_at + (size_t)(b * q->k) * item;
        char *Q = base + q->q_at + (size_t)(b * q->m * q->qcols) * item;
        cusolverStatus_t s;
        if (geqrf) {
            LOOM__TYPED_CALL(s, q->dtype, cusolverDn, geqrf, geqrf, d->handle, m, n, (void *)h, m,
                             (void *)tau, ws, lwork, info);
            rc = solver_check(s, fn, "cusolverDn<t>geqrf");
            continue;
        }
        /* the reflectors (the first columns of h, contiguous column-major) into Q */
        rc = loom__cuda_check(cudaMemcpyAsync(Q, h, (size_t)(copied * q->m) * item,
                                              cudaMemcpyDeviceToDevice, st),
                              fn, "copying the reflectors");
        if (rc)
            break;
        LOOM__TYPED_CALL(s, q->dtype, cusolverDn, orgqr, ungqr, d->handle, m, qc, k, (void *)Q, m,
                         (void *)tau, ws, lwork, info);
        rc = solver_check(s, fn, "cusolverDn<t>orgqr");
    }
    return rc;
}

/* ---- eig: Xgeev per matrix, right eigenvectors only (cuSOLVER computes no left ones) ---- */

int loom__cusolver_geev(const char *fn, const loom_libcall *l, int device, void *const *addr,
                        cudaStream_t st)
{
    const loom_eig_args *e = &l->args.eig;
    device_solver *d;
    int rc = solver_on(fn, device, st, &d);
    if (rc)
        return rc;
    cudaDataType_t t = data_type((loom_dtype)e->dtype);
    cusolverEigMode_t jobvr = e->vectors ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR;
    size_t dev = 0, host = 0, item = loom_dtype_size((loom_dtype)e->dtype);
    rc = solver_check(cusolverDnXgeev_bufferSize(d->handle, d->params, CUSOLVER_EIG_MODE_NOVECTOR,
                                                 jobvr, e->n, t, NULL, e->n, t, NULL, t, NULL,
                                                 e->n, t, NULL, e->n, t, &dev, &host),
                      fn, "cusolverDnXgeev_bufferSize");
    workspace ws;
    if (rc || (rc = workspace_get(fn, device, dev ? dev : 1, host, &ws)))
        return rc;
    char *work = loom__lib_operand(l, addr, 0), *base = loom__lib_operand(l, addr, 1);
    int *info = loom__lib_operand(l, addr, 2);
    for (int64_t b = 0; rc == LOOM_OK && b < e->batch; b++) {
        char *A = work + (size_t)(b * e->n * e->n) * item;
        char *W = base + e->w_at + (size_t)(b * e->n) * item;
        char *VR = e->vectors ? base + e->v_at + (size_t)(b * e->n * e->n) * item : NULL;
        rc = solver_check(cusolverDnXgeev(d->handle, d->params, CUSOLVER_EIG_MODE_NOVECTOR, jobvr,
                                          e->n, t, A, e->n, t, W, t, NULL, e->n, t, VR, e->n, t,
                                          ws.device->ptr, dev, ws.host, host, info + b),
                          fn, "cusolverDnXgeev");
    }
    workspace_put(&ws);
    return rc;
}
