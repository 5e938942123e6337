/* bincount and histogram (docs/unique.md): a BINCOUNT node counts int64 bins in [0, len) with
 * integer atomics, or sums float64 weights per bin over the bins sorted (argsort) with CUB's
 * segmented reduction: the same bits every run. bincount's length is max(x) + 1, read back with
 * the check for negative values; a histogram's bin of each element is computed elementwise with
 * NumPy's own formulas (one extra bin for elements outside the range, dropped), so its length is
 * known and only an autodetected range is read back. */
#include "histogram.h"
#include "reduce.h"
#include "select.h"
#include "ufunc.h"
#include "views.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>

/* The node: bins (int64, 1-D) counted into len; with weights (float64, bins' length) the bins
 * are sorted first and the weights with them. */
static loom_array *bincount_node(const char *fn, loom_array *bins, loom_array *weights,
                                 int64_t len)
{
    if (!bins)
        return NULL;
    if (len == 0 || bins->size == 0)
        return loom_zeros(1, (const int64_t[]){len}, weights ? LOOM_FLOAT64 : LOOM_INT64);
    if (weights && len >= INT_MAX) {
        loom__error(LOOM_ERR_UNSUPPORTED, fn, "weighted counts of %lld bins are not supported",
                    (long long)len);
        return NULL;
    }
    if (weights) {
        loom_array *perm = loom_argsort(bins, 0);
        bins = perm ? loom__take_at(fn, bins, perm) : NULL;
        weights = perm ? loom__take_at(fn, loom__cast(fn, weights, LOOM_FLOAT64), perm) : NULL;
        if (!bins || !weights)
            return NULL;
    }
    loom_array *n = loom__node_alloc_n(fn, LOOM_OP_BINCOUNT, weights ? LOOM_FLOAT64 : LOOM_INT64,
                                       1, (const int64_t[]){len}, weights ? 2 : 1);
    if (!n)
        return NULL;
    n->device = bins->device;
    loom__node_set_input(n, 0, bins);
    if (weights)
        loom__node_set_input(n, 1, weights);
    return loom__node_finish(n);
}

/* NumPy's check of an array it converts to one dimension of to_dtype: NULL and an error if not. */
static bool one_dim(const char *fn, const loom_array *a)
{
    if (a->ndim != 1) {
        loom__error(LOOM_ERR_INVALID, fn, a->ndim > 1 ? "object too deep for desired array"
                                                      : "object of too small depth for desired array");
        return false;
    }
    return true;
}

static bool safe_cast(const char *fn, const loom_array *a, loom_dtype to)
{
    loom_dtype dt = (loom_dtype)a->dtype;
    bool ok = to == LOOM_INT64 ? loom__is_int(dt) || dt == LOOM_BOOL : !loom__is_complex(dt);
    if (!ok)
        loom__error(LOOM_ERR_DTYPE, fn,
                    "Cannot cast array data from dtype('%s') to dtype('%s') according to the "
                    "rule 'safe'", loom_dtype_name(dt), loom_dtype_name(to));
    return ok;
}

