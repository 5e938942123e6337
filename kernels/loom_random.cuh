/* Counter-based random numbers for generated kernels: Philox4x32-10 (Salmon, Moraes, Dror and
 * Shaw, "Parallel random numbers: as easy as 1, 2, 3", SC11) computed inline, and NumPy's
 * distributions on it. loom_device.cuh includes it when the kernel defines LOOM_NEED_RANDOM
 * (curand_kernel.h would cost half a second of NVRTC time per kernel).
 *
 * The stream model (docs/random.md): a random node owns the Philox blocks [ctr, ctr + size)
 * under the key seed. Element idx takes its first words from block ctr + idx / E with counter
 * word 2 equal to 0, E elements sharing one block's four words (lane idx % E); its further
 * draws (rejection loops, distributions needing more words) use the same block with counter
 * word 2 = 1, 2, ... Every value is a pure function of (seed, ctr, idx): the same in any
 * kernel, on any grid, in any plan. loom_rng_<name><T, V>(seed, ctr, g, j, a, b, c) is the
 * value of element idx = g * V + j of a node of op <name>, dtype T and parameters a, b, c
 * (ops.def); V only helps the compiler share blocks between the lanes of a vector step. */
#ifndef LOOM_RANDOM_CUH
#define LOOM_RANDOM_CUH

typedef unsigned long long loom_u64;

struct loom_u32x4 {
    unsigned w0, w1, w2, w3;
};

LOOM__D loom_u32x4 loom_philox(loom_u64 key, loom_u64 block, unsigned draw)
{
    unsigned c0 = (unsigned)block, c1 = (unsigned)(block >> 32), c2 = draw, c3 = 0;
    unsigned k0 = (unsigned)key, k1 = (unsigned)(key >> 32);
#pragma unroll
    for (int r = 0; r < 10; r++) {
        if (r) {
            k0 += 0x9E3779B9u;
            k1 += 0xBB67AE85u;
        }
        const unsigned hi0 = __umulhi(0xD2511F53u, c0), lo0 = 0xD2511F53u * c0;
        const unsigned hi1 = __umulhi(0xCD9E8D57u, c2), lo1 = 0xCD9E8D57u * c2;
        c0 = hi1 ^ c1 ^ k0;
        c1 = lo1;
        c2 = hi0 ^ c3 ^ k1;
        c3 = lo0;
    }
    return loom_u32x4{c0, c1, c2, c3};
}

/* A select, not an array index: a dynamic index would put the block in local memory. */
LOOM__D unsigned loom_word(const loom_u32x4 &x, unsigned i)
{
    return i == 0 ? x.w0 : i == 1 ? x.w1 : i == 2 ? x.w2 : x.w3;
}

/* float32 values use one 32-bit word ("unit") each, four elements to a block; float64 values
 * and 64-bit integers use two words, two elements to a block. */
template <class F> struct loom_units;
template <> struct loom_units<float> {
    typedef unsigned U;
    static const unsigned E = 4;
    static LOOM__D U get(const loom_u32x4 &x, unsigned lane) { return loom_word(x, lane); }
};
template <> struct loom_units<double> {
    typedef loom_u64 U;
    static const unsigned E = 2;
    static LOOM__D U get(const loom_u32x4 &x, unsigned lane)
    {
        return lane ? (loom_u64)x.w2 << 32 | x.w3 : (loom_u64)x.w0 << 32 | x.w1;
    }
};

/* [0, 1): the top 24 (53) bits. */
LOOM__D float loom_u01(unsigned b) { return (float)(b >> 8) * 0x1p-24f; }
LOOM__D double loom_u01(loom_u64 b) { return (double)(b >> 11) * 0x1p-53; }
/* (0, 1], for logarithms: float32 from all 32 bits, so -log reaches 22.9 (normals 6.8). */
LOOM__D float loom_open01(unsigned b) { return fmaf((float)b, 0x1p-32f, 0x1p-33f); }
LOOM__D double loom_open01(loom_u64 b) { return (double)((b >> 11) + 1) * 0x1p-53; }
/* (-0.5, 0.5), symmetric: the centres of 2^24 (2^53) equal cells. */
LOOM__D float loom_centred(unsigned b) { return ((float)((int)(b >> 8) - 8388608) + 0.5f) * 0x1p-24f; }
LOOM__D double loom_centred(loom_u64 b)
{
    return ((double)((long long)(b >> 11) - (1LL << 52)) + 0.5) * 0x1p-53;
}

