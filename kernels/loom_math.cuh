/* Real float32/float64 building blocks shared by the complex functions and the ufuncs.
 *
 * Arithmetic goes through the __*_rn intrinsics: the compiler never contracts them into a fused
 * multiply-add, so a*b+c written as two ufuncs rounds twice, as in NumPy, even after fusion
 * inlines both into one kernel. Transcendentals are CUDA's precise functions (never the
 * __expf-style intrinsics). */
#ifndef LOOM_MATH_CUH
#define LOOM_MATH_CUH

#include "loom_types.cuh"

LOOM__D float loom__add(float a, float b) { return __fadd_rn(a, b); }
LOOM__D double loom__add(double a, double b) { return __dadd_rn(a, b); }
LOOM__D float loom__sub(float a, float b) { return __fsub_rn(a, b); }
LOOM__D double loom__sub(double a, double b) { return __dsub_rn(a, b); }
LOOM__D float loom__mul(float a, float b) { return __fmul_rn(a, b); }
LOOM__D double loom__mul(double a, double b) { return __dmul_rn(a, b); }
LOOM__D float loom__div(float a, float b) { return __fdiv_rn(a, b); }
LOOM__D double loom__div(double a, double b) { return __ddiv_rn(a, b); }
LOOM__D float loom__fma(float a, float b, float c) { return __fmaf_rn(a, b, c); }
LOOM__D double loom__fma(double a, double b, double c) { return __fma_rn(a, b, c); }
LOOM__D float loom__sqrt(float a) { return __fsqrt_rn(a); }
LOOM__D double loom__sqrt(double a) { return __dsqrt_rn(a); }

#define LOOM__MATH1(fn)                                                                           \
    LOOM__D float loom__##fn(float x) { return fn##f(x); }                                        \
    LOOM__D double loom__##fn(double x) { return fn(x); }
#define LOOM__MATH2(fn)                                                                           \
    LOOM__D float loom__##fn(float x, float y) { return fn##f(x, y); }                            \
    LOOM__D double loom__##fn(double x, double y) { return fn(x, y); }
LOOM__MATH1(fabs)
LOOM__MATH1(cbrt)
LOOM__MATH1(exp)
LOOM__MATH1(exp2)
LOOM__MATH1(expm1)
LOOM__MATH1(log)
LOOM__MATH1(log2)
LOOM__MATH1(log10)
LOOM__MATH1(log1p)
LOOM__MATH1(sin)
LOOM__MATH1(cos)
LOOM__MATH1(tan)
LOOM__MATH1(asin)
LOOM__MATH1(acos)
LOOM__MATH1(atan)
LOOM__MATH1(sinh)
LOOM__MATH1(cosh)
LOOM__MATH1(tanh)
LOOM__MATH1(asinh)
LOOM__MATH1(acosh)
LOOM__MATH1(atanh)
LOOM__MATH1(floor)
LOOM__MATH1(ceil)
LOOM__MATH1(trunc)
LOOM__MATH1(rint)
LOOM__MATH2(atan2)
LOOM__D float loom__hypot(float x, float y) { return hypotf(x, y); }
/* CUDA's double hypot returned inf for hypot(DBL_MAX, 2.5) (measured on an H200 against NumPy's
 * 1.797e308); elsewhere it is the more accurate one. Near the top of the range, scale by the
 * larger magnitude, so only a true result above DBL_MAX overflows. */
LOOM__D double loom__hypot(double x, double y)
{
    const double a = fabs(x), b = fabs(y);
    const double hi = a > b ? a : b, lo = a > b ? b : a;
    if (!(hi >= 0x1p+1000) || isinf(hi)) /* also NaN and inf: CUDA's rules (inf wins) */
        return hypot(x, y);
    const double r = __ddiv_rn(lo, hi);
    return __dmul_rn(hi, __dsqrt_rn(__dadd_rn(1.0, __dmul_rn(r, r))));
}
LOOM__MATH2(pow)
LOOM__MATH2(fmod)
LOOM__MATH2(copysign)
#undef LOOM__MATH1
#undef LOOM__MATH2
LOOM__D float loom__ldexp(float x, int e) { return ldexpf(x, e); }
LOOM__D double loom__ldexp(double x, int e) { return ldexp(x, e); }

