/* numpy.linalg's functions composed from the decompositions, as NumPy 2 writes them
 * (docs/linalg.md, "Composed functions"): matrix_rank, pinv and cond from the singular values
 * (hermitian=True: from eigh) or the inverse, tensorinv and tensorsolve from inv and solve.
 * They record graphs only. */
#include "linalg.h"
#include "reduce.h"

#include <math.h>
#include <string.h>

static double eps_of(loom_dtype real)
{
    return real == LOOM_FLOAT32 ? 0x1p-23 : 0x1p-52;
}

/* x[..., i] for i = 0 or -1 along the last axis: a view without that axis. */
static loom_array *last_axis_at(loom_array *x, bool last)
{
    int64_t n = x->shape[x->ndim - 1];
    loom_array *one = loom_slice(x, x->ndim - 1, last ? n - 1 : 0, last ? n : 1, 1);
    return loom_squeeze(one, (const int[]){-1}, 1);
}

/* hermitian: NumPy's hermitian=True, the singular values being |eigvalsh(a)|. */
static loom_array *rank(loom_array *a, double tol, double rtol, bool hermitian)
{
    static const char fn[] = "loom_linalg_matrix_rank";
    if (!a)
        return NULL;
    loom_scope_begin();
    loom_array *r = NULL;
    loom_dtype dt;
    if (a->ndim < 2) {
        /* NumPy: int(not all(A == 0)) */
        r = loom_astype(loom_any(loom_not_equal(a, loom_zeros(0, NULL, (loom_dtype)a->dtype)), NULL,
                                 0, false),
                        LOOM_INT64);
    } else {
        /* hermitian: eigvalsh checks the shape before the dtype, as NumPy's */
        loom_array *s = NULL, *w, *cut;
        if (!hermitian && !loom__linalg_dtype(fn, (loom_dtype)a->dtype, &dt))
            s = loom_linalg_svdvals(a);
        else if (hermitian && !loom__linalg_eigh(fn, a, false, &w, NULL))
            s = loom_abs(w);
        int64_t m = a->shape[a->ndim - 2], n = a->shape[a->ndim - 1];
        if (!s) {
            cut = NULL; /* the error is recorded */
        } else if (m == 0 || n == 0) {
            cut = loom_scalar(0.0); /* no singular values: NumPy's max(initial=0) */
        } else if (isnan(tol)) {
            double rel =
                isnan(rtol) ? (double)(m > n ? m : n) * eps_of((loom_dtype)s->dtype) : rtol;
            /* NumPy multiplies by a Python float: weak, so in the singular values' dtype */
            cut = loom_multiply(loom_amax(s, (const int[]){-1}, 1, true), loom_scalar(rel));
        } else {
            cut = loom_scalar_typed(tol, LOOM_FLOAT64);
        }
        r = cut ? loom_sum(loom_greater(s, cut), (const int[]){-1}, 1, false) : NULL;
    }
    return loom__scope_return(r);
}

loom_array *loom_linalg_matrix_rank_ex(loom_array *a, double tol, double rtol)
{
    return rank(a, tol, rtol, false);
}

loom_array *loom_linalg_matrix_rank_hermitian(loom_array *a, double tol, double rtol)
{
    return rank(a, tol, rtol, true);
}

loom_array *loom_linalg_matrix_rank(loom_array *a)
{
    return loom_linalg_matrix_rank_ex(a, NAN, NAN);
}