/* loom_math.cuh has loom__log, loom__exp, loom__pow...; these two it lacks. */
LOOM__D float loom_rsqrt_(float x) { return sqrtf(x); }
LOOM__D double loom_rsqrt_(double x) { return sqrt(x); }
LOOM__D void loom_rsincospi(float x, float *s, float *c) { sincospif(x, s, c); }
LOOM__D void loom_rsincospi(double x, double *s, double *c) { sincospi(x, s, c); }

/* Element positions: index g * V + j, V the kernel's elements per step (a constant) and j its
 * unrolled lane. When E divides V the block and lane are written so that the V elements of a
 * step visibly share E-element blocks, and the compiler computes each block once. */
template <unsigned E, unsigned V> LOOM__D loom_u64 loom_rng_block(loom_u64 ctr, loom_u64 g, unsigned j)
{
    return V % E == 0 ? ctr + g * (V / E) + j / E : ctr + (g * V + j) / E;
}
template <unsigned E, unsigned V> LOOM__D unsigned loom_rng_lane(loom_u64 g, unsigned j)
{
    return V % E == 0 ? j % E : (unsigned)((g * V + j) % E);
}

/* The unit of element (g, j) at its first draw. */
template <class F, unsigned V>
LOOM__D typename loom_units<F>::U loom_rng_unit(loom_u64 seed, loom_u64 ctr, loom_u64 g, unsigned j)
{
    const unsigned E = loom_units<F>::E;
    return loom_units<F>::get(loom_philox(seed, loom_rng_block<E, V>(ctr, g, j), 0),
                              loom_rng_lane<E, V>(g, j));
}

/* Box-Muller on the unit pair (2j, 2j + 1) of the block: the even lane takes r cos, the odd
 * lane r sin, so the pair's two elements use both values. */
template <class F, unsigned V> LOOM__D F loom_rng_gauss(loom_u64 seed, loom_u64 ctr, loom_u64 g, unsigned j)
{
    const unsigned E = loom_units<F>::E, lane = loom_rng_lane<E, V>(g, j);
    const loom_u32x4 x = loom_philox(seed, loom_rng_block<E, V>(ctr, g, j), 0);
    const F r = loom_rsqrt_(F(-2) * loom__log(loom_open01(loom_units<F>::get(x, lane & ~1u))));
    F s, c;
    loom_rsincospi(F(2) * loom_u01(loom_units<F>::get(x, lane | 1u)), &s, &c);
    return r * (lane & 1u ? s : c);
}

/* Standard exponential by inversion. */
template <class F, unsigned V> LOOM__D F loom_rng_stdexp(loom_u64 seed, loom_u64 ctr, loom_u64 g, unsigned j)
{
    return -loom__log(loom_open01(loom_rng_unit<F, V>(seed, ctr, g, j)));
}

/* ---- closed forms (T: float or double, computed in T) ---- */

