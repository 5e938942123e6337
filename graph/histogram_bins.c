/* NumPy's bin estimators for histogram ('auto', 'fd', 'doane', 'scott', 'stone', 'rice',
 * 'sturges', 'sqrt'; NumPy 2.4's _hist_bin_* and _get_bin_edges in
 * numpy/lib/_histograms_impl.py). The statistics an estimator needs (min and max, std, the
 * skewness, two percentiles, stone's sums of squared counts) are recorded as reductions of the
 * data and read back at once; the width and the number of bins are then computed on the host as
 * NumPy computes them, each value rounded to the dtype NumPy's scalar has there (a float32 ptp
 * divided by a Python float stays float32; by np.sqrt(n) it becomes float64), so that
 * ceil(delta / width) lands where NumPy's does. */
#include "histogram.h"
#include "reduce.h"
#include "select.h"
#include "ufunc.h"
#include "views.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef enum { AUTO, FD, DOANE, SCOTT, STONE, RICE, STURGES, SQRT, ESTIMATORS } estimator;

static const char *const names[ESTIMATORS] = {"auto", "fd",   "doane",   "scott",
                                              "stone", "rice", "sturges", "sqrt"};

static int find(const char *name)
{
    for (int e = 0; e < ESTIMATORS; e++)
        if (strcmp(name, names[e]) == 0)
            return e;
    return -1;
}

bool loom__histogram_estimator_known(const char *fn, const char *name)
{
    if (find(name) >= 0)
        return true;
    /* Python's repr of a str: single quotes unless it holds one and no double quote */
    char q = strchr(name, '\'') && !strchr(name, '"') ? '"' : '\'';
    loom__error(LOOM_ERR_INVALID, fn, "%c%s%c is not a valid estimator for `bins`", q, name, q);
    return false;
}

/* ---- NumPy scalars on the host ---- */

/* A value and the dtype of the NumPy scalar holding it. */
typedef struct scalar {
    double v;
    loom_dtype dt;
} scalar;

/* v rounded to float16 (nearest, ties to even), as NumPy rounds a float32 result. */
static double round_half(double v)
{
    double a = fabs(v);
    if (!isfinite(v) || a == 0)
        return v;
    if (a >= 65520.0) /* halfway past the largest float16, 65504: rounds up to inf */
        return copysign(INFINITY, v);
    int e;
    frexp(a, &e);
    int exp = e - 1 < -14 ? -14 : e - 1; /* subnormals below 2^-14 */
    double ulp = ldexp(1.0, exp - 10);
    return copysign(nearbyint(a / ulp) * ulp, v);
}

/* v as a scalar of dt holds it: float32 and float16 round (float16 through float32, as NumPy's
 * half arithmetic computes in float32); bfloat16, which NumPy lacks, computes in float32. */
static double round_to(loom_dtype dt, double v)
{
    switch (dt) {
    case LOOM_FLOAT16: return round_half((float)v);
    case LOOM_FLOAT32:
    case LOOM_BFLOAT16: return (float)v;
    default: return v;
    }
}

/* a / b or a * b for two NumPy scalars: their promoted dtype (integers divide in float64). */
static scalar binop(char op, scalar a, scalar b)
{
    loom_dtype dt = loom_result_type(a.dt, b.dt);
    if (!loom__is_float(dt))
        dt = LOOM_FLOAT64;
    double x = round_to(dt, a.v), y = round_to(dt, b.v);
    return (scalar){round_to(dt, op == '/' ? x / y : x * y), dt};
}

/* A Python float (or int) next to scalar a: weak, so it takes a's float dtype (float64 next to
 * an integer). */
static scalar weak(double v, scalar a)
{
    loom_dtype dt = loom__is_float(a.dt) ? a.dt : LOOM_FLOAT64;
    return (scalar){round_to(dt, v), dt};
}

static scalar f64(double v)
{
    return (scalar){v, LOOM_FLOAT64};
}

