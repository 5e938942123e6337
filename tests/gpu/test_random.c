/* Random generators on the GPU. Streams: the first values of uniform, integer and normal
 * streams equal the host Philox reference (itself checked against Random123's known answers);
 * the same seed gives the same bits fused and with LOOM_FUSE=0, for any shape of the same
 * size, through views and through other consumers, and when evaluated again; different seeds
 * and successive calls are uncorrelated. Distributions: for each, in float32 and float64 (or
 * int64 and int32), the mean against the exact mean and a Kolmogorov-Smirnov test (continuous)
 * or chi-square test (discrete, integers) against the exact CDF or PMF, at significance 1e-6
 * with 2^22 samples; integers reach both bounds and nothing outside them. On the host device
 * (CI, under AddressSanitizer) the samples are fewer: 2^20 per distribution, and 2^15 where a
 * row reduction makes them (row_draws); every bound is computed from the sample size. Skips
 * (77) without a GPU. */
#define _POSIX_C_SOURCE 200809L
#include "check.h"
#include "gpu_main.h"
#include "exact_dist.h"
#include "internal.h"
#include "philox_ref.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Samples per distribution (main sets it: fewer on the host device). */
static int64_t n_samples;

/* Draws that a row reduction makes (dirichlet's row sums, multivariate_normal's z @ A^T,
 * choice's inverse CDF with p): the host device runs 32 fibers a row, so it draws fewer. */
static int64_t row_draws(int64_t n_gpu)
{
    return gpu_test_scaled(n_gpu, 1 << 15);
}

#define PI 3.14159265358979323846
/* KS critical value at alpha 1e-6: sqrt(-ln(alpha / 2) / 2) / sqrt(n). */
#define KS_COEFF 2.6913
/* The standard normal quantile of 1 - 1e-6, for the chi-square bound. */
#define Z_1E6 4.7534

/* ---- values back on the host ---- */

static double *values(loom_array *a, int64_t n)
{
    double *v = malloc((size_t)(n ? n : 1) * sizeof *v);
    loom_scope_begin(); /* the cast belongs to this scope, whether or not the caller has one */
    int rc = loom_get(loom_astype(a, LOOM_FLOAT64), v, (size_t)n * sizeof *v);
    CHECK_EQ_INT(rc, LOOM_OK);
    if (rc)
        fprintf(stderr, "%s\n", loom_last_error());
    loom_scope_end();
    return v;
}

static bool same_bits(loom_array *a, loom_array *b, size_t bytes)
{
    unsigned char *x = malloc(bytes), *y = malloc(bytes);
    bool ok = loom_get(a, x, bytes) == LOOM_OK && loom_get(b, y, bytes) == LOOM_OK && !memcmp(x, y, bytes);
    free(x);
    free(y);
    return ok;
}

/* ---- exact distributions ---- */

static double norm_cdf(double x) { return 0.5 * erfc(-x / sqrt(2.0)); }

typedef struct dist {
    const char *name;
    double a, b, c;
    double mean, var; /* NAN: not finite, not checked */
} dist;

static double log_choose(double n, double k)
{
    return lgamma(n + 1) - lgamma(k + 1) - lgamma(n - k + 1);
}

/* Riemann's zeta for s > 1: the first 10^5 terms and Euler-Maclaurin's tail. */
static double zeta(double s)
{
    static double last_s = NAN, last;
    if (s == last_s)
        return last;
    const double K = 1e5;
    double sum = 0;
    for (double k = K - 1; k >= 1; k--)
        sum += pow(k, -s);
    last_s = s;
    return last = sum + pow(K, 1 - s) / (s - 1) + 0.5 * pow(K, -s) + s * pow(K, -s - 1) / 12;
}

/* The von Mises CDF on [-pi, pi] by Simpson's rule on a fine grid (the density
 * exp(kappa (cos(x - mu) - 1)), normalised numerically), read by linear interpolation. */
#define VM_GRID 400000
static double vm_mu = NAN, vm_kappa = NAN, *vm_cdf;

static double vonmises_cdf(double mu, double kappa, double x)
{
    if (mu != vm_mu || kappa != vm_kappa) {
        free(vm_cdf);
        vm_cdf = malloc((VM_GRID + 1) * sizeof *vm_cdf);
        const double h = 2 * PI / VM_GRID;
        vm_cdf[0] = 0;
        for (int i = 0; i < VM_GRID; i++) {
            const double x0 = -PI + i * h;
            const double f0 = exp(kappa * (cos(x0 - mu) - 1)), fm = exp(kappa * (cos(x0 + h / 2 - mu) - 1)),
                         f1 = exp(kappa * (cos(x0 + h - mu) - 1));
            vm_cdf[i + 1] = vm_cdf[i] + h / 6 * (f0 + 4 * fm + f1);
        }
        for (int i = 1; i <= VM_GRID; i++)
            vm_cdf[i] /= vm_cdf[VM_GRID];
        vm_mu = mu, vm_kappa = kappa;
    }
    if (x <= -PI)
        return 0;
    if (x >= PI)
        return 1;
    const double t = (x + PI) / (2 * PI) * VM_GRID;
    const int i = (int)t < VM_GRID ? (int)t : VM_GRID - 1;
    return vm_cdf[i] + (t - i) * (vm_cdf[i + 1] - vm_cdf[i]);
}

