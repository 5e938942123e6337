/* cuSOLVER: one dense handle per device, created when a plan first needs it (outside any
 * capture). Workspaces are sized by cuSOLVER's queries when the call runs and taken from
 * Loom's memory pool, stream-ordered; status words (info) stay on the device and are checked
 * when a result is read (exec/check.c). */
#include "steps.h"

#include <cusolverDn.h>
#include <pthread.h>
#include <stdlib.h>

typedef struct device_solver {
    cusolverDnHandle_t handle;
    cusolverDnParams_t params;
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

int loom__cusolver_potrf(const char *fn, const loom_libcall *l, int device, void *const *addr,
                         cudaStream_t st)
{
    const loom_potrf_args *f = &l->args.potrf;
    device_solver *d;
    int rc = solver_on(fn, device, st, &d);
    if (rc)
        return rc;
    cublasFillMode_t uplo = f->upper ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
    cudaDataType_t t = data_type((loom_dtype)f->dtype);
    char *A = loom__lib_operand(l, addr, 0);
    int *info = loom__lib_operand(l, addr, 1);
    size_t dev_bytes = 0, host_bytes = 0, item = loom_dtype_size((loom_dtype)f->dtype);
    rc = solver_check(cusolverDnXpotrf_bufferSize(d->handle, d->params, uplo, f->n, t, A, f->n, t,
                                                  &dev_bytes, &host_bytes),
                      fn, "cusolverDnXpotrf_bufferSize");
    workspace ws;
    if (rc || (rc = workspace_get(fn, device, dev_bytes, host_bytes, &ws)))
        return rc;
    for (int64_t b = 0; rc == LOOM_OK && b < f->batch; b++)
        rc = solver_check(cusolverDnXpotrf(d->handle, d->params, uplo, f->n, t,
                                           A + (size_t)(b * f->n * f->n) * item, f->n, t,
                                           ws.device->ptr, dev_bytes, ws.host, host_bytes,
                                           info + b),
                          fn, "cusolverDnXpotrf");
    workspace_put(&ws);
    return rc;
}