loom_array *loom_bincount(loom_array *x, loom_array *weights, int64_t minlength)
{
    static const char fn[] = "loom_bincount";
    if (!x || !one_dim(fn, x) || !safe_cast(fn, x, LOOM_INT64))
        return NULL;
    if (minlength < 0) {
        loom__error(LOOM_ERR_INVALID, fn, "'minlength' must not be negative");
        return NULL;
    }
    if (weights && (!one_dim(fn, weights) || !safe_cast(fn, weights, LOOM_FLOAT64)))
        return NULL;
    if (weights && weights->size != x->size) {
        loom__error(LOOM_ERR_INVALID, fn, "The weights and list don't have the same length.");
        return NULL;
    }
    if (x->size == 0) /* NumPy: int64 zeros, weights or not */
        return loom_zeros(1, (const int64_t[]){minlength}, LOOM_INT64);
    loom_scope_begin();
    loom_array *xi = loom__cast(fn, x, LOOM_INT64);
    int64_t len = minlength;
    if (xi) {
        /* one read: max(x) + 1, or -1 when an element is negative */
        loom_array *top = loom_add(loom_amax(xi, NULL, 0, false), loom_scalar_int(1));
        loom_array *neg = loom_less(loom_amin(xi, NULL, 0, false), loom_scalar_int(0));
        int64_t need = 0;
        if (loom__read_data_dependent(fn, loom_where(neg, loom_scalar_int(-1), top), NULL, 0,
                                      &need, sizeof need))
            return loom__scope_return(NULL);
        if (need < 0) {
            loom__error(LOOM_ERR_INVALID, fn, "'list' argument must have no negative elements");
            return loom__scope_return(NULL);
        }
        len = need > len ? need : len;
    }
    return loom__scope_return(xi ? bincount_node(fn, xi, weights, len) : NULL);
}

/* ---- histogram ---- */

/* NumPy's str() of a range end in its messages: "0.0", "2.5", "nan", "inf". */
static void fmt_edge(char *buf, size_t n, double v)
{
    if (isnan(v))
        snprintf(buf, n, "nan");
    else if (isinf(v))
        snprintf(buf, n, v > 0 ? "inf" : "-inf");
    else if (v == floor(v) && fabs(v) < 1e16)
        snprintf(buf, n, "%.1f", v);
    else
        snprintf(buf, n, "%.17g", v);
}

/* The dtype of the edges: a's float or complex dtype, float64 for integers and bool (NumPy's
 * bin_type). */
static loom_dtype edge_dtype(const loom_array *a)
{
    loom_dtype dt = (loom_dtype)a->dtype;
    return loom__is_float(dt) || loom__is_complex(dt) ? dt : LOOM_FLOAT64;
}

static bool histogram_inputs(const char *fn, const loom_array *a, const loom_array *weights)
{
    if (weights && loom__is_complex((loom_dtype)weights->dtype)) {
        loom__error(LOOM_ERR_UNSUPPORTED, fn, "complex weights are not supported yet");
        return false;
    }
    bool same = !weights || weights->ndim == a->ndim;
    for (int i = 0; same && weights && i < a->ndim; i++)
        same = weights->shape[i] == a->shape[i];
    if (!same)
        loom__error(LOOM_ERR_INVALID, fn, "weights should have the same shape as a.");
    return same;
}

/* NumPy's _get_outer_edges: the range given (checked), or a's min and max read back; *widened
 * when they were equal and moved apart by 0.5 each. */
static bool outer_edges(const char *fn, loom_array *a, const double *range, double *first,
                        double *last, bool *widened)
{
    char x[40], y[40];
    if (range) {
        *first = range[0];
        *last = range[1];
        if (*first > *last) {
            loom__error(LOOM_ERR_INVALID, fn, "max must be larger than min in range parameter.");
            return false;
        }
        if (!isfinite(*first) || !isfinite(*last)) {
            fmt_edge(x, sizeof x, *first);
            fmt_edge(y, sizeof y, *last);
            loom__error(LOOM_ERR_INVALID, fn, "supplied range of [%s, %s] is not finite", x, y);
            return false;
        }
    } else if (a->size == 0) {
        *first = 0;
        *last = 1;
    } else {
        loom_array *ends = loom_stack((loom_array *[]){loom_amin(a, NULL, 0, false),
                                                       loom_amax(a, NULL, 0, false)}, 2, 0);
        double v[2];
        if (!ends || loom__read_data_dependent(fn, loom__cast(fn, ends, LOOM_FLOAT64), NULL, 0, v,
                                               sizeof v))
            return false;
        *first = v[0];
        *last = v[1];
        if (!isfinite(*first) || !isfinite(*last)) {
            fmt_edge(x, sizeof x, *first);
            fmt_edge(y, sizeof y, *last);
            loom__error(LOOM_ERR_INVALID, fn, "autodetected range of [%s, %s] is not finite", x, y);
            return false;
        }
    }
    *widened = *first == *last;
    if (*widened) {
        *first -= 0.5;
        *last += 0.5;
    }
    return true;
}

