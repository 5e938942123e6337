/* Factorisations on the host device with LAPACKE: LU (getrf, getrs), cholesky (potrf) and QR
 * (geqrf, orgqr / ungqr), for the per-matrix cuSOLVER steps and the batched cuBLAS/cuSOLVER ones
 * alike. The plan's layout holds: column-major matrices, LAPACK's 1-based int32 pivots, info
 * words with cuSOLVER's meaning (0, or the failing column), batched operands as arrays of
 * matrix addresses that the plan's own pointer kernels wrote (host addresses here). LAPACK's
 * workspaces are host buffers of the pool (out of memory: LOOM_ERR_OOM naming fn). */
#include "host_blas.h"

#include <limits.h>
#include <string.h>

const loom__host_lapack *loom__host_lapack_for(const char *fn, const char *what, int64_t rows,
                                               int64_t cols)
{
    const char *why;
    const loom__host_lapack *lp = loom__host_lapack_get(&why);
    if (!lp) {
        loom__error(LOOM_ERR_UNSUPPORTED, fn, "%s is not available on the host device: %s", what, why);
        return NULL;
    }
    if (rows > INT_MAX || cols > INT_MAX) {
        loom__error(LOOM_ERR_UNSUPPORTED, fn, "%s: a %lld x %lld matrix is beyond LAPACK's 32-bit "
                    "sizes", what, (long long)rows, (long long)cols);
        return NULL;
    }
    return lp;
}

int loom__host_lwork(const void *query, loom_dtype dt)
{
    /* the answer is a float in the first (real) element; a float32 one may have been rounded
     * down, so a little is added */
    float f;
    double q;
    if (dt == LOOM_FLOAT32 || dt == LOOM_COMPLEX64) {
        memcpy(&f, query, sizeof f);
        q = f;
    } else {
        memcpy(&q, query, sizeof q);
    }
    q = q * (1 + 0x1p-20) + 1;
    return q < INT_MAX ? (int)q : INT_MAX;
}

int loom__host_workspace_get(const char *fn, const char *what, loom_dtype dt, int64_t lwork,
                             int64_t lrwork, int64_t liwork, loom__host_workspace *w)
{
    size_t item = loom_dtype_size(dt), ritem = loom__is_complex(dt) ? item / 2 : item;
    size_t work = (size_t)(lwork > 0 ? lwork : 1) * item;
    size_t rwork = (size_t)(lrwork > 0 ? lrwork : 1) * ritem;
    size_t iwork = (size_t)(liwork > 0 ? liwork : 1) * sizeof(int);
    w->buffer = loom__host_buffer_alloc(fn, what, work + rwork + iwork);
    if (!w->buffer)
        return loom_last_error_code();
    w->work = w->buffer->ptr;
    w->rwork = (char *)w->buffer->ptr + work;
    w->iwork = (int *)((char *)w->rwork + rwork);
    return LOOM_OK;
}

void *loom__host_matrix(const loom_libcall *l, void *const *addr, int k, bool pointers, int64_t b,
                        size_t bytes)
{
    if (pointers)
        return ((void *const *)loom__lib_operand(l, addr, k))[b];
    return (char *)loom__lib_operand(l, addr, k) + (size_t)b * bytes;
}

/* ---- LU ---- */

int loom__host_getrf(const char *fn, const loom_libcall *l, void *const *addr)
{
    const loom_lu_args *u = &l->args.lu;
    const loom__host_lapack *lp = loom__host_lapack_for(fn, "LU (getrf)", u->n, u->n);
    if (!lp)
        return loom_last_error_code();
    bool pointers = l->routine == LOOM_LIB_CUBLAS_GETRF_BATCHED;
    int t = loom__host_type_index((loom_dtype)u->dtype), n = (int)u->n;
    size_t bytes = (size_t)(u->n * u->n) * loom_dtype_size((loom_dtype)u->dtype);
    int *ipiv = loom__lib_operand(l, addr, 1), *info = loom__lib_operand(l, addr, 2);
    for (int64_t b = 0; b < u->batch; b++) {
        int r = lp->getrf[t](LOOM__COL_MAJOR, n, n, loom__host_matrix(l, addr, 0, pointers, b, bytes),
                             n, ipiv + b * u->n);
        if (r < 0)
            return loom__host_lapack_failed(fn, "getrf", r);
        info[b] = r; /* > 0: U(r, r) is exactly zero */
    }
    return LOOM_OK;
}

int loom__host_getrs(const char *fn, const loom_libcall *l, void *const *addr)
{
    const loom_lu_args *u = &l->args.lu;
    const loom__host_lapack *lp = loom__host_lapack_for(fn, "LU solve (getrs)", u->n, u->nrhs);
    if (!lp)
        return loom_last_error_code();
    bool pointers = l->routine == LOOM_LIB_CUBLAS_GETRS_BATCHED;
    int t = loom__host_type_index((loom_dtype)u->dtype), n = (int)u->n, nrhs = (int)u->nrhs;
    size_t item = loom_dtype_size((loom_dtype)u->dtype);
    const int *ipiv = loom__lib_operand(l, addr, 1);
    for (int64_t b = 0; b < u->batch; b++) {
        int r = lp->getrs[t](LOOM__COL_MAJOR, u->trans ? 'T' : 'N', n, nrhs,
                             loom__host_matrix(l, addr, 0, pointers, b, (size_t)(u->n * u->n) * item),
                             n, ipiv + b * u->n,
                             loom__host_matrix(l, addr, 2, pointers, b, (size_t)(u->n * u->nrhs) * item),
                             n);
        if (r < 0)
            return loom__host_lapack_failed(fn, "getrs", r);
    }
    if (!pointers) /* the per-matrix step's status word: parameter errors only */
        *(int *)loom__lib_operand(l, addr, 3) = 0;
    return LOOM_OK;
}

