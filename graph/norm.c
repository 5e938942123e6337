/* np.linalg.norm for vector and matrix norms, as compositions of reductions (NumPy's own
 * formulas); matrix norms of order 2, -2 and 'nuc' reduce the singular values (svdvals).
 * Integers and bool are read as float64 (NumPy's astype(float)); float16 and bfloat16 are
 * computed in float32 and rounded at the end, except where NumPy calls the SVD, which refuses
 * them. */
#include "linalg.h"
#include "reduce.h"
#include "ufunc.h"
#include "views.h"

#include <math.h>
#include <string.h>

static loom_array *binary(const char *fn, loom_op op, loom_array *a, loom_array *b)
{
    return loom__ew(fn, op, 2, (loom_array *[]){a, b}, NULL);
}

static loom_array *unary(const char *fn, loom_op op, loom_array *a)
{
    return loom__ew(fn, op, 1, &a, NULL);
}

/* The max (ord > 0) or min of x over mask. NumPy's norms take the max with initial=0, so an
 * empty max is 0: recorded as the sum of nothing, which is 0 too. */
static loom_array *extreme(const char *fn, loom_array *x, double ord, uint32_t mask,
                           bool keepdims, loom_dtype w)
{
    loom_op op = ord < 0 ? LOOM_OP_MIN : x && loom__reduce_count(x, mask) == 0 ? LOOM_OP_SUM
                                                                               : LOOM_OP_MAX;
    return loom__reduction(fn, op, x, mask, keepdims, w, w);
}

/* ord 1, 2 (or default), inf, -inf, 0 or p over the axes of mask; x is in the working dtype. */
static loom_array *vector_norm(const char *fn, loom_array *x, double ord, uint32_t mask,
                               bool keepdims)
{
    loom_dtype w = loom__real_dtype((loom_dtype)x->dtype);
    if (isnan(ord) || ord == 2.0)
        return unary(fn, LOOM_OP_SQRT, loom__sum_in(fn, loom__abs2(fn, x), mask, keepdims, w));
    if (isinf(ord))
        return extreme(fn, unary(fn, LOOM_OP_ABSOLUTE, x), ord, mask, keepdims, w);
    if (ord == 0.0)
        return loom_astype(loom__reduction(fn, LOOM_OP_SUM, loom_astype(x, LOOM_BOOL), mask,
                                           keepdims, LOOM_INT64, LOOM_INT64),
                           w);
    if (ord == 1.0)
        return loom__sum_in(fn, unary(fn, LOOM_OP_ABSOLUTE, x), mask, keepdims, w);
    loom_array *p = binary(fn, LOOM_OP_POWER, unary(fn, LOOM_OP_ABSOLUTE, x), loom_scalar(ord));
    return binary(fn, LOOM_OP_POWER, loom__sum_in(fn, p, mask, keepdims, w),
                  loom_scalar(1.0 / ord));
}

/* NumPy's _multi_svd_norm: the max (ord 2), min (ord -2) or sum (nuc) of the singular values
 * of the matrices over axes row and col (moved last). */
static loom_array *svd_norm(const char *fn, loom_array *x, double ord, bool nuc, int row,
                            int col, bool keepdims)
{
    int nd = x->ndim, perm[LOOM_MAXDIMS], k = 0;
    for (int i = 0; i < nd; i++)
        if (i != row && i != col)
            perm[k++] = i;
    perm[k++] = row;
    perm[k++] = col;
    loom_array *s = loom_linalg_svdvals(loom_transpose(x, perm));
    loom_dtype w = s ? (loom_dtype)s->dtype : LOOM_FLOAT64;
    uint32_t last = 1u << (nd - 2);
    loom_array *r = nuc ? loom__sum_in(fn, s, last, false, w)
                        : extreme(fn, s, ord, last, false, w);
    if (r && keepdims) {
        r = loom_expand_dims(r, row < col ? row : col);
        r = loom_expand_dims(r, row < col ? col : row);
    }
    return r;
}