static double cdf(const dist *d, double x)
{
    const char *n = d->name;
    const double a = d->a, b = d->b, c = d->c;
    if (!strcmp(n, "uniform"))
        return x < a ? 0 : x >= b ? 1 : (x - a) / (b - a);
    if (!strcmp(n, "normal"))
        return norm_cdf((x - a) / b);
    if (!strcmp(n, "exponential"))
        return x <= 0 ? 0 : -expm1(-x / a);
    if (!strcmp(n, "gamma"))
        return gamma_p(a, x / b);
    if (!strcmp(n, "chisquare"))
        return gamma_p(a / 2, x / 2);
    if (!strcmp(n, "beta"))
        return beta_i(a, b, x);
    if (!strcmp(n, "f"))
        return x <= 0 ? 0 : beta_i(a / 2, b / 2, a * x / (a * x + b));
    if (!strcmp(n, "standard_t")) {
        const double tail = 0.5 * beta_i(a / 2, 0.5, a / (a + x * x));
        return x > 0 ? 1 - tail : tail;
    }
    if (!strcmp(n, "standard_cauchy"))
        return 0.5 + atan(x) / PI;
    if (!strcmp(n, "lognormal"))
        return x <= 0 ? 0 : norm_cdf((log(x) - a) / b);
    if (!strcmp(n, "laplace"))
        return x < a ? 0.5 * exp((x - a) / b) : 1 - 0.5 * exp(-(x - a) / b);
    if (!strcmp(n, "logistic"))
        return 1 / (1 + exp(-(x - a) / b));
    if (!strcmp(n, "gumbel"))
        return exp(-exp(-(x - a) / b));
    if (!strcmp(n, "weibull"))
        return x <= 0 ? 0 : -expm1(-pow(x, a));
    if (!strcmp(n, "pareto"))
        return x <= 0 ? 0 : 1 - pow(1 + x, -a);
    if (!strcmp(n, "power"))
        return x <= 0 ? 0 : x >= 1 ? 1 : pow(x, a);
    if (!strcmp(n, "rayleigh"))
        return x <= 0 ? 0 : -expm1(-x * x / (2 * a * a));
    if (!strcmp(n, "wald")) {
        if (x <= 0)
            return 0;
        const double r = sqrt(b / x);
        return norm_cdf(r * (x / a - 1)) + exp(2 * b / a) * norm_cdf(-r * (x / a + 1));
    }
    if (!strcmp(n, "vonmises"))
        return vonmises_cdf(a, b, x);
    if (!strcmp(n, "beta_marginal")) /* a dirichlet column: beta(a, b) */
        return beta_i(a, b, x);
    if (!strcmp(n, "triangular")) {
        if (x <= a)
            return 0;
        if (x >= c)
            return 1;
        return x <= b ? (x - a) * (x - a) / ((c - a) * (b - a)) : 1 - (c - x) * (c - x) / ((c - a) * (c - b));
    }
    return NAN;
}

static double pmf(const dist *d, int64_t k)
{
    const char *n = d->name;
    const double a = d->a, b = d->b;
    if (k < 0)
        return 0;
    if (!strcmp(n, "poisson"))
        return a == 0 ? k == 0 : exp(-a + k * log(a) - lgamma(k + 1.0));
    if (!strcmp(n, "geometric"))
        return k < 1 ? 0 : exp((k - 1) * log1p(-a)) * a;
    if (!strcmp(n, "negative_binomial"))
        return exp(lgamma(k + a) - lgamma(k + 1.0) - lgamma(a) + a * log(b) + k * log1p(-b));
    if (!strcmp(n, "binomial")) {
        if (k > a)
            return 0;
        if (b == 0 || b == 1)
            return k == (b == 0 ? 0 : a);
        return exp(log_choose(a, k) + k * log(b) + (a - k) * log1p(-b));
    }
    if (!strcmp(n, "hypergeometric")) /* a good, b bad, c drawn */
        return k > a || k > d->c || d->c - k > b ? 0
               : exp(log_choose(a, k) + log_choose(b, d->c - k) - log_choose(a + b, d->c));
    if (!strcmp(n, "logseries"))
        return k < 1 ? 0 : -exp(k * log(a)) / (k * log1p(-a));
    if (!strcmp(n, "zipf"))
        return k < 1 ? 0 : exp(-a * log((double)k)) / zeta(a);
    return NAN;
}

/* ---- drawing ---- */

static loom_array *draw(loom_rng *g, const dist *d, int64_t n, loom_dtype dt)
{
    const char *s = d->name;
    const double a = d->a, b = d->b, c = d->c;
    const int64_t *sh = &n;
    if (!strcmp(s, "uniform")) return loom_rng_uniform(g, a, b, 1, sh, dt);
    if (!strcmp(s, "normal")) return loom_rng_normal(g, a, b, 1, sh, dt);
    if (!strcmp(s, "exponential")) return loom_rng_exponential(g, a, 1, sh, dt);
    if (!strcmp(s, "gamma")) return loom_rng_gamma(g, a, b, 1, sh, dt);
    if (!strcmp(s, "chisquare")) return loom_rng_chisquare(g, a, 1, sh, dt);
    if (!strcmp(s, "beta")) return loom_rng_beta(g, a, b, 1, sh, dt);
    if (!strcmp(s, "f")) return loom_rng_f(g, a, b, 1, sh, dt);
    if (!strcmp(s, "standard_t")) return loom_rng_standard_t(g, a, 1, sh, dt);
    if (!strcmp(s, "standard_cauchy")) return loom_rng_standard_cauchy(g, 1, sh, dt);
    if (!strcmp(s, "lognormal")) return loom_rng_lognormal(g, a, b, 1, sh, dt);
    if (!strcmp(s, "laplace")) return loom_rng_laplace(g, a, b, 1, sh, dt);
    if (!strcmp(s, "logistic")) return loom_rng_logistic(g, a, b, 1, sh, dt);
    if (!strcmp(s, "gumbel")) return loom_rng_gumbel(g, a, b, 1, sh, dt);
    if (!strcmp(s, "weibull")) return loom_rng_weibull(g, a, 1, sh, dt);
    if (!strcmp(s, "pareto")) return loom_rng_pareto(g, a, 1, sh, dt);
    if (!strcmp(s, "power")) return loom_rng_power(g, a, 1, sh, dt);
    if (!strcmp(s, "rayleigh")) return loom_rng_rayleigh(g, a, 1, sh, dt);
    if (!strcmp(s, "wald")) return loom_rng_wald(g, a, b, 1, sh, dt);
    if (!strcmp(s, "triangular")) return loom_rng_triangular(g, a, b, c, 1, sh, dt);
    if (!strcmp(s, "poisson")) return loom_rng_poisson(g, a, 1, sh, dt);
    if (!strcmp(s, "geometric")) return loom_rng_geometric(g, a, 1, sh, dt);
    if (!strcmp(s, "negative_binomial")) return loom_rng_negative_binomial(g, a, b, 1, sh, dt);
    if (!strcmp(s, "binomial")) return loom_rng_binomial(g, (int64_t)a, b, 1, sh, dt);
    if (!strcmp(s, "hypergeometric")) return loom_rng_hypergeometric(g, (int64_t)a, (int64_t)b, (int64_t)c, 1, sh, dt);
    if (!strcmp(s, "logseries")) return loom_rng_logseries(g, a, 1, sh, dt);
    if (!strcmp(s, "zipf")) return loom_rng_zipf(g, a, 1, sh, dt);
    if (!strcmp(s, "vonmises")) return loom_rng_vonmises(g, a, b, 1, sh, dt);
    return NULL;
}

