/* NumPy's Generator distributions: argument checks with NumPy's messages, then one random node
 * each (graph/random.c). Each distribution's algorithm is in kernels/loom_random.cuh and
 * docs/random.md. A NULL rng passes through: NULL, the error recorded before left as it is. */
#include "random.h"
#include "ufunc.h"

#include <math.h>
#include <string.h>

/* NumPy's limit on a Poisson mean: INT64_MAX - 10 sqrt(INT64_MAX). */
#define POISSON_LAM_MAX 9.223372006484771e18

loom_array *loom__random_bad(const char *fn, const char *reason)
{
    loom__error(LOOM_ERR_INVALID, fn, "%s", reason);
    return NULL;
}

/* NumPy's name of a function: "normal" for loom_rng_normal and loom_random_normal. */
static const char *numpy_name(const char *fn)
{
    const char *u = strrchr(fn, '_');
    return strncmp(fn, "loom_rng_", 9) == 0 ? fn + 9 : strncmp(fn, "loom_random_", 12) == 0 ? fn + 12 : u ? u + 1 : fn;
}

/* A distribution of float32 or float64 values. */
static loom_array *continuous(const char *fn, loom_rng *rng, loom_op op,
                              int ndim, const int64_t *shape, loom_dtype dtype, double a,
                              double b, double c)
{
    if (!loom__random_float_dtype(fn, numpy_name(fn), dtype))
        return NULL;
    return loom__random(fn, rng, op, ndim, shape, dtype, a, b, c);
}

loom_array *loom__random_discrete(const char *fn, loom_rng *rng, loom_op op, int ndim,
                                  const int64_t *shape, loom_dtype dtype, double a, double b,
                                  double c)
{
    if (dtype != LOOM_INT64 && dtype != LOOM_INT32) {
        loom__unsupported_dtype(fn, numpy_name(fn), dtype);
        return NULL;
    }
    return loom__random(fn, rng, op, ndim, shape, dtype, a, b, c);
}

/* ---- uniform, normal and integers (also drawn by the legacy functions) ---- */

loom_array *loom__draw_uniform(const char *fn, loom_rng *rng, double low, double high, int ndim,
                               const int64_t *shape, loom_dtype dtype)
{
    if (!rng)
        return NULL;
    const double range = high - low;
    if (!isfinite(range))
        return loom__random_bad(fn, "high - low range exceeds valid bounds");
    if (range < 0)
        return loom__random_bad(fn, "high - low < 0");
    return continuous(fn, rng, LOOM_OP_RANDOM_UNIFORM, ndim, shape, dtype, low, range, 0);
}

loom_array *loom__draw_normal(const char *fn, loom_rng *rng, double loc, double scale, int ndim,
                              const int64_t *shape, loom_dtype dtype)
{
    if (!rng)
        return NULL;
    if (scale < 0)
        return loom__random_bad(fn, "scale < 0");
    return continuous(fn, rng, LOOM_OP_RANDOM_NORMAL, ndim, shape, dtype, loc, scale, 0);
}

loom_array *loom_rng_random(loom_rng *rng, int ndim, const int64_t *shape, loom_dtype dtype)
{
    return loom__draw_uniform("loom_rng_random", rng, 0, 1, ndim, shape, dtype);
}

loom_array *loom_rng_uniform(loom_rng *rng, double low, double high, int ndim,
                             const int64_t *shape, loom_dtype dtype)
{
    return loom__draw_uniform("loom_rng_uniform", rng, low, high, ndim, shape, dtype);
}

loom_array *loom_rng_standard_normal(loom_rng *rng, int ndim, const int64_t *shape,
                                     loom_dtype dtype)
{
    return loom__draw_normal("loom_rng_standard_normal", rng, 0, 1, ndim, shape, dtype);
}

loom_array *loom_rng_normal(loom_rng *rng, double loc, double scale, int ndim,
                            const int64_t *shape, loom_dtype dtype)
{
    return loom__draw_normal("loom_rng_normal", rng, loc, scale, ndim, shape, dtype);
}

loom_array *loom_rng_integers(loom_rng *rng, int64_t low, int64_t high, bool endpoint, int ndim,
                              const int64_t *shape, loom_dtype dtype)
{
    return loom__draw_integers("loom_rng_integers", rng, low, high, endpoint, ndim, shape, dtype);
}

