/* NumPy's Generator distributions of counts that need rejection samplers with integer
 * parameters: binomial, hypergeometric, logseries and zipf. Argument checks with NumPy's
 * messages, in NumPy's order; one random node each (graph/random.c), computed by
 * kernels/loom_random.cuh. A NULL rng passes through. */
#include "random.h"

#include <math.h>

/* Parameters reach the kernel as float64: integers above 2^53 would be rounded. */
#define EXACT_INT_MAX 9007199254740992.0

loom_array *loom_rng_binomial(loom_rng *rng, int64_t n, double p, int ndim, const int64_t *shape,
                              loom_dtype dtype)
{
    static const char fn[] = "loom_rng_binomial";
    if (!rng)
        return NULL;
    if (n < 0)
        return loom__random_bad(fn, "n < 0");
    if (!(p >= 0 && p <= 1))
        return loom__random_bad(fn, "p < 0, p > 1 or p is NaN");
    if ((double)n > EXACT_INT_MAX) {
        loom__error(LOOM_ERR_UNSUPPORTED, fn, "n > 2**53 is not supported");
        return NULL;
    }
    return loom__random_discrete(fn, rng, LOOM_OP_RANDOM_BINOMIAL, ndim, shape, dtype, (double)n,
                                 p, 0);
}

loom_array *loom_rng_hypergeometric(loom_rng *rng, int64_t ngood, int64_t nbad, int64_t nsample,
                                    int ndim, const int64_t *shape, loom_dtype dtype)
{
    static const char fn[] = "loom_rng_hypergeometric";
    if (!rng)
        return NULL;
    if (ngood < 0)
        return loom__random_bad(fn, "ngood < 0");
    /* NumPy compares the sum before looking at nbad's sign; the int64 sum cannot overflow
     * once both are below 10^9, so compare in double first. */
    if ((double)ngood + (double)nbad < (double)nsample)
        return loom__random_bad(fn, "ngood + nbad < nsample");
    if (nbad < 0)
        return loom__random_bad(fn, "nbad < 0");
    if (nsample < 0)
        return loom__random_bad(fn, "nsample < 0");
    if (ngood >= 1000000000 || nbad >= 1000000000)
        return loom__random_bad(fn, "both ngood and nbad must be less than 1000000000");
    return loom__random_discrete(fn, rng, LOOM_OP_RANDOM_HYPERGEOMETRIC, ndim, shape, dtype,
                                 (double)ngood, (double)nbad, (double)nsample);
}

loom_array *loom_rng_logseries(loom_rng *rng, double p, int ndim, const int64_t *shape,
                               loom_dtype dtype)
{
    static const char fn[] = "loom_rng_logseries";
    if (!rng)
        return NULL;
    if (!(p >= 0 && p < 1))
        return loom__random_bad(fn, "p < 0, p >= 1 or p is NaN");
    return loom__random_discrete(fn, rng, LOOM_OP_RANDOM_LOGSERIES, ndim, shape, dtype, p, 0, 0);
}

loom_array *loom_rng_zipf(loom_rng *rng, double a, int ndim, const int64_t *shape,
                          loom_dtype dtype)
{
    static const char fn[] = "loom_rng_zipf";
    if (!rng)
        return NULL;
    if (!(a > 1))
        return loom__random_bad(fn, "a <= 1 or a is NaN");
    return loom__random_discrete(fn, rng, LOOM_OP_RANDOM_ZIPF, ndim, shape, dtype, a, 0, 0);
}