static void check_mean(const dist *d, const double *v, int64_t n, const char *label)
{
    if (isnan(d->var))
        return;
    double sum = 0;
    for (int64_t i = 0; i < n; i++)
        sum += v[i];
    const double mean = sum / (double)n, se = sqrt(d->var / (double)n);
    const bool ok = fabs(mean - d->mean) <= 6 * se + 1e-12 * fabs(d->mean);
    CHECK(ok);
    if (!ok)
        fprintf(stderr, "%s: mean %.8g, expected %.8g (standard error %.3g)\n", label, mean, d->mean, se);
}

/* d's CDF at the midpoint of adjacent representable values lo < hi (beta's through its upper
 * tail above 0.5, exact where float64 values crowd against 1). */
static double cdf_mid(const void *dist_, double lo, double hi)
{
    const dist *d = dist_;
    if (!strcmp(d->name, "beta") || !strcmp(d->name, "beta_marginal"))
        return beta_cdf_mid(d->a, d->b, lo, hi);
    return cdf(d, lo + (hi - lo) / 2);
}

/* Kolmogorov-Smirnov of the n values v (sorted here) against d rounded to dt (values that
 * round to one float32 or float64 are one value: a dirichlet column with alpha 0.02 is 0 in
 * float32 11% of the time, and with beta's b = 0.1 1.0 in float64 0.8% of the time), at
 * significance 1e-6. */
static void check_ks(const dist *d, double *v, int64_t n, loom_dtype dt, const char *label)
{
    const double D = ks_distance_rounded(v, n, dt == LOOM_FLOAT32, cdf_mid, d);
    const double crit = KS_COEFF / sqrt((double)n);
    CHECK(D <= crit);
    if (D > crit)
        fprintf(stderr, "%s: Kolmogorov-Smirnov D = %.6f > %.6f\n", label, D, crit);
}

static void check_continuous(loom_rng *g, const dist *d, loom_dtype dt)
{
    char label[128];
    snprintf(label, sizeof label, "%s(%g, %g, %g) %s", d->name, d->a, d->b, d->c, loom_dtype_name(dt));
    loom_array *a = draw(g, d, n_samples, dt);
    CHECK(a != NULL);
    if (!a)
        return;
    double *v = values(a, n_samples); /* a belongs to the caller's scope */
    int bad = 0;
    for (int64_t i = 0; i < n_samples; i++)
        bad += !isfinite(v[i]);
    CHECK_EQ_INT(bad, 0);
    check_mean(d, v, n_samples, label);
    check_ks(d, v, n_samples, dt, label);
    free(v);
}

/* Chi-square bound at alpha 1e-6 (Wilson-Hilferty). */
static double chi2_crit(int df)
{
    const double k = df, t = 2 / (9 * k);
    return k * pow(1 - t + Z_1E6 * sqrt(t), 3);
}

/* Chi-square of counts against probabilities over nb bins, merging neighbours until each
 * expects at least 20 (a short last group joins the one before). */
static void chi_square(const double *count, const double *p, int nb, double n, const char *label)
{
    double *oc = calloc((size_t)nb, sizeof *oc), *ep = calloc((size_t)nb, sizeof *ep);
    int groups = 0;
    double o = 0, e = 0;
    for (int b = 0; b < nb; b++) {
        o += count[b];
        e += p[b];
        if (e * n >= 20) {
            oc[groups] = o;
            ep[groups++] = e;
            o = e = 0;
        }
    }
    if (groups == 0)
        groups = 1;
    oc[groups - 1] += o;
    ep[groups - 1] += e;
    double stat = 0;
    for (int g = 0; g < groups; g++)
        stat += (oc[g] - ep[g] * n) * (oc[g] - ep[g] * n) / (ep[g] * n);
    const double crit = groups > 1 ? chi2_crit(groups - 1) : 0;
    const bool ok = groups > 1 ? stat <= crit : oc[0] == n; /* one group: everything in it */
    CHECK(ok);
    if (!ok)
        fprintf(stderr, "%s: chi-square %.2f > %.2f (%d groups)\n", label, stat, crit, groups);
    free(oc);
    free(ep);
}

static void check_discrete(loom_rng *g, const dist *d, loom_dtype dt)
{
    char label[128];
    snprintf(label, sizeof label, "%s(%g, %g) %s", d->name, d->a, d->b, loom_dtype_name(dt));
    loom_array *a = draw(g, d, n_samples, dt);
    CHECK(a != NULL);
    if (!a)
        return;
    double *v = values(a, n_samples); /* a belongs to the caller's scope */
    check_mean(d, v, n_samples, label);
    enum { KMAX = 4096 };
    double *count = calloc(KMAX + 1, sizeof *count), *p = calloc(KMAX + 1, sizeof *p);
    int outside = 0;
    for (int64_t i = 0; i < n_samples; i++) {
        if (v[i] < 0 || v[i] != floor(v[i]) || pmf(d, (int64_t)v[i]) == 0)
            outside++;
        else
            count[v[i] > KMAX ? KMAX : (int)v[i]]++;
    }
    CHECK_EQ_INT(outside, 0);
    double rest = 1;
    for (int k = 0; k < KMAX; k++)
        rest -= (p[k] = pmf(d, k));
    p[KMAX] = rest > 0 ? rest : 0;
    chi_square(count, p, KMAX + 1, (double)n_samples, label);
    free(count);
    free(p);
    free(v);
}

