/* numpy.linalg.svd and svdvals on cuSOLVER (docs/linalg.md, "svd").
 *
 * cuSOLVER reads matrices column-major, and its drivers want at least as many rows as
 * columns. A wide or square a (m <= n) is handed over as it lies: column-major it is M = a^T
 * (n x m), and a = M^T = conj(V) S U^T, so a's U is conj(V) and its Vh is U^T, which is M's
 * column-major U read row-major: no copy at all. A tall a (m > n) is handed over transposed
 * (the fuser writes the view contiguous): column-major it is M = a, so a's U is M's U (a
 * transpose view of what cuSOLVER wrote) and its Vh is V^H (a conjugate of it read row-major).
 * The views fuse into whatever reads the results. */
#include "linalg.h"
#include "reduce.h"

#include <string.h>

/* NumPy's results for matrices with no singular values: s empty, U and Vh identities (full)
 * or empty (reduced), all broadcast to the batch. */
static int empty_svd(loom_array *x, bool full, bool uv, loom_array **u, loom_array **s,
                     loom_array **vh)
{
    int nd = x->ndim;
    int64_t m = x->shape[nd - 2], n = x->shape[nd - 1], shape[LOOM_MAXDIMS];
    loom_dtype dt = (loom_dtype)x->dtype;
    memcpy(shape, x->shape, (size_t)nd * sizeof *shape);
    shape[nd - 2] = 0;
    *s = loom_zeros(nd - 1, shape, loom__real_dtype(dt));
    if (!uv)
        return *s ? 0 : -1;
    shape[nd - 2] = m;
    shape[nd - 1] = full ? m : 0;
    *u = loom_broadcast_to(loom_eye(m, shape[nd - 1], 0, dt), nd, shape);
    shape[nd - 2] = full ? n : 0;
    shape[nd - 1] = n;
    *vh = loom_broadcast_to(loom_eye(shape[nd - 2], n, 0, dt), nd, shape);
    return *s && *u && *vh ? 0 : -1;
}

static loom_array *conj_if_complex(loom_array *a)
{
    return a && loom__is_complex((loom_dtype)a->dtype) ? loom_conj(a) : a;
}

static int svd_in_scope(const char *fn, loom_array *a, bool full, bool uv,
                        loom_svd_driver driver, loom_array **u, loom_array **s, loom_array **vh)
{
    loom_dtype dt;
    if (loom__linalg_at_least_2d(fn, a) || loom__linalg_dtype(fn, (loom_dtype)a->dtype, &dt))
        return -1;
    loom_array *x = loom_astype(a, dt);
    if (!x)
        return -1;
    int nd = x->ndim;
    int64_t m = x->shape[nd - 2], n = x->shape[nd - 1];
    if (m == 0 || n == 0)
        return empty_svd(x, full, uv, u, s, vh);
    bool tall = m > n;
    /* transposed before the cast, so both are one kernel */
    loom_array *c = tall ? loom_astype(loom_swapaxes(a, -1, -2), dt) : x;
    int64_t rows = tall ? m : n, cols = tall ? n : m, ucols = full ? rows : cols;
    int64_t sshape[LOOM_MAXDIMS], ushape[LOOM_MAXDIMS], vshape[LOOM_MAXDIMS];
    memcpy(sshape, x->shape, (size_t)nd * sizeof *sshape);
    memcpy(ushape, x->shape, (size_t)nd * sizeof *ushape);
    memcpy(vshape, x->shape, (size_t)nd * sizeof *vshape);
    sshape[nd - 2] = cols;
    ushape[nd - 2] = ucols;
    ushape[nd - 1] = rows;
    vshape[nd - 2] = vshape[nd - 1] = cols;
    loom_result_desc res[3] = {{loom__real_dtype(dt), nd - 1, sshape}, {dt, nd, ushape},
                               {dt, nd, vshape}};
    int nres = uv ? 3 : 1;
    loom_array *node = c ? loom__multi_alloc(fn, LOOM_OP_SVD, 1, &c, nres, res) : NULL, *out[3];
    if (!node)
        return -1;
    node->param.multi.svd.full = full;
    node->param.multi.svd.vectors = uv;
    node->param.multi.svd.driver = driver;
    if (loom__multi_finish(fn, node, nres, res, out))
        return -1;
    *s = out[0];
    if (!uv)
        return 0;
    /* out[1] read row-major is U_M^T (ucols, rows); out[2] is V_M^T (cols, cols) */
    if (tall) {
        *u = loom_swapaxes(out[1], -1, -2);
        *vh = conj_if_complex(out[2]);
    } else {
        *u = conj_if_complex(loom_swapaxes(out[2], -1, -2));
        *vh = out[1];
    }
    return *u && *vh ? 0 : -1;
}

/* hermitian: NumPy's hermitian=True, from eigh (the driver is not used). */
static int svd(const char *fn, loom_array *a, bool full_matrices, bool compute_uv,
               loom_svd_driver driver, bool hermitian, loom_array **u, loom_array **s,
               loom_array **vh)
{
    if (!s || (compute_uv && (!u || !vh))) {
        loom__error(LOOM_ERR_INVALID, fn, "u, s and vh must not be NULL");
        return LOOM_ERR_INVALID;
    }
    *s = NULL;
    if (u)
        *u = NULL;
    if (vh)
        *vh = NULL;
    if ((unsigned)driver > LOOM_SVD_GESVDP) {
        loom__error(LOOM_ERR_INVALID, fn, "unknown driver %d", (int)driver);
        return LOOM_ERR_INVALID;
    }
    int rc = loom__check_input_list(fn, &a, 1);
    if (rc)
        return rc;
    loom_array *ru = NULL, *rs = NULL, *rv = NULL;
    loom_scope_begin();
    if ((hermitian ? loom__linalg_svd_hermitian(fn, a, compute_uv, &ru, &rs, &rv)
                   : svd_in_scope(fn, a, full_matrices, compute_uv, driver, &ru, &rs, &rv)) == 0) {
        *s = loom_keep(rs);
        if (compute_uv) {
            *u = loom_keep(ru);
            *vh = loom_keep(rv);
        }
    }
    rc = *s ? LOOM_OK : loom_last_error_code();
    loom_scope_end();
    return rc;
}

int loom_linalg_svd_ex(loom_array *a, bool full_matrices, bool compute_uv,
                       loom_svd_driver driver, loom_array **u, loom_array **s, loom_array **vh)
{
    return svd("loom_linalg_svd", a, full_matrices, compute_uv, driver, false, u, s, vh);
}

int loom_linalg_svd(loom_array *a, bool full_matrices, loom_array **u, loom_array **s,
                    loom_array **vh)
{
    return loom_linalg_svd_ex(a, full_matrices, true, LOOM_SVD_AUTO, u, s, vh);
}

loom_array *loom_linalg_svdvals(loom_array *a)
{
    loom_array *s = NULL;
    if (!a)
        return NULL; /* the error that made it stays */
    svd("loom_linalg_svdvals", a, false, false, LOOM_SVD_AUTO, false, NULL, &s, NULL);
    return s;
}

int loom_linalg_svd_hermitian(loom_array *a, bool compute_uv, loom_array **u, loom_array **s,
                              loom_array **vh)
{
    return svd("loom_linalg_svd", a, true, compute_uv, LOOM_SVD_AUTO, true, u, s, vh);
}