/* Each element's bin among nb equal bins from first to last with the edges e, as NumPy's
 * histogram computes it (a division, then corrections against the edges), nb outside. */
static loom_array *equal_bins(const char *fn, loom_array *t, loom_array *e, int64_t nb,
                              double first, double last)
{
    loom_array *keep = loom_logical_and(loom_greater_equal(t, loom_scalar(first)),
                                        loom_less_equal(t, loom_scalar(last)));
    loom_array *f = loom_multiply(loom_divide(loom_subtract(t, loom_scalar(first)),
                                              loom_scalar(last - first)),
                                  loom_scalar_int(nb));
    loom_array *idx = loom__cast(fn, f, LOOM_INT64);
    idx = loom_where(loom_equal(idx, loom_scalar_int(nb)), loom_scalar_int(nb - 1), idx);
    loom_array *below = loom_less(t, loom__take_at(fn, e, idx));
    idx = loom_subtract(idx, loom__cast(fn, below, LOOM_INT64));
    loom_array *next = loom__take_at(fn, e, loom_add(idx, loom_scalar_int(1)));
    loom_array *above = loom_logical_and(loom_greater_equal(t, next),
                                         loom_not_equal(idx, loom_scalar_int(nb - 1)));
    idx = loom_add(idx, loom__cast(fn, above, LOOM_INT64));
    return loom_where(keep, idx, loom_scalar_int(nb));
}

/* Each element's bin among the nb bins of the edges (host doubles, increasing): how many inner
 * edges it reaches (a reduction over a broadcast comparison), nb outside. */
static loom_array *edge_bins(const char *fn, loom_array *t, const double *edges, int64_t nb)
{
    loom_array *idx;
    if (nb > 1) {
        loom_array *inner = loom_asarray(edges + 1, LOOM_FLOAT64, 2, (const int64_t[]){1, nb - 1});
        loom_array *reached = loom_greater_equal(loom_expand_dims(t, 1), inner);
        idx = loom_sum(reached, (const int[]){1}, 1, false);
    } else {
        idx = loom_zeros(1, t->shape, LOOM_INT64);
    }
    loom_array *keep = loom_logical_and(loom_greater_equal(t, loom_scalar(edges[0])),
                                        loom_less_equal(t, loom_scalar(edges[nb])));
    (void)fn;
    return loom_where(keep, idx, loom_scalar_int(nb));
}

/* The counts of bins idx (nb real bins, nb meaning outside) and NumPy's result dtype; density
 * divides by the bin widths and the total. */
static loom_array *counts(const char *fn, loom_array *idx, loom_array *weights, int64_t nb,
                          loom_array *e, bool density)
{
    loom_array *w = weights ? loom__reshape(fn, "ravel", weights, 1, (const int64_t[]){-1}) : NULL;
    loom_array *n = idx ? bincount_node(fn, idx, w, nb + 1) : NULL;
    n = n ? loom_slice(n, 0, 0, nb, 1) : NULL;
    if (n && weights)
        n = loom__cast(fn, n, (loom_dtype)weights->dtype);
    if (!n || !density)
        return n;
    loom_array *widths = loom__cast(fn, loom_subtract(loom_slice(e, 0, 1, nb + 1, 1),
                                                      loom_slice(e, 0, 0, nb, 1)), LOOM_FLOAT64);
    return loom_divide(loom_divide(n, widths), loom_sum(n, NULL, 0, false));
}

static loom_array *flat(const char *fn, loom_array *a, loom_dtype dt)
{
    return loom__cast(fn, loom__reshape(fn, "ravel", a, 1, (const int64_t[]){-1}), dt);
}

