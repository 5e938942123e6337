/* NumPy's Generator.permutation(n) and Generator.choice(a, size, replace, p) for an integer
 * population, composed of random nodes, elementwise ops, a reduction and loom_argsort:
 * - a random permutation is the argsort of n random 64-bit words;
 * - a sample without replacement is the start of one: of the permutation (p NULL), or of the
 *   argsort of E_i / p_i, E_i standard exponential (an exponential race, which draws items one
 *   at a time with probabilities p renormalised over those left, as NumPy's rounds do);
 * - with replacement, integers(0, a) (p NULL) or NumPy's inverse CDF, the number of cdf
 *   entries at or below a uniform (searchsorted side="right"), as a reduction over a.
 * The results are int64 indices, NumPy's dtype. */
#include "random.h"
#include "reduce.h"

#include <math.h>
#include <stdlib.h>

/* NumPy's kahan_sum of the probabilities (its checks read this sum: an inf followed by more
 * entries makes it NaN, "Probabilities contain NaN", as in NumPy). */
static double kahan_sum(const double *p, int64_t n)
{
    double sum = n ? p[0] : 0, c = 0;
    for (int64_t i = 1; i < n; i++) {
        const double y = p[i] - c, t = sum + y;
        c = (t - sum) - y;
        sum = t;
    }
    return sum;
}

/* NumPy's checks of p, in its order; false with the error recorded. */
static bool check_p(const char *fn, const double *p, int64_t n)
{
    const double sum = kahan_sum(p, n);
    if (isnan(sum)) {
        loom__random_bad(fn, "Probabilities contain NaN");
        return false;
    }
    for (int64_t i = 0; i < n; i++)
        if (p[i] < 0) {
            loom__random_bad(fn, "Probabilities are not non-negative");
            return false;
        }
    if (fabs(sum - 1) > sqrt(0x1p-52)) {
        loom__random_bad(fn, "Probabilities do not sum to 1. See Notes section of docstring for "
                             "more information.");
        return false;
    }
    return true;
}

/* The argsort of n random keys: 64-bit words (p NULL) or E_i / p_i (p_i = 0: +inf, last). */
static loom_array *race(const char *fn, loom_rng *rng, int64_t n, const double *p)
{
    if (!p)
        return loom_argsort(loom__random_integers(fn, rng, 0, 0, 1, &n, LOOM_UINT64), 0);
    loom_array *e = loom__random(fn, rng, LOOM_OP_RANDOM_EXPONENTIAL, 1, &n, LOOM_FLOAT64, 1, 0, 0);
    return loom_argsort(loom_divide(e, loom_asarray(p, LOOM_FLOAT64, 1, &n)), 0);
}

/* searchsorted(cdf, u, side="right") for u = random(shape): the count of cdf <= u, with NumPy's
 * cdf (cumsum(p) / its last entry, summed in order). */
static loom_array *inverse_cdf(const char *fn, loom_rng *rng, int64_t a, const double *p, int ndim,
                               const int64_t *shape)
{
    double *cdf = loom__malloc((size_t)a * sizeof *cdf);
    if (!cdf) {
        loom__error(LOOM_ERR_OOM, fn, "out of host memory");
        return NULL;
    }
    double sum = 0;
    for (int64_t i = 0; i < a; i++)
        cdf[i] = sum += p[i];
    for (int64_t i = 0; i < a; i++)
        cdf[i] /= sum;
    loom_array *c = loom_asarray(cdf, LOOM_FLOAT64, 1, &a);
    free(cdf);
    loom_array *u = loom__random(fn, rng, LOOM_OP_RANDOM_UNIFORM, ndim, shape, LOOM_FLOAT64, 0, 1, 0);
    loom_array *below = loom_greater_equal(loom_expand_dims(u, ndim), c);
    return loom_astype(loom_sum(below, (int[]){ndim}, 1, false), LOOM_INT64);
}

loom_array *loom_rng_permutation(loom_rng *rng, int64_t n)
{
    if (!rng)
        return NULL;
    if (n <= 0) /* NumPy: permutation(n) is a shuffled arange(n), empty for n <= 0 */
        return loom_zeros(1, (int64_t[]){0}, LOOM_INT64);
    loom_scope_begin();
    return loom__scope_return(race("loom_rng_permutation", rng, n, NULL));
}

loom_array *loom_rng_choice(loom_rng *rng, int64_t a, int ndim, const int64_t *shape,
                            bool replace, const double *p)
{
    return loom__choice_indices("loom_rng_choice", rng, a, ndim, shape, replace, p);
}

loom_array *loom__choice_indices(const char *fn, loom_rng *rng, int64_t a, int ndim,
                                 const int64_t *shape, bool replace, const double *p)
{
    if (!rng)
        return NULL;
    int64_t size;
    if (loom__check_shape(fn, ndim, shape, &size))
        return NULL;
    if (a <= 0 && size != 0)
        return loom__random_bad(fn, "a must be a positive integer unless no samples are taken");
    if (p && a < 0) /* p holds a entries */
        return loom__random_bad(fn, "a and p must have same size");
    if (p && !check_p(fn, p, a))
        return NULL;
    if (!replace && size > a)
        return loom__random_bad(fn, "Cannot take a larger sample than population when replace is False");
    if (!replace && p) {
        int64_t nonzero = 0;
        for (int64_t i = 0; i < a; i++)
            nonzero += p[i] > 0;
        if (nonzero < size)
            return loom__random_bad(fn, "Fewer non-zero entries in p than size");
    }
    if (size == 0)
        return loom_zeros(ndim, shape, LOOM_INT64);
    if (replace && !p)
        return loom__draw_integers(fn, rng, 0, a, false, ndim, shape, LOOM_INT64);
    loom_scope_begin();
    loom_array *x = replace ? inverse_cdf(fn, rng, a, p, ndim, shape)
                            : loom_reshape(loom_slice(race(fn, rng, a, p), 0, 0, size, 1), ndim, shape);
    return loom__scope_return(x);
}
