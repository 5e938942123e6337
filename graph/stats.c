/* Statistics as compositions of sums: mean, var, std (with dtype=), average, and the
 * NaN-ignoring nanmean, nanvar and nanstd. Division by the count is an elementwise consumer of
 * the sum, so the fuser folds it into the reduction's epilogue; var is the two-pass form
 * (mean, then the sum of |x - mean|^2), which a persistent kernel reads from registers once. */
#include "reduce.h"
#include "ufunc.h"
#include "views.h"

#include <string.h>

static loom_array *binary(const char *fn, loom_op op, loom_array *a, loom_array *b)
{
    return loom__ew(fn, op, 2, (loom_array *[]){a, b}, NULL);
}

static bool int_or_bool(loom_dtype dt) { return loom__is_bool(dt) || loom__is_int(dt); }

/* s / n with n a weak float, cast back to s's dtype where an integer s divided to float64
 * (NumPy divides into the sum's own array with casting='unsafe'). */
static loom_array *divide_count(const char *fn, loom_array *s, double n)
{
    if (!s)
        return NULL;
    loom_array *q = binary(fn, LOOM_OP_TRUE_DIVIDE, s, loom_scalar(n));
    return loom_astype(q, (loom_dtype)s->dtype);
}

/* The mean over mask accumulated in loom__acc_dtype(dt), returned in that dtype. */
static loom_array *mean_in(const char *fn, loom_array *a, uint32_t mask, bool keepdims,
                           loom_dtype dt)
{
    return divide_count(fn, loom__sum_in(fn, a, mask, keepdims, dt),
                        (double)loom__reduce_count(a, mask));
}

/* dtype: NumPy's dtype= or LOOM_NO_DTYPE. */
static loom_array *mean(const char *fn, loom_array *a, const int *axes, int naxes, bool keepdims,
                        loom_dtype dtype)
{
    uint32_t mask;
    if (!a || loom__reduce_mask(fn, a, axes, naxes, &mask))
        return NULL;
    loom_dtype dt = (loom_dtype)a->dtype;
    if (dtype == LOOM_NO_DTYPE)
        dtype = int_or_bool(dt) ? LOOM_FLOAT64 : dt;
    loom_scope_begin();
    return loom__scope_return(loom_astype(mean_in(fn, a, mask, keepdims, dtype), dtype));
}

/* NumPy's _var: mean in W, |a - mean|^2 summed in W (or in its own real dtype without
 * dtype=), divided by max(N - ddof, 0); std takes the root before the cast to the result. */
static loom_array *var(const char *fn, loom_array *a, const int *axes, int naxes, int ddof,
                       bool keepdims, loom_dtype dtype, bool root)
{
    uint32_t mask;
    if (!a || loom__reduce_mask(fn, a, axes, naxes, &mask))
        return NULL;
    loom_dtype dt = (loom_dtype)a->dtype;
    bool given = dtype != LOOM_NO_DTYPE;
    loom_dtype w = given ? dtype : int_or_bool(dt) ? LOOM_FLOAT64 : dt;
    loom_dtype result = given ? dtype : loom__real_dtype(w);
    int64_t n = loom__reduce_count(a, mask) - ddof;
    loom_scope_begin();
    loom_array *m = mean_in(fn, a, mask, true, w);
    loom_array *sq = loom__abs2(fn, binary(fn, LOOM_OP_SUBTRACT, a, m));
    loom_array *ss = sq ? loom__sum_in(fn, sq, mask, keepdims, given ? w : (loom_dtype)sq->dtype)
                        : NULL;
    loom_array *v = divide_count(fn, ss, n > 0 ? (double)n : 0.0);
    if (root)
        v = loom__ew(fn, LOOM_OP_SQRT, 1, &v, NULL);
    return loom__scope_return(loom_astype(v, result));
}

loom_array *loom_mean(loom_array *a, const int *axes, int naxes, bool keepdims)
{
    return mean("loom_mean", a, axes, naxes, keepdims, LOOM_NO_DTYPE);
}

loom_array *loom_var(loom_array *a, const int *axes, int naxes, int ddof, bool keepdims)
{
    return var("loom_var", a, axes, naxes, ddof, keepdims, LOOM_NO_DTYPE, false);
}

loom_array *loom_std(loom_array *a, const int *axes, int naxes, int ddof, bool keepdims)
{
    return var("loom_std", a, axes, naxes, ddof, keepdims, LOOM_NO_DTYPE, true);
}

