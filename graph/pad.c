/* np.pad, one padded axis at a time: constant padding is a concatenation with generated
 * fills, and edge, wrap, reflect and symmetric padding are gathers whose indices (a function
 * of the position, computed inside the gather's kernel) fold the position back into the
 * array. Each padded axis is one kernel (docs/indexing.md). The statistic modes (maximum,
 * minimum, mean, median) and linear_ramp join the array with fills computed from it: a
 * reduction (a sort for the median) over the whole axis or NumPy's stat_length, or a ramp
 * towards the edge, as NumPy computes them. reflect_type="odd" reflects each value through the
 * edge (2 * edge - value), computed directly for every position instead of NumPy's repeated
 * reflections (docs/indexing.md). */
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

/* The fills before and after a along ax in the modes computed from a's values; the
 * statistics read the first stat[0] and the last stat[1] elements along ax (clipped to it). */
static loom_array *computed_fill(const char *fn, loom_array *a, int ax, int64_t before,
                                 int64_t after, pad_mode mode, double value, const int64_t *stat)
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
        int64_t nlo = stat[0] < n ? stat[0] : n, nhi = stat[1] < n ? stat[1] : n;
        loom_array *slo = fill_as(statistic(fn, loom_slice(a, ax, 0, nlo, 1), ax, mode), dt);
        loom_array *shi = nlo == n && nhi == n
                              ? slo
                              : fill_as(statistic(fn, loom_slice(a, ax, n - nhi, n, 1), ax, mode), dt);
        lo = slo ? along(fn, slo, ax, before) : NULL;
        hi = shi ? along(fn, shi, ax, after) : NULL;
    }
    lo = fill_as(lo, dt);
    hi = fill_as(hi, dt);
    loom_array *parts[] = {lo, a, hi};
    return lo && hi ? loom_concatenate(parts, 3, ax) : NULL;
}

/* i broadcast along axis ax of a's rank (an int64 vector of the padded extent). */
static loom_array *on_axis(const char *fn, loom_array *i, int nd, int ax)
{
    int64_t shape[LOOM_MAXDIMS];
    for (int d = 0; d < nd; d++)
        shape[d] = d == ax ? i->shape[0] : 1;
    return loom__reshape(fn, "pad", i, nd, shape);
}

static loom_array *where3(const char *fn, loom_array *c, loom_array *x, loom_array *y)
{
    return loom__ew(fn, LOOM_OP_WHERE, 3, (loom_array *[]){c, x, y}, NULL);
}

/* reflect_type="odd" along ax (extent n > 1): a value past an edge e is 2e - v, v the value
 * reflected evenly. Far out, NumPy reflects the reflected block again through its new edge;
 * that is the even reflection at t plus k times the drift D = 2 (x[n-1] - x[0]) per period
 * (t = k P + m), computed here directly at each position. Booleans: NumPy stores each
 * reflection as bool, so past the first one every value is x[0] | x[n-1] | the even value. */
