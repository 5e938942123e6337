/* Exact distribution functions for the random-number tests (regularised incomplete gamma and
 * beta, accurate to a few 1e-16 against mpmath down to parameters of 0.02), and the
 * Kolmogorov-Smirnov distance of samples that were rounded to float32 or float64. C and C++. */
#ifndef LOOM_TEST_EXACT_DIST_H
#define LOOM_TEST_EXACT_DIST_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

/* Regularised lower incomplete gamma P(a, x): series below a + 1, Lentz's continued fraction
 * above (Numerical Recipes' gser and gcf). */
static inline double gamma_p(double a, double x)
{
    if (x <= 0)
        return 0;
    const double lg = lgamma(a);
    if (x < a + 1) {
        double ap = a, sum = 1 / a, del = sum;
        for (int n = 0; n < 10000 && fabs(del) > fabs(sum) * 1e-16; n++) {
            ap += 1;
            del *= x / ap;
            sum += del;
        }
        return sum * exp(-x + a * log(x) - lg);
    }
    double b = x + 1 - a, c = 1 / 1e-300, d = 1 / b, h = d;
    for (int i = 1; i < 10000; i++) {
        const double an = -i * (i - a);
        b += 2;
        d = an * d + b;
        d = fabs(d) < 1e-300 ? 1e-300 : d;
        c = b + an / c;
        c = fabs(c) < 1e-300 ? 1e-300 : c;
        d = 1 / d;
        const double del = d * c;
        h *= del;
        if (fabs(del - 1) < 1e-16)
            break;
    }
    return 1 - exp(-x + a * log(x) - lg) * h;
}

/* Regularised incomplete beta I_x(a, b) (Numerical Recipes' betai and betacf). */
static inline double betacf(double a, double b, double x)
{
    double qab = a + b, qap = a + 1, qam = a - 1, c = 1, d = 1 - qab * x / qap;
    d = fabs(d) < 1e-300 ? 1e-300 : d;
    d = 1 / d;
    double h = d;
    for (int m = 1; m < 10000; m++) {
        const int m2 = 2 * m;
        double aa = m * (b - m) * x / ((qam + m2) * (a + m2));
        d = 1 + aa * d;
        d = fabs(d) < 1e-300 ? 1e-300 : d;
        c = 1 + aa / c;
        c = fabs(c) < 1e-300 ? 1e-300 : c;
        d = 1 / d;
        h *= d * c;
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
        d = 1 + aa * d;
        d = fabs(d) < 1e-300 ? 1e-300 : d;
        c = 1 + aa / c;
        c = fabs(c) < 1e-300 ? 1e-300 : c;
        d = 1 / d;
        const double del = d * c;
        h *= del;
        if (fabs(del - 1) < 1e-16)
            break;
    }
    return h;
}

static inline double beta_i(double a, double b, double x)
{
    if (x <= 0)
        return 0;
    if (x >= 1)
        return 1;
    const double bt = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
    return x < (a + 1) / (a + b + 2) ? bt * betacf(a, b, x) / a : 1 - bt * betacf(b, a, 1 - x) / b;
}

/* beta(a, b)'s CDF at the midpoint of adjacent representable values lo < hi. Above 0.5 it is
 * 1 - I_t(b, a) with t = 1 - midpoint exact: a float64 midpoint near 1 is not representable,
 * and with b < 1 the mass between two doubles next to 1 is not negligible. */
static inline double beta_cdf_mid(double a, double b, double lo, double hi)
{
    if (lo >= 0.5)
        return 1 - beta_i(b, a, ((1 - lo) + (1 - hi)) / 2);
    return beta_i(a, b, lo + (hi - lo) / 2);
}

static inline int exact_dist_by_value(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The CDF of a distribution at the midpoint of adjacent representable values lo < hi. */
typedef double (*cdf_mid_fn)(const void *dist, double lo, double hi);

/* The Kolmogorov-Smirnov distance between the n finite values v (sorted here) and the
 * distribution whose reals are rounded to nearest float32 (f32) or float64: a value x stands for
 * the reals between the midpoints to its neighbours, so that distribution's CDF steps at x from
 * cdf_mid(below, x) to cdf_mid(x, above). Heavy mass near 0 or 1 (beta with small parameters)
 * puts many samples on one value (1.0, 0.0): a continuous CDF would count those ties as a
 * distance. Where nothing is heavy this is the usual statistic to within a CDF step. */
static inline double ks_distance_rounded(double *v, int64_t n, bool f32, cdf_mid_fn cdf_mid, const void *dist)
{
    qsort(v, (size_t)n, sizeof *v, exact_dist_by_value);
    double D = 0;
    for (int64_t i = 0, j; i < n; i = j + 1) {
        for (j = i; j + 1 < n && v[j + 1] == v[i]; j++) {
        }
        const double x = v[i];
        const double below = f32 ? (double)nextafterf((float)x, -INFINITY) : nextafter(x, -INFINITY);
        const double above = f32 ? (double)nextafterf((float)x, INFINITY) : nextafter(x, INFINITY);
        const double lo = cdf_mid(dist, below, x), hi = cdf_mid(dist, x, above);
        D = fmax(D, fmax(fabs((double)i / (double)n - lo), fabs((double)(j + 1) / (double)n - hi)));
    }
    return D;
}

#endif