/* NumPy's linspace(first, last, nb + 1) of the edges in dt: computed in float64 and rounded
 * when first and last are Python floats (a range given, or an empty a), in dt itself when they
 * are scalars of the data's dtype (its min and max) and that is float16 or float32. */
static loom_array *edges(const char *fn, loom_dtype dt, double first, double last, int64_t nb,
                         bool data_scalars)
{
    if (data_scalars && (dt == LOOM_FLOAT16 || dt == LOOM_FLOAT32))
        return loom__edges_in_dtype(fn, dt, first, last, nb);
    if (loom__is_complex(dt)) /* NumPy: float64 from Python floats, then cast */
        return loom__cast(fn, loom_linspace(first, last, nb + 1, true, LOOM_FLOAT64), dt);
    return loom_linspace(first, last, nb + 1, true, dt);
}

/* The equal bins' edges: bins of them, or with an estimator as many as it finds (*nb). */
static loom_array *equal_edges(const char *fn, loom_array *a, int64_t bins, const char *estimator,
                               const double *range, double *first, double *last, int64_t *nb)
{
    if (!estimator && bins < 1) {
        loom__error(LOOM_ERR_INVALID, fn, "`bins` must be positive, when an integer");
        return NULL;
    }
    if (loom__is_complex((loom_dtype)a->dtype) && (estimator || !range)) {
        /* NumPy's edges would be complex (its min and max compared lexicographically), its
         * estimators' statistics complex: not written */
        loom__error(LOOM_ERR_UNSUPPORTED, fn,
                    estimator ? "bin estimators on complex arrays are not supported"
                              : "equal bins of a complex array need a range (complex edges "
                                "from its min and max are not supported)");
        return NULL;
    }
    bool widened;
    if (!outer_edges(fn, a, range, first, last, &widened))
        return NULL;
    if (estimator &&
        loom__histogram_estimate(fn, a, estimator, range, *first, *last, widened, &bins))
        return NULL;
    *nb = bins;
    return edges(fn, edge_dtype(a), *first, *last, bins, !range && a->size > 0);
}

loom_array *loom__histogram_counts(const char *fn, loom_array *t, int64_t nb, double first,
                                   double last, bool data_scalars)
{
    loom_array *e = edges(fn, (loom_dtype)t->dtype, first, last, nb, data_scalars);
    loom_array *n = e ? bincount_node(fn, equal_bins(fn, t, e, nb, first, last), NULL, nb + 1)
                      : NULL;
    return n ? loom_slice(n, 0, 0, nb, 1) : NULL;
}

/* NumPy's checks of a string bins, in its order: a known estimator, and no weights. */
static bool estimator_args(const char *fn, const char *estimator, const loom_array *weights)
{
    if (!loom__histogram_estimator_known(fn, estimator))
        return false;
    if (weights) {
        loom__error(LOOM_ERR_INVALID, fn, "Automated estimation of the number of bins is not "
                                          "supported for weighted data");
        return false;
    }
    return true;
}

/* np.histogram with bins equal bins, or an estimator's (bins unused). */
static int histogram(const char *fn, loom_array *a, int64_t bins, const char *estimator,
                     const double *range, loom_array *weights, bool density, loom_array **hist,
                     loom_array **bin_edges)
{
    if (hist)
        *hist = NULL;
    if (bin_edges)
        *bin_edges = NULL;
    int rc = loom__check_input_list(fn, &a, 1);
    if (rc)
        return rc;
    if (!hist) {
        loom__error(LOOM_ERR_INVALID, fn, "hist is NULL");
        return LOOM_ERR_INVALID;
    }
    if (!histogram_inputs(fn, a, weights) || (estimator && !estimator_args(fn, estimator, weights)))
        return loom_last_error_code();
    loom_scope_begin();
    double first, last;
    int64_t nb = 0;
    loom_array *e = equal_edges(fn, a, bins, estimator, range, &first, &last, &nb);
    loom_array *t = e ? flat(fn, a, (loom_dtype)e->dtype) : NULL;
    loom_array *n = t ? counts(fn, equal_bins(fn, t, e, nb, first, last), weights, nb, e, density)
                      : NULL;
    if (n) {
        *hist = loom_keep(n);
        if (bin_edges)
            *bin_edges = loom_keep(e);
    }
    rc = n ? LOOM_OK : loom_last_error_code();
    loom_scope_end();
    return rc;
}