loom_array *loom__edges_in_dtype(const char *fn, loom_dtype dt, double first, double last,
                                 int64_t nb)
{
    double *e = loom__malloc((size_t)(nb + 1) * sizeof *e);
    if (!e) {
        loom__error(LOOM_ERR_OOM, fn, "out of host memory");
        return NULL;
    }
    /* np.linspace: delta = stop - start, step = delta / div, y = arange(num) * step + start, the
     * last one stop; each in dt (first and last are scalars of dt; div, a Python int, rounded to
     * dt first) */
    first = round_to(dt, first);
    last = round_to(dt, last);
    double delta = round_to(dt, last - first), div = round_to(dt, (double)nb);
    double step = round_to(dt, delta / div);
    for (int64_t i = 0; i < nb; i++) {
        double y = step != 0 ? round_to(dt, round_to(dt, (double)i) * step)
                             : round_to(dt, round_to(dt, round_to(dt, (double)i) / div) * delta);
        e[i] = round_to(dt, y + first);
    }
    e[nb] = last;
    for (int64_t i = 0; i < nb; i++)
        if (!(e[i] < e[i + 1])) { /* np.histogram's check of its edges */
            loom__error(LOOM_ERR_INVALID, fn, "Too many bins for data range. Cannot create "
                                              "%lld finite-sized bins.", (long long)nb);
            free(e);
            return NULL;
        }
    loom_array *r = loom__cast(fn, loom_asarray(e, LOOM_FLOAT64, 1, (const int64_t[]){nb + 1}), dt);
    free(e);
    return r;
}

/* ---- the statistics ---- */

/* Arrays read back together (0-d statistics, stone's 1-D sums), cast to one dtype. */
typedef struct reads {
    loom_array *f[16], *i[8];
    int nf, ni;
} reads;

static bool wide_ints(loom_dtype dt)
{
    return dt == LOOM_INT64 || dt == LOOM_UINT64;
}

/* Records value v to be read as an integer (exact) or as float64. */
static void want(reads *r, loom_array *v, bool exact_int)
{
    if (exact_int)
        r->i[r->ni++] = v;
    else
        r->f[r->nf++] = v;
}

/* Reads arrays[0..n), cast to dt (8 bytes) and joined, into a new buffer (*dst). */
static int read_all(const char *fn, loom_array *const *arrays, int n, loom_dtype dt, void **dst)
{
    if (n == 0)
        return 0;
    loom_array *flat[16];
    int64_t total = 0;
    for (int k = 0; k < n; k++) {
        if (!arrays[k])
            return -1;
        flat[k] = loom__reshape(fn, "ravel", loom__cast(fn, arrays[k], dt), 1,
                                (const int64_t[]){-1});
        total += arrays[k]->size;
    }
    loom_array *v = loom_concatenate(flat, n, 0);
    *dst = v ? loom__malloc((size_t)total * 8) : NULL;
    if (v && !*dst)
        loom__error(LOOM_ERR_OOM, fn, "out of host memory");
    return *dst ? loom__read_data_dependent(fn, v, NULL, 0, *dst, (size_t)total * 8) : -1;
}

/* NumPy's _get_indexes of the linear percentile q (0.75 or 0.25) of n sorted values. */
static void percentile_at(int64_t n, double q, int64_t *prev, int64_t *next, double *gamma)
{
    double virt = (double)(n - 1) * q;
    *prev = (int64_t)floor(virt);
    *next = *prev + 1;
    *gamma = virt - (double)*prev;
    if (virt >= (double)(n - 1))
        *prev = *next = n - 1;
}