static loom_array *reflect_odd(const char *fn, loom_array *a, int ax, int64_t before,
                               int64_t after, bool symmetric)
{
    int64_t n = a->shape[ax], period = symmetric ? 2 * n : 2 * (n - 1);
    int nd = a->ndim;
    loom_dtype dt = (loom_dtype)a->dtype;
    loom_array *i = loom_arange((double)-before, (double)(n + after), 1, LOOM_INT64);
    loom_array *left = ew2(fn, LOOM_OP_LESS, i, loom_scalar_int(0));
    loom_array *right = ew2(fn, LOOM_OP_GREATER, i, loom_scalar_int(n - 1));
    /* t: the position mirrored into the array's side of the nearer edge */
    int64_t lo_at = symmetric ? -1 : 0, hi_at = symmetric ? 2 * n - 1 : 2 * n - 2;
    loom_array *t = where3(fn, left, ew2(fn, LOOM_OP_SUBTRACT, loom_scalar_int(lo_at), i),
                           where3(fn, right, ew2(fn, LOOM_OP_SUBTRACT, loom_scalar_int(hi_at), i), i));
    loom_array *k = ew2(fn, LOOM_OP_FLOOR_DIVIDE, t, loom_scalar_int(period));
    loom_array *m = ew2(fn, LOOM_OP_SUBTRACT, t, ew2(fn, LOOM_OP_MULTIPLY, k, loom_scalar_int(period)));
    loom_array *inside = ew2(fn, LOOM_OP_LESS, m, loom_scalar_int(n));
    loom_array *src = where3(fn, inside, m,
                             ew2(fn, LOOM_OP_SUBTRACT, loom_scalar_int(symmetric ? period - 1 : period), m));
    loom_array *x = src ? loom__take(fn, a, src, ax, LOOM_MODE_CLIP, LOOM_REPORT_TAKE, ax, n) : NULL;
    loom_array *x0 = loom_slice(a, ax, 0, 1, 1), *xr = loom_slice(a, ax, n - 1, n, 1);
    left = on_axis(fn, left, nd, ax);
    right = on_axis(fn, right, nd, ax);
    if (dt == LOOM_BOOL) {
        /* the first reflection ORs the edge in, every later one both edges */
        loom_array *first = ew2(fn, LOOM_OP_LOGICAL_AND, ew2(fn, LOOM_OP_EQUAL, k, loom_scalar_int(0)), inside);
        first = on_axis(fn, first, nd, ax);
        loom_array *both = ew2(fn, LOOM_OP_LOGICAL_OR, x0, xr);
        loom_array *edge = where3(fn, left, where3(fn, first, x0, both),
                                  where3(fn, right, where3(fn, first, xr, both), x));
        return ew2(fn, LOOM_OP_LOGICAL_OR, x, edge);
    }
    /* in a's dtype, as NumPy's 2 * edge - chunk (integers wrap alike; a complex edge is
     * multiplied by 2 + 0j, NaN parts spreading as in NumPy) */
    loom_array *x0x2 = ew2(fn, LOOM_OP_MULTIPLY, x0, loom_scalar_int(2));
    loom_array *xrx2 = ew2(fn, LOOM_OP_MULTIPLY, xr, loom_scalar_int(2));
    loom_array *drift = ew2(fn, LOOM_OP_SUBTRACT, xrx2, x0x2);
    loom_array *even = where3(fn, on_axis(fn, inside, nd, ax), x, ew2(fn, LOOM_OP_SUBTRACT, xrx2, x));
    /* only past the first period: 0 * D would turn an infinite or NaN drift into NaN */
    loom_array *kk = on_axis(fn, k, nd, ax);
    loom_array *kd = kk ? ew2(fn, LOOM_OP_MULTIPLY, loom__cast(fn, kk, dt), drift) : NULL;
    loom_array *v = where3(fn, ew2(fn, LOOM_OP_EQUAL, kk, loom_scalar_int(0)), even,
                           ew2(fn, LOOM_OP_ADD, even, kd));
    return where3(fn, left, ew2(fn, LOOM_OP_SUBTRACT, x0x2, v),
                  where3(fn, right, ew2(fn, LOOM_OP_SUBTRACT, xrx2, v), v));
}