/* hermitian: NumPy's hermitian=True, the SVD from eigh. */
static loom_array *pinv(loom_array *a, double rcond, bool hermitian)
{
    static const char fn[] = "loom_linalg_pinv";
    if (!a)
        return NULL;
    if (isnan(rcond))
        rcond = 1e-15; /* NumPy 2's default */
    loom_scope_begin();
    loom_array *r = NULL, *u, *s, *vt;
    int nd = a->ndim;
    loom_dtype dt;
    if (nd >= 2 && a->shape[nd - 1] * a->shape[nd - 2] == 0) {
        /* NumPy: an empty (..., n, m) result of a's dtype */
        int64_t shape[LOOM_MAXDIMS];
        memcpy(shape, a->shape, (size_t)nd * sizeof *shape);
        shape[nd - 2] = a->shape[nd - 1];
        shape[nd - 1] = a->shape[nd - 2];
        r = loom_zeros(nd, shape, (loom_dtype)a->dtype);
    } else if (!loom__linalg_at_least_2d(fn, a) &&
               (hermitian ? loom__linalg_svd_hermitian(fn, loom_conj(a), true, &u, &s, &vt) == 0
                          : !loom__linalg_dtype(fn, (loom_dtype)a->dtype, &dt) &&
                                loom_linalg_svd(loom_conj(a), false, &u, &s, &vt) == LOOM_OK)) {
        /* NumPy's rcond is an array (asarray): a strong float64 */
        loom_array *cutoff = loom_multiply(loom_amax(s, (const int[]){-1}, 1, true),
                                           loom_scalar_typed(rcond, LOOM_FLOAT64));
        loom_array *inv_s = loom_where(loom_greater(s, cutoff), loom_divide(loom_scalar(1.0), s),
                                       loom_scalar(0.0));
        loom_array *scaled = loom_multiply(loom_expand_dims(inv_s, -1), loom_swapaxes(u, -1, -2));
        r = loom_matmul(loom_swapaxes(vt, -1, -2), scaled);
    }
    return loom__scope_return(r);
}

loom_array *loom_linalg_pinv_ex(loom_array *a, double rcond)
{
    return pinv(a, rcond, false);
}

loom_array *loom_linalg_pinv_hermitian(loom_array *a, double rcond)
{
    return pinv(a, rcond, true);
}

loom_array *loom_linalg_pinv(loom_array *a)
{
    return loom_linalg_pinv_ex(a, NAN);
}

/* NumPy's cond: nan results become inf unless the matrix itself holds a nan. */
static loom_array *nan_to_inf(loom_array *r, loom_array *x)
{
    loom_array *x_nan = loom_any(loom_isnan(x), (const int[]){-2, -1}, 2, false);
    loom_array *fix = loom_logical_and(loom_isnan(r), loom_logical_not(x_nan));
    return loom_where(fix, loom_scalar(INFINITY), r);
}

/* p: a number or NAN (None); named: "fro" or "nuc", or NULL. */
static loom_array *cond(const char *fn, loom_array *a, double p, const char *named)
{
    if (!a)
        return NULL;
    loom_scope_begin();
    loom_array *r = NULL;
    loom_dtype dt;
    int nd = a->ndim;
    if (nd >= 2 && a->size == 0 && a->shape[nd - 1] * a->shape[nd - 2] == 0) {
        loom__error(LOOM_ERR_INVALID, fn, "cond is not defined on empty arrays");
    } else if (loom__linalg_at_least_2d(fn, a)) {
        /* the error is recorded */
    } else if (!named && (isnan(p) || fabs(p) == 2.0)) {
        if (!loom__linalg_dtype(fn, (loom_dtype)a->dtype, &dt)) {
            loom_array *s = loom_linalg_svdvals(a);
            loom_array *first = last_axis_at(s, false), *last = last_axis_at(s, true);
            r = p == -2.0 ? loom_divide(last, first) : loom_divide(first, last);
        }
    } else {
        /* NumPy checks the shape before the dtype here */
        loom_array *x = loom__linalg_square_stack(fn, a);
        if (x) {
            dt = (loom_dtype)x->dtype;
            loom_array *inv = loom__linalg_inv(fn, x, LOOM_LU_NO_CHECK);
            const int axes[2] = {-2, -1};
            loom_array *nx = named ? loom_linalg_norm_str(x, named, axes, 2, false)
                                   : loom_linalg_norm(x, p, axes, 2, false);
            loom_array *ni = named ? loom_linalg_norm_str(inv, named, axes, 2, false)
                                   : loom_linalg_norm(inv, p, axes, 2, false);
            r = loom_astype(loom_multiply(nx, ni), loom__real_dtype(dt));
        }
    }
    r = r ? nan_to_inf(r, a) : NULL;
    return loom__scope_return(r);
}