/* ---- cholesky ---- */

int loom__host_potrf(const char *fn, const loom_libcall *l, void *const *addr)
{
    const loom_potrf_args *f = &l->args.potrf;
    const loom__host_lapack *lp = loom__host_lapack_for(fn, "cholesky (potrf)", f->n, f->n);
    if (!lp)
        return loom_last_error_code();
    bool pointers = l->routine == LOOM_LIB_CUSOLVER_POTRF_BATCHED;
    int t = loom__host_type_index((loom_dtype)f->dtype), n = (int)f->n;
    size_t bytes = (size_t)(f->n * f->n) * loom_dtype_size((loom_dtype)f->dtype);
    int *info = loom__lib_operand(l, addr, 1);
    for (int64_t b = 0; b < f->batch; b++) {
        int r = lp->potrf[t](LOOM__COL_MAJOR, f->upper ? 'U' : 'L', n,
                             loom__host_matrix(l, addr, 0, pointers, b, bytes), n);
        if (r < 0)
            return loom__host_lapack_failed(fn, "potrf", r);
        info[b] = r; /* > 0: the leading minor of order r is not positive */
    }
    return LOOM_OK;
}

/* ---- QR ---- */

int loom__host_geqrf(const char *fn, const loom_libcall *l, void *const *addr)
{
    const loom_qr_args *q = &l->args.qr;
    const loom__host_lapack *lp = loom__host_lapack_for(fn, "QR (geqrf)", q->m, q->n);
    if (!lp)
        return loom_last_error_code();
    int rc = LOOM_OK;
    loom_dtype dt = (loom_dtype)q->dtype;
    bool pointers = l->routine == LOOM_LIB_CUBLAS_GEQRF_BATCHED;
    int t = loom__host_type_index(dt), m = (int)q->m, n = (int)q->n;
    size_t item = loom_dtype_size(dt);
    double query[2] = {0, 0};
    int r = lp->geqrf[t](LOOM__COL_MAJOR, m, n, NULL, m, NULL, query, -1);
    if (r < 0)
        return loom__host_lapack_failed(fn, "geqrf", r);
    int lwork = loom__host_lwork(query, dt);
    loom__host_workspace ws;
    if ((rc = loom__host_workspace_get(fn, "LAPACK's QR workspace", dt, lwork, 0, 0, &ws)))
        return rc;
    /* batched: operands are the h and tau pointer arrays; else the packed value */
    for (int64_t b = 0; b < q->batch && rc == LOOM_OK; b++) {
        void *h = pointers ? loom__host_matrix(l, addr, 0, true, b, 0)
                           : (char *)loom__lib_operand(l, addr, 0) + q->h_at + (size_t)(b * q->m * q->n) * item;
        void *tau = pointers ? loom__host_matrix(l, addr, 1, true, b, 0)
                             : (char *)loom__lib_operand(l, addr, 0) + q->tau_at + (size_t)(b * q->k) * item;
        r = lp->geqrf[t](LOOM__COL_MAJOR, m, n, h, m, tau, ws.work, lwork);
        if (r < 0)
            rc = loom__host_lapack_failed(fn, "geqrf", r);
    }
    loom__buffer_release(ws.buffer);
    if (rc == LOOM_OK && !pointers) /* the per-matrix step's status word: parameter errors only */
        *(int *)loom__lib_operand(l, addr, 1) = 0;
    return rc;
}

int loom__host_orgqr(const char *fn, const loom_libcall *l, void *const *addr)
{
    const loom_qr_args *q = &l->args.qr;
    const loom__host_lapack *lp = loom__host_lapack_for(fn, "QR (orgqr)", q->m,
                                                        q->n > q->qcols ? q->n : q->qcols);
    if (!lp)
        return loom_last_error_code();
    int rc = LOOM_OK;
    loom_dtype dt = (loom_dtype)q->dtype;
    int t = loom__host_type_index(dt), m = (int)q->m, qc = (int)q->qcols, k = (int)q->k;
    size_t item = loom_dtype_size(dt);
    double query[2] = {0, 0};
    int r = lp->orgqr[t](LOOM__COL_MAJOR, m, qc, k, NULL, m, NULL, query, -1);
    if (r < 0)
        return loom__host_lapack_failed(fn, "orgqr", r);
    int lwork = loom__host_lwork(query, dt);
    loom__host_workspace ws;
    if ((rc = loom__host_workspace_get(fn, "LAPACK's QR workspace", dt, lwork, 0, 0, &ws)))
        return rc;
    char *base = loom__lib_operand(l, addr, 0);
    int64_t copied = q->qcols < q->n ? q->qcols : q->n;
    for (int64_t b = 0; b < q->batch && rc == LOOM_OK; b++) {
        char *h = base + q->h_at + (size_t)(b * q->m * q->n) * item;
        char *tau = base + q->tau_at + (size_t)(b * q->k) * item;
        char *Q = base + q->q_at + (size_t)(b * q->m * q->qcols) * item;
        /* the reflectors (h's first columns, contiguous column-major) into Q, formed there */
        memcpy(Q, h, (size_t)(copied * q->m) * item);
        r = lp->orgqr[t](LOOM__COL_MAJOR, m, qc, k, Q, m, tau, ws.work, lwork);
        if (r < 0)
            rc = loom__host_lapack_failed(fn, "orgqr", r);
    }
    loom__buffer_release(ws.buffer);
    if (rc == LOOM_OK)
        *(int *)loom__lib_operand(l, addr, 1) = 0;
    return rc;
}