template <class T, unsigned V> LOOM__D T loom_rng_uniform(loom_u64 s, loom_u64 k, loom_u64 g, unsigned j, double low, double range, double)
{
    return T(low) + T(range) * loom_u01(loom_rng_unit<T, V>(s, k, g, j));
}
template <class T, unsigned V> LOOM__D T loom_rng_normal(loom_u64 s, loom_u64 k, loom_u64 g, unsigned j, double loc, double scale, double)
{
    return T(loc) + T(scale) * loom_rng_gauss<T, V>(s, k, g, j);
}
template <class T, unsigned V> LOOM__D T loom_rng_lognormal(loom_u64 s, loom_u64 k, loom_u64 g, unsigned j, double mean, double sigma, double)
{
    return loom__exp(T(mean) + T(sigma) * loom_rng_gauss<T, V>(s, k, g, j));
}
template <class T, unsigned V> LOOM__D T loom_rng_exponential(loom_u64 s, loom_u64 k, loom_u64 g, unsigned j, double scale, double, double)
{
    return T(scale) * loom_rng_stdexp<T, V>(s, k, g, j);
}
/* tan(pi t) for t in (-0.5, 0.5), by inversion. */
template <class T, unsigned V> LOOM__D T loom_rng_standard_cauchy(loom_u64 s, loom_u64 k, loom_u64 g, unsigned j, double, double, double)
{
    T sn, cs;
    loom_rsincospi(loom_centred(loom_rng_unit<T, V>(s, k, g, j)), &sn, &cs);
    return sn / cs;
}
template <class T, unsigned V> LOOM__D T loom_rng_laplace(loom_u64 s, loom_u64 k, loom_u64 g, unsigned j, double loc, double scale, double)
{
    const T t = loom_centred(loom_rng_unit<T, V>(s, k, g, j));
    return t >= T(0) ? T(loc) - T(scale) * loom__log(T(1) - T(2) * t)
                     : T(loc) + T(scale) * loom__log(T(1) + T(2) * t);
}
template <class T, unsigned V> LOOM__D T loom_rng_logistic(loom_u64 s, loom_u64 k, loom_u64 g, unsigned j, double loc, double scale, double)
{
    const T t = loom_centred(loom_rng_unit<T, V>(s, k, g, j));
    return T(loc) + T(scale) * loom__log((T(0.5) + t) / (T(0.5) - t));
}
template <class T, unsigned V> LOOM__D T loom_rng_gumbel(loom_u64 s, loom_u64 k, loom_u64 g, unsigned j, double loc, double scale, double)
{
    const T u = T(0.5) + loom_centred(loom_rng_unit<T, V>(s, k, g, j));
    return T(loc) - T(scale) * loom__log(-loom__log(u));
}
template <class T, unsigned V> LOOM__D T loom_rng_weibull(loom_u64 s, loom_u64 k, loom_u64 g, unsigned j, double a, double, double)
{
    return a == 0 ? T(0) : loom__pow(loom_rng_stdexp<T, V>(s, k, g, j), T(1 / a));
}
template <class T, unsigned V> LOOM__D T loom_rng_pareto(loom_u64 s, loom_u64 k, loom_u64 g, unsigned j, double a, double, double)
{
    return loom__expm1(loom_rng_stdexp<T, V>(s, k, g, j) / T(a));
}
template <class T, unsigned V> LOOM__D T loom_rng_power(loom_u64 s, loom_u64 k, loom_u64 g, unsigned j, double a, double, double)
{
    return loom__pow(-loom__expm1(-loom_rng_stdexp<T, V>(s, k, g, j)), T(1 / a));
}
template <class T, unsigned V> LOOM__D T loom_rng_rayleigh(loom_u64 s, loom_u64 k, loom_u64 g, unsigned j, double scale, double, double)
{
    return T(scale) * loom_rsqrt_(T(2) * loom_rng_stdexp<T, V>(s, k, g, j));
}
/* NumPy's inversion. */
template <class T, unsigned V> LOOM__D T loom_rng_triangular(loom_u64 s, loom_u64 k, loom_u64 g, unsigned j, double left, double mode, double right)
{
    const T base = T(right) - T(left), leftbase = T(mode) - T(left), ratio = leftbase / base;
    const T leftprod = leftbase * base, rightprod = (T(right) - T(mode)) * base;
    const T u = loom_u01(loom_rng_unit<T, V>(s, k, g, j));
    if (u <= ratio)
        return T(left) + loom_rsqrt_(u * leftprod);
    return T(right) - loom_rsqrt_((T(1) - u) * rightprod);
}

/* ---- integers: Lemire's multiply-and-reject, exactly uniform ---- */

/* The most draws a rejection loop makes. Each integer draw is rejected with probability below
 * 1/2, each gamma or Poisson proposal with probability below 1/4: reaching the bound has
 * probability below 2^-128 (docs/random.md says what is returned then). */
#define LOOM_RNG_MAX_DRAWS 128