static bool check_dtype(const char *fn, loom_dtype dtype)
{
    if (loom__dtype_valid(dtype))
        return true;
    loom__error(LOOM_ERR_INVALID, fn, "invalid dtype %d", (int)dtype);
    return false;
}

loom_array *loom_mean_dtype(loom_array *a, const int *axes, int naxes, bool keepdims,
                            loom_dtype dtype)
{
    static const char fn[] = "loom_mean_dtype";
    if (!a || !check_dtype(fn, dtype))
        return NULL;
    return mean(fn, a, axes, naxes, keepdims, dtype);
}

loom_array *loom_var_dtype(loom_array *a, const int *axes, int naxes, int ddof, bool keepdims,
                           loom_dtype dtype)
{
    static const char fn[] = "loom_var_dtype";
    if (!a || !check_dtype(fn, dtype))
        return NULL;
    return var(fn, a, axes, naxes, ddof, keepdims, dtype, false);
}

loom_array *loom_std_dtype(loom_array *a, const int *axes, int naxes, int ddof, bool keepdims,
                           loom_dtype dtype)
{
    static const char fn[] = "loom_std_dtype";
    if (!a || !check_dtype(fn, dtype))
        return NULL;
    return var(fn, a, axes, naxes, ddof, keepdims, dtype, true);
}

/* ---- the NaN-ignoring statistics (ints and bool have no NaN: plain mean and var) ---- */

/* How many elements over mask are not NaN, as a float of dtype dt. */
static loom_array *count_not_nan(const char *fn, loom_array *a, uint32_t mask, bool keepdims,
                                 loom_dtype dt)
{
    loom_array *isnan = loom__ew(fn, LOOM_OP_ISNAN, 1, &a, NULL);
    loom_array *ok = loom__ew(fn, LOOM_OP_LOGICAL_NOT, 1, &isnan, NULL);
    return loom_astype(loom__reduction(fn, LOOM_OP_SUM, ok, mask, keepdims, LOOM_INT64,
                                       LOOM_INT64),
                       dt);
}

loom_array *loom_nanmean(loom_array *a, const int *axes, int naxes, bool keepdims)
{
    static const char fn[] = "loom_nanmean";
    uint32_t mask;
    if (!a || loom__reduce_mask(fn, a, axes, naxes, &mask))
        return NULL;
    loom_dtype dt = (loom_dtype)a->dtype;
    if (!loom__is_float(dt) && !loom__is_complex(dt))
        return mean(fn, a, axes, naxes, keepdims, LOOM_NO_DTYPE);
    loom_dtype acc = loom__acc_dtype(dt);
    loom_scope_begin();
    loom_array *tot = loom__sum_in(fn, loom__replace_nan(fn, a, 0.0), mask, keepdims, dt);
    loom_array *cnt = count_not_nan(fn, a, mask, keepdims, loom__real_dtype(acc));
    return loom__scope_return(loom_astype(binary(fn, LOOM_OP_TRUE_DIVIDE, tot, cnt), dt));
}

/* NumPy's _nanvar: the mean of the non-NaN elements, their |x - mean|^2 summed, divided by
 * count - ddof; NaN where that is <= 0 (not inf, unlike var). */
static loom_array *nanvar(const char *fn, loom_array *a, const int *axes, int naxes, int ddof,
                          bool keepdims, bool root)
{
    uint32_t mask;
    if (!a || loom__reduce_mask(fn, a, axes, naxes, &mask))
        return NULL;
    loom_dtype dt = (loom_dtype)a->dtype;
    if (!loom__is_float(dt) && !loom__is_complex(dt))
        return var(fn, a, axes, naxes, ddof, keepdims, LOOM_NO_DTYPE, root);
    loom_dtype real = loom__real_dtype(loom__acc_dtype(dt));
    loom_scope_begin();
    /* Everything keeps the reduced axes, so the count is computed once for both divisions. */
    loom_array *isnan = loom__ew(fn, LOOM_OP_ISNAN, 1, &a, NULL);
    loom_array *cnt = count_not_nan(fn, a, mask, true, real);
    loom_array *avg = binary(fn, LOOM_OP_TRUE_DIVIDE,
                             loom__sum_in(fn, loom__replace_nan(fn, a, 0.0), mask, true, dt), cnt);
    loom_array *d = loom__ew(fn, LOOM_OP_WHERE, 3,
                             (loom_array *[]){isnan, loom_scalar(0.0),
                                              binary(fn, LOOM_OP_SUBTRACT, a, avg)},
                             NULL);
    loom_array *ss = loom__sum_in(fn, loom__abs2(fn, d), mask, true, real);
    loom_array *dof = binary(fn, LOOM_OP_SUBTRACT, cnt, loom_scalar((double)ddof));
    loom_array *v = binary(fn, LOOM_OP_TRUE_DIVIDE, ss, dof);
    loom_array *bad = binary(fn, LOOM_OP_LESS_EQUAL, dof, loom_scalar(0.0));
    v = loom__ew(fn, LOOM_OP_WHERE, 3, (loom_array *[]){bad, loom_scalar(NAN), v}, NULL);
    if (root)
        v = loom__ew(fn, LOOM_OP_SQRT, 1, &v, NULL);
    if (!keepdims)
        v = loom__unkeep(fn, v, mask);
    return loom__scope_return(loom_astype(v, loom__real_dtype(dt)));
}

