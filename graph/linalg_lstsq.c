/* np.linalg.lstsq from the SVD (docs/linalg.md, "lstsq"). NumPy 2 takes 2-D a and 1-D or 2-D
 * b, and the shape of its residuals depends on the rank, so lstsq reads the rank: the one
 * function of numpy.linalg that evaluates (and waits) when it is called. */
#include "linalg.h"
#include "reduce.h"

#include <math.h>

static int two_d(const char *fn, const loom_array *x)
{
    if (x->ndim == 2)
        return 0;
    loom__error(LOOM_ERR_INVALID, fn, "%d-dimensional array given. Array must be two-dimensional",
                x->ndim);
    return -1;
}

static loom_array *adjoint(loom_array *x)
{
    loom_array *t = loom_swapaxes(x, -1, -2);
    return t && loom__is_complex((loom_dtype)t->dtype) ? loom_conj(t) : t;
}

static int lstsq_in_scope(const char *fn, loom_array *a, loom_array *b, double rcond,
                          loom_array **x, loom_array **res, int64_t *rank, loom_array **sv)
{
    bool vector = b->ndim == 1;
    loom_array *b2 = vector ? loom_expand_dims(b, 1) : b;
    if (!b2 || two_d(fn, a) || two_d(fn, b2))
        return -1;
    int64_t m = a->shape[0], n = a->shape[1], k = m < n ? m : n;
    if (b2->shape[0] != m) {
        loom__error(LOOM_ERR_INVALID, fn, "Incompatible dimensions");
        return -1;
    }
    loom_dtype ta, tb;
    if (loom__linalg_dtype(fn, (loom_dtype)a->dtype, &ta) ||
        loom__linalg_dtype(fn, (loom_dtype)b->dtype, &tb))
        return -1;
    loom_dtype t = loom_result_type(ta, tb), real = loom__real_dtype(t);
    if (isnan(rcond))
        rcond = (real == LOOM_FLOAT32 ? 0x1p-23 : 0x1p-52) * (double)(m > n ? m : n);
    loom_array *at = loom_astype(a, t), *bt = loom_astype(b2, t), *u, *s, *vh;
    if (loom_linalg_svd(at, false, &u, &s, &vh) != LOOM_OK)
        return -1;
    /* singular values above rcond * sigma_max are inverted, the others dropped (gelsd's rule) */
    loom_array *smax = k ? loom_amax(s, NULL, 0, false) : loom_scalar(0.0);
    loom_array *large = loom_greater(s, loom_multiply(smax, loom_scalar(rcond)));
    loom_array *inv_s = loom_where(large, loom_divide(loom_scalar(1.0), s), loom_scalar(0.0));
    loom_array *coef = loom_multiply(loom_expand_dims(inv_s, 1), loom_matmul(adjoint(u), bt));
    loom_array *sol = loom_matmul(adjoint(vh), coef);
    double r = 0;
    if (!sol || loom_item(loom_sum(large, NULL, 0, false), &r) != LOOM_OK)
        return -1;
    *rank = (int64_t)r;
    /* NumPy: sums of squared residuals only for full column rank and m > n, else empty */
    loom_array *resid;
    if (*rank == n && m > n) {
        loom_array *diff = loom_subtract(bt, loom_matmul(at, sol));
        loom_array *sq = loom_real(loom_multiply(diff, loom_conj(diff)));
        resid = loom_sum(sq, (const int[]){0}, 1, false);
    } else {
        resid = loom_zeros(1, (const int64_t[]){0}, real);
    }
    loom_array *xs = vector ? loom_reshape(sol, 1, (const int64_t[]){n}) : sol;
    if (!xs || !resid)
        return -1;
    *x = loom_keep(xs);
    *res = loom_keep(resid);
    *sv = loom_keep(s);
    return 0;
}

int loom_linalg_lstsq(loom_array *a, loom_array *b, double rcond, loom_array **x,
                      loom_array **residuals, int64_t *rank, loom_array **s)
{
    static const char fn[] = "loom_linalg_lstsq";
    if (!x || !residuals || !rank || !s) {
        loom__error(LOOM_ERR_INVALID, fn, "x, residuals, rank and s must not be NULL");
        return LOOM_ERR_INVALID;
    }
    *x = *residuals = *s = NULL;
    *rank = 0;
    int rc = loom__check_input_list(fn, (loom_array *const[]){a, b}, 2);
    if (rc)
        return rc;
    loom_scope_begin();
    rc = lstsq_in_scope(fn, a, b, rcond, x, residuals, rank, s) ? loom_last_error_code() : LOOM_OK;
    loom_scope_end();
    return rc;
}
