/* np.pad, one padded axis at a time: constant padding is a concatenation with generated
 * fills, and edge, wrap, reflect and symmetric padding are gathers whose indices (a function
 * of the position, computed inside the gather's kernel) fold the position back into the
 * array. Each padded axis is one kernel (docs/indexing.md). The statistic modes (maximum,
 * minimum, mean, median) and linear_ramp join the array with fills computed from it: a
 * reduction (a sort for the median) or a ramp towards the edge, as NumPy computes them. */
#include "index.h"
#include "reduce.h"
#include "ufunc.h"
#include "views.h"

#include <math.h>
#include <string.h>

typedef enum {
    PAD_CONSTANT, PAD_EDGE, PAD_WRAP, PAD_REFLECT, PAD_SYMMETRIC, PAD_EMPTY,
    PAD_MAXIMUM, PAD_MINIMUM, PAD_MEAN, PAD_MEDIAN, PAD_LINEAR_RAMP
} pad_mode;

static loom_array *ew2(const char *fn, loom_op op, loom_array *x, loom_array *y)
{
    return loom__ew(fn, op, 2, (loom_array *[]){x, y}, NULL);
}

/* The source position of each of the n + before + after positions along an axis of extent n
 * (n > 0) in a mode that folds positions back: an int64 expression of an arange. */
static loom_array *fold(const char *fn, pad_mode mode, int64_t n, int64_t before, int64_t after)
{
    loom_array *i = loom_arange((double)-before, (double)(n + after), 1, LOOM_INT64);
    if (mode == PAD_EDGE || mode == PAD_WRAP || (mode == PAD_REFLECT && n == 1))
        return mode == PAD_REFLECT ? loom_zeros(1, (int64_t[]){n + before + after}, LOOM_INT64) : i;
    /* reflect: period 2(n - 1), symmetric: 2n; the second half runs backwards */
    int64_t period = mode == PAD_REFLECT ? 2 * (n - 1) : 2 * n;
    loom_array *m = ew2(fn, LOOM_OP_REMAINDER, i, loom_scalar_int(period));
    loom_array *back = ew2(fn, LOOM_OP_SUBTRACT,
                           loom_scalar_int(mode == PAD_REFLECT ? period : period - 1), m);
    loom_array *first = ew2(fn, LOOM_OP_LESS, m, loom_scalar_int(n));
    return loom__ew(fn, LOOM_OP_WHERE, 3, (loom_array *[]){first, m, back}, NULL);
}

/* a with its extent along ax set to len (a broadcast of a length-1 axis). */
static loom_array *along(const char *fn, loom_array *a, int ax, int64_t len)
{
    int64_t shape[LOOM_MAXDIMS];
    memcpy(shape, a->shape, (size_t)a->ndim * sizeof *shape);
    shape[ax] = len;
    return loom__broadcast_to(fn, a, a->ndim, shape);
}

/* NumPy's _round_if_needed: a fill for an integer array is rounded (half to even) first. */
static loom_array *fill_as(loom_array *x, loom_dtype dt)
{
    if (x && loom__is_int(dt) && !loom__is_int((loom_dtype)x->dtype))
        x = loom_round(x, 0);
    return x ? loom_astype(x, dt) : NULL;
}

/* The statistic of a along ax (keepdims) that maximum, minimum, mean and median pad with. */
static loom_array *statistic(const char *fn, loom_array *a, int ax, pad_mode mode)
{
    if (mode == PAD_MAXIMUM)
        return loom_max(a, &ax, 1, true);
    if (mode == PAD_MINIMUM)
        return loom_min(a, &ax, 1, true);
    if (mode == PAD_MEAN)
        return loom_mean(a, &ax, 1, true);
    /* median: the mean of the middle one or two of the sorted values (np.median), NaN where
     * the axis holds one (the sort puts NaN last, np.median returns NaN) */
    int64_t n = a->shape[ax];
    loom_array *mid = loom_slice(loom_sort(a, ax), ax, (n - 1) / 2, n / 2 + 1, 1);
    loom_array *med = mid ? loom_mean(mid, &ax, 1, true) : NULL;
    if (!med || !loom__is_float((loom_dtype)a->dtype))
        return med;
    loom_array *nan = loom_any(loom_isnan(a), &ax, 1, true);
    return loom__ew(fn, LOOM_OP_WHERE, 3, (loom_array *[]){nan, loom_scalar(NAN), med}, NULL);
}

/* np.linspace(end, edge, width, endpoint=False, axis=ax) as NumPy computes it: in the dtype
 * of edge with a float; y = k * step + end, or k / width * delta + end when some step is 0. */
static loom_array *ramp(const char *fn, loom_array *edge, int ax, int64_t width, double end)
{
    loom_array *delta = ew2(fn, LOOM_OP_SUBTRACT, edge, loom_scalar(end));
    loom_array *step = delta ? ew2(fn, LOOM_OP_TRUE_DIVIDE, delta, loom_scalar((double)width)) : NULL;
    if (!step)
        return NULL;
    int64_t shape[LOOM_MAXDIMS];
    for (int d = 0; d < edge->ndim; d++)
        shape[d] = d == ax ? width : 1;
    loom_array *k = loom__reshape(fn, "ramp", loom_arange(0, (double)width, 1, LOOM_FLOAT64),
                                  edge->ndim, shape);
    k = loom_astype(k, (loom_dtype)step->dtype);
    loom_array *zero = loom_any(ew2(fn, LOOM_OP_EQUAL, step, loom_scalar(0.0)), NULL, 0, false);
    loom_array *y1 = ew2(fn, LOOM_OP_MULTIPLY, k, step);
    loom_array *y2 = ew2(fn, LOOM_OP_MULTIPLY, ew2(fn, LOOM_OP_TRUE_DIVIDE, k, loom_scalar((double)width)), delta);
    loom_array *y = loom__ew(fn, LOOM_OP_WHERE, 3, (loom_array *[]){zero, y2, y1}, NULL);
    return y ? ew2(fn, LOOM_OP_ADD, y, loom_scalar(end)) : NULL;
}