loom_array *loom_linalg_cond(loom_array *a, double p)
{
    return cond("loom_linalg_cond", a, p, NULL);
}

loom_array *loom_linalg_cond_str(loom_array *a, const char *p)
{
    static const char fn[] = "loom_linalg_cond";
    if (!p || (strcmp(p, "fro") && strcmp(p, "nuc"))) {
        loom__error(LOOM_ERR_INVALID, fn, "Invalid norm order for matrices.");
        return NULL;
    }
    return cond(fn, a, NAN, p);
}

loom_array *loom_linalg_tensorinv(loom_array *a, int ind)
{
    static const char fn[] = "loom_linalg_tensorinv";
    if (!a)
        return NULL;
    if (ind <= 0) {
        loom__error(LOOM_ERR_INVALID, fn, "Invalid ind argument.");
        return NULL;
    }
    if (ind > a->ndim)
        ind = a->ndim; /* NumPy's shape[ind:] is then empty */
    int64_t rows = 1, cols = 1, shape[LOOM_MAXDIMS];
    for (int i = 0; i < a->ndim; i++)
        *(i < ind ? &cols : &rows) *= a->shape[i];
    /* NumPy: a.reshape(prod(a.shape[ind:]), -1), inverted, reshaped to shape[ind:] + shape[:ind] */
    if (rows == 0 || rows != cols) {
        loom__error(LOOM_ERR_INVALID, fn, rows == 0 ? "cannot reshape array of size 0 into "
                    "shape (0,newaxis)" : "Last 2 dimensions of the array must be square");
        return NULL;
    }
    int k = 0;
    for (int i = ind; i < a->ndim; i++)
        shape[k++] = a->shape[i];
    for (int i = 0; i < ind; i++)
        shape[k++] = a->shape[i];
    loom_scope_begin();
    loom_array *m = loom_reshape(a, 2, (int64_t[]){rows, cols});
    return loom__scope_return(loom_reshape(loom__linalg_inv(fn, m, LOOM_LU_INV), a->ndim, shape));
}

loom_array *loom_linalg_tensorsolve(loom_array *a, loom_array *b, const int *axes, int naxes)
{
    static const char fn[] = "loom_linalg_tensorsolve";
    if (!a || !b)
        return NULL;
    int an = a->ndim, perm[LOOM_MAXDIMS], np = 0;
    if (axes) {
        /* NumPy: the named axes moved to the end, in the order given */
        bool moved[LOOM_MAXDIMS] = {false};
        for (int i = 0; i < naxes; i++) {
            /* NumPy removes each from list(range(a.ndim)): no negative axes */
            int ax = axes[i];
            if (ax < 0 || ax >= an || moved[ax]) {
                loom__error(LOOM_ERR_INVALID, fn, "list.remove(x): x not in list");
                return NULL;
            }
            moved[ax] = true;
        }
        for (int i = 0; i < an; i++)
            if (!moved[i])
                perm[np++] = i;
        for (int i = 0; i < naxes; i++)
            perm[np++] = axes[i];
    }
    /* the unknowns' shape: NumPy's a.shape[-(a.ndim - b.ndim):], all of a's axes when the
     * ranks are equal (a.shape[-0:]) */
    int k = an - b->ndim, first = k > 0 ? b->ndim : k == 0 ? 0 : -k;
    first = first < an ? first : an;
    loom_scope_begin();
    loom_array *at = axes ? loom_transpose(a, perm) : a, *r = NULL;
    int64_t unknowns = 1;
    for (int i = first; at && i < an; i++)
        unknowns *= at->shape[i];
    if (at && at->size != unknowns * unknowns) {
        loom__error(LOOM_ERR_INVALID, fn, "Input arrays must satisfy the requirement "
                    "prod(a.shape[b.ndim:]) == prod(a.shape[:b.ndim])");
    } else if (at) {
        loom_array *m = loom_reshape(at, 2, (int64_t[]){unknowns, unknowns});
        loom_array *x = loom_linalg_solve(m, loom_reshape(b, 1, (int64_t[]){b->size}));
        r = loom_reshape(x, an - first, at->shape + first);
    }
    return loom__scope_return(r);
}