static void check_distributions(void)
{
    const dist continuous[] = {
        {"uniform", 0, 1, 0, 0.5, 1.0 / 12},
        {"uniform", -3, 5, 0, 1, 64.0 / 12},
        {"normal", 0, 1, 0, 0, 1},
        {"normal", 2, 3, 0, 2, 9},
        {"exponential", 1, 0, 0, 1, 1},
        {"exponential", 2.5, 0, 0, 2.5, 6.25},
        {"gamma", 0.3, 1, 0, 0.3, 0.3},
        {"gamma", 1, 2, 0, 2, 4},
        {"gamma", 4.5, 0.5, 0, 2.25, 1.125},
        {"gamma", 200, 1, 0, 200, 200},
        {"chisquare", 3, 0, 0, 3, 6},
        {"beta", 0.5, 0.5, 0, 0.5, 0.125},
        {"beta", 2, 5, 0, 2.0 / 7, 10.0 / (49 * 8)},
        {"beta", 0.3, 3, 0, 0.3 / 3.3, 0.9 / (3.3 * 3.3 * 4.3)},
        {"f", 5, 10, 0, 10.0 / 8, 2 * 100.0 * 13 / (5 * 64 * 6)},
        {"standard_t", 5, 0, 0, 0, 5.0 / 3},
        {"standard_t", 1.5, 0, 0, NAN, NAN},
        {"standard_cauchy", 0, 0, 0, NAN, NAN},
        {"lognormal", 0.5, 0.75, 0, NAN, NAN},
        {"laplace", 1, 2, 0, 1, 8},
        {"logistic", -1, 0.5, 0, -1, PI * PI * 0.25 / 3},
        {"gumbel", 1, 2, 0, 1 + 2 * 0.5772156649015329, PI * PI * 4 / 6},
        {"weibull", 1.5, 0, 0, NAN, NAN},
        {"pareto", 3, 0, 0, 0.5, 0.75},
        {"power", 2.5, 0, 0, 2.5 / 3.5, 2.5 / (3.5 * 3.5 * 4.5)},
        {"rayleigh", 2, 0, 0, 2 * sqrt(PI / 2), (4 - PI) / 2 * 4},
        {"wald", 1, 2, 0, 1, 0.5},
        {"triangular", -1, 0.5, 2, 0.5, 6.75 / 18},
        /* von Mises: symmetric about mu = 0 (mean 0; the variance below bounds it: that of
         * the uniform on [-pi, pi]); wrapped around pi; the uniform branch */
        {"vonmises", 0, 2, 0, 0, PI * PI / 3},
        {"vonmises", 3, 50, 0, NAN, NAN},
        {"vonmises", -1, 1e-9, 0, 0, PI * PI / 3},
    };
    const dist discrete[] = {
        {"poisson", 0, 0, 0, 0, 0},
        {"poisson", 3, 0, 0, 3, 3},
        {"poisson", 9.99, 0, 0, 9.99, 9.99},
        {"poisson", 10, 0, 0, 10, 10},
        {"poisson", 250.5, 0, 0, 250.5, 250.5},
        {"geometric", 0.3, 0, 0, 1 / 0.3, 0.7 / 0.09},
        {"geometric", 1, 0, 0, 1, 0},
        {"negative_binomial", 2.5, 0.4, 0, 2.5 * 0.6 / 0.4, 2.5 * 0.6 / 0.16},
        /* binomial: inversion, BTPE, and both of them for p > 1/2; p = 0 and 1 */
        {"binomial", 10, 0.3, 0, 3, 2.1},
        {"binomial", 2000, 0.3, 0, 600, 420},
        {"binomial", 150, 0.85, 0, 127.5, 19.125},
        {"binomial", 20, 0.95, 0, 19, 0.95},
        {"binomial", 7, 0, 0, 0, 0},
        {"binomial", 7, 1, 0, 7, 0},
        /* hypergeometric: drawing one by one (nsample < 10, nsample > total - 10), HRUA */
        {"hypergeometric", 5, 7, 4, 4 * 5 / 12.0, 4 * 5 * 7 * 8 / (144.0 * 11)},
        {"hypergeometric", 700, 300, 995, 995 * 0.7, 995 * 0.7 * 0.3 * 5 / 999.0},
        {"hypergeometric", 30, 70, 40, 12, 40 * 0.3 * 0.7 * 60 / 99.0},
        {"hypergeometric", 1000, 2000, 500, 500 / 3.0, 500 * (2 / 9.0) * 2500 / 2999.0},
        {"hypergeometric", 100, 100, 150, 75, 150 * 0.25 * 50 / 199.0},
        /* logseries: mean -p / ((1 - p) log(1 - p)) */
        {"logseries", 0.3, 0, 0, -0.3 / (0.7 * log(0.7)), -0.3 * (0.3 + log(0.7)) / (0.49 * log(0.7) * log(0.7))},
        {"logseries", 0.95, 0, 0, -0.95 / (0.05 * log(0.05)), -0.95 * (0.95 + log(0.05)) / (0.0025 * log(0.05) * log(0.05))},
        /* zipf: a = 2 has no mean; a = 4.5 has mean zeta(3.5) / zeta(4.5) */
        {"zipf", 2, 0, 0, NAN, NAN},
        {"zipf", 4.5, 0, 0, NAN, NAN},
    };
    loom_rng *g = loom_random_default_rng(20261124);
    for (size_t i = 0; i < sizeof continuous / sizeof *continuous; i++) {
        loom_scope_begin();
        check_continuous(g, &continuous[i], LOOM_FLOAT64);
        check_continuous(g, &continuous[i], LOOM_FLOAT32);
        loom_scope_end();
    }
    for (size_t i = 0; i < sizeof discrete / sizeof *discrete; i++) {
        loom_scope_begin();
        check_discrete(g, &discrete[i], LOOM_INT64);
        check_discrete(g, &discrete[i], LOOM_INT32);
        loom_scope_end();
    }
    loom_rng_destroy(g);
    free(vm_cdf);
    vm_cdf = NULL;
}

/* ---- dirichlet and multivariate_normal ---- */

/* Rows of dirichlet(alpha) sum to 1 and column j is beta(alpha_j, sum - alpha_j): its mean and
 * a Kolmogorov-Smirnov test, for the gamma path and NumPy's stick-breaking (all alpha < 0.1). */
static void check_dirichlet_case(loom_rng *g, const double *alpha, loom_dtype dt)
{
    enum { K = 3 };
    const int64_t rows = row_draws(n_samples / 4);
    loom_scope_begin();
    double *v = values(loom_rng_dirichlet(g, K, alpha, 1, &rows, dt), rows * K);
    const double tol = dt == LOOM_FLOAT32 ? 1e-5 : 1e-12, total = alpha[0] + alpha[1] + alpha[2];
    int bad = 0;
    for (int64_t i = 0; i < rows; i++) {
        const double *r = v + i * K;
        bad += !(fabs(r[0] + r[1] + r[2] - 1) <= tol) || r[0] < 0 || r[1] < 0 || r[2] < 0;
    }
    CHECK_EQ_INT(bad, 0);
    double *col = malloc((size_t)rows * sizeof *col);
    for (int j = 0; j < K; j++) {
        for (int64_t i = 0; i < rows; i++)
            col[i] = v[i * K + j];
        const double a = alpha[j], b = total - alpha[j];
        const dist d = {"beta_marginal", a, b, 0, a / total, a * b / (total * total * (total + 1))};
        char label[96];
        snprintf(label, sizeof label, "dirichlet(%g, %g, %g)[%d] %s", alpha[0], alpha[1], alpha[2],
                 j, loom_dtype_name(dt));
        check_mean(&d, col, rows, label);
        check_ks(&d, col, rows, dt, label);
    }
    free(col);
    free(v);
    loom_scope_end();
}