/* low + a uniform integer in [0, range) (range 0: 2^64), wrapping to T. */
template <class T, unsigned V>
LOOM__D T loom_rng_integers(loom_u64 seed, loom_u64 ctr, loom_u64 g, unsigned j, long long low, loom_u64 range)
{
    loom_u64 v;
    if (sizeof(T) == 8) {
        const loom_u64 block = loom_rng_block<2, V>(ctr, g, j);
        const unsigned lane = loom_rng_lane<2, V>(g, j);
        v = loom_units<double>::get(loom_philox(seed, block, 0), lane);
        if (range != 0) {
            loom_u64 lo = v * range, hi = __umul64hi(v, range);
            if (lo < range) {
                const loom_u64 t = (0 - range) % range;
                for (unsigned d = 1; lo < t && d < LOOM_RNG_MAX_DRAWS; d++) {
                    v = loom_units<double>::get(loom_philox(seed, block, d), lane);
                    lo = v * range;
                    hi = __umul64hi(v, range);
                }
            }
            v = hi;
        }
    } else {
        const loom_u64 block = loom_rng_block<4, V>(ctr, g, j);
        const unsigned lane = loom_rng_lane<4, V>(g, j);
        unsigned w = loom_word(loom_philox(seed, block, 0), lane);
        if (range < (1ULL << 32)) {
            const unsigned r = (unsigned)range;
            loom_u64 m = (loom_u64)w * r;
            if ((unsigned)m < r) {
                const unsigned t = (0u - r) % r;
                for (unsigned d = 1; (unsigned)m < t && d < LOOM_RNG_MAX_DRAWS; d++) {
                    w = loom_word(loom_philox(seed, block, d), lane);
                    m = (loom_u64)w * r;
                }
            }
            w = (unsigned)(m >> 32);
        }
        v = w;
    }
    return (T)((loom_u64)low + v);
}

/* ---- rejection samplers: one element per block, all draws in float64 ---- */

/* The words of one element in order: its block at draw 0, then draws 1, 2, ... */
struct loom_rng_stream {
    loom_u64 seed, block;
    unsigned draw, used;
    loom_u32x4 x;
    double spare;
    bool has_spare;

    LOOM__D loom_rng_stream(loom_u64 s, loom_u64 ctr, loom_u64 idx)
        : seed(s), block(ctr + idx), draw(0), used(0), x(loom_philox(s, ctr + idx, 0)), spare(0),
          has_spare(false)
    {
    }
    LOOM__D unsigned next32()
    {
        if (used == 4) {
            x = loom_philox(seed, block, ++draw);
            used = 0;
        }
        return loom_word(x, used++);
    }
    LOOM__D loom_u64 next64()
    {
        const loom_u64 hi = next32();
        return hi << 32 | next32();
    }
    LOOM__D double u01() { return loom_u01(next64()); }
    LOOM__D double open01() { return loom_open01(next64()); }
    LOOM__D double stdexp() { return -log(open01()); }
    LOOM__D double gauss()
    {
        if (has_spare) {
            has_spare = false;
            return spare;
        }
        const double r = sqrt(-2.0 * log(open01()));
        double s, c;
        sincospi(2.0 * u01(), &s, &c);
        spare = r * s;
        has_spare = true;
        return r * c;
    }
    /* Marsaglia and Tsang (2000), with their boost G(k + 1) U^(1/k) for k < 1. */
    LOOM__D double standard_gamma(double k)
    {
        if (k == 0)
            return 0;
        const double boost = k < 1 ? pow(open01(), 1.0 / k) : 1.0;
        const double d = (k < 1 ? k + 1 : k) - 1.0 / 3.0, c = 1.0 / sqrt(9.0 * d);
        for (unsigned n = 0; n < LOOM_RNG_MAX_DRAWS; n++) {
            const double z = gauss(), v1 = 1.0 + c * z;
            if (v1 <= 0)
                continue;
            const double v = v1 * v1 * v1, u = open01();
            if (u < 1.0 - 0.0331 * (z * z) * (z * z) ||
                log(u) < 0.5 * z * z + d * (1.0 - v + log(v)))
                return d * v * boost;
        }
        return __longlong_as_double(0x7ff8000000000000LL);
    }
    /* NumPy's: the multiplication method below 10, Hormann's PTRS (1993) from 10 on. */
    LOOM__D long long poisson(double lam)
    {
        if (lam < 10) {
            const double limit = exp(-lam);
            double prod = 1;
            for (long long n = 0; n < 16 * LOOM_RNG_MAX_DRAWS; n++) {
                prod *= u01();
                if (prod <= limit)
                    return n;
            }
            return -1;
        }
        const double slam = sqrt(lam), loglam = log(lam), b = 0.931 + 2.53 * slam,
                     a = -0.059 + 0.02483 * b, invalpha = 1.1239 + 1.1328 / (b - 3.4),
                     vr = 0.9277 - 3.6224 / (b - 2);
        for (unsigned n = 0; n < LOOM_RNG_MAX_DRAWS; n++) {
            const double U = u01() - 0.5, V = u01(), us = 0.5 - fabs(U);
            const double kf = floor((2 * a / us + b) * U + lam + 0.43);
            if (us >= 0.07 && V <= vr)
                return (long long)kf;
            if (kf < 0 || (us < 0.013 && V > us))
                continue;
            if (log(V) + log(invalpha) - log(a / (us * us) + b) <= -lam + kf * loglam - lgamma(kf + 1))
                return (long long)kf;
        }
        return -1;
    }
    /* A uniform integer in [0, m] (Lemire's multiply-and-reject on 64-bit words). */
    LOOM__D long long interval(loom_u64 m)
    {
        const loom_u64 range = m + 1;
        loom_u64 v = next64(), lo = v * range;
        if (range != 0 && lo < range) {
            const loom_u64 t = (0 - range) % range;
            for (unsigned d = 0; lo < t && d < LOOM_RNG_MAX_DRAWS; d++) {
                v = next64();
                lo = v * range;
            }
        }
        return range == 0 ? (long long)v : (long long)__umul64hi(v, range);
    }
    LOOM__D long long binomial(long long n, double p);
    LOOM__D long long binomial_inversion(long long n, double p);
    LOOM__D long long binomial_btpe(long long n, double p);
    LOOM__D long long hypergeometric(long long good, long long bad, long long sample);
};