static loom_array *pad_axis(const char *fn, loom_array *a, int ax, int64_t before, int64_t after,
                            pad_mode mode, const loom_pad_options *o, const int64_t *stat)
{
    if (!a || (before == 0 && after == 0))
        return a;
    if (mode >= PAD_MAXIMUM)
        return computed_fill(fn, a, ax, before, after, mode, o->constant_value, stat);
    int64_t n = a->shape[ax];
    double value = o->constant_value;
    if (o->reflect_odd && (mode == PAD_REFLECT || mode == PAD_SYMMETRIC) && n > 1)
        return reflect_odd(fn, a, ax, before, after, mode == PAD_SYMMETRIC);
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

/* NumPy's _as_pairs: n entries (1: every side, 2: (before, after) of every axis, 2 * ndim)
 * as before/after pairs of nd axes, none negative. */
static int as_pairs(const char *fn, const char *what, const int64_t *v, int n, int nd, int64_t *out)
{
    if (!v || !(n == 1 || n == 2 || n == 2 * nd)) {
        loom__error(LOOM_ERR_INVALID, fn, "%s needs 1, 2 or 2 * ndim = %d entries, not %d", what,
                    2 * nd, n);
        return -1;
    }
    for (int i = 0; i < 2 * nd; i++) {
        out[i] = n == 1 ? v[0] : n == 2 ? v[i % 2] : v[i];
        if (out[i] < 0) {
            loom__error(LOOM_ERR_INVALID, fn, "index can't contain negative values");
            return -1;
        }
    }
    return 0;
}

/* NumPy's refusal of a keyword the mode does not take. */
static int keyword_fits(const char *fn, const char *mode, const char *keyword, bool given, bool takes)
{
    if (!given || takes)
        return 0;
    loom__error(LOOM_ERR_INVALID, fn, "unsupported keyword arguments for mode '%s': {'%s'}", mode,
                keyword);
    return -1;
}

static loom_array *pad(const char *fn, loom_array *a, const int64_t *pad_width, int npad,
                       const char *mode, const loom_pad_options *options)
{
    if (!a)
        return NULL;
    static const char *const names[] = {"constant", "edge",    "wrap", "reflect",
                                        "symmetric", "empty",  "maximum", "minimum",
                                        "mean",     "median", "linear_ramp"};
    const loom_pad_options defaults = {0}, *o = options ? options : &defaults;
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
    bool stat_mode = pm >= PAD_MAXIMUM && pm != PAD_LINEAR_RAMP;
    if (keyword_fits(fn, name, "stat_length", o->stat_length != NULL, stat_mode) ||
        keyword_fits(fn, name, "reflect_type", o->reflect_odd,
                     pm == PAD_REFLECT || pm == PAD_SYMMETRIC))
        return NULL;
    if ((pm == PAD_MEDIAN || pm == PAD_MAXIMUM || pm == PAD_MINIMUM) &&
        loom__is_complex((loom_dtype)a->dtype)) {
        loom__error(LOOM_ERR_UNSUPPORTED, fn, "mode '%s' of a complex array is not supported", name);
        return NULL;
    }
    int nd = a->ndim;
    int64_t w[2 * LOOM_MAXDIMS], stat[2 * LOOM_MAXDIMS];
    if (as_pairs(fn, "pad_width", pad_width, npad, nd, w))
        return NULL;
    for (int i = 0; i < 2 * nd; i++)
        stat[i] = a->shape[i / 2]; /* stat_length=None: the whole axis */
    if (o->stat_length && as_pairs(fn, "stat_length", o->stat_length, o->nstat, nd, stat))
        return NULL;
    for (int d = 0; d < nd && pm != PAD_CONSTANT; d++)
        if (a->shape[d] == 0 && (w[2 * d] || w[2 * d + 1])) {
            loom__error(LOOM_ERR_INVALID, fn,
                        "can't extend empty axis %d using modes other than 'constant' or 'empty'",
                        d);
            return NULL;
        }
    if (a->size == 0) /* NumPy returns the (empty) padded array before computing any fill */
        pm = PAD_CONSTANT;
    /* NumPy computes both statistics of every axis, padded or not */
    for (int i = 0; i < 2 * nd && (pm == PAD_MAXIMUM || pm == PAD_MINIMUM); i++)
        if (stat[i] == 0) {
            loom__error(LOOM_ERR_INVALID, fn, "stat_length of 0 yields no value for padding");
            return NULL;
        }
    loom_scope_begin();
    loom_array *r = a;
    for (int d = 0; d < nd && r; d++)
        r = pad_axis(fn, r, d, w[2 * d], w[2 * d + 1], pm, o, stat + 2 * d);
    return loom__scope_return(r);
}

loom_array *loom_pad_ex(loom_array *a, const int64_t *pad_width, int npad, const char *mode,
                        const loom_pad_options *options)
{
    return pad("loom_pad_ex", a, pad_width, npad, mode, options);
}

loom_array *loom_pad(loom_array *a, const int64_t *pad_width, int npad, const char *mode,
                     double constant_value)
{
    return pad("loom_pad", a, pad_width, npad, mode,
               &(loom_pad_options){.constant_value = constant_value});
}

loom_array *loom_pad_constant(loom_array *a, const int64_t *before_after, double value)
{
    return a ? loom_pad(a, before_after, 2 * a->ndim, "constant", value) : NULL;
}