static void check_dirichlet(void)
{
    loom_rng *g = loom_random_default_rng(31);
    const double common[3] = {0.5, 2, 3.5}, small[3] = {0.05, 0.02, 0.08};
    for (int k = 0; k < 2; k++) {
        const loom_dtype dt = k ? LOOM_FLOAT32 : LOOM_FLOAT64;
        check_dirichlet_case(g, common, dt);
        check_dirichlet_case(g, small, dt);
    }
    /* NumPy: a zero alpha gives a zero column; all zero gives zeros. */
    loom_scope_begin();
    double *v = values(loom_rng_dirichlet(g, 2, (const double[]){1, 0}, 1, (int64_t[]){100}, LOOM_FLOAT64), 200);
    double *z = values(loom_rng_dirichlet(g, 2, (const double[]){0, 0}, 1, (int64_t[]){100}, LOOM_FLOAT64), 200);
    int bad = 0;
    for (int i = 0; i < 100; i++)
        bad += v[2 * i] != 1 || v[2 * i + 1] != 0 || z[2 * i] != 0 || z[2 * i + 1] != 0;
    CHECK_EQ_INT(bad, 0);
    free(v);
    free(z);
    /* The same on the stick-breaking path (every alpha below 0.1): a zero alpha in the middle
     * (V = 0, the stick goes on whole) and at the end (the remainder before it is exactly 0,
     * summed from the right as NumPy sums it, so V = 1; 0.01 + 0.02 + 0.04 minus the first
     * two leaves 7e-18). */
    enum { R = 1000 };
    double *m = values(loom_rng_dirichlet(g, 3, (const double[]){0.05, 0, 0.08}, 1, (int64_t[]){R}, LOOM_FLOAT64), 3 * R);
    double *e = values(loom_rng_dirichlet(g, 4, (const double[]){0.01, 0.02, 0.04, 0}, 1, (int64_t[]){R}, LOOM_FLOAT64), 4 * R);
    bad = 0;
    for (int i = 0; i < R; i++)
        bad += m[3 * i + 1] != 0 || !(fabs(m[3 * i] + m[3 * i + 2] - 1) <= 1e-15) || e[4 * i + 3] != 0 ||
               !(fabs(e[4 * i] + e[4 * i + 1] + e[4 * i + 2] - 1) <= 1e-15);
    CHECK_EQ_INT(bad, 0);
    free(m);
    free(e);
    loom_scope_end();
    loom_rng_destroy(g);
}

/* mean + z @ A^T has the mean and covariance asked for (each entry within 6 standard errors)
 * and a projection w.x is normal with mean w.mean and variance w^T cov w (Kolmogorov-Smirnov),
 * for every method and dtype; a singular covariance works with eigh; check_valid "raise". */
static void check_mvn_case(loom_rng *g, const double *cov, const char *method, loom_dtype dt)
{
    enum { N = 3 };
    const int64_t rows = row_draws(1 << 20);
    const double mean[N] = {1, -2, 0.5}, w[N] = {0.3, -1, 2};
    char label[96];
    snprintf(label, sizeof label, "multivariate_normal %s %s", method ? method : "(svd)", loom_dtype_name(dt));
    loom_scope_begin();
    loom_array *m = loom_asarray(mean, LOOM_FLOAT64, 1, (int64_t[]){N});
    loom_array *c = loom_asarray(cov, LOOM_FLOAT64, 2, (int64_t[]){N, N});
    loom_array *x = loom_rng_multivariate_normal(g, m, c, 1, &rows, "ignore", 1e-8, method, dt);
    CHECK(x != NULL);
    double *v = x ? values(x, rows * N) : NULL;
    if (!v) {
        loom_scope_end();
        return;
    }
    double s[N] = {0}, ss[N][N] = {{0}};
    for (int64_t r = 0; r < rows; r++)
        for (int i = 0; i < N; i++) {
            s[i] += v[r * N + i];
            for (int j = 0; j < N; j++)
                ss[i][j] += (v[r * N + i] - mean[i]) * (v[r * N + j] - mean[j]);
        }
    int bad = 0;
    for (int i = 0; i < N; i++) {
        bad += fabs(s[i] / rows - mean[i]) > 6 * sqrt(cov[i * N + i] / rows) + 1e-12;
        for (int j = 0; j < N; j++) {
            const double se = sqrt((cov[i * N + i] * cov[j * N + j] + cov[i * N + j] * cov[i * N + j]) / rows);
            bad += fabs(ss[i][j] / rows - cov[i * N + j]) > 6 * se + 1e-6;
        }
    }
    CHECK_EQ_INT(bad, 0);
    if (bad)
        fprintf(stderr, "%s: %d moments off\n", label, bad);
    double pm = 0, pv = 0;
    for (int i = 0; i < N; i++) {
        pm += w[i] * mean[i];
        for (int j = 0; j < N; j++)
            pv += w[i] * cov[i * N + j] * w[j];
    }
    double *proj = malloc((size_t)rows * sizeof *proj);
    for (int64_t r = 0; r < rows; r++)
        proj[r] = w[0] * v[r * N] + w[1] * v[r * N + 1] + w[2] * v[r * N + 2];
    const dist d = {"normal", pm, sqrt(pv), 0, pm, pv};
    check_ks(&d, proj, rows, LOOM_FLOAT64, label); /* sums of products: not float32 values */
    free(proj);
    free(v);
    loom_scope_end();
}

static void check_multivariate_normal(void)
{
    loom_rng *g = loom_random_default_rng(41);
    /* A A^T for A = [[1, 0, 0], [0.5, 1.5, 0], [-0.3, 0.2, 0.8]] */
    const double cov[9] = {1, 0.5, -0.3, 0.5, 2.5, 0.15, -0.3, 0.15, 0.77};
    /* rank 2: the third coordinate is the sum of the first two */
    const double singular[9] = {1, 0.5, 1.5, 0.5, 2, 2.5, 1.5, 2.5, 4};
    const char *methods[3] = {NULL, "eigh", "cholesky"};
    for (int k = 0; k < 2; k++)
        for (int m = 0; m < 3; m++)
            check_mvn_case(g, cov, methods[m], k ? LOOM_FLOAT32 : LOOM_FLOAT64);
    check_mvn_case(g, singular, "eigh", LOOM_FLOAT64);

    loom_scope_begin();
    loom_array *m = loom_zeros(1, (int64_t[]){2}, LOOM_FLOAT64);
    loom_array *indefinite = loom_asarray((const double[]){1, 0, 0, -1}, LOOM_FLOAT64, 2, (int64_t[]){2, 2});
    CHECK_FAILS(loom_rng_multivariate_normal(g, m, indefinite, 1, (int64_t[]){4}, "raise", 1e-8, "eigh", LOOM_FLOAT64),
                "loom_rng_multivariate_normal", "covariance is not symmetric positive-semidefinite.");
    loom_array *ok = loom_rng_multivariate_normal(g, m, loom_eye(2, 2, 0, LOOM_FLOAT64), 1, (int64_t[]){4},
                                                  "raise", 1e-8, NULL, LOOM_FLOAT64);
    CHECK(ok && loom_eval(ok) == LOOM_OK);
    /* cholesky of an indefinite matrix: NumPy's LinAlgError, reported when the result is read */
    loom_array *bad = loom_rng_multivariate_normal(g, m, indefinite, 1, (int64_t[]){4}, "raise", 1e-8, "cholesky", LOOM_FLOAT64);
    double out[8];
    CHECK(bad && loom_get(bad, out, sizeof out) == LOOM_ERR_LINALG);
    loom_scope_end();
    loom_rng_destroy(g);
}

