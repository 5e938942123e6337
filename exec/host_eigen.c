/* Eigen-decompositions on the host device with LAPACKE: eigh (syevd / heevd, for cuSOLVER's
 * syevd and syevjBatched steps alike: eigenvalues ascending, eigenvectors over the matrix) and
 * eig (cgeev / zgeev: right eigenvectors, each of norm 1 with its largest component real).
 * Info words keep cuSOLVER's meaning (> 0: did not converge). */
#include "host_blas.h"

#include <math.h>

int loom__host_syevd(const char *fn, const loom_libcall *l, void *const *addr)
{
    const loom_eigh_args *e = &l->args.eigh;
    const loom__host_lapack *lp = loom__host_lapack_for(fn, "eigh (syevd)", e->n, e->n);
    if (!lp)
        return loom_last_error_code();
    int rc = LOOM_OK;
    loom_dtype dt = (loom_dtype)e->dtype;
    bool complex = loom__is_complex(dt);
    int t = loom__host_type_index(dt), n = (int)e->n, iq = 0;
    char jobz = e->vectors ? 'V' : 'N', uplo = e->upper ? 'U' : 'L';
    double wq[2] = {0, 0}, rq = 0;
    int r = complex ? lp->heevd[t - 2](LOOM__COL_MAJOR, jobz, uplo, n, NULL, n, NULL, wq, -1, &rq,
                                       -1, &iq, -1)
                    : lp->syevd[t](LOOM__COL_MAJOR, jobz, uplo, n, NULL, n, NULL, wq, -1, &iq, -1);
    if (r < 0)
        return loom__host_lapack_failed(fn, complex ? "heevd" : "syevd", r);
    int lwork = loom__host_lwork(wq, dt), liwork = iq;
    int lrwork = complex ? loom__host_lwork(&rq, dt == LOOM_COMPLEX64 ? LOOM_FLOAT32 : LOOM_FLOAT64)
                         : 0;
    loom__host_workspace w;
    if ((rc = loom__host_workspace_get(fn, "LAPACK's eigensolver workspace", dt, lwork, lrwork, liwork, &w)))
        return rc;
    size_t item = loom_dtype_size(dt), witem = complex ? item / 2 : item;
    char *A = loom__lib_operand(l, addr, 0), *W = loom__lib_operand(l, addr, 1);
    int *info = loom__lib_operand(l, addr, 2);
    for (int64_t b = 0; b < e->batch && rc == LOOM_OK; b++) {
        void *Ab = A + (size_t)(b * e->n * e->n) * item, *Wb = W + (size_t)(b * e->n) * witem;
        r = complex ? lp->heevd[t - 2](LOOM__COL_MAJOR, jobz, uplo, n, Ab, n, Wb, w.work, lwork,
                                       w.rwork, lrwork, w.iwork, liwork)
                    : lp->syevd[t](LOOM__COL_MAJOR, jobz, uplo, n, Ab, n, Wb, w.work, lwork, w.iwork,
                                   liwork);
        if (r < 0)
            rc = loom__host_lapack_failed(fn, complex ? "heevd" : "syevd", r);
        else
            info[b] = r;
    }
    loom__buffer_release(w.buffer);
    return rc;
}

/* Whether the count complex values at p (float parts of dt's precision) are all finite. */
static bool all_finite(const void *p, int64_t count, loom_dtype dt)
{
    for (int64_t i = 0; i < 2 * count; i++)
        if (!isfinite(dt == LOOM_COMPLEX64 ? (double)((const float *)p)[i] : ((const double *)p)[i]))
            return false;
    return true;
}

int loom__host_geev(const char *fn, const loom_libcall *l, void *const *addr)
{
    const loom_eig_args *e = &l->args.eig;
    const loom__host_lapack *lp = loom__host_lapack_for(fn, "eig (geev)", e->n, e->n);
    if (!lp)
        return loom_last_error_code();
    int rc = LOOM_OK;
    loom_dtype dt = (loom_dtype)e->dtype;
    if (!loom__is_complex(dt)) {
        loom__error(LOOM_ERR_INVALID, fn, "internal error: eig's matrices must be complex, not %s",
                    loom_dtype_name(dt));
        return LOOM_ERR_INVALID;
    }
    int t = loom__host_type_index(dt) - 2, n = (int)e->n, ldvr = e->vectors ? n : 1;
    char jobvr = e->vectors ? 'V' : 'N';
    double wq[2] = {0, 0}, rq[2] = {0, 0}; /* the query writes rwork's first element too */
    int r = lp->complex_geev[t](LOOM__COL_MAJOR, 'N', jobvr, n, NULL, n, NULL, NULL, 1, NULL, ldvr,
                                wq, -1, rq);
    if (r < 0)
        return loom__host_lapack_failed(fn, "geev", r);
    int lwork = loom__host_lwork(wq, dt);
    loom__host_workspace w;
    if ((rc = loom__host_workspace_get(fn, "LAPACK's eigensolver workspace", dt, lwork, 2 * n, 0, &w)))
        return rc;
    size_t item = loom_dtype_size(dt);
    char *work = loom__lib_operand(l, addr, 0), *base = loom__lib_operand(l, addr, 1);
    int *info = loom__lib_operand(l, addr, 2);
    for (int64_t b = 0; b < e->batch && rc == LOOM_OK; b++) {
        char *A = work + (size_t)(b * e->n * e->n) * item;
        char *W = base + e->w_at + (size_t)(b * e->n) * item;
        char *VR = e->vectors ? base + e->v_at + (size_t)(b * e->n * e->n) * item : NULL;
        /* geev's balancing rejects NaN and inf as illegal arguments (the reference LAPACK then
         * exits the process): such a matrix is one that did not converge (NumPy refuses it with
         * LinAlgError) */
        if (!all_finite(A, e->n * e->n, dt)) {
            info[b] = 1;
            continue;
        }
        r = lp->complex_geev[t](LOOM__COL_MAJOR, 'N', jobvr, n, A, n, W, NULL, 1, VR, ldvr, w.work,
                                lwork, w.rwork);
        if (r < 0)
            rc = loom__host_lapack_failed(fn, "geev", r);
        else
            info[b] = r;
    }
    loom__buffer_release(w.buffer);
    return rc;
}
