/* The plain reductions (sum, prod, max, min, any, all, count_nonzero, ptp and their nan
 * forms) and what every reduction shares: axis lists, accumulator dtypes, NumPy's edge cases.
 * Each records REDUCE nodes (graph/reduce_core.c); docs/reductions.md lists which. */
#include "reduce.h"
#include "ufunc.h"
#include "views.h"

int loom__reduce_mask(const char *fn, const loom_array *a, const int *axes, int naxes,
                      uint32_t *mask)
{
    uint64_t m = 0;
    if (!axes)
        m = a->ndim ? ((uint64_t)1 << a->ndim) - 1 : 0;
    else if (loom__normalize_axes(fn, axes, naxes, a->ndim, "duplicate value in 'axis'", NULL,
                                  &m))
        return -1;
    *mask = (uint32_t)m; /* ndim <= 32 */
    return 0;
}

int64_t loom__reduce_count(const loom_array *a, uint32_t mask)
{
    int64_t n = 1;
    for (int i = 0; i < a->ndim; i++)
        if (mask >> i & 1)
            n *= a->shape[i];
    return n;
}

loom_dtype loom__sum_dtype(loom_dtype dt)
{
    if (loom__is_bool(dt) || loom__is_signed(dt))
        return LOOM_INT64;
    return loom__is_unsigned(dt) ? LOOM_UINT64 : dt;
}

loom_dtype loom__acc_dtype(loom_dtype dt)
{
    return dt == LOOM_FLOAT16 || dt == LOOM_BFLOAT16 ? LOOM_FLOAT32 : dt;
}

loom_dtype loom__real_dtype(loom_dtype dt)
{
    if (dt == LOOM_COMPLEX64)
        return LOOM_FLOAT32;
    return dt == LOOM_COMPLEX128 ? LOOM_FLOAT64 : dt;
}

static bool has_nan(loom_dtype dt) { return loom__is_float(dt) || loom__is_complex(dt); }

/* NumPy's error for a reduction of zero elements; NULL for the ops with an identity. */
static const char *empty_error(loom_op op)
{
    switch (op) {
    case LOOM_OP_MAX: return "zero-size array to reduction operation maximum which has no identity";
    case LOOM_OP_MIN: return "zero-size array to reduction operation minimum which has no identity";
    case LOOM_OP_NANMAX: return "zero-size array to reduction operation fmax which has no identity";
    case LOOM_OP_NANMIN: return "zero-size array to reduction operation fmin which has no identity";
    case LOOM_OP_ARGMAX:
    case LOOM_OP_NANARGMAX: return "attempt to get argmax of an empty sequence";
    case LOOM_OP_ARGMIN:
    case LOOM_OP_NANARGMIN: return "attempt to get argmin of an empty sequence";
    default: return NULL;
    }
}

/* Without NaN the NaN-aware ops are the plain ones (NumPy's nanmax of ints is fmax.reduce). */
static loom_op without_nan(loom_op op)
{
    switch (op) {
    case LOOM_OP_NANMAX: return LOOM_OP_MAX;
    case LOOM_OP_NANMIN: return LOOM_OP_MIN;
    case LOOM_OP_NANARGMAX: return LOOM_OP_ARGMAX;
    case LOOM_OP_NANARGMIN: return LOOM_OP_ARGMIN;
    default: return op;
    }
}

loom_array *loom__reduction(const char *fn, loom_op op, loom_array *a, uint32_t mask,
                            bool keepdims, loom_dtype acc, loom_dtype out)
{
    if (!a)
        return NULL;
    const char *empty = empty_error(op);
    if (mask && empty && loom__reduce_count(a, mask) == 0) {
        loom__error(LOOM_ERR_INVALID, fn, "%s", empty);
        return NULL;
    }
    /* NumPy reduces nothing over axis=(): the values, in the result dtype. A sum still adds
     * them to its identity +0.0, which turns -0.0 into +0.0 (np.sum(-0.0, axis=()) is 0.0). */
    if (!mask) {
        if (op != LOOM_OP_SUM || !has_nan((loom_dtype)a->dtype) || !has_nan(out))
            return loom_astype(a, out);
        loom_scope_begin();
        loom_array *x = loom_astype(a, out);
        return loom__scope_return(
            loom__ew(fn, LOOM_OP_ADD, 2, (loom_array *[]){x, x ? loom_scalar(0.0) : NULL}, NULL));
    }
    if (!has_nan((loom_dtype)a->dtype))
        op = without_nan(op);
    return loom__reduce(fn, op, a, mask, keepdims, acc, out);
}

loom_array *loom__sum_in(const char *fn, loom_array *a, uint32_t mask, bool keepdims,
                         loom_dtype dt)
{
    loom_dtype acc = loom__acc_dtype(dt);
    return loom__reduction(fn, LOOM_OP_SUM, a, mask, keepdims, acc, acc);
}