loom_array *loom__draw_integers(const char *fn, loom_rng *rng, int64_t low, int64_t high,
                                bool endpoint, int ndim, const int64_t *shape, loom_dtype dtype)
{
    if (!rng)
        return NULL;
    if (!loom__is_int(dtype) && dtype != LOOM_BOOL) {
        loom__unsupported_dtype(fn, numpy_name(fn), dtype);
        return NULL;
    }
    int64_t min = 0;
    uint64_t max = 1;
    if (dtype != LOOM_BOOL)
        loom__int_range(dtype, &min, &max);
    /* NumPy's order: the bounds of the dtype, then low against high. An exclusive high may
     * be max + 1. */
    const char *name = loom_dtype_name(dtype);
    if (low < min) {
        loom__error(LOOM_ERR_INVALID, fn, "low is out of bounds for %s", name);
        return NULL;
    }
    if (high > 0 && (uint64_t)high - !endpoint > max) {
        loom__error(LOOM_ERR_INVALID, fn, "high is out of bounds for %s", name);
        return NULL;
    }
    if (endpoint ? low > high : low >= high)
        return loom__random_bad(fn, endpoint ? "low > high" : "low >= high");
    const uint64_t range = (uint64_t)high - (uint64_t)low + endpoint; /* 0: all 2^64 values */
    return loom__random_integers(fn, rng, low, range, ndim, shape, dtype);
}

loom_array *loom_rng_bytes(loom_rng *rng, int64_t length)
{
    if (!rng)
        return NULL;
    return loom__random_integers("loom_rng_bytes", rng, 0, 256, 1, &length, LOOM_UINT8);
}

/* ---- continuous distributions ---- */

loom_array *loom_rng_standard_exponential(loom_rng *rng, int ndim, const int64_t *shape,
                                          loom_dtype dtype)
{
    if (!rng)
        return NULL;
    return continuous("loom_rng_standard_exponential", rng,
                      LOOM_OP_RANDOM_EXPONENTIAL, ndim, shape, dtype, 1, 0, 0);
}

loom_array *loom_rng_exponential(loom_rng *rng, double scale, int ndim, const int64_t *shape,
                                 loom_dtype dtype)
{
    static const char fn[] = "loom_rng_exponential";
    if (!rng)
        return NULL;
    if (scale < 0)
        return loom__random_bad(fn, "scale < 0");
    return continuous(fn, rng, LOOM_OP_RANDOM_EXPONENTIAL, ndim, shape, dtype,
                      scale, 0, 0);
}

loom_array *loom_rng_standard_gamma(loom_rng *rng, double shape_k, int ndim,
                                    const int64_t *shape, loom_dtype dtype)
{
    static const char fn[] = "loom_rng_standard_gamma";
    if (!rng)
        return NULL;
    if (shape_k < 0)
        return loom__random_bad(fn, "shape < 0");
    return continuous(fn, rng, LOOM_OP_RANDOM_GAMMA, ndim, shape, dtype,
                      shape_k, 1, 0);
}

loom_array *loom_rng_gamma(loom_rng *rng, double shape_k, double scale, int ndim,
                           const int64_t *shape, loom_dtype dtype)
{
    static const char fn[] = "loom_rng_gamma";
    if (!rng)
        return NULL;
    if (shape_k < 0)
        return loom__random_bad(fn, "shape < 0");
    if (scale < 0)
        return loom__random_bad(fn, "scale < 0");
    return continuous(fn, rng, LOOM_OP_RANDOM_GAMMA, ndim, shape, dtype, shape_k, scale, 0);
}

loom_array *loom_rng_chisquare(loom_rng *rng, double df, int ndim, const int64_t *shape,
                               loom_dtype dtype)
{
    static const char fn[] = "loom_rng_chisquare";
    if (!rng)
        return NULL;
    if (df <= 0)
        return loom__random_bad(fn, "df <= 0");
    /* NumPy's: 2 standard_gamma(df / 2) */
    return continuous(fn, rng, LOOM_OP_RANDOM_GAMMA, ndim, shape, dtype, df / 2, 2, 0);
}

loom_array *loom_rng_beta(loom_rng *rng, double a, double b, int ndim, const int64_t *shape,
                          loom_dtype dtype)
{
    static const char fn[] = "loom_rng_beta";
    if (!rng)
        return NULL;
    if (a <= 0)
        return loom__random_bad(fn, "a <= 0");
    if (b <= 0)
        return loom__random_bad(fn, "b <= 0");
    return continuous(fn, rng, LOOM_OP_RANDOM_BETA, ndim, shape, dtype, a, b, 0);
}

