/* np.linalg.norm for vector norms and the matrix norms that need no SVD, as compositions of
 * reductions (NumPy's own formulas). Integers and bool are read as float64 (NumPy's
 * astype(float)); float16 and bfloat16 are computed in float32 and rounded at the end. */
#include "reduce.h"
#include "ufunc.h"
#include "views.h"

#include <math.h>

static loom_array *binary(const char *fn, loom_op op, loom_array *a, loom_array *b)
{
    return loom__ew(fn, op, 2, (loom_array *[]){a, b}, NULL);
}

static loom_array *unary(const char *fn, loom_op op, loom_array *a)
{
    return loom__ew(fn, op, 1, &a, NULL);
}

/* ord 1, 2 (or default), inf, -inf, 0 or p over the axes of mask; x is in the working dtype. */
static loom_array *vector_norm(const char *fn, loom_array *x, double ord, uint32_t mask,
                               bool keepdims)
{
    loom_dtype w = loom__real_dtype((loom_dtype)x->dtype);
    if (isnan(ord) || ord == 2.0)
        return unary(fn, LOOM_OP_SQRT, loom__sum_in(fn, loom__abs2(fn, x), mask, keepdims, w));
    if (isinf(ord))
        return loom__reduction(fn, ord > 0 ? LOOM_OP_MAX : LOOM_OP_MIN,
                               unary(fn, LOOM_OP_ABSOLUTE, x), mask, keepdims, w, w);
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

/* Frobenius, or the max/min over one axis of the sums of |x| along the other. */
static loom_array *matrix_norm(const char *fn, loom_array *x, double ord, int row, int col,
                               bool keepdims)
{
    loom_dtype w = loom__real_dtype((loom_dtype)x->dtype);
    uint32_t rows = 1u << row, cols = 1u << col;
    if (isnan(ord))
        return unary(fn, LOOM_OP_SQRT,
                     loom__sum_in(fn, loom__abs2(fn, x), rows | cols, keepdims, w));
    if (fabs(ord) == 2.0) {
        loom__error(LOOM_ERR_UNSUPPORTED, fn,
                    "matrix norms of order 2 and -2 need an SVD, which Loom does not have yet");
        return NULL;
    }
    if (fabs(ord) != 1.0 && !isinf(ord)) {
        loom__error(LOOM_ERR_INVALID, fn, "Invalid norm order for matrices.");
        return NULL;
    }
    /* ord +-1 sums down the rows (each column's sum), +-inf along them (each row's sum). */
    uint32_t summed = fabs(ord) == 1.0 ? rows : cols;
    loom_array *s = loom__sum_in(fn, unary(fn, LOOM_OP_ABSOLUTE, x), summed, true, w);
    loom_array *r = loom__reduction(fn, ord > 0 ? LOOM_OP_MAX : LOOM_OP_MIN, s,
                                    (rows | cols) & ~summed, true, w, w);
    return keepdims ? r : loom__unkeep(fn, r, rows | cols);
}

loom_array *loom_linalg_norm(loom_array *a, double ord, const int *axes, int naxes,
                             bool keepdims)
{
    static const char fn[] = "loom_linalg_norm";
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
    bool flat = !axes && isnan(ord);
    if (!flat && n != 1 && n != 2) {
        loom__error(LOOM_ERR_INVALID, fn, "Improper number of dimensions to norm.");
        return NULL;
    }
    loom_dtype dt = (loom_dtype)a->dtype;
    if (loom__is_bool(dt) || loom__is_int(dt))
        dt = LOOM_FLOAT64;
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
        r = matrix_norm(fn, x, ord, ax[0], ax[1], keepdims);
    }
    return loom__scope_return(loom_astype(r, result));
}