/* ---- permutation and choice ---- */

static bool is_permutation(const double *v, int64_t n)
{
    char *seen = calloc((size_t)n + 1, 1);
    bool ok = true;
    for (int64_t i = 0; i < n && ok; i++) {
        ok = v[i] >= 0 && v[i] < (double)n && v[i] == floor(v[i]) && !seen[(int64_t)v[i]];
        if (ok)
            seen[(int64_t)v[i]] = 1;
    }
    free(seen);
    return ok;
}

/* permutation(n) holds each of 0..n-1 once; for a large n, where each position's value falls
 * (16 x 16 cells of positions and values) is uniform by chi-square. */
static void check_permutation(void)
{
    loom_rng *g = loom_random_default_rng(51);
    const int64_t sizes[5] = {1, 2, 5, 1000, (1 << 20) + 3};
    for (int k = 0; k < 5; k++) {
        const int64_t n = sizes[k];
        loom_scope_begin();
        double *v = values(loom_rng_permutation(g, n), n);
        CHECK(is_permutation(v, n));
        if (n > 1000) {
            enum { B = 16 };
            double count[B * B] = {0}, p[B * B];
            for (int64_t i = 0; i < n; i++)
                count[(i * B / n) * B + (int64_t)v[i] * B / n] += 1;
            for (int c = 0; c < B * B; c++)
                p[c] = 1.0 / (B * B);
            chi_square(count, p, B * B, (double)n, "permutation(2^20 + 3) positions x values");
        }
        free(v);
        loom_scope_end();
    }
    loom_rng_destroy(g);
}

/* choice with replacement: uniform, and p (a zero probability never drawn), by chi-square over
 * 2^22 draws (on the host device 2^20, and 2^15 with p: each value still expects over 3200);
 * without replacement: distinct values in range, uniform over 64 bins (p NULL), and
 * with p the ordered pairs of 20000 draws of 2 from 4 against NumPy's sequential probabilities
 * p_i p_j / (1 - p_i); a sample of every nonzero entry is exactly those entries. */
static void check_choice(void)
{
    loom_rng *g = loom_random_default_rng(61);
    const double p[5] = {0.1, 0.2, 0, 0.3, 0.4};
    for (int withp = 0; withp < 2; withp++) {
        loom_scope_begin();
        const int64_t a = withp ? 5 : 7, draws = withp ? row_draws(n_samples) : n_samples;
        double *v = values(loom_rng_choice(g, a, 1, &draws, true, withp ? p : NULL), draws);
        double count[7] = {0}, q[7];
        int outside = 0;
        for (int64_t i = 0; i < draws; i++) {
            outside += !(v[i] >= 0 && v[i] < a);
            if (v[i] >= 0 && v[i] < a)
                count[(int64_t)v[i]] += 1;
        }
        for (int i = 0; i < a; i++)
            q[i] = withp ? p[i] : 1.0 / a;
        CHECK_EQ_INT(outside, 0);
        if (withp)
            CHECK(count[2] == 0);
        chi_square(count, q, (int)a, (double)draws, withp ? "choice(5, p) with replacement" : "choice(7) with replacement");
        free(v);
        loom_scope_end();
    }

    loom_scope_begin();
    const int64_t a = 1 << 20, size = 1 << 19;
    double *v = values(loom_rng_choice(g, a, 1, &size, false, NULL), size);
    char *seen = calloc((size_t)a, 1);
    int bad = 0;
    double count[64] = {0}, q[64];
    for (int64_t i = 0; i < size; i++) {
        const bool in = v[i] >= 0 && v[i] < a && !seen[(int64_t)v[i]];
        bad += !in;
        if (in) {
            seen[(int64_t)v[i]] = 1;
            count[(int64_t)v[i] * 64 / a] += 1;
        }
    }
    for (int b = 0; b < 64; b++)
        q[b] = 1.0 / 64;
    CHECK_EQ_INT(bad, 0);
    chi_square(count, q, 64, (double)size, "choice(2^20, 2^19) without replacement");
    free(seen);
    free(v);
    loom_scope_end();

    const double w[4] = {0.1, 0.2, 0.3, 0.4};
    enum { DRAWS = 20000 };
    double pairs[16] = {0}, pp[16];
    int bad_pairs = 0;
    for (int d = 0; d < DRAWS; d++) {
        loom_scope_begin();
        int64_t x[2] = {-1, -1};
        loom_array *c = loom_rng_choice(g, 4, 1, (int64_t[]){2}, false, w);
        const int rc = loom_get(c, x, sizeof x);
        const bool ok = rc == LOOM_OK && x[0] >= 0 && x[0] < 4 && x[1] >= 0 && x[1] < 4 && x[0] != x[1];
        bad_pairs += !ok;
        if (ok)
            pairs[x[0] * 4 + x[1]] += 1;
        loom_scope_end();
    }
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            pp[i * 4 + j] = i == j ? 0 : w[i] * w[j] / (1 - w[i]);
    CHECK_EQ_INT(bad_pairs, 0);
    chi_square(pairs, pp, 16, DRAWS, "choice(4, 2, replace=False, p) ordered pairs");

    loom_scope_begin();
    double *all = values(loom_rng_choice(g, 5, 1, (int64_t[]){4}, false, p), 4);
    double sorted[4];
    memcpy(sorted, all, sizeof sorted);
    qsort(sorted, 4, sizeof *sorted, exact_dist_by_value);
    CHECK(sorted[0] == 0 && sorted[1] == 1 && sorted[2] == 3 && sorted[3] == 4);
    free(all);
    loom_scope_end();
    loom_rng_destroy(g);
}