loom_array *loom_rng_f(loom_rng *rng, double dfnum, double dfden, int ndim, const int64_t *shape,
                       loom_dtype dtype)
{
    static const char fn[] = "loom_rng_f";
    if (!rng)
        return NULL;
    if (dfnum <= 0)
        return loom__random_bad(fn, "dfnum <= 0");
    if (dfden <= 0)
        return loom__random_bad(fn, "dfden <= 0");
    return continuous(fn, rng, LOOM_OP_RANDOM_F, ndim, shape, dtype, dfnum, dfden, 0);
}

loom_array *loom_rng_standard_t(loom_rng *rng, double df, int ndim, const int64_t *shape,
                                loom_dtype dtype)
{
    static const char fn[] = "loom_rng_standard_t";
    if (!rng)
        return NULL;
    if (df <= 0)
        return loom__random_bad(fn, "df <= 0");
    return continuous(fn, rng, LOOM_OP_RANDOM_STANDARD_T, ndim, shape, dtype, df, 0, 0);
}

loom_array *loom_rng_standard_cauchy(loom_rng *rng, int ndim, const int64_t *shape,
                                     loom_dtype dtype)
{
    if (!rng)
        return NULL;
    return continuous("loom_rng_standard_cauchy", rng, LOOM_OP_RANDOM_CAUCHY,
                      ndim, shape, dtype, 0, 0, 0);
}

loom_array *loom_rng_lognormal(loom_rng *rng, double mean, double sigma, int ndim,
                               const int64_t *shape, loom_dtype dtype)
{
    static const char fn[] = "loom_rng_lognormal";
    if (!rng)
        return NULL;
    if (sigma < 0)
        return loom__random_bad(fn, "sigma < 0");
    return continuous(fn, rng, LOOM_OP_RANDOM_LOGNORMAL, ndim, shape, dtype, mean,
                      sigma, 0);
}

/* laplace, logistic and gumbel: a location and a non-negative scale. */
static loom_array *loc_scale(const char *fn, loom_rng *rng, loom_op op,
                             double loc, double scale, int ndim, const int64_t *shape,
                             loom_dtype dtype)
{
    if (!rng)
        return NULL;
    if (scale < 0)
        return loom__random_bad(fn, "scale < 0");
    return continuous(fn, rng, op, ndim, shape, dtype, loc, scale, 0);
}

loom_array *loom_rng_laplace(loom_rng *rng, double loc, double scale, int ndim,
                             const int64_t *shape, loom_dtype dtype)
{
    return loc_scale("loom_rng_laplace", rng, LOOM_OP_RANDOM_LAPLACE, loc, scale, ndim,
                     shape, dtype);
}

loom_array *loom_rng_logistic(loom_rng *rng, double loc, double scale, int ndim,
                              const int64_t *shape, loom_dtype dtype)
{
    return loc_scale("loom_rng_logistic", rng, LOOM_OP_RANDOM_LOGISTIC, loc, scale,
                     ndim, shape, dtype);
}

loom_array *loom_rng_gumbel(loom_rng *rng, double loc, double scale, int ndim,
                            const int64_t *shape, loom_dtype dtype)
{
    return loc_scale("loom_rng_gumbel", rng, LOOM_OP_RANDOM_GUMBEL, loc, scale, ndim,
                     shape, dtype);
}

loom_array *loom_rng_weibull(loom_rng *rng, double a, int ndim, const int64_t *shape,
                             loom_dtype dtype)
{
    static const char fn[] = "loom_rng_weibull";
    if (!rng)
        return NULL;
    if (a < 0)
        return loom__random_bad(fn, "a < 0");
    return continuous(fn, rng, LOOM_OP_RANDOM_WEIBULL, ndim, shape, dtype, a, 0, 0);
}

loom_array *loom_rng_pareto(loom_rng *rng, double a, int ndim, const int64_t *shape,
                            loom_dtype dtype)
{
    static const char fn[] = "loom_rng_pareto";
    if (!rng)
        return NULL;
    if (a <= 0)
        return loom__random_bad(fn, "a <= 0");
    return continuous(fn, rng, LOOM_OP_RANDOM_PARETO, ndim, shape, dtype, a, 0, 0);
}

loom_array *loom_rng_power(loom_rng *rng, double a, int ndim, const int64_t *shape,
                           loom_dtype dtype)
{
    static const char fn[] = "loom_rng_power";
    if (!rng)
        return NULL;
    if (a <= 0)
        return loom__random_bad(fn, "a <= 0");
    return continuous(fn, rng, LOOM_OP_RANDOM_POWER, ndim, shape, dtype, a, 0, 0);
}