loom_array *loom__unkeep(const char *fn, loom_array *x, uint32_t mask)
{
    if (!x)
        return NULL;
    int64_t shape[LOOM_MAXDIMS];
    int nd = 0;
    for (int i = 0; i < x->ndim; i++)
        if (!(mask >> i & 1))
            shape[nd++] = x->shape[i];
    return loom__reshape(fn, "keepdims", x, nd, shape);
}

loom_array *loom__abs2(const char *fn, loom_array *x)
{
    if (!x || !loom__is_complex((loom_dtype)x->dtype))
        return loom__ew(fn, LOOM_OP_SQUARE, 1, &x, NULL);
    loom_array *re = loom__ew(fn, LOOM_OP_REAL, 1, &x, NULL);
    loom_array *im = loom__ew(fn, LOOM_OP_IMAG, 1, &x, NULL);
    loom_array *sq[2] = {loom__ew(fn, LOOM_OP_SQUARE, 1, &re, NULL),
                         loom__ew(fn, LOOM_OP_SQUARE, 1, &im, NULL)};
    return loom__ew(fn, LOOM_OP_ADD, 2, sq, NULL);
}

loom_array *loom__replace_nan(const char *fn, loom_array *a, double value)
{
    if (!a)
        return NULL;
    if (!has_nan((loom_dtype)a->dtype))
        return loom__adopt(loom_retain(a));
    loom_array *isnan = loom__ew(fn, LOOM_OP_ISNAN, 1, &a, NULL);
    return loom__ew(fn, LOOM_OP_WHERE, 3, (loom_array *[]){isnan, loom_scalar(value), a}, NULL);
}

loom_array *loom__scope_return(loom_array *r)
{
    r = loom_keep(r);
    loom_scope_end();
    return r;
}

/* ---- sum, prod, max, min, any, all ---- */

/* op over the axes, accumulating in acc and returning out (LOOM_NO_DTYPE: a's dtype). */
static loom_array *reduce_axes(const char *fn, loom_op op, loom_array *a, const int *axes,
                               int naxes, bool keepdims, loom_dtype acc, loom_dtype out)
{
    uint32_t mask;
    if (!a || loom__reduce_mask(fn, a, axes, naxes, &mask))
        return NULL;
    if (out == LOOM_NO_DTYPE)
        acc = out = (loom_dtype)a->dtype;
    return loom__reduction(fn, op, a, mask, keepdims, acc, out);
}

/* sum and prod: dtype is NumPy's dtype= (LOOM_NO_DTYPE for none); float16 and bfloat16
 * results accumulate in float32. */
static loom_array *sum_like(const char *fn, loom_op op, loom_array *a, const int *axes,
                            int naxes, bool keepdims, loom_dtype dtype)
{
    if (!a)
        return NULL;
    loom_dtype out = dtype == LOOM_NO_DTYPE ? loom__sum_dtype((loom_dtype)a->dtype) : dtype;
    return reduce_axes(fn, op, a, axes, naxes, keepdims, loom__acc_dtype(out), out);
}

static bool check_dtype(const char *fn, loom_dtype dtype)
{
    if (loom__dtype_valid(dtype))
        return true;
    loom__error(LOOM_ERR_INVALID, fn, "invalid dtype %d", (int)dtype);
    return false;
}

loom_array *loom_sum(loom_array *a, const int *axes, int naxes, bool keepdims)
{
    return sum_like("loom_sum", LOOM_OP_SUM, a, axes, naxes, keepdims, LOOM_NO_DTYPE);
}

loom_array *loom_prod(loom_array *a, const int *axes, int naxes, bool keepdims)
{
    return sum_like("loom_prod", LOOM_OP_PROD, a, axes, naxes, keepdims, LOOM_NO_DTYPE);
}

loom_array *loom_sum_dtype(loom_array *a, const int *axes, int naxes, bool keepdims,
                           loom_dtype dtype)
{
    static const char fn[] = "loom_sum_dtype";
    if (!a || !check_dtype(fn, dtype))
        return NULL;
    return sum_like(fn, LOOM_OP_SUM, a, axes, naxes, keepdims, dtype);
}

loom_array *loom_prod_dtype(loom_array *a, const int *axes, int naxes, bool keepdims,
                            loom_dtype dtype)
{
    static const char fn[] = "loom_prod_dtype";
    if (!a || !check_dtype(fn, dtype))
        return NULL;
    return sum_like(fn, LOOM_OP_PROD, a, axes, naxes, keepdims, dtype);
}

loom_array *loom_amax(loom_array *a, const int *axes, int naxes, bool keepdims)
{
    return reduce_axes("loom_amax", LOOM_OP_MAX, a, axes, naxes, keepdims, LOOM_NO_DTYPE,
                       LOOM_NO_DTYPE);
}

