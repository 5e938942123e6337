/* SVD on the host device with LAPACKE's gesdd (NumPy's routine) for every driver: the cuSOLVER
 * drivers (gesvdp, gesvd, gesvdj) have no LAPACK counterpart worth choosing between, and gesdd
 * is accurate on rank-deficient input, so the automatic driver never needs a second try. The
 * plan's layout holds: the input's copy (operand 1) is destroyed, s, U (R x ucols) and V (C x C,
 * V itself, not gesdd's V^H) are packed in operand 2, info (> 0: did not converge) in operand 3. */
#include "host_blas.h"

#include <string.h>

/* gesdd's answer for a matrix holding NaN: LAPACK's INFO = -4, which LAPACKE shifts by one. */
#define NAN_INPUT (-5)

/* V^H (n x n, column-major) turned into V in place: transposed, conjugated for complex. */
static void adjoint_in_place(void *v, int64_t n, loom_dtype dt)
{
    size_t item = loom_dtype_size(dt);
    char *p = v, tmp[16];
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < j; i++) {
            char *x = p + (size_t)(i + j * n) * item, *y = p + (size_t)(j + i * n) * item;
            memcpy(tmp, x, item);
            memcpy(x, y, item);
            memcpy(y, tmp, item);
        }
    for (int64_t i = 0; dt == LOOM_COMPLEX64 && i < n * n; i++)
        ((float *)v)[2 * i + 1] = -((float *)v)[2 * i + 1];
    for (int64_t i = 0; dt == LOOM_COMPLEX128 && i < n * n; i++)
        ((double *)v)[2 * i + 1] = -((double *)v)[2 * i + 1];
}

int loom__host_svd(const char *fn, const loom_libcall *l, void *const *addr)
{
    const loom_svd_args *e = &l->args.svd;
    const loom__host_lapack *lp = loom__host_lapack_for(fn, "svd (gesdd)", e->rows, e->cols);
    if (!lp)
        return loom_last_error_code();
    int rc = LOOM_OK;
    loom_dtype dt = (loom_dtype)e->dtype;
    bool complex = loom__is_complex(dt);
    int t = loom__host_type_index(dt), m = (int)e->rows, n = (int)e->cols;
    int64_t ucols = e->full ? e->rows : e->cols, mn = e->cols, mx = e->rows; /* rows >= cols */
    char jobz = e->vectors ? (e->full ? 'A' : 'S') : 'N';
    int ldu = e->vectors ? m : 1, ldvt = e->vectors ? n : 1;
    double wq[2] = {0, 0}, rq[2] = {0, 0}; /* a query may write rwork's first element */
    int iq = 0;
    int r = complex ? lp->complex_gesdd[t - 2](LOOM__COL_MAJOR, jobz, m, n, NULL, m, NULL, NULL, ldu,
                                               NULL, ldvt, wq, -1, rq, &iq)
                    : lp->gesdd[t](LOOM__COL_MAJOR, jobz, m, n, NULL, m, NULL, NULL, ldu, NULL, ldvt,
                                   wq, -1, &iq);
    if (r < 0)
        return loom__host_lapack_failed(fn, "gesdd", r);
    int lwork = loom__host_lwork(wq, dt);
    /* complex gesdd's real workspace: LAPACK documents its size (LAPACKE's formula) */
    int64_t lrwork = !complex ? 0 : !e->vectors ? 7 * mn
                                 : mn * (5 * mn + 7 > 2 * mx + 2 * mn + 1 ? 5 * mn + 7
                                                                          : 2 * mx + 2 * mn + 1);
    loom__host_workspace ws;
    if ((rc = loom__host_workspace_get(fn, "LAPACK's SVD workspace", dt, lwork, lrwork, 8 * mn, &ws)))
        return rc;
    size_t item = loom_dtype_size(dt), ritem = complex ? item / 2 : item;
    char *A = loom__lib_operand(l, addr, 1), *base = loom__lib_operand(l, addr, 2);
    int *info = loom__lib_operand(l, addr, 3);
    for (int64_t b = 0; b < e->batch && rc == LOOM_OK; b++) {
        char *Ab = A + (size_t)(b * e->rows * e->cols) * item;
        char *S = base + e->s_at + (size_t)(b * e->cols) * ritem;
        char *U = e->vectors ? base + e->u_at + (size_t)(b * e->rows * ucols) * item : NULL;
        char *V = e->vectors ? base + e->v_at + (size_t)(b * e->cols * e->cols) * item : NULL;
        r = complex ? lp->complex_gesdd[t - 2](LOOM__COL_MAJOR, jobz, m, n, Ab, m, S, U, ldu, V, ldvt,
                                               ws.work, lwork, ws.rwork, ws.iwork)
                    : lp->gesdd[t](LOOM__COL_MAJOR, jobz, m, n, Ab, m, S, U, ldu, V, ldvt, ws.work, lwork,
                                   ws.iwork);
        if (r == NAN_INPUT) {
            info[b] = 1; /* NumPy's "SVD did not converge" for a matrix holding NaN */
            continue;
        }
        if (r < 0) {
            rc = loom__host_lapack_failed(fn, "gesdd", r);
            break;
        }
        info[b] = r;
        if (V)
            adjoint_in_place(V, e->cols, dt);
    }
    loom__buffer_release(ws.buffer);
    return rc;
}