/* The fills before and after a along ax in the modes computed from a's values. */
static loom_array *computed_fill(const char *fn, loom_array *a, int ax, int64_t before,
                                 int64_t after, pad_mode mode, double value)
{
    int64_t n = a->shape[ax];
    loom_dtype dt = (loom_dtype)a->dtype;
    loom_array *lo, *hi;
    if (mode == PAD_LINEAR_RAMP) {
        lo = ramp(fn, loom_slice(a, ax, 0, 1, 1), ax, before, value);
        hi = ramp(fn, loom_slice(a, ax, n - 1, n, 1), ax, after, value);
        hi = hi ? loom_flip(hi, &ax, 1) : NULL; /* NumPy's right ramp runs backwards */
        if (loom__is_int(dt)) { /* NumPy 2's integer linspace floors (fill_as would round) */
            lo = lo ? loom_floor(lo) : NULL;
            hi = hi ? loom_floor(hi) : NULL;
        }
    } else {
        loom_array *s = fill_as(statistic(fn, a, ax, mode), dt);
        lo = s ? along(fn, s, ax, before) : NULL;
        hi = s ? along(fn, s, ax, after) : NULL;
    }
    lo = fill_as(lo, dt);
    hi = fill_as(hi, dt);
    loom_array *parts[] = {lo, a, hi};
    return lo && hi ? loom_concatenate(parts, 3, ax) : NULL;
}

static loom_array *pad_axis(const char *fn, loom_array *a, int ax, int64_t before, int64_t after,
                            pad_mode mode, double value)
{
    if (!a || (before == 0 && after == 0))
        return a;
    if (mode >= PAD_MAXIMUM)
        return computed_fill(fn, a, ax, before, after, mode, value);
    int64_t n = a->shape[ax];
    if (mode == PAD_CONSTANT) {
        int64_t s1[LOOM_MAXDIMS], s2[LOOM_MAXDIMS];
        memcpy(s1, a->shape, (size_t)a->ndim * sizeof *s1);
        memcpy(s2, a->shape, (size_t)a->ndim * sizeof *s2);
        s1[ax] = before;
        s2[ax] = after;
        loom_array *parts[] = {loom_full(a->ndim, s1, value, (loom_dtype)a->dtype), a,
                               loom_full(a->ndim, s2, value, (loom_dtype)a->dtype)};
        return loom_concatenate(parts, 3, ax);
    }
    loom_array *idx = fold(fn, mode, n, before, after);
    return idx ? loom__take(fn, a, idx, ax, mode == PAD_WRAP ? LOOM_MODE_WRAP : LOOM_MODE_CLIP,
                            LOOM_REPORT_TAKE, ax, n)
               : NULL;
}

loom_array *loom_pad(loom_array *a, const int64_t *pad_width, int npad, const char *mode,
                     double constant_value)
{
    static const char fn[] = "loom_pad";
    if (!a)
        return NULL;
    static const char *const names[] = {"constant", "edge",    "wrap", "reflect",
                                        "symmetric", "empty",  "maximum", "minimum",
                                        "mean",     "median", "linear_ramp"};
    int m = -1;
    const char *name = mode ? mode : "constant";
    for (int i = 0; i < (int)(sizeof names / sizeof *names); i++)
        if (strcmp(name, names[i]) == 0)
            m = i;
    if (m < 0) {
        loom__error(LOOM_ERR_INVALID, fn, "mode '%s' is not supported", name);
        return NULL;
    }
    pad_mode pm = m == PAD_EMPTY ? PAD_CONSTANT : (pad_mode)m; /* "empty": any fill will do */
    if ((pm == PAD_MEDIAN || pm == PAD_MAXIMUM || pm == PAD_MINIMUM) &&
        loom__is_complex((loom_dtype)a->dtype)) {
        loom__error(LOOM_ERR_UNSUPPORTED, fn, "mode '%s' of a complex array is not supported", name);
        return NULL;
    }
    int nd = a->ndim;
    if (!pad_width || !(npad == 1 || npad == 2 || npad == 2 * nd)) {
        loom__error(LOOM_ERR_INVALID, fn,
                    "pad_width needs 1, 2 or 2 * ndim = %d entries, not %d", 2 * nd, npad);
        return NULL;
    }
    int64_t w[2 * LOOM_MAXDIMS];
    for (int i = 0; i < 2 * nd; i++) {
        w[i] = npad == 1 ? pad_width[0] : npad == 2 ? pad_width[i % 2] : pad_width[i];
        if (w[i] < 0) {
            loom__error(LOOM_ERR_INVALID, fn, "index can't contain negative values");
            return NULL;
        }
    }
    for (int d = 0; d < nd && pm != PAD_CONSTANT; d++)
        if (a->shape[d] == 0 && (w[2 * d] || w[2 * d + 1])) {
            loom__error(LOOM_ERR_INVALID, fn,
                        "can't extend empty axis %d using modes other than 'constant' or 'empty'",
                        d);
            return NULL;
        }
    loom_scope_begin();
    loom_array *r = a;
    for (int d = 0; d < nd && r; d++)
        r = pad_axis(fn, r, d, w[2 * d], w[2 * d + 1], pm, constant_value);
    return loom__scope_return(r);
}

loom_array *loom_pad_constant(loom_array *a, const int64_t *before_after, double value)
{
    return a ? loom_pad(a, before_after, 2 * a->ndim, "constant", value) : NULL;
}
