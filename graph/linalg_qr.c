/* numpy.linalg.qr on cuSOLVER (docs/linalg.md, "qr"): geqrf, then orgqr/ungqr for Q.
 *
 * cuSOLVER factors column-major matrices, so a (..., m, n) is handed over as its transpose
 * (the fuser writes the view contiguous), whose memory read column-major is a itself. What
 * geqrf leaves, read row-major, is NumPy's 'raw' h (n x m): R in its lower triangle, as R^T.
 * R is its upper-triangular transpose (views and a mask that fuse into R's readers); Q, formed
 * column-major by orgqr, is its transpose read row-major (a view). */
#include "linalg.h"
#include "reduce.h"

#include <string.h>

typedef enum qr_mode { QR_REDUCED, QR_COMPLETE, QR_R, QR_RAW } qr_mode;

static int parse_mode(const char *fn, const char *mode, qr_mode *out)
{
    static const char *const names[] = {"reduced", "complete", "r", "raw"};
    for (int i = 0; mode && i < 4; i++)
        if (!strcmp(mode, names[i])) {
            *out = (qr_mode)i;
            return 0;
        }
    loom__error(LOOM_ERR_INVALID, fn, "Unrecognized mode '%s'", mode ? mode : "(null)");
    return -1;
}

/* Results without any reflector (m or n is 0), as NumPy gives them. */
static int empty_qr(loom_array *x, qr_mode mode, loom_array **q, loom_array **r)
{
    int nd = x->ndim;
    int64_t m = x->shape[nd - 2], n = x->shape[nd - 1], shape[LOOM_MAXDIMS];
    loom_dtype dt = (loom_dtype)x->dtype;
    memcpy(shape, x->shape, (size_t)nd * sizeof *shape);
    if (mode == QR_RAW) {
        shape[nd - 2] = n;
        shape[nd - 1] = m;
        *q = loom_zeros(nd, shape, dt);
        shape[nd - 2] = 0;
        *r = loom_zeros(nd - 1, shape, dt);
        return *q && *r ? 0 : -1;
    }
    int64_t qcols = mode == QR_COMPLETE ? m : 0;
    shape[nd - 2] = mode == QR_COMPLETE ? m : 0;
    *r = loom_zeros(nd, shape, dt);
    if (mode == QR_R)
        return *r ? 0 : -1;
    shape[nd - 2] = m;
    shape[nd - 1] = qcols;
    *q = loom_broadcast_to(loom_eye(m, qcols, 0, dt), nd, shape);
    return *q && *r ? 0 : -1;
}

static int qr_in_scope(const char *fn, loom_array *a, qr_mode mode, loom_array **q,
                       loom_array **r)
{
    loom_dtype dt;
    if (loom__linalg_at_least_2d(fn, a) || loom__linalg_dtype(fn, (loom_dtype)a->dtype, &dt))
        return -1;
    loom_array *x = loom_astype(a, dt);
    int nd = x->ndim;
    int64_t m = x->shape[nd - 2], n = x->shape[nd - 1], k = m < n ? m : n;
    if (k == 0)
        return empty_qr(x, mode, q, r);
    int64_t qcols = mode == QR_COMPLETE ? m : mode == QR_REDUCED ? k : 0;
    loom_array *c = loom_astype(loom_swapaxes(a, -1, -2), dt); /* one kernel for both */
    int64_t hshape[LOOM_MAXDIMS], tshape[LOOM_MAXDIMS], qshape[LOOM_MAXDIMS];
    memcpy(hshape, c ? c->shape : x->shape, (size_t)nd * sizeof *hshape);
    memcpy(tshape, x->shape, (size_t)nd * sizeof *tshape);
    memcpy(qshape, hshape, (size_t)nd * sizeof *qshape);
    tshape[nd - 2] = k;
    qshape[nd - 2] = qcols;
    loom_result_desc res[3] = {{dt, nd, hshape}, {dt, nd - 1, tshape}, {dt, nd, qshape}};
    int nres = qcols ? 3 : 2;
    loom_array *node = c ? loom__multi_alloc(fn, LOOM_OP_QR, 1, &c, nres, res) : NULL, *out[3];
    if (!node)
        return -1;
    node->param.multi.qr.qcols = qcols;
    if (loom__multi_finish(fn, node, nres, res, out))
        return -1;
    if (mode == QR_RAW) {
        *q = out[0];
        *r = out[1];
        return 0;
    }
    /* R: the upper triangle of h^T, its first k rows (all m for 'complete') */
    loom_array *rt = loom_triu(loom_swapaxes(out[0], -1, -2), 0);
    *r = mode == QR_COMPLETE ? rt : loom_slice(rt, nd - 2, 0, k, 1);
    if (mode == QR_R)
        return *r ? 0 : -1;
    *q = loom_swapaxes(out[2], -1, -2);
    return *q && *r ? 0 : -1;
}

int loom_linalg_qr(loom_array *a, const char *mode, loom_array **q, loom_array **r)
{
    static const char fn[] = "loom_linalg_qr";
    qr_mode md;
    if (!r) {
        loom__error(LOOM_ERR_INVALID, fn, "r must not be NULL");
        return LOOM_ERR_INVALID;
    }
    *r = NULL;
    if (q)
        *q = NULL;
    if (parse_mode(fn, mode, &md))
        return LOOM_ERR_INVALID;
    if (md != QR_R && !q) {
        loom__error(LOOM_ERR_INVALID, fn, "q must not be NULL in mode '%s'", mode);
        return LOOM_ERR_INVALID;
    }
    int rc = loom__check_input_list(fn, &a, 1);
    if (rc)
        return rc;
    loom_array *rq = NULL, *rr = NULL;
    loom_scope_begin();
    if (qr_in_scope(fn, a, md, &rq, &rr) == 0) {
        *r = loom_keep(rr);
        if (md != QR_R)
            *q = loom_keep(rq);
    }
    rc = *r ? LOOM_OK : loom_last_error_code();
    loom_scope_end();
    return rc;
}