/* ---- integers ---- */

/* Values low + [0, range) of dtype dt in nb bins of equal integer counts (floor(k nb / range)):
 * chi-square, both bounds reached, nothing outside. */
static void check_integers_case(loom_rng *g, int64_t low, int64_t high, bool endpoint, loom_dtype dt)
{
    char label[128];
    snprintf(label, sizeof label, "integers(%lld, %lld, endpoint %d) %s", (long long)low,
             (long long)high, endpoint, loom_dtype_name(dt));
    loom_scope_begin();
    loom_array *a = loom_astype(loom_rng_integers(g, low, high, endpoint, 1, (int64_t[]){n_samples}, dt), LOOM_INT64);
    int64_t *v = malloc((size_t)n_samples * sizeof *v);
    CHECK_EQ_INT(loom_get(a, v, (size_t)n_samples * sizeof *v), LOOM_OK);
    const unsigned __int128 range = (unsigned __int128)((uint64_t)high - (uint64_t)low) + endpoint;
    const int nb = range < 256 ? (int)range : 256;
    double count[256] = {0}, p[256];
    int outside = 0;
    bool lowest = false, highest = false;
    for (int64_t i = 0; i < n_samples; i++) {
        const uint64_t k = (uint64_t)v[i] - (uint64_t)low;
        if ((dt != LOOM_UINT64 && v[i] < low) || (unsigned __int128)k >= range) {
            outside++;
            continue;
        }
        lowest |= k == 0;
        highest |= (unsigned __int128)k + 1 == range;
        count[(int)((unsigned __int128)k * nb / range)]++;
    }
    for (int b = 0; b < nb; b++) {
        const unsigned __int128 first = ((unsigned __int128)b * range + nb - 1) / nb,
                                next = ((unsigned __int128)(b + 1) * range + nb - 1) / nb;
        p[b] = (double)(next - first) / (double)range;
    }
    CHECK_EQ_INT(outside, 0);
    if (range <= 1024)
        CHECK(lowest && highest);
    chi_square(count, p, nb, (double)n_samples, label);
    free(v);
    loom_scope_end();
}

static void check_integers(void)
{
    loom_rng *g = loom_random_default_rng(77);
    check_integers_case(g, -3, 4, true, LOOM_INT8);
    check_integers_case(g, 0, 256, false, LOOM_UINT8);
    check_integers_case(g, -128, 127, true, LOOM_INT8);
    check_integers_case(g, 0, 2, false, LOOM_BOOL);
    check_integers_case(g, 5, 12, false, LOOM_INT64);
    check_integers_case(g, 10, 1000, false, LOOM_UINT16);
    check_integers_case(g, 0, 0xffffffffLL, true, LOOM_UINT32);         /* the raw 32-bit word */
    check_integers_case(g, -(1LL << 30), (1LL << 30) + 1, false, LOOM_INT32); /* most rejection */
    check_integers_case(g, INT64_MIN, INT64_MAX, true, LOOM_INT64);     /* the raw 64-bit word */
    check_integers_case(g, -7, (1LL << 62) + 12345, false, LOOM_INT64); /* 64-bit rejection */
    check_integers_case(g, 3, INT64_MAX, true, LOOM_UINT64);
    loom_rng_destroy(g);
}

/* ---- streams ---- */

/* The first values equal the host reference: uniform float32/float64, the raw 32- and 64-bit
 * integer words, and Box-Muller normals (within a few ulps of the host's libm). */
static void check_reference_stream(void)
{
    const uint64_t seed = 0x0123456789abcdefull;
    const int64_t n = 1027; /* a tail after the vector steps */
    loom_scope_begin();
    loom_rng *g = loom_random_default_rng(seed);
    loom_array *skip = loom_rng_random(g, 1, (int64_t[]){5}, LOOM_FLOAT32); /* offset 5 */
    (void)skip;
    float f32[1027];
    double f64[1027], z64[1027];
    uint32_t u32[1027];
    int64_t i64[1027];
    CHECK_EQ_INT(loom_get(loom_rng_random(g, 1, &n, LOOM_FLOAT32), f32, sizeof f32), LOOM_OK);
    CHECK_EQ_INT(loom_get(loom_rng_random(g, 1, &n, LOOM_FLOAT64), f64, sizeof f64), LOOM_OK);
    CHECK_EQ_INT(loom_get(loom_rng_integers(g, 0, 0xffffffffLL, true, 1, &n, LOOM_UINT32), u32, sizeof u32), LOOM_OK);
    CHECK_EQ_INT(loom_get(loom_rng_integers(g, INT64_MIN, INT64_MAX, true, 1, &n, LOOM_INT64), i64, sizeof i64), LOOM_OK);
    CHECK_EQ_INT(loom_get(loom_rng_standard_normal(g, 1, &n, LOOM_FLOAT64), z64, sizeof z64), LOOM_OK);
    int bad = 0;
    for (int64_t i = 0; i < n; i++) {
        uint32_t w[4];
        philox_block(seed, 5 + (uint64_t)i / 4, 0, w); /* 4 float32 per block */
        bad += f32[i] != (float)(w[i % 4] >> 8) * 0x1p-24f;
        philox_block(seed, 5 + n + (uint64_t)i / 2, 0, w); /* 2 float64 per block */
        uint64_t x = (uint64_t)w[2 * (i % 2)] << 32 | w[2 * (i % 2) + 1];
        bad += f64[i] != (double)(x >> 11) * 0x1p-53;
        philox_block(seed, 5 + 2 * n + (uint64_t)i / 4, 0, w);
        bad += u32[i] != w[i % 4];
        philox_block(seed, 5 + 3 * n + (uint64_t)i / 2, 0, w);
        x = (uint64_t)w[2 * (i % 2)] << 32 | w[2 * (i % 2) + 1];
        bad += (uint64_t)i64[i] - (uint64_t)INT64_MIN != x;
        /* Box-Muller: radius from the pair's first unit, angle from its second. */
        philox_block(seed, 5 + 4 * n + (uint64_t)i / 2, 0, w);
        const uint64_t u1 = (uint64_t)w[0] << 32 | w[1], u2 = (uint64_t)w[2] << 32 | w[3];
        const double r = sqrt(-2 * log((double)((u1 >> 11) + 1) * 0x1p-53));
        const double t = 2 * PI * ((double)(u2 >> 11) * 0x1p-53);
        const double z = r * (i % 2 ? sin(t) : cos(t));
        bad += fabs(z64[i] - z) > 1e-13 * fmax(1, fabs(z));
    }
    CHECK_EQ_INT(bad, 0);
    loom_rng_destroy(g);
    loom_scope_end();
}