/* NumPy's: inversion while n min(p, 1 - p) <= 30, BTPE (Kachitvichyanukul and Schmeiser,
 * "Binomial random variate generation", 1988) above. */
LOOM__D long long loom_rng_stream::binomial(long long n, double p)
{
    if (n == 0 || p == 0)
        return 0;
    const double q = 1 - p;
    if (p <= 0.5)
        return p * n <= 30 ? binomial_inversion(n, p) : binomial_btpe(n, p);
    return n - (q * n <= 30 ? binomial_inversion(n, q) : binomial_btpe(n, q));
}

/* Sequential search from 0, restarted past mean + 10 standard deviations. */
LOOM__D long long loom_rng_stream::binomial_inversion(long long n, double p)
{
    const double q = 1 - p, qn = exp(n * log(q)), np = n * p;
    const double bound = fmin((double)n, np + 10 * sqrt(np * q + 1));
    for (unsigned attempt = 0; attempt < LOOM_RNG_MAX_DRAWS; attempt++) {
        long long X = 0;
        double px = qn, U = u01();
        while (U > px && X <= bound) {
            X++;
            U -= px;
            px = ((n - X + 1) * p * px) / (X * q);
        }
        if (X <= bound)
            return X;
    }
    return -1;
}

/* NumPy's port of BTPE, p <= 0.5, with its gotos as a loop of proposals. */
LOOM__D long long loom_rng_stream::binomial_btpe(long long n, double p)
{
    const double r = p, q = 1 - r, fm = n * r + r;
    const long long m = (long long)floor(fm);
    const double p1 = floor(2.195 * sqrt(n * r * q) - 4.6 * q) + 0.5, xm = m + 0.5,
                 xl = xm - p1, xr = xm + p1, c = 0.134 + 20.5 / (15.3 + m);
    double a = (fm - xl) / (fm - xl * r);
    const double laml = a * (1 + a / 2);
    a = (xr - fm) / (xr * q);
    const double lamr = a * (1 + a / 2), p2 = p1 * (1 + 2 * c), p3 = p2 + c / laml,
                 p4 = p3 + c / lamr, nrq = n * r * q;
    for (unsigned attempt = 0; attempt < LOOM_RNG_MAX_DRAWS; attempt++) {
        const double u = u01() * p4;
        double v = u01();
        long long y;
        if (u <= p1) /* the triangle: accepted at once */
            return (long long)floor(xm - p1 * v + u);
        if (u <= p2) { /* the parallelograms */
            const double x = xl + (u - p1) / c;
            v = v * c + 1 - fabs(m - x + 0.5) / p1;
            if (v > 1)
                continue;
            y = (long long)floor(x);
        } else if (u <= p3) { /* the left exponential tail */
            if (v == 0)
                continue;
            const double x = floor(xl + log(v) / laml);
            if (x < 0)
                continue;
            y = (long long)x;
            v = v * (u - p2) * laml;
        } else { /* the right exponential tail */
            if (v == 0)
                continue;
            const double x = floor(xr - log(v) / lamr);
            if (x > n)
                continue;
            y = (long long)x;
            v = v * (u - p3) * lamr;
        }
        const long long k = y > m ? y - m : m - y;
        if (k <= 20 || k >= nrq / 2 - 1) { /* the ratio f(y) / f(m), recursively */
            const double s = r / q, aa = s * (n + 1);
            double F = 1;
            for (long long i = m + 1; i <= y; i++)
                F *= aa / i - s;
            for (long long i = y + 1; i <= m; i++)
                F /= aa / i - s;
            if (v > F)
                continue;
            return y;
        }
        /* squeezes, then Stirling's formula for log f(y) / f(m) */
        const double kd = (double)k, rho = (kd / nrq) * ((kd * (kd / 3 + 0.625) + 0.16666666666666666) / nrq + 0.5),
                     t = -kd * kd / (2 * nrq), A = log(v);
        if (A < t - rho)
            return y;
        if (A > t + rho)
            continue;
        const double x1 = y + 1, f1 = m + 1, z = n + 1 - m, w = n - y + 1, x2 = x1 * x1,
                     f2 = f1 * f1, z2 = z * z, w2 = w * w;
        const double bound =
            xm * log(f1 / x1) + (n - m + 0.5) * log(z / w) + (y - m) * log(w * r / (x1 * q)) +
            (13680. - (462. - (132. - (99. - 140. / f2) / f2) / f2) / f2) / f1 / 166320. +
            (13680. - (462. - (132. - (99. - 140. / z2) / z2) / z2) / z2) / z / 166320. +
            (13680. - (462. - (132. - (99. - 140. / x2) / x2) / x2) / x2) / x1 / 166320. +
            (13680. - (462. - (132. - (99. - 140. / w2) / w2) / w2) / w2) / w / 166320.;
        if (A <= bound)
            return y;
    }
    return -1;
}