loom_array *loom_nanvar(loom_array *a, const int *axes, int naxes, int ddof, bool keepdims)
{
    return nanvar("loom_nanvar", a, axes, naxes, ddof, keepdims, false);
}

loom_array *loom_nanstd(loom_array *a, const int *axes, int naxes, int ddof, bool keepdims)
{
    return nanvar("loom_nanstd", a, axes, naxes, ddof, keepdims, true);
}

/* ---- average ---- */

/* weights of the reduced axes' shape (in the order axes lists them) laid out to broadcast
 * against a: transposed into axis order, size-1 axes elsewhere (NumPy's average). */
static loom_array *weights_along(const char *fn, loom_array *a, loom_array *w, const int *axes,
                                 int naxes, uint32_t mask)
{
    if (!axes) {
        loom__error(LOOM_ERR_INVALID, fn,
                    "Axis must be specified when shapes of a and weights differ.");
        return NULL;
    }
    int norm[LOOM_MAXDIMS], perm[LOOM_MAXDIMS];
    bool fits = w->ndim == naxes;
    for (int i = 0; i < naxes; i++) {
        norm[i] = axes[i] < 0 ? axes[i] + a->ndim : axes[i]; /* checked by the mask */
        fits = fits && w->shape[i] == a->shape[norm[i]];
    }
    if (!fits) {
        loom__error(LOOM_ERR_INVALID, fn, "Shape of weights must be consistent with shape of a "
                                          "along specified axis.");
        return NULL;
    }
    /* argsort of the axes: weight axis perm[k] goes k-th. */
    for (int k = 0, ax = 0; ax < a->ndim; ax++)
        for (int i = 0; i < naxes; i++)
            if (norm[i] == ax)
                perm[k++] = i;
    int64_t shape[LOOM_MAXDIMS];
    for (int i = 0; i < a->ndim; i++)
        shape[i] = mask >> i & 1 ? a->shape[i] : 1;
    return loom__reshape(fn, "average", loom_transpose(w, perm), a->ndim, shape);
}

loom_array *loom_average(loom_array *a, const int *axes, int naxes, loom_array *weights,
                         bool keepdims)
{
    static const char fn[] = "loom_average";
    uint32_t mask;
    if (!a || loom__reduce_mask(fn, a, axes, naxes, &mask))
        return NULL;
    if (!weights)
        return mean(fn, a, axes, naxes, keepdims, LOOM_NO_DTYPE);
    loom_dtype dt = (loom_dtype)a->dtype;
    loom_dtype result = loom_result_type(dt, (loom_dtype)weights->dtype);
    if (int_or_bool(dt))
        result = loom_result_type(result, LOOM_FLOAT64);
    loom_dtype acc = loom__acc_dtype(result);
    bool same = a->ndim == weights->ndim &&
                memcmp(a->shape, weights->shape, (size_t)a->ndim * sizeof *a->shape) == 0;
    loom_scope_begin();
    loom_array *w = same ? weights : weights_along(fn, a, weights, axes, naxes, mask);
    loom_array *wa = loom_astype(w, acc);
    loom_array *num = loom__sum_in(
        fn, binary(fn, LOOM_OP_MULTIPLY, loom_astype(a, acc), wa), mask, keepdims, result);
    loom_array *den = loom__sum_in(fn, wa, mask, keepdims, result);
    return loom__scope_return(loom_astype(binary(fn, LOOM_OP_TRUE_DIVIDE, num, den), result));
}
