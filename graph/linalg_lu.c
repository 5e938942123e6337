/* numpy.linalg's functions of the LU factorisation: inv, solve, det and slogdet
 * (docs/linalg.md). One LU node factors each matrix (cuSOLVER getrf, or cuBLAS's batched
 * getrf for stacks of small matrices); inv and solve add one LU_SOLVE node (getrs); det and
 * slogdet are reductions over the factor's diagonal and the pivots, which fuse.
 *
 * cuSOLVER reads the row-major matrix A column-major, as M = A^T, and factors M. Right-hand
 * sides are read column-major too: solve's b (..., n, k) is handed over as its transpose
 * (a view: the fuser writes it contiguous), so getrs with M^T = A solves A x = b and its
 * column-major solution, read row-major, is x^T (a view back). inv solves M X = I, whose
 * solution (A^T)^-1 = (A^-1)^T, read row-major, is A^-1 itself. */
#include "linalg.h"
#include "products.h"
#include "reduce.h"

#include <string.h>

/* LU's two results for the square stack x: lu (factors of each matrix's transpose) and piv. */
static int lu_factor(const char *fn, loom_array *x, loom_lu_user user, loom_array **lu,
                     loom_array **piv)
{
    int nd = x->ndim;
    loom_result_desc res[2] = {{(loom_dtype)x->dtype, nd, x->shape},
                               {LOOM_INT32, nd - 1, x->shape}};
    loom_array *m = loom__multi_alloc(fn, LOOM_OP_LU, 1, &x, 2, res), *out[2];
    if (!m)
        return -1;
    m->param.multi.lu.user = user;
    if (loom__multi_finish(fn, m, 2, res, out))
        return -1;
    *lu = out[0];
    *piv = out[1];
    return 0;
}

/* The column-major solutions of M^T X = B (trans) or M X = B, M the matrices x factored, for
 * right-hand sides B given column-major as bt (..., k, n) of x's batch shape and dtype. */
static loom_array *lu_solve(const char *fn, loom_array *x, loom_array *bt, bool trans,
                            loom_lu_user user)
{
    loom_array *lu, *piv;
    if (!bt || lu_factor(fn, x, user, &lu, &piv))
        return NULL;
    loom_array *s = loom__node_alloc(fn, LOOM_OP_LU_SOLVE, (loom_dtype)bt->dtype, bt->ndim,
                                     bt->shape);
    if (!s)
        return NULL;
    s->device = x->device;
    s->param.lu_solve.trans = trans;
    loom__node_set_input(s, 0, lu);
    loom__node_set_input(s, 1, piv);
    loom__node_set_input(s, 2, bt);
    return loom__node_finish(s);
}

loom_array *loom__linalg_inv(const char *fn, loom_array *a, loom_lu_user user)
{
    if (!a)
        return NULL;
    loom_scope_begin();
    loom_array *x = loom__linalg_square_stack(fn, a), *r = NULL;
    if (x) {
        int64_t n = x->shape[x->ndim - 1];
        loom_array *eye = loom__broadcast_to(fn, loom_eye(n, n, 0, (loom_dtype)x->dtype), x->ndim,
                                             x->shape);
        r = lu_solve(fn, x, eye, false, user);
    }
    return loom__scope_return(r);
}

loom_array *loom_linalg_inv(loom_array *a)
{
    return loom__linalg_inv("loom_linalg_inv", a, LOOM_LU_INV);
}

/* NumPy 2's solve: b is a stack of vectors only when it is 1-D ((m,) broadcast against a's
 * batch); otherwise a stack of matrices (..., m, k), batches broadcast together. */