/* Records and reads what estimator e needs of x (1-D, dtype s->dt). Returns 0 or -1. */
static int gather_stats(const char *fn, loom_array *x, estimator e, double first, double last,
                        bool data_scalars, loom_hist_stats *s)
{
    bool sd = e == SCOTT || e == DOANE, pct = e == FD || e == AUTO;
    bool flt = loom__is_float(s->dt), wide = wide_ints(s->dt);
    reads r = {.nf = 0};
    want(&r, loom_amin(x, NULL, 0, false), wide); /* ptp, and delta without a range */
    want(&r, loom_amax(x, NULL, 0, false), wide);
    if (sd) {
        loom_array *std = loom_std(x, NULL, 0, 0, false);
        want(&r, std, false);
        /* doane's g1 = mean(((x - mean(x)) / std) ** 3), in x's float dtype as NumPy */
        loom_array *t = loom_divide(loom_subtract(x, loom_mean(x, NULL, 0, false)), std);
        want(&r, loom_mean(loom_power(t, loom_scalar_int(3)), NULL, 0, false), false);
    }
    if (pct) {
        double gamma;
        percentile_at(s->n, 0.75, &s->at[0], &s->at[1], &gamma);
        percentile_at(s->n, 0.25, &s->at[2], &s->at[3], &gamma);
        loom_array *sorted = loom_sort(x, 0);
        for (int k = 0; k < 4; k++)
            want(&r, loom_index(sorted, 0, s->at[k]), wide);
    }
    if (e == STONE) { /* the sum of squared counts of each candidate histogram */
        s->nstone = (int64_t)sqrt((double)s->n) > 100 ? (int64_t)sqrt((double)s->n) : 100;
        loom_array **sq = loom__malloc((size_t)s->nstone * sizeof *sq);
        if (!sq) {
            loom__error(LOOM_ERR_OOM, fn, "out of host memory");
            return -1;
        }
        loom_array *t = loom__cast(fn, x, loom__is_float(s->dt) ? s->dt : LOOM_FLOAT64);
        for (int64_t k = 1; k <= s->nstone; k++) {
            loom_array *c = t ? loom__histogram_counts(fn, t, k, first, last, data_scalars)
                              : NULL;
            sq[k - 1] = c ? loom_sum(loom_multiply(c, c), NULL, 0, false) : NULL;
        }
        want(&r, loom_stack(sq, (int)s->nstone, 0), false);
        free(sq);
    }
    double *fv = NULL;
    int64_t *iv = NULL;
    int rc = read_all(fn, r.f, r.nf, LOOM_FLOAT64, (void **)&fv);
    rc = rc ? rc : read_all(fn, r.i, r.ni, LOOM_INT64, (void **)&iv);
    if (rc == 0) {
        int nf = 0, ni = 0;
        if (flt) {
            s->min = fv[nf++];
            s->max = fv[nf++];
        } else {
            s->lo = wide ? iv[ni++] : (int64_t)fv[nf++];
            s->hi = wide ? iv[ni++] : (int64_t)fv[nf++];
        }
        if (sd) {
            s->std = fv[nf++];
            s->g1 = fv[nf++];
        }
        for (int k = 0; pct && k < 4; k++) {
            if (flt)
                s->q[k] = fv[nf++];
            else
                s->iq[k] = wide ? iv[ni++] : (int64_t)fv[nf++];
        }
        if (e == STONE) { /* the rest of fv, which s keeps */
            memmove(fv, fv + nf, (size_t)s->nstone * sizeof *fv);
            s->stone_sq = fv;
            fv = NULL;
        }
    }
    free(fv);
    free(iv);
    return rc ? -1 : 0;
}

/* ---- NumPy's arithmetic ---- */

static unsigned bits(loom_dtype dt)
{
    return (unsigned)loom_dtype_size(dt) * 8;
}

/* An integer of dt held in an int64 (uint64 as its bits), as a double. */
static double int_value(loom_dtype dt, int64_t v)
{
    return loom__is_unsigned(dt) ? (double)(uint64_t)v : (double)v;
}