/* An expression of random arrays from a fresh generator of the seed. */
static loom_array *expression(uint64_t seed, int64_t n)
{
    loom_rng *g = loom_random_default_rng(seed);
    loom_array *u = loom_rng_random(g, 1, &n, LOOM_FLOAT32);
    loom_array *z = loom_rng_normal(g, 1, 2, 1, &n, LOOM_FLOAT32);
    loom_array *k = loom_rng_integers(g, -5, 5, true, 1, &n, LOOM_INT16);
    loom_array *e = loom_rng_gamma(g, 0.7, 1, 1, &n, LOOM_FLOAT64);
    loom_array *y = loom_add(loom_add(loom_multiply(u, z), loom_astype(k, LOOM_FLOAT32)), loom_astype(e, LOOM_FLOAT32));
    loom_rng_destroy(g);
    return y;
}

static void check_reproducible(void)
{
    loom_scope_begin();
    const int64_t n = 100003;
    /* Same seed, same bits; fused against LOOM_FUSE=0. */
    loom_array *a = expression(11, n), *b = expression(11, n);
    setenv("LOOM_FUSE", "0", 1);
    loom_array *c = expression(11, n);
    CHECK_EQ_INT(loom_eval(c), LOOM_OK);
    unsetenv("LOOM_FUSE");
    CHECK(same_bits(a, b, (size_t)n * 4));
    CHECK(same_bits(a, c, (size_t)n * 4));

    /* Any shape of the same size gives the same flat values, and a transposed read gives the
     * transpose. */
    loom_rng *g1 = loom_random_default_rng(12), *g2 = loom_random_default_rng(12), *g3 = loom_random_default_rng(12);
    loom_array *flat = loom_rng_standard_normal(g1, 1, (int64_t[]){6000}, LOOM_FLOAT32);
    loom_array *mat = loom_rng_standard_normal(g2, 2, (int64_t[]){6, 1000}, LOOM_FLOAT32);
    loom_array *t = loom_transpose(loom_rng_standard_normal(g3, 2, (int64_t[]){6, 1000}, LOOM_FLOAT32), NULL);
    CHECK(same_bits(flat, loom_reshape(mat, 1, (int64_t[]){6000}), 6000 * 4));
    float *fv = malloc(6000 * 4), *tv = malloc(6000 * 4);
    CHECK_EQ_INT(loom_get(flat, fv, 6000 * 4), LOOM_OK);
    CHECK_EQ_INT(loom_get(t, tv, 6000 * 4), LOOM_OK);
    int bad = 0;
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 1000; j++)
            bad += fv[i * 1000 + j] != tv[j * 6 + i];
    CHECK_EQ_INT(bad, 0);

    /* Other consumers and other plans see the same values: -z, z as float64, and z evaluated
     * twice inside two different plans. */
    loom_rng *g4 = loom_random_default_rng(12);
    loom_array *z = loom_rng_standard_normal(g4, 1, (int64_t[]){6000}, LOOM_FLOAT32);
    loom_array *neg = loom_negative(z), *wide = loom_astype(z, LOOM_FLOAT64);
    loom_array *both[2] = {neg, wide};
    CHECK_EQ_INT(loom_eval_many(both, 2), LOOM_OK);
    float *nv = malloc(6000 * 4);
    double *wv = malloc(6000 * 8);
    CHECK_EQ_INT(loom_get(neg, nv, 6000 * 4), LOOM_OK);
    CHECK_EQ_INT(loom_get(wide, wv, 6000 * 8), LOOM_OK);
    bad = 0;
    for (int i = 0; i < 6000; i++)
        bad += nv[i] != -fv[i] || wv[i] != (double)fv[i];
    CHECK_EQ_INT(bad, 0);
    CHECK(same_bits(loom_mul_scalar(z, 1.0), flat, 6000 * 4));
    CHECK(same_bits(z, flat, 6000 * 4)); /* z itself, materialised now */
    free(fv);
    free(tv);
    free(nv);
    free(wv);
    loom_rng_destroy(g1);
    loom_rng_destroy(g2);
    loom_rng_destroy(g3);
    loom_rng_destroy(g4);
    loom_scope_end();
}

static double correlation(const double *x, const double *y, int64_t n)
{
    double sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
    for (int64_t i = 0; i < n; i++) {
        sx += x[i], sy += y[i], sxx += x[i] * x[i], syy += y[i] * y[i], sxy += x[i] * y[i];
    }
    const double cov = sxy / n - sx / n * sy / n;
    return cov / sqrt((sxx / n - sx / n * sx / n) * (syy / n - sy / n * sy / n));
}

/* Different seeds, successive calls and neighbouring elements (the lanes of one block) are
 * uncorrelated: |r| below 6 / sqrt(n). */
static void check_independent(void)
{
    loom_scope_begin();
    const int64_t n = 1 << 20;
    loom_rng *g1 = loom_random_default_rng(1), *g2 = loom_random_default_rng(2);
    double *a = values(loom_rng_standard_normal(g1, 1, &n, LOOM_FLOAT32), n);
    double *b = values(loom_rng_standard_normal(g2, 1, &n, LOOM_FLOAT32), n);
    double *c = values(loom_rng_standard_normal(g1, 1, &n, LOOM_FLOAT32), n);
    const double bound = 6 / sqrt((double)n);
    CHECK(fabs(correlation(a, b, n)) < bound);
    CHECK(fabs(correlation(a, c, n)) < bound);
    CHECK(fabs(correlation(a, a + 1, n - 1)) < bound); /* the pair sharing a radius */
    CHECK(fabs(correlation(a, a + 2, n - 2)) < bound);
    double *sq = malloc((size_t)n * sizeof *sq);
    for (int64_t i = 0; i < n; i++)
        sq[i] = a[i] * a[i];
    CHECK(fabs(correlation(sq, sq + 1, n - 1)) < bound); /* r^2 cos^2 against r^2 sin^2 */
    free(sq);
    free(a);
    free(b);
    free(c);
    loom_rng_destroy(g1);
    loom_rng_destroy(g2);
    loom_scope_end();
}

int main(void)
{
    if (!gpu_test_start("gpu_test_random"))
        return 77;
    n_samples = gpu_test_scaled(1 << 22, 1 << 20);
    check_reference_stream();
    check_reproducible();
    check_independent();
    check_integers();
    check_distributions();
    check_dirichlet();
    check_multivariate_normal();
    check_permutation();
    check_choice();
    return check_summary("gpu_test_random");
}