loom_array *loom_amin(loom_array *a, const int *axes, int naxes, bool keepdims)
{
    return reduce_axes("loom_amin", LOOM_OP_MIN, a, axes, naxes, keepdims, LOOM_NO_DTYPE,
                       LOOM_NO_DTYPE);
}

loom_array *loom_max(loom_array *a, const int *axes, int naxes, bool keepdims)
{
    return reduce_axes("loom_max", LOOM_OP_MAX, a, axes, naxes, keepdims, LOOM_NO_DTYPE,
                       LOOM_NO_DTYPE);
}

loom_array *loom_min(loom_array *a, const int *axes, int naxes, bool keepdims)
{
    return reduce_axes("loom_min", LOOM_OP_MIN, a, axes, naxes, keepdims, LOOM_NO_DTYPE,
                       LOOM_NO_DTYPE);
}

/* any and all read each element as bool (the REDUCE node casts its input to the accumulator). */
loom_array *loom_any(loom_array *a, const int *axes, int naxes, bool keepdims)
{
    return reduce_axes("loom_any", LOOM_OP_ANY, a, axes, naxes, keepdims, LOOM_BOOL, LOOM_BOOL);
}

loom_array *loom_all(loom_array *a, const int *axes, int naxes, bool keepdims)
{
    return reduce_axes("loom_all", LOOM_OP_ALL, a, axes, naxes, keepdims, LOOM_BOOL, LOOM_BOOL);
}

/* A sum of a's nonzero flags: a cast to bool first, as an int64 sum of a float would truncate. */
loom_array *loom_count_nonzero(loom_array *a, const int *axes, int naxes, bool keepdims)
{
    static const char fn[] = "loom_count_nonzero";
    uint32_t mask;
    if (!a || loom__reduce_mask(fn, a, axes, naxes, &mask))
        return NULL;
    loom_scope_begin();
    loom_array *r = loom__reduction(fn, LOOM_OP_SUM, loom_astype(a, LOOM_BOOL), mask, keepdims,
                                    LOOM_INT64, LOOM_INT64);
    return loom__scope_return(r);
}

/* np.ptp: amax - amin, so bool fails as NumPy's subtract does. */
loom_array *loom_ptp(loom_array *a, const int *axes, int naxes, bool keepdims)
{
    static const char fn[] = "loom_ptp";
    uint32_t mask;
    if (!a || loom__reduce_mask(fn, a, axes, naxes, &mask))
        return NULL;
    loom_dtype dt = (loom_dtype)a->dtype;
    loom_scope_begin();
    loom_array *hi = loom__reduction(fn, LOOM_OP_MAX, a, mask, keepdims, dt, dt);
    loom_array *lo = hi ? loom__reduction(fn, LOOM_OP_MIN, a, mask, keepdims, dt, dt) : NULL;
    return loom__scope_return(loom__ew(fn, LOOM_OP_SUBTRACT, 2, (loom_array *[]){hi, lo}, NULL));
}

/* ---- the NaN-ignoring sums and extremes ---- */

/* sum or prod of a with NaN read as the op's identity (nothing to replace without NaN). */
static loom_array *nan_sum_like(const char *fn, loom_op op, loom_array *a, const int *axes,
                                int naxes, bool keepdims, double identity)
{
    uint32_t mask;
    if (!a || loom__reduce_mask(fn, a, axes, naxes, &mask))
        return NULL;
    loom_dtype out = loom__sum_dtype((loom_dtype)a->dtype);
    loom_scope_begin();
    loom_array *r = loom__reduction(fn, op, loom__replace_nan(fn, a, identity), mask, keepdims,
                                    loom__acc_dtype(out), out);
    return loom__scope_return(r);
}

loom_array *loom_nansum(loom_array *a, const int *axes, int naxes, bool keepdims)
{
    return nan_sum_like("loom_nansum", LOOM_OP_SUM, a, axes, naxes, keepdims, 0.0);
}

loom_array *loom_nanprod(loom_array *a, const int *axes, int naxes, bool keepdims)
{
    return nan_sum_like("loom_nanprod", LOOM_OP_PROD, a, axes, naxes, keepdims, 1.0);
}

loom_array *loom_nanmax(loom_array *a, const int *axes, int naxes, bool keepdims)
{
    return reduce_axes("loom_nanmax", LOOM_OP_NANMAX, a, axes, naxes, keepdims, LOOM_NO_DTYPE,
                       LOOM_NO_DTYPE);
}

loom_array *loom_nanmin(loom_array *a, const int *axes, int naxes, bool keepdims)
{
    return reduce_axes("loom_nanmin", LOOM_OP_NANMIN, a, axes, naxes, keepdims, LOOM_NO_DTYPE,
                       LOOM_NO_DTYPE);
}
