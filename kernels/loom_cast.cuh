/* loom_cast<To>(x): NumPy's astype (casting="unsafe") between any two loom dtypes.
 *  - anything -> bool: x != 0 (complex: either part non-zero; NaN is true)
 *  - bool -> anything: 0 or 1
 *  - integer -> integer: two's-complement wrap to the target width
 *  - integer/float -> float: one rounding to nearest even (float16/bfloat16 included)
 *  - float -> integer: truncation toward zero. NumPy leaves NaN, infinities and out-of-range
 *    values undefined (it warns); Loom converts to int64 first (NaN -> 0, saturating at the
 *    int64 limits; values >= 2^63 go straight to uint64 for uint64 targets) and then wraps to
 *    the target width, which is what NumPy gives on x86-64 for values within int64's range.
 *  - complex -> real: the real part (NumPy's ComplexWarning case); real -> complex: imag 0. */
#ifndef LOOM_CAST_CUH
#define LOOM_CAST_CUH

#include "loom_types.cuh"

/* Every source reduces to one of seven forms before conversion. */
LOOM__D bool loom__norm(lt_bool x) { return x; }
LOOM__D long long loom__norm(lt_int8 x) { return x; }
LOOM__D long long loom__norm(lt_int16 x) { return x; }
LOOM__D long long loom__norm(lt_int32 x) { return x; }
LOOM__D long long loom__norm(lt_int64 x) { return x; }
LOOM__D unsigned long long loom__norm(lt_uint8 x) { return x; }
LOOM__D unsigned long long loom__norm(lt_uint16 x) { return x; }
LOOM__D unsigned long long loom__norm(lt_uint32 x) { return x; }
LOOM__D unsigned long long loom__norm(lt_uint64 x) { return x; }
LOOM__D float loom__norm(lt_float32 x) { return x; }
LOOM__D double loom__norm(lt_float64 x) { return x; }
#ifdef LOOM_NEED_HALF
LOOM__D float loom__norm(lt_float16 x) { return __half2float(x); }
LOOM__D float loom__norm(lt_bfloat16 x) { return __bfloat162float(x); }
#endif
#ifdef LOOM_NEED_COMPLEX
LOOM__D loom_c64 loom__norm(lt_complex64 x) { return x; }
LOOM__D loom_c128 loom__norm(lt_complex128 x) { return x; }
/* complex -> any real type but bool: the real part */
#define LOOM__FROM_COMPLEX(T)                                                                     \
    static LOOM__D T from(loom_c64 x) { return from(x.re); }                                      \
    static LOOM__D T from(loom_c128 x) { return from(x.re); }
#else
#define LOOM__FROM_COMPLEX(T)
#endif

template <class To> struct loom__to;

template <> struct loom__to<lt_bool> {
    static LOOM__D bool from(bool x) { return x; }
    static LOOM__D bool from(long long x) { return x != 0; }
    static LOOM__D bool from(unsigned long long x) { return x != 0; }
    static LOOM__D bool from(float x) { return x != 0.0f; }
    static LOOM__D bool from(double x) { return x != 0.0; }
#ifdef LOOM_NEED_COMPLEX
    static LOOM__D bool from(loom_c64 x) { return x.re != 0.0f || x.im != 0.0f; }
    static LOOM__D bool from(loom_c128 x) { return x.re != 0.0 || x.im != 0.0; }
#endif
};

/* The __*_rz intrinsics define NaN -> 0 and saturation, where a C++ cast would be undefined. */
template <class T> struct loom__to_int {
    static LOOM__D T from(bool x) { return (T)(x ? 1 : 0); }
    static LOOM__D T from(long long x) { return (T)x; }
    static LOOM__D T from(unsigned long long x) { return (T)x; }
    /* NaN -> 0 (docs/semantics.md): CUDA's 64-bit conversions give 0x8000000000000000. */
    static LOOM__D T from(float x) {
        if (x != x)
            return (T)0;
        if (sizeof(T) == 8 && !loom__int<T>::is_signed && x >= 9223372036854775808.0f)
            return (T)__float2ull_rz(x);
        return (T)__float2ll_rz(x);
    }
    static LOOM__D T from(double x) {
        if (x != x)
            return (T)0;
        if (sizeof(T) == 8 && !loom__int<T>::is_signed && x >= 9223372036854775808.0)
            return (T)__double2ull_rz(x);
        return (T)__double2ll_rz(x);
    }
    LOOM__FROM_COMPLEX(T)
};
#define LOOM__TO_INT(T)                                                                           \
    template <> struct loom__to<T> : loom__to_int<T> {};