loom_array *loom_rng_rayleigh(loom_rng *rng, double scale, int ndim, const int64_t *shape,
                              loom_dtype dtype)
{
    static const char fn[] = "loom_rng_rayleigh";
    if (!rng)
        return NULL;
    if (scale < 0)
        return loom__random_bad(fn, "scale < 0");
    return continuous(fn, rng, LOOM_OP_RANDOM_RAYLEIGH, ndim, shape, dtype, scale, 0, 0);
}

loom_array *loom_rng_wald(loom_rng *rng, double mean, double scale, int ndim,
                          const int64_t *shape, loom_dtype dtype)
{
    static const char fn[] = "loom_rng_wald";
    if (!rng)
        return NULL;
    if (mean <= 0)
        return loom__random_bad(fn, "mean <= 0");
    if (scale <= 0)
        return loom__random_bad(fn, "scale <= 0");
    return continuous(fn, rng, LOOM_OP_RANDOM_WALD, ndim, shape, dtype, mean, scale, 0);
}

loom_array *loom_rng_triangular(loom_rng *rng, double left, double mode, double right, int ndim,
                                const int64_t *shape, loom_dtype dtype)
{
    static const char fn[] = "loom_rng_triangular";
    if (!rng)
        return NULL;
    if (left > mode)
        return loom__random_bad(fn, "left > mode");
    if (mode > right)
        return loom__random_bad(fn, "mode > right");
    if (left == right)
        return loom__random_bad(fn, "left == right");
    return continuous(fn, rng, LOOM_OP_RANDOM_TRIANGULAR, ndim, shape, dtype, left,
                      mode, right);
}

/* ---- discrete distributions ---- */

loom_array *loom_rng_poisson(loom_rng *rng, double lam, int ndim, const int64_t *shape,
                             loom_dtype dtype)
{
    static const char fn[] = "loom_rng_poisson";
    if (!rng)
        return NULL;
    if (!(lam >= 0))
        return loom__random_bad(fn, "lam < 0 or lam is NaN");
    if (lam > POISSON_LAM_MAX)
        return loom__random_bad(fn, "lam value too large");
    return loom__random_discrete(fn, rng, LOOM_OP_RANDOM_POISSON, ndim, shape, dtype, lam, 0, 0);
}

static bool probability_ok(double p)
{
    return p > 0 && p <= 1; /* false for NaN */
}

loom_array *loom_rng_geometric(loom_rng *rng, double p, int ndim, const int64_t *shape,
                               loom_dtype dtype)
{
    static const char fn[] = "loom_rng_geometric";
    if (!rng)
        return NULL;
    if (!probability_ok(p))
        return loom__random_bad(fn, "p <= 0, p > 1 or p contains NaNs");
    return loom__random_discrete(fn, rng, LOOM_OP_RANDOM_GEOMETRIC, ndim, shape, dtype, p, 0, 0);
}

loom_array *loom_rng_negative_binomial(loom_rng *rng, double n, double p, int ndim,
                                       const int64_t *shape, loom_dtype dtype)
{
    static const char fn[] = "loom_rng_negative_binomial";
    if (!rng)
        return NULL;
    if (isnan(n))
        return loom__random_bad(fn, "n must not be NaN");
    if (n <= 0)
        return loom__random_bad(fn, "n <= 0");
    if (!probability_ok(p))
        return loom__random_bad(fn, "p <= 0, p > 1 or p contains NaNs");
    /* NumPy's bound on the Poisson means the gamma draws could reach. */
    if ((1 - p) / p * (n + 10 * sqrt(n)) > POISSON_LAM_MAX)
        return loom__random_bad(fn, "n too large or p too small, see Generator.negative_binomial Notes");
    return loom__random_discrete(fn, rng, LOOM_OP_RANDOM_NEGATIVE_BINOMIAL, ndim, shape,
                    dtype, n, p, 0);
}

loom_array *loom_rng_vonmises(loom_rng *rng, double mu, double kappa, int ndim,
                              const int64_t *shape, loom_dtype dtype)
{
    static const char fn[] = "loom_rng_vonmises";
    if (!rng)
        return NULL;
    if (kappa < 0)
        return loom__random_bad(fn, "kappa < 0");
    return continuous(fn, rng, LOOM_OP_RANDOM_VONMISES, ndim, shape, dtype, mu, kappa, 0);
}