/* NumPy's: HRUA (Stadlober's ratio of uniforms, 1989) when 10 <= sample <= total - 10,
 * otherwise drawing the smaller of sample and total - sample one by one (at most 9 draws). */
LOOM__D long long loom_rng_stream::hypergeometric(long long good, long long bad, long long sample)
{
    const long long total = good + bad;
    const long long computed = sample < total - sample ? sample : total - sample;
    if (sample < 10 || sample > total - 10) {
        long long left = total, left_good = good, todo = computed;
        while (todo > 0 && left_good > 0 && left > left_good) {
            --left;
            if (interval((loom_u64)left) < left_good)
                --left_good;
            --todo;
        }
        if (left == left_good)
            left_good -= todo;
        return sample > total / 2 ? left_good : good - left_good;
    }
    const long long mingb = good < bad ? good : bad, maxgb = good < bad ? bad : good;
    const double p = (double)mingb / total, q = (double)maxgb / total, mu = computed * p,
                 a = mu + 0.5,
                 var = (double)(total - computed) * computed * p * q / (total - 1),
                 c = sqrt(var + 0.5), h = 1.7155277699214135 * c + 0.8989161620588988;
    const long long m = (long long)floor((double)(computed + 1) * (mingb + 1) / (total + 2));
    const double g = lgamma(m + 1.0) + lgamma(mingb - m + 1.0) + lgamma(computed - m + 1.0) +
                     lgamma(maxgb - computed + m + 1.0);
    const double b = fmin(fmin((double)computed, (double)mingb) + 1, floor(a + 16 * c));
    for (unsigned attempt = 0; attempt < LOOM_RNG_MAX_DRAWS; attempt++) {
        const double U = u01(), V = u01(), X = a + h * (V - 0.5) / U;
        if (X < 0 || X >= b)
            continue;
        long long K = (long long)floor(X);
        const double T = g - (lgamma(K + 1.0) + lgamma(mingb - K + 1.0) +
                              lgamma(computed - K + 1.0) + lgamma(maxgb - computed + K + 1.0));
        if (!(U * (4 - U) - 3 <= T) && (U * (U - T) >= 1 || 2 * log(U) > T))
            continue;
        if (good > bad)
            K = computed - K;
        return computed < sample ? good - K : K;
    }
    return -1;
}

template <class T, unsigned V> LOOM__D T loom_rng_gamma(loom_u64 s, loom_u64 k, loom_u64 g, unsigned j, double shape, double scale, double)
{
    loom_rng_stream st(s, k, g * V + j);
    return T(scale * st.standard_gamma(shape));
}
/* 1 / (1 + e^-d) without overflow: X / (X + Y) for d = log X - log Y. */
LOOM__D double loom_rng_sigmoid(double d)
{
    return d < 0 ? exp(d - log1p(exp(d))) : 1 / (1 + exp(-d));
}
/* Johnk's algorithm for a, b <= 1 (in logarithms when either power underflows, as NumPy since
 * 2.1), otherwise X / (X + Y) of two gammas. complement != 0 returns Y / (X + Y) from the same
 * words: 1 - beta, exact where 1 - (X / (X + Y)) would round a tiny Y / (X + Y) to 0
 * (dirichlet's stick-breaking multiplies by it). */