LOOM__INTS(LOOM__TO_INT)
#undef LOOM__TO_INT

#ifdef LOOM_NEED_HALF
template <> struct loom__to<lt_float16> {
    static LOOM__D lt_float16 from(bool x) { return __float2half_rn(x ? 1.0f : 0.0f); }
    static LOOM__D lt_float16 from(long long x) { return __ll2half_rn(x); }
    static LOOM__D lt_float16 from(unsigned long long x) { return __ull2half_rn(x); }
    static LOOM__D lt_float16 from(float x) { return __float2half_rn(x); }
    static LOOM__D lt_float16 from(double x) { return __double2half(x); }
    LOOM__FROM_COMPLEX(lt_float16)
};

template <> struct loom__to<lt_bfloat16> {
    static LOOM__D lt_bfloat16 from(bool x) { return __float2bfloat16_rn(x ? 1.0f : 0.0f); }
    static LOOM__D lt_bfloat16 from(long long x) { return __ll2bfloat16_rn(x); }
    static LOOM__D lt_bfloat16 from(unsigned long long x) { return __ull2bfloat16_rn(x); }
    static LOOM__D lt_bfloat16 from(float x) { return __float2bfloat16_rn(x); }
    static LOOM__D lt_bfloat16 from(double x) { return __double2bfloat16(x); }
    LOOM__FROM_COMPLEX(lt_bfloat16)
};
#endif

template <> struct loom__to<lt_float32> {
    static LOOM__D float from(bool x) { return x ? 1.0f : 0.0f; }
    static LOOM__D float from(long long x) { return __ll2float_rn(x); }
    static LOOM__D float from(unsigned long long x) { return __ull2float_rn(x); }
    static LOOM__D float from(float x) { return x; }
    static LOOM__D float from(double x) { return __double2float_rn(x); }
    LOOM__FROM_COMPLEX(float)
};

template <> struct loom__to<lt_float64> {
    static LOOM__D double from(bool x) { return x ? 1.0 : 0.0; }
    static LOOM__D double from(long long x) { return __ll2double_rn(x); }
    static LOOM__D double from(unsigned long long x) { return __ull2double_rn(x); }
    static LOOM__D double from(float x) { return x; }
    static LOOM__D double from(double x) { return x; }
    LOOM__FROM_COMPLEX(double)
};

#undef LOOM__FROM_COMPLEX

#ifdef LOOM_NEED_COMPLEX
template <class C> struct loom__to_complex {
    typedef typename loom__part<C>::type R;
    template <class X> static LOOM__D C from(X x) {
        C r = {loom__to<R>::from(x), R(0)};
        return r;
    }
    static LOOM__D C from(loom_c64 x) {
        C r = {loom__to<R>::from(x.re), loom__to<R>::from(x.im)};
        return r;
    }
    static LOOM__D C from(loom_c128 x) {
        C r = {loom__to<R>::from(x.re), loom__to<R>::from(x.im)};
        return r;
    }
};
template <> struct loom__to<lt_complex64> : loom__to_complex<lt_complex64> {};
template <> struct loom__to<lt_complex128> : loom__to_complex<lt_complex128> {};
#endif

template <class To, class From> LOOM__D To loom_cast(From x) {
    return loom__to<To>::from(loom__norm(x));
}

/* The graph's "astype" op. */
template <class To, class From> LOOM__D To loom_astype(From x) { return loom_cast<To>(x); }

#endif /* LOOM_CAST_CUH */
