/* kernels/loom_random.cuh compiled for the host (the CUDA intrinsics it calls written out
 * below) and run on the CPU, so that its samplers' distributions are checked without a GPU:
 * Box-Muller's standard normals (float32 and float64, their tails), beta and its
 * complement from the same words, beta with both powers of Johnk's algorithm near underflow,
 * and dirichlet's stick-breaking as graph/random_vector.c composes it, against exact CDFs
 * (tests/exact_dist.h), in float64 and rounded to float32. The GPU computes the same
 * algorithm with CUDA's libm (a few ulps from glibc's); gpu_test_random checks its values. */
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "check.h"
#include "exact_dist.h"

#define LOOM__D inline
inline unsigned __umulhi(unsigned a, unsigned b) { return (unsigned)(((unsigned long long)a * b) >> 32); }
inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b)
{
    return (unsigned long long)(((unsigned __int128)a * b) >> 64);
}
inline double __longlong_as_double(long long x)
{
    double d;
    memcpy(&d, &x, sizeof d);
    return d;
}
inline double cospi(double x) { return cos(M_PI * x); }
inline void sincospi(double x, double *s, double *c) { *s = sin(M_PI * x), *c = cos(M_PI * x); }
inline void sincospif(float x, float *s, float *c) { *s = sinf((float)M_PI * x), *c = cosf((float)M_PI * x); }
inline float loom__log(float x) { return logf(x); }
inline double loom__log(double x) { return log(x); }
inline float loom__exp(float x) { return expf(x); }
inline double loom__exp(double x) { return exp(x); }
inline float loom__expm1(float x) { return expm1f(x); }
inline double loom__expm1(double x) { return expm1(x); }
inline float loom__pow(float x, float y) { return powf(x, y); }
inline double loom__pow(double x, double y) { return pow(x, y); }
#include "kernels/loom_random.cuh"

enum { SEED = 77, N = 1 << 18 };
/* KS critical value at significance 1e-6, as gpu_test_random. */
static const double KS_COEFF = 2.6913;

struct beta_params {
    double a, b;
};
static double beta_mid(const void *d, double lo, double hi)
{
    const beta_params *p = (const beta_params *)d;
    return beta_cdf_mid(p->a, p->b, lo, hi);
}

/* Element i of a beta node at block ctr (complement: its twin's 1 - beta). */
static double beta_at(uint64_t ctr, uint64_t i, double a, double b, bool complement)
{
    return loom_rng_beta<double, 1>(SEED, ctr, i, 0, a, b, complement ? 1 : 0);
}

static void check_ks(double *v, bool f32, double a, double b, const char *label)
{
    const beta_params p = {a, b};
    const double D = ks_distance_rounded(v, N, f32, beta_mid, &p), crit = KS_COEFF / sqrt((double)N);
    CHECK(D <= crit);
    if (D > crit)
        fprintf(stderr, "%s: Kolmogorov-Smirnov D = %.6f > %.6f\n", label, D, crit);
}

/* beta(a, b) and its complement from the same words: they sum to 1 within 2^-51, the
 * complement is beta(b, a), both by KS; complement 1 of a beta near 1 is the exact remainder,
 * never a zero that 1 - v would give. Johnk's algorithm (a, b <= 1) and the gamma ratio. */
static void check_beta_complement(double a, double b)
{
    double *v = (double *)malloc(N * sizeof *v), *w = (double *)malloc(N * sizeof *w);
    int off = 0, zeros = 0;
    for (int i = 0; i < N; i++) {
        v[i] = beta_at(1000, (uint64_t)i, a, b, false);
        w[i] = beta_at(1000, (uint64_t)i, a, b, true);
        off += !(fabs(v[i] + w[i] - 1) <= 0x1p-51);
        zeros += w[i] == 0;
    }
    char label[64];
    snprintf(label, sizeof label, "beta(%g, %g)", a, b);
    CHECK_EQ_INT(off, 0);
    CHECK_EQ_INT(zeros, 0);
    check_ks(v, false, a, b, label);
    snprintf(label, sizeof label, "1 - beta(%g, %g)", a, b);
    check_ks(w, false, b, a, label);
    free(v);
    free(w);
}

/* beta(0.01, 0.01): U^100 underflows for U < 5.8e-4 while V^100 often stays positive. NumPy
 * since 2.1 takes logarithms then (before, X / (X + Y) gave 0: twice the zeros). P(beta
 * rounds to 0) = I(2^-1075) ~ x^a / (a B(a, b)), about 3e-4: 304 of 2^20 (the old way 600). */
static void check_beta_underflow(void)
{
    const double a = 0.01, b = 0.01;
    const int n = 1 << 20;
    int zeros = 0;
    for (int i = 0; i < n; i++)
        zeros += beta_at(2000, (uint64_t)i, a, b, false) == 0;
    const double expect = exp(a * -1075 * M_LN2 + lgamma(a + b) - lgamma(a) - lgamma(b)) / a * n;
    const bool ok = fabs(zeros - expect) <= 6 * sqrt(expect);
    CHECK(ok);
    if (!ok)
        fprintf(stderr, "beta(0.01, 0.01): %d zeros, expected %.1f\n", zeros, expect);
}