LOOM__D bool loom__isnan(float x) { return isnan(x); }
LOOM__D bool loom__isnan(double x) { return isnan(x); }
LOOM__D bool loom__isinf(float x) { return isinf(x); }
LOOM__D bool loom__isinf(double x) { return isinf(x); }
LOOM__D bool loom__isfinite(float x) { return isfinite(x); }
LOOM__D bool loom__isfinite(double x) { return isfinite(x); }
LOOM__D bool loom__signbit(float x) { return signbit(x); }
LOOM__D bool loom__signbit(double x) { return signbit(x); }

/* 10^n by repeated multiplication, as NumPy's power_of_ten for np.round: exact up to 10^22,
 * then carrying NumPy's roundings rather than the correctly rounded constant. */
LOOM__D double loom__pow10(int n) {
    double r = 1.0;
    for (; n > 0 && r <= 1.7976931348623157e308; --n)
        r = loom__mul(r, 10.0);
    return r;
}

/* np.round(x, decimals) for a real float type F, as NumPy's three ufunc calls
 * (multiply, rint, divide; divide, rint, multiply when decimals < 0). |decimals| past 400
 * behaves as 400: the factor is already infinite. */
template <class F> LOOM__D F loom__round(F x, int decimals) {
    const int d = decimals < -400 ? -400 : (decimals > 400 ? 400 : decimals);
    const double p = loom__pow10(d < 0 ? -d : d);
    const F f = (F)p;
    if (d >= 0)
        return loom__div(loom__rint(loom__mul(x, f)), f);
    return loom__mul(loom__rint(loom__div(x, f)), f);
}

/* NumPy's npy_divmod: floor division and the remainder with the divisor's sign. */
template <class F> LOOM__D F loom__divmod(F a, F b, F *mod) {
    F m = loom__fmod(a, b);
    if (b == F(0)) {
        *mod = m;
        return loom__div(a, b);
    }
    F div = loom__div(loom__sub(a, m), b);
    if (m != F(0)) {
        if ((b < F(0)) != (m < F(0))) {
            m = loom__add(m, b);
            div = loom__sub(div, F(1));
        }
    } else {
        m = loom__copysign(F(0), b);
    }
    F q;
    if (div != F(0)) {
        q = loom__floor(div);
        if (loom__sub(div, q) > F(0.5))
            q = loom__add(q, F(1));
    } else {
        q = loom__copysign(F(0), loom__div(a, b));
    }
    *mod = m;
    return q;
}

template <class F> LOOM__D F loom__floor_divide(F a, F b) {
    if (b == F(0))
        return loom__div(a, b);
    F m;
    return loom__divmod(a, b, &m);
}

template <class F> LOOM__D F loom__remainder(F a, F b) {
    if (b == F(0))
        return loom__fmod(a, b);
    F m;
    loom__divmod(a, b, &m);
    return m;
}

/* NumPy's npy_logaddexp / npy_logaddexp2: stable, exact for equal infinities. */
template <class F> LOOM__D F loom__logaddexp(F x, F y) {
    if (x == y)
        return loom__add(x, F(0.693147180559945309417232121458176568));
    const F t = loom__sub(x, y);
    if (t > F(0))
        return loom__add(x, loom__log1p(loom__exp(-t)));
    if (t <= F(0))
        return loom__add(y, loom__log1p(loom__exp(t)));
    return t; /* NaN */
}

template <class F> LOOM__D F loom__logaddexp2(F x, F y) {
    const F log2e = F(1.442695040888963407359924681001892137);
    if (x == y)
        return loom__add(x, F(1));
    const F t = loom__sub(x, y);
    if (t > F(0))
        return loom__add(x, loom__mul(log2e, loom__log1p(loom__exp2(-t))));
    if (t <= F(0))
        return loom__add(y, loom__mul(log2e, loom__log1p(loom__exp2(t))));
    return t; /* NaN */
}

#endif /* LOOM_MATH_CUH */