/* d modulo 2^bits of dt, as a value of dt (NumPy's integer arithmetic wraps). */
static double wrapped(loom_dtype dt, uint64_t d)
{
    unsigned b = bits(dt);
    if (b < 64)
        d &= (UINT64_C(1) << b) - 1;
    if (loom__is_unsigned(dt))
        return (double)d;
    if (b < 64 && (d >> (b - 1)) & 1)
        return (double)((int64_t)d - ((int64_t)1 << b));
    return (double)(int64_t)d;
}

/* NumPy's _ptp: max - min in the data's float dtype, or for integers wrapped to the unsigned
 * dtype of their width (_unsigned_subtract). */
static scalar ptp(const loom_hist_stats *s)
{
    static const loom_dtype unsigned_of[] = {[1] = LOOM_UINT8, [2] = LOOM_UINT16,
                                             [4] = LOOM_UINT32, [8] = LOOM_UINT64};
    if (loom__is_float(s->dt))
        return (scalar){round_to(s->dt, s->max - s->min), s->dt};
    loom_dtype u = unsigned_of[loom_dtype_size(s->dt)];
    return (scalar){wrapped(u, (uint64_t)s->hi - (uint64_t)s->lo), u};
}

/* The linear percentile between the sorted values at k and k + 1 of s->q or s->iq (NumPy's
 * _lerp in float64, their difference taken in the data's dtype first). */
static double lerp(const loom_hist_stats *s, int k, double t)
{
    double a, b, diff;
    if (loom__is_float(s->dt)) {
        a = s->q[k];
        b = s->q[k + 1];
        diff = round_to(s->dt, b - a);
    } else {
        a = int_value(s->dt, s->iq[k]);
        b = int_value(s->dt, s->iq[k + 1]);
        diff = wrapped(s->dt, (uint64_t)s->iq[k + 1] - (uint64_t)s->iq[k]);
    }
    return t >= 0.5 ? b - diff * (1 - t) : a + diff * t;
}

static scalar width_sqrt(const loom_hist_stats *s)
{
    return binop('/', ptp(s), f64(sqrt((double)s->n)));
}

static scalar width_sturges(const loom_hist_stats *s)
{
    return binop('/', ptp(s), f64(log2((double)s->n) + 1.0));
}

static scalar width_fd(const loom_hist_stats *s)
{
    double g75, g25;
    int64_t p, q;
    percentile_at(s->n, 0.75, &p, &q, &g75);
    percentile_at(s->n, 0.25, &p, &q, &g25);
    double iqr = lerp(s, 0, g75) - lerp(s, 2, g25);
    return f64(2.0 * iqr * pow((double)s->n, -1.0 / 3.0));
}

static scalar width_doane(const loom_hist_stats *s)
{
    double n = (double)s->n;
    if (s->n <= 2 || !(s->std > 0.0))
        return f64(0.0);
    double sg1 = sqrt(6.0 * (n - 2) / ((n + 1.0) * (n + 3)));
    return binop('/', ptp(s), f64(1.0 + log2(n) + log2(1.0 + fabs(s->g1) / sg1)));
}

static scalar width_stone(const loom_hist_stats *s)
{
    scalar range = ptp(s);
    if (s->n <= 1 || range.v == 0)
        return f64(0.0);
    double n = (double)s->n, best = INFINITY;
    int64_t nbins = 1;
    for (int64_t k = 1; k <= s->nstone; k++) {
        double hh = binop('/', range, weak((double)k, range)).v;
        double jhat = (2 - (n + 1) * (s->stone_sq[k - 1] / (n * n))) / hh;
        if (jhat < best) { /* Python's min: the first of equal values */
            best = jhat;
            nbins = k;
        }
    }
    return binop('/', range, weak((double)nbins, range));
}