/* dirichlet(0.05, 0.02, 0.08) by stick-breaking, as graph/random_vector.c records it: V_j a
 * beta node, 1 - V_j its twin, X_0 = V_0, X_1 = (1 - V_0) V_1, X_2 = (1 - V_0)(1 - V_1).
 * Column j is beta(alpha_j, sum - alpha_j); in float64 no column is ever 0 (1 - V_0 computed
 * as a subtraction gives 0.8% zeros in X_1 and 1.9% in X_2); float32 rounds the float64
 * values, so that P(X_1 = 0) is 11%. */
static void check_dirichlet_sticks(bool f32)
{
    const double alpha[3] = {0.05, 0.02, 0.08}, total = 0.15;
    double *col[3];
    for (int j = 0; j < 3; j++)
        col[j] = (double *)malloc(N * sizeof(double));
    int zeros64 = 0;
    for (int i = 0; i < N; i++) {
        const double v0 = beta_at(0, (uint64_t)i, 0.05, 0.10, false), w0 = beta_at(0, (uint64_t)i, 0.05, 0.10, true);
        const double v1 = beta_at(N, (uint64_t)i, 0.02, 0.08, false), w1 = beta_at(N, (uint64_t)i, 0.02, 0.08, true);
        const double x[3] = {v0, w0 * v1, w0 * w1};
        for (int j = 0; j < 3; j++) {
            zeros64 += x[j] == 0;
            col[j][i] = f32 ? (double)(float)x[j] : x[j];
        }
    }
    CHECK_EQ_INT(zeros64, 0);
    for (int j = 0; j < 3; j++) {
        char label[64];
        snprintf(label, sizeof label, "dirichlet sticks [%d] %s", j, f32 ? "float32" : "float64");
        check_ks(col[j], f32, alpha[j], total - alpha[j], label);
        free(col[j]);
    }
}

static double normal_mid(const void *d, double lo, double hi)
{
    (void)d;
    const double m = lo + (hi - lo) / 2;
    return m < 0 ? 0.5 * erfc(-m / M_SQRT2) : 1 - 0.5 * erfc(m / M_SQRT2);
}

/* Standard normals, element i of a node at block 3000 computed as a kernel's lane j of step g
 * (four elements per step, as float32 kernels step): KS against the normal CDF; a chi-square
 * over 400 bins of [-4, 4] (df 399: 550 is exceeded with probability about 1e-6; a 256-layer
 * ziggurat that skipped its wedge tests measured about 1400); and the share of the tails beyond
 * 3.5 against 2 Phi(-3.5) within 6 standard deviations. */
template <class F> static void check_normals(const char *label)
{
    const int n = 1 << 22, bins = 400;
    double *v = (double *)malloc(n * sizeof *v);
    long *h = (long *)calloc(bins, sizeof *h);
    int tail = 0, bad = 0;
    for (int i = 0; i < n; i++) {
        const F z = loom_rng_gauss<F, 4>(SEED, 3000, (uint64_t)i / 4, (unsigned)i % 4);
        bad += !std::isfinite(z);
        tail += fabs((double)z) > 3.5;
        if (z > -4 && z < 4)
            h[(int)(((double)z + 4) / 8 * bins)]++;
        v[i] = (double)z;
    }
    CHECK_EQ_INT(bad, 0);
    double chi2 = 0;
    for (int b = 0; b < bins; b++) {
        const double lo = -4 + 8.0 * b / bins, hi = lo + 8.0 / bins;
        const double e = 0.5 * (erfc(-hi / M_SQRT2) - erfc(-lo / M_SQRT2)) * n;
        chi2 += (h[b] - e) * (h[b] - e) / e;
    }
    CHECK(chi2 < 550);
    const double D = ks_distance_rounded(v, n, sizeof(F) == 4, normal_mid, NULL), crit = KS_COEFF / sqrt((double)n);
    CHECK(D <= crit);
    const double expect = erfc(3.5 / M_SQRT2) * n, ok = fabs(tail - expect) <= 6 * sqrt(expect);
    CHECK(ok);
    if (D > crit || !ok || !(chi2 < 550))
        fprintf(stderr, "%s: KS D = %.6f (bound %.6f), chi-square %.1f, %d beyond 3.5 (expected %.1f)\n",
                label, D, crit, chi2, tail, expect);
    free(v);
    free(h);
}

int main(void)
{
    check_normals<float>("normals float32");
    check_normals<double>("normals float64");
    check_beta_complement(0.05, 0.10);
    check_beta_complement(0.02, 0.08);
    check_beta_complement(0.5, 0.5);
    check_beta_complement(0.3, 3); /* two gammas */
    check_beta_underflow();
    check_dirichlet_sticks(false);
    check_dirichlet_sticks(true);
    return check_summary("test_random_kernels_host");
}