/* Frobenius, 2, -2, nuc, or the max/min over one axis of the sums of |x| along the other. */
static loom_array *matrix_norm(const char *fn, loom_array *x, double ord, bool nuc, int row,
                               int col, bool keepdims)
{
    loom_dtype w = loom__real_dtype((loom_dtype)x->dtype);
    uint32_t rows = 1u << row, cols = 1u << col;
    if (isnan(ord) && !nuc)
        return unary(fn, LOOM_OP_SQRT,
                     loom__sum_in(fn, loom__abs2(fn, x), rows | cols, keepdims, w));
    if (fabs(ord) == 2.0 || nuc)
        return svd_norm(fn, x, ord, nuc, row, col, keepdims);
    if (fabs(ord) != 1.0 && !isinf(ord)) {
        loom__error(LOOM_ERR_INVALID, fn, "Invalid norm order for matrices.");
        return NULL;
    }
    /* ord +-1 sums down the rows (each column's sum), +-inf along them (each row's sum). */
    uint32_t summed = fabs(ord) == 1.0 ? rows : cols;
    loom_array *s = loom__sum_in(fn, unary(fn, LOOM_OP_ABSOLUTE, x), summed, true, w);
    loom_array *r = extreme(fn, s, ord, (rows | cols) & ~summed, true, w);
    return keepdims ? r : loom__unkeep(fn, r, rows | cols);
}

/* ord: a number, or NAN for NumPy's None; named: NumPy's 'fro' (ord NAN) or 'nuc' (nuc set),
 * which never flatten. */
static loom_array *norm(const char *fn, loom_array *a, double ord, bool named, bool nuc,
                        const int *axes, int naxes, bool keepdims)
{
    if (!a)
        return NULL;
    int n = axes ? naxes : a->ndim, ax[2] = {0, 1};
    if (axes && naxes < 0) {
        loom__error(LOOM_ERR_INVALID, fn, "number of axes %d is negative", naxes);
        return NULL;
    }
    if (axes && (n == 1 || n == 2)) {
        for (int i = 0; i < n; i++)
            if (loom__normalize_axis(fn, NULL, axes[i], a->ndim, &ax[i]))
                return NULL;
        if (n == 2 && ax[0] == ax[1]) {
            loom__error(LOOM_ERR_INVALID, fn, "Duplicate axes given.");
            return NULL;
        }
    }
    /* NumPy's ord=None without axes is the 2-norm of the flattened array, whatever its rank. */
    bool flat = !axes && isnan(ord) && !named;
    if (!flat && n != 1 && n != 2) {
        loom__error(LOOM_ERR_INVALID, fn, "Improper number of dimensions to norm.");
        return NULL;
    }
    if (nuc && !flat && n == 1) {
        loom__error(LOOM_ERR_INVALID, fn, "Invalid norm order 'nuc' for vectors");
        return NULL;
    }
    loom_dtype dt = (loom_dtype)a->dtype, svd_dt;
    if (loom__is_bool(dt) || loom__is_int(dt))
        dt = LOOM_FLOAT64;
    bool by_svd = n == 2 && !flat && (nuc || fabs(ord) == 2.0);
    if (by_svd && loom__linalg_dtype(fn, dt, &svd_dt))
        return NULL; /* NumPy's SVD refuses float16 */
    loom_dtype result = loom__real_dtype(dt);
    loom_scope_begin();
    loom_array *x = loom_astype(a, loom__acc_dtype(dt)), *r;
    if (!x) {
        r = NULL;
    } else if (flat) {
        r = vector_norm(fn, x, ord, (uint32_t)(((uint64_t)1 << a->ndim) - 1), keepdims);
    } else if (n == 1) {
        r = vector_norm(fn, x, ord, 1u << ax[0], keepdims);
    } else {
        r = matrix_norm(fn, x, ord, nuc, ax[0], ax[1], keepdims);
    }
    return loom__scope_return(loom_astype(r, result));
}

loom_array *loom_linalg_norm(loom_array *a, double ord, const int *axes, int naxes,
                             bool keepdims)
{
    static const char fn[] = "loom_linalg_norm";
    return norm(fn, a, ord, false, false, axes, naxes, keepdims);
}

loom_array *loom_linalg_norm_str(loom_array *a, const char *ord, const int *axes, int naxes,
                                 bool keepdims)
{
    static const char fn[] = "loom_linalg_norm";
    bool nuc = ord && !strcmp(ord, "nuc"), fro = ord && !strcmp(ord, "fro");
    int n = axes ? naxes : a ? a->ndim : 0;
    if (a && !nuc && (!fro || n != 2) && (n == 1 || n == 2)) {
        if (n == 2)
            loom__error(LOOM_ERR_INVALID, fn, "Invalid norm order for matrices.");
        else
            loom__error(LOOM_ERR_INVALID, fn, "Invalid norm order '%s' for vectors",
                        ord ? ord : "(null)");
        return NULL;
    }
    return norm(fn, a, NAN, true, nuc, axes, naxes, keepdims);
}