static scalar width(const loom_hist_stats *s, estimator e)
{
    switch (e) {
    case SQRT: return width_sqrt(s);
    case STURGES: return width_sturges(s);
    case RICE: {
        scalar p = ptp(s);
        return binop('/', p, weak(2.0 * pow((double)s->n, 1.0 / 3), p));
    }
    case SCOTT: {
        scalar sd = {s->std, loom__is_float(s->dt) ? s->dt : LOOM_FLOAT64};
        return binop('*', weak(pow(24.0 * pow(3.141592653589793 /* math.pi */, 0.5) / (double)s->n, 1.0 / 3.0), sd), sd);
    }
    case DOANE: return width_doane(s);
    case FD: return width_fd(s);
    case STONE: return width_stone(s);
    case AUTO: {
        scalar fd = width_fd(s), st = width_sturges(s), half_sqrt = width_sqrt(s);
        half_sqrt.v /= 2;
        scalar corrected = half_sqrt.v > fd.v ? half_sqrt : fd; /* Python's max, then min */
        return st.v < corrected.v ? st : corrected;
    }
    default: return f64(0.0);
    }
}

/* _get_bin_edges' delta = last_edge - first_edge in the dtype of NumPy's edges: Python floats
 * with a range, else scalars of the data's dtype (widened ones: data's float dtype, float64 for
 * integers; integers subtract unsigned). */
static scalar delta(const loom_hist_stats *s, const double *range, double first, double last, bool widened)
{
    if (range || (widened && !loom__is_float(s->dt)))
        return f64(last - first);
    if (widened) {
        double v = first + 0.5;
        double lo = round_to(s->dt, v - 0.5), hi = round_to(s->dt, v + 0.5);
        return (scalar){round_to(s->dt, hi - lo), s->dt};
    }
    return ptp(s);
}

int loom__histogram_bins_from_stats(const char *fn, const loom_hist_stats *s, const char *name,
                                    const double *range, double first, double last,
                                    bool widened, int64_t *nbins)
{
    *nbins = 1;
    if (s->n == 0)
        return 0;
    scalar w = width(s, (estimator)find(name));
    if (w.v == 0) /* NumPy's `if width:` (NaN counts as true) */
        return 0;
    scalar d = delta(s, range, first, last, widened);
    bool integer = !loom__is_float(s->dt);
    scalar ratio = integer && w.v < 1 ? weak(d.v, d) /* width 1, a Python int */
                                      : binop('/', d, w);
    double bins = ceil(ratio.v);
    if (isnan(bins) || isinf(bins)) {
        loom__error(LOOM_ERR_INVALID, fn, "cannot convert float %s to integer",
                    isnan(bins) ? "NaN" : "infinity");
        return -1;
    }
    if (bins > (double)(INT64_MAX / 2)) {
        loom__error(LOOM_ERR_OOM, fn, "%.0f bins are too many to allocate", bins);
        return -1;
    }
    *nbins = (int64_t)bins;
    return 0;
}

int loom__histogram_estimate(const char *fn, loom_array *a, const char *name,
                             const double *range, double first, double last, bool widened,
                             int64_t *nbins)
{
    loom_scope_begin();
    loom_dtype dt = a->dtype == LOOM_BOOL ? LOOM_UINT8 : (loom_dtype)a->dtype;
    loom_array *x = loom__cast(fn, loom__reshape(fn, "ravel", a, 1, (const int64_t[]){-1}), dt);
    if (x && range) { /* the data inside the range (NumPy's a[keep]) */
        loom_array *keep = loom_logical_and(loom_greater_equal(x, loom_scalar(first)),
                                            loom_less_equal(x, loom_scalar(last)));
        x = loom__compress(fn, keep, x);
    }
    loom_hist_stats s = {.dt = dt, .n = x ? x->size : 0};
    int rc = !x || (s.n > 0 && gather_stats(fn, x, (estimator)find(name), first, last,
                                                !range, &s))
                 ? -1
                 : loom__histogram_bins_from_stats(fn, &s, name, range, first, last, widened,
                                                   nbins);
    free(s.stone_sq);
    loom_scope_end();
    return rc;
}