template <class T, unsigned V> LOOM__D T loom_rng_beta(loom_u64 s, loom_u64 k, loom_u64 g, unsigned j, double a, double b, double complement)
{
    loom_rng_stream st(s, k, g * V + j);
    if (a <= 1 && b <= 1) {
        for (unsigned n = 0; n < LOOM_RNG_MAX_DRAWS; n++) {
            const double u = st.open01(), v = st.open01();
            const double X = pow(u, 1 / a), Y = pow(v, 1 / b), XpY = X + Y;
            if (XpY <= 1.0 && u + v > 0.0) {
                if (X > 0 && Y > 0)
                    return T((complement != 0 ? Y : X) / XpY);
                const double d = log(u) / a - log(v) / b;
                return T(loom_rng_sigmoid(complement != 0 ? -d : d));
            }
        }
        return T(__longlong_as_double(0x7ff8000000000000LL));
    }
    const double X = st.standard_gamma(a), Y = st.standard_gamma(b);
    return T((complement != 0 ? Y : X) / (X + Y));
}
template <class T, unsigned V> LOOM__D T loom_rng_f(loom_u64 s, loom_u64 k, loom_u64 g, unsigned j, double dfnum, double dfden, double)
{
    loom_rng_stream st(s, k, g * V + j);
    const double num = 2 * st.standard_gamma(dfnum / 2) / dfnum;
    return T(num / (2 * st.standard_gamma(dfden / 2) / dfden));
}
template <class T, unsigned V> LOOM__D T loom_rng_standard_t(loom_u64 s, loom_u64 k, loom_u64 g, unsigned j, double df, double, double)
{
    loom_rng_stream st(s, k, g * V + j);
    const double num = st.gauss();
    return T(sqrt(df / 2) * num / sqrt(st.standard_gamma(df / 2)));
}
/* NumPy's: the root of the inverse Gaussian's quadratic, chosen by a uniform. */
template <class T, unsigned V> LOOM__D T loom_rng_wald(loom_u64 s, loom_u64 k, loom_u64 g, unsigned j, double mean, double scale, double)
{
    loom_rng_stream st(s, k, g * V + j);
    const double mu_2l = mean / (2 * scale), z = st.gauss(), Y = mean * z * z;
    const double X = mean + mu_2l * (Y - sqrt(4 * scale * Y + Y * Y));
    return T(st.u01() <= mean / (mean + X) ? X : mean * mean / X);
}
template <class T, unsigned V> LOOM__D T loom_rng_poisson(loom_u64 s, loom_u64 k, loom_u64 g, unsigned j, double lam, double, double)
{
    loom_rng_stream st(s, k, g * V + j);
    return (T)st.poisson(lam);
}
/* NumPy's: a Poisson of gamma(n, (1 - p) / p). */
template <class T, unsigned V> LOOM__D T loom_rng_negative_binomial(loom_u64 s, loom_u64 k, loom_u64 g, unsigned j, double n, double p, double)
{
    loom_rng_stream st(s, k, g * V + j);
    return (T)st.poisson(st.standard_gamma(n) * ((1 - p) / p));
}
/* Inversion: ceil(-E / log1p(-p)), at least 1, saturating at 2^63 - 1 as NumPy. */
template <class T, unsigned V> LOOM__D T loom_rng_geometric(loom_u64 s, loom_u64 k, loom_u64 g, unsigned j, double p, double, double)
{
    const double z = ceil(-loom_rng_stdexp<double, V>(s, k, g, j) / log1p(-p));
    if (!(z >= 1))
        return (T)1;
    return (T)(z >= 9.223372036854776e18 ? 9223372036854775807LL : (long long)z);
}