static loom_array *solve_in_scope(const char *fn, loom_array *a, loom_array *b)
{
    loom_array *x = loom__linalg_square_stack(fn, a);
    if (!x)
        return NULL;
    if (b->ndim < 1) {
        loom__error(LOOM_ERR_INVALID, fn, "solve: Input operand 1 does not have enough "
                    "dimensions (has 0, gufunc core with signature (m,m),(m,n)->(m,n) requires 2)");
        return NULL;
    }
    /* NumPy's commonType: each operand's linalg dtype, then the two promoted */
    loom_dtype dt;
    if (loom__linalg_dtype(fn, (loom_dtype)b->dtype, &dt))
        return NULL;
    dt = loom_result_type((loom_dtype)x->dtype, dt);
    int64_t m = x->shape[x->ndim - 1];
    bool vector = b->ndim == 1;
    int64_t bm = b->shape[vector ? 0 : b->ndim - 2];
    if (bm != m) {
        loom__error(LOOM_ERR_INVALID, fn,
                    "%s: Input operand 1 has a mismatch in its core "
                    "dimension 0, with gufunc signature %s (size %lld is different from %lld)",
                    vector ? "solve1" : "solve", vector ? "(m,m),(m)->(m)" : "(m,m),(m,n)->(m,n)",
                    (long long)bm, (long long)m);
        return NULL;
    }
    int64_t k = vector ? 1 : b->shape[b->ndim - 1];
    /* the broadcast batch (a 1-D b has none) */
    int nd;
    int64_t batch[LOOM_MAXDIMS];
    if (loom__broadcast_shapes(fn, 2, (const int[]){x->ndim - 2, vector ? 0 : b->ndim - 2},
                               (const int64_t *const[]){x->shape, b->shape}, &nd, batch)) {
        loom__batch_error(fn, x, b);
        return NULL;
    }
    int64_t shape[LOOM_MAXDIMS + 2];
    memcpy(shape, batch, (size_t)nd * sizeof *shape);
    shape[nd] = m;
    shape[nd + 1] = m;
    loom_array *xb = loom__broadcast_to(fn, loom_astype(x, dt), nd + 2, shape);
    /* B column-major: b's transpose, (..., k, m) */
    loom_array *bt = vector ? loom_reshape(b, 2, (int64_t[]){1, m})
                            : loom_swapaxes(b, -1, -2);
    shape[nd] = k;
    bt = loom__broadcast_to(fn, loom_astype(bt, dt), nd + 2, shape);
    loom_array *xt = xb && bt ? lu_solve(fn, xb, bt, true, LOOM_LU_SOLVE) : NULL;
    if (!xt)
        return NULL;
    shape[nd] = m;
    return vector ? loom_reshape(xt, nd + 1, shape) /* (..., 1, m) -> (..., m) */
                  : loom_swapaxes(xt, -1, -2);
}

loom_array *loom_linalg_solve(loom_array *a, loom_array *b)
{
    static const char fn[] = "loom_linalg_solve";
    if (!a || !b)
        return NULL;
    loom_scope_begin();
    return loom__scope_return(solve_in_scope(fn, a, b));
}

/* The factor's diagonal (..., n) and the sign of each matrix's row permutation (..., ) as
 * +-1 in dt: the parity of the pivots that are not the identity. */
static int diag_and_parity(const char *fn, loom_array *x, loom_array **diag, loom_array **parity)
{
    loom_array *lu, *piv;
    if (lu_factor(fn, x, LOOM_LU_NO_CHECK, &lu, &piv))
        return -1;
    int64_t n = x->shape[x->ndim - 1];
    loom_dtype dt = (loom_dtype)x->dtype;
    loom_array *rows = loom_arange(1, (double)n + 1, 1, LOOM_INT32);
    loom_array *swapped = loom_not_equal(piv, rows);
    loom_array *flip = loom_where(swapped, loom_scalar_typed(-1, dt), loom_scalar_typed(1, dt));
    *parity = loom_prod(flip, (const int[]){-1}, 1, false);
    *diag = loom_diagonal(lu, 0, -2, -1);
    return *parity && *diag ? 0 : -1;
}

loom_array *loom_linalg_det(loom_array *a)
{
    static const char fn[] = "loom_linalg_det";
    if (!a)
        return NULL;
    loom_scope_begin();
    loom_array *x = loom__linalg_square_stack(fn, a), *d, *p, *r = NULL;
    if (x && !diag_and_parity(fn, x, &d, &p))
        r = loom_multiply(loom_prod(d, (const int[]){-1}, 1, false), p);
    return loom__scope_return(r);
}

/* sign: the parity times the product of the diagonal's signs (d / |d| for complex, 0 where a
 * pivot is 0); logabsdet: the sum of log |d| (-inf for a singular matrix). */
static int slogdet_in_scope(const char *fn, loom_array *a, loom_array **sign, loom_array **logabs)
{
    loom_array *x = loom__linalg_square_stack(fn, a), *d, *p;
    if (!x || diag_and_parity(fn, x, &d, &p))
        return loom_last_error_code();
    loom_array *mag = loom_abs(d);
    loom_array *unit =
        loom__is_complex((loom_dtype)x->dtype)
            ? loom_where(loom_equal(mag, loom_scalar(0)), loom_zeros(0, NULL, (loom_dtype)x->dtype),
                         loom_divide(d, mag))
            : loom_sign(d);
    loom_array *s = loom_multiply(loom_prod(unit, (const int[]){-1}, 1, false), p);
    loom_array *l = loom_sum(loom_log(mag), (const int[]){-1}, 1, false);
    if (!s || !l)
        return loom_last_error_code();
    *sign = loom_keep(s);
    *logabs = loom_keep(l);
    return LOOM_OK;
}

int loom_linalg_slogdet(loom_array *a, loom_array **sign, loom_array **logabsdet)
{
    static const char fn[] = "loom_linalg_slogdet";
    if (!sign || !logabsdet) {
        loom__error(LOOM_ERR_INVALID, fn, "sign and logabsdet must not be NULL");
        return LOOM_ERR_INVALID;
    }
    *sign = *logabsdet = NULL;
    int rc = loom__check_input_list(fn, &a, 1);
    if (rc)
        return rc;
    loom_scope_begin();
    rc = slogdet_in_scope(fn, a, sign, logabsdet);
    loom_scope_end();
    return rc;
}