int loom_histogram(loom_array *a, int64_t bins, const double *range, loom_array *weights,
                   bool density, loom_array **hist, loom_array **bin_edges)
{
    return histogram("loom_histogram", a, bins, NULL, range, weights, density, hist, bin_edges);
}

int loom_histogram_estimator(loom_array *a, const char *bins, const double *range,
                             loom_array *weights, bool density, loom_array **hist,
                             loom_array **bin_edges)
{
    static const char fn[] = "loom_histogram_estimator";
    if (a && !bins) {
        loom__error(LOOM_ERR_INVALID, fn, "bins is NULL");
        return LOOM_ERR_INVALID;
    }
    return histogram(fn, a, 0, bins, range, weights, density, hist, bin_edges);
}

int loom_histogram_edges(loom_array *a, const double *edges, int nedges, loom_array *weights,
                         bool density, loom_array **hist)
{
    static const char fn[] = "loom_histogram_edges";
    if (hist)
        *hist = NULL;
    int rc = loom__check_input_list(fn, &a, 1);
    if (rc)
        return rc;
    if (!hist || !edges || nedges < 1) {
        loom__error(LOOM_ERR_INVALID, fn, !hist ? "hist is NULL" : "`bins` must be 1d, when an array");
        return LOOM_ERR_INVALID;
    }
    for (int i = 0; i + 1 < nedges; i++)
        if (!(edges[i + 1] >= edges[i])) {
            loom__error(LOOM_ERR_INVALID, fn, "`bins` must increase monotonically, when an array");
            return LOOM_ERR_INVALID;
        }
    if (!histogram_inputs(fn, a, weights))
        return loom_last_error_code();
    loom_scope_begin();
    int64_t nb = nedges - 1;
    loom_array *e = loom_asarray(edges, LOOM_FLOAT64, 1, (const int64_t[]){nedges});
    /* compared in NumPy's promotion of a and the float64 edges (complex: lexicographic) */
    loom_array *t = flat(fn, a, loom__is_complex((loom_dtype)a->dtype) ? LOOM_COMPLEX128
                                                                        : LOOM_FLOAT64);
    loom_array *n = e && t ? counts(fn, edge_bins(fn, t, edges, nb), weights, nb, e, density)
                           : NULL;
    if (n)
        *hist = loom_keep(n);
    rc = n ? LOOM_OK : loom_last_error_code();
    loom_scope_end();
    return rc;
}

/* np.histogram_bin_edges with bins equal bins, or an estimator's. */
static loom_array *bin_edges(const char *fn, loom_array *a, int64_t bins, const char *estimator,
                             const double *range)
{
    if (!a || !histogram_inputs(fn, a, NULL) ||
        (estimator && !loom__histogram_estimator_known(fn, estimator)))
        return NULL;
    loom_scope_begin();
    double first, last;
    int64_t nb;
    return loom__scope_return(equal_edges(fn, a, bins, estimator, range, &first, &last, &nb));
}

loom_array *loom_histogram_bin_edges(loom_array *a, int64_t bins, const double *range)
{
    return bin_edges("loom_histogram_bin_edges", a, bins, NULL, range);
}

loom_array *loom_histogram_bin_edges_estimator(loom_array *a, const char *bins,
                                               const double *range)
{
    static const char fn[] = "loom_histogram_bin_edges_estimator";
    if (a && !bins) {
        loom__error(LOOM_ERR_INVALID, fn, "bins is NULL");
        return NULL;
    }
    return bin_edges(fn, a, 0, bins, range);
}