template <class T, unsigned V> LOOM__D T loom_rng_binomial(loom_u64 s, loom_u64 k, loom_u64 g, unsigned j, double n, double p, double)
{
    loom_rng_stream st(s, k, g * V + j);
    return (T)st.binomial((long long)n, p);
}
template <class T, unsigned V> LOOM__D T loom_rng_hypergeometric(loom_u64 s, loom_u64 k, loom_u64 g, unsigned j, double good, double bad, double sample)
{
    loom_rng_stream st(s, k, g * V + j);
    return (T)st.hypergeometric((long long)good, (long long)bad, (long long)sample);
}
/* NumPy's: Kemp's second accelerated generator ("Efficient generation of logarithmically
 * distributed pseudo-random variables", 1981). */
template <class T, unsigned V> LOOM__D T loom_rng_logseries(loom_u64 s, loom_u64 k, loom_u64 g, unsigned j, double p, double, double)
{
    loom_rng_stream st(s, k, g * V + j);
    const double r = log1p(-p);
    for (unsigned n = 0; n < LOOM_RNG_MAX_DRAWS; n++) {
        const double v = st.u01();
        if (v >= p)
            return (T)1;
        const double q = -expm1(r * st.u01());
        if (v <= q * q) {
            const double x = floor(1 + log(v) / log(q));
            if (x < 1 || v == 0)
                continue;
            return (T)(x >= 9.223372036854776e18 ? 9223372036854775807LL : (long long)x);
        }
        return (T)(v >= q ? 1 : 2);
    }
    return (T)-1;
}
/* NumPy's: Devroye's rejection from a Pareto proposal (Non-Uniform Random Variate Generation,
 * 1986, X.6.1), the proposal restricted to values below 2^63 as NumPy does. */
template <class T, unsigned V> LOOM__D T loom_rng_zipf(loom_u64 s, loom_u64 k, loom_u64 g, unsigned j, double a, double, double)
{
    if (a >= 1025) /* P(X > 1) < 2^-1024: NumPy returns 1 */
        return (T)1;
    loom_rng_stream st(s, k, g * V + j);
    const double am1 = a - 1, b = pow(2.0, am1), umin = pow(9.223372036854775807e18, -am1);
    for (unsigned n = 0; n < LOOM_RNG_MAX_DRAWS; n++) {
        const double u01 = st.u01(), U = u01 * umin + (1 - u01), v = st.u01();
        const double X = floor(pow(U, -1 / am1));
        if (X >= 9.223372036854775807e18 || X < 1)
            continue;
        const double t = pow(1 + 1 / X, am1);
        if (v * X * (t - 1) / (b - 1) <= t / b)
            return (T)(long long)X;
    }
    return (T)-1;
}
/* NumPy's: Best and Fisher ("Efficient simulation of the von Mises distribution", 1979);
 * uniform on [-pi, pi) for kappa < 1e-8 and a wrapped normal above 1e6, as NumPy. */
template <class T, unsigned V> LOOM__D T loom_rng_vonmises(loom_u64 s, loom_u64 k, loom_u64 g, unsigned j, double mu, double kappa, double)
{
    const double pi = 3.141592653589793;
    loom_rng_stream st(s, k, g * V + j);
    if (kappa != kappa)
        return T(kappa);
    if (kappa < 1e-8)
        return T(pi * (2 * st.u01() - 1));
    double sv;
    if (kappa < 1e-5) {
        sv = 1 / kappa + kappa;
    } else if (kappa <= 1e6) {
        const double r = 1 + sqrt(1 + 4 * kappa * kappa), rho = (r - sqrt(2 * r)) / (2 * kappa);
        sv = (1 + rho * rho) / (2 * rho);
    } else {
        double x = mu + sqrt(1 / kappa) * st.gauss();
        if (x < -pi)
            x += 2 * pi;
        if (x > pi)
            x -= 2 * pi;
        return T(x);
    }
    double W = 0;
    bool accepted = false;
    for (unsigned n = 0; n < LOOM_RNG_MAX_DRAWS && !accepted; n++) {
        const double Z = cospi(st.u01());
        W = (1 + sv * Z) / (sv + Z);
        const double Y = kappa * (sv - W), v = st.u01();
        accepted = Y * (2 - Y) - v >= 0 || log(Y / v) + 1 - Y >= 0;
    }
    if (!accepted)
        return T(__longlong_as_double(0x7ff8000000000000LL));
    double x = acos(W);
    if (st.u01() < 0.5)
        x = -x;
    x += mu;
    const double m = fmod(fabs(x) + pi, 2 * pi) - pi;
    return T(x < 0 ? -m : m);
}

#endif /* LOOM_RANDOM_CUH */
