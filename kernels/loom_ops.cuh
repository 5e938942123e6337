/* The elementwise ops of graph/ops.def as overloaded device functions loom_<numpy name>.
 *
 * Generated code casts every input to the op's loop dtype (NumPy's type resolution) and calls
 * loom_<name>(x[, y]); the overload set is exactly NumPy's loops, and the result type is NumPy's
 * output type for that loop (bool for predicates, the component type for absolute/real/imag/
 * angle of complex, else the loop type). A call with any other argument types is a compile error
 * (the deleted templates below), never a silent promotion. float16 and bfloat16 compute in
 * float32 and round once; bfloat16 follows ml_dtypes where it differs from float16 (the signed
 * zero picked by maximum/minimum, the sign of sign(-0.0)). docs/semantics.md has the details. */
#ifndef LOOM_OPS_CUH
#define LOOM_OPS_CUH

#include "loom_cast.cuh"
#include "loom_math.cuh"
#ifdef LOOM_NEED_COMPLEX
#include "loom_complex.cuh"
#endif

#define LOOM__UNARY_NAMES(X)                                                                      \
    X(negative) X(positive) X(absolute) X(sign) X(reciprocal) X(square) X(sqrt) X(cbrt) X(exp)    \
    X(exp2) X(expm1) X(log) X(log2) X(log10) X(log1p) X(sin) X(cos) X(tan) X(arcsin) X(arccos)   \
    X(arctan) X(sinh) X(cosh) X(tanh) X(arcsinh) X(arccosh) X(arctanh) X(deg2rad) X(rad2deg)     \
    X(floor) X(ceil) X(trunc) X(rint) X(logical_not) X(invert) X(isnan) X(isinf) X(isfinite)     \
    X(signbit) X(real) X(imag) X(conjugate) X(angle)
#define LOOM__BINARY_NAMES(X)                                                                     \
    X(add) X(subtract) X(multiply) X(divide) X(floor_divide) X(remainder) X(fmod) X(power)        \
    X(arctan2) X(hypot) X(logaddexp) X(logaddexp2) X(copysign) X(maximum) X(minimum) X(fmax)     \
    X(fmin) X(equal) X(not_equal) X(less) X(less_equal) X(greater) X(greater_equal)              \
    X(logical_and) X(logical_or) X(logical_xor) X(bitwise_and) X(bitwise_or) X(bitwise_xor)      \
    X(left_shift) X(right_shift)

/* Argument types without a loop match these exactly and fail, instead of promoting (bool and
 * int8 would otherwise convert to int, and __half to float). */
#define LOOM__DELETE1(name) template <class T> __device__ void loom_##name(T) = delete;
#define LOOM__DELETE2(name) template <class A, class B> __device__ void loom_##name(A, B) = delete;
LOOM__UNARY_NAMES(LOOM__DELETE1)
LOOM__BINARY_NAMES(LOOM__DELETE2)
template <class T> __device__ void loom_round(T, int) = delete;
#undef LOOM__DELETE1
#undef LOOM__DELETE2
#undef LOOM__UNARY_NAMES
#undef LOOM__BINARY_NAMES

/* ---------------------------------------------------------------------------------------- */
/* Ops of every dtype                                                                       */
/* ---------------------------------------------------------------------------------------- */

template <class T> LOOM__D T loom_copy(T x) { return x; }
template <class T> LOOM__D T loom_where(bool cond, T x, T y) { return cond ? x : y; }

/* ---------------------------------------------------------------------------------------- */
/* bool                                                                                     */
/* ---------------------------------------------------------------------------------------- */

LOOM__D bool loom_absolute(bool x) { return x; }
LOOM__D bool loom_floor(bool x) { return x; }
LOOM__D bool loom_ceil(bool x) { return x; }
LOOM__D bool loom_trunc(bool x) { return x; }
LOOM__D bool loom_invert(bool x) { return !x; }
LOOM__D bool loom_logical_not(bool x) { return !x; }
LOOM__D bool loom_isnan(bool) { return false; }
LOOM__D bool loom_isinf(bool) { return false; }
LOOM__D bool loom_isfinite(bool) { return true; }
LOOM__D bool loom_signbit(bool) { return false; }
LOOM__D bool loom_real(bool x) { return x; }
LOOM__D bool loom_imag(bool) { return false; }
LOOM__D bool loom_add(bool a, bool b) { return a || b; }
LOOM__D bool loom_multiply(bool a, bool b) { return a && b; }
LOOM__D bool loom_maximum(bool a, bool b) { return a || b; }
LOOM__D bool loom_minimum(bool a, bool b) { return a && b; }
LOOM__D bool loom_fmax(bool a, bool b) { return a || b; }
LOOM__D bool loom_fmin(bool a, bool b) { return a && b; }
LOOM__D bool loom_bitwise_and(bool a, bool b) { return a && b; }
LOOM__D bool loom_bitwise_or(bool a, bool b) { return a || b; }
LOOM__D bool loom_bitwise_xor(bool a, bool b) { return a != b; }

/* Comparisons and logical ops of the real types (bool, integers, float32, float64). */
#define LOOM__COMPARE(T)                                                                          \
    LOOM__D bool loom_equal(T a, T b) { return a == b; }                                          \
    LOOM__D bool loom_not_equal(T a, T b) { return a != b; }                                      \
    LOOM__D bool loom_less(T a, T b) { return a < b; }                                            \
    LOOM__D bool loom_less_equal(T a, T b) { return a <= b; }                                     \
    LOOM__D bool loom_greater(T a, T b) { return a > b; }                                         \
    LOOM__D bool loom_greater_equal(T a, T b) { return a >= b; }                                  \
    LOOM__D bool loom_logical_and(T a, T b) { return a != T(0) && b != T(0); }                    \
    LOOM__D bool loom_logical_or(T a, T b) { return a != T(0) || b != T(0); }                     \
    LOOM__D bool loom_logical_xor(T a, T b) { return (a != T(0)) != (b != T(0)); }
LOOM__COMPARE(bool)
LOOM__FLOATS(LOOM__COMPARE)

/* ---------------------------------------------------------------------------------------- */
/* Integers: two's-complement wrapping, Python's floor division, no traps                   */
/* ---------------------------------------------------------------------------------------- */

#ifdef LOOM_NEED_INT
LOOM__INTS(LOOM__COMPARE)

#define LOOM__U(T) typename loom__int<T>::u

template <class T> LOOM__D T loom__iadd(T a, T b) { return (T)((LOOM__U(T))a + (LOOM__U(T))b); }
template <class T> LOOM__D T loom__isub(T a, T b) { return (T)((LOOM__U(T))a - (LOOM__U(T))b); }
template <class T> LOOM__D T loom__imul(T a, T b) { return (T)((LOOM__U(T))a * (LOOM__U(T))b); }
/* ptxas (CUDA 13.0) forgets the wrap of neg.s16 and abs.s16: it negates the 32-bit register
 * holding the sign-extended value and widens that, so a fused int16 -(-32768) or abs(-32768)
 * read as int64 was +32768 (an unfused kernel stores 16 bits and is right). Negations of
 * types narrower than 32 bits therefore run on 32 bits in inline PTX, which the compiler
 * cannot narrow back to a 16-bit instruction, and are truncated by an explicit conversion. */
template <class T> LOOM__D T loom__ineg(T a) {
    if constexpr (sizeof(T) < 4) {
#ifdef LOOM_HOST /* the host device's compiler (kernels/loom_host.cuh) has no PTX */
        return (T)(int)(0u - (unsigned)(int)a);
#else
        int r;
        asm("neg.s32 %0, %1;" : "=r"(r) : "r"((int)a));
        return (T)r;
#endif
    } else {
        return (T)((LOOM__U(T))0 - (LOOM__U(T))a);
    }
}
template <class T> LOOM__D T loom__imin() {
    return loom__int<T>::is_signed ? (T)((LOOM__U(T))1 << (loom__int<T>::bits - 1)) : (T)0;
}
template <class T> LOOM__D bool loom__ilt0(T x) {
    if constexpr (loom__int<T>::is_signed)
        return x < 0;
    else
        return false;
}

template <class T> LOOM__D T loom__iabs(T x) { return loom__ilt0(x) ? loom__ineg(x) : x; }
template <class T> LOOM__D T loom__isign(T x) { return loom__ilt0(x) ? (T)-1 : (T)(x > 0); }

/* NumPy computes 1.0/x and casts: 1 and -1 are exact, other x truncate to 0, and 1/0 = inf
 * casts to what x86-64 produces (INT_MIN for 32- and 64-bit signed types, 0 otherwise). */
template <class T> LOOM__D T loom__irecip(T x) {
    if (x == 0)
        return loom__int<T>::bits >= 32 ? loom__imin<T>() : (T)0;
    if (x == 1 || (loom__int<T>::is_signed && x == (T)-1))
        return x;
    return 0;
}

/* x // 0 = 0 and x % 0 = 0 (NumPy's results; it also warns); MIN // -1 wraps to MIN. */
template <class T> LOOM__D T loom__ifloor_divide(T a, T b) {
    if (b == 0)
        return 0;
    if constexpr (loom__int<T>::is_signed) {
        if (b == (T)-1)
            return loom__ineg(a);
        T q = (T)(a / b);
        if (a % b != 0 && ((a < 0) != (b < 0)))
            q = (T)(q - 1);
        return q;
    } else {
        return (T)(a / b);
    }
}
template <class T> LOOM__D T loom__iremainder(T a, T b) {
    if (b == 0)
        return 0;
    if constexpr (loom__int<T>::is_signed) {
        if (b == (T)-1)
            return 0;
        T r = (T)(a % b);
        if (r != 0 && ((r < 0) != (b < 0)))
            r = (T)(r + b);
        return r;
    } else {
        return (T)(a % b);
    }
}
template <class T> LOOM__D T loom__ifmod(T a, T b) {
    if (b == 0 || (loom__int<T>::is_signed && b == (T)-1))
        return 0;
    return (T)(a % b);
}

/* Power by squaring, wrapping. NumPy raises for a negative exponent; Loom cannot raise on the
 * device and returns the truncated exact value instead: 1 for base 1, +-1 for base -1 (by
 * the exponent's parity), 0 for every other base (0 included). */
template <class T> LOOM__D T loom__ipower(T a, T b) {
    if (loom__ilt0(b)) {
        if (a == 1)
            return 1;
        if (loom__int<T>::is_signed && a == (T)-1)
            return (b & 1) ? (T)-1 : (T)1;
        return 0;
    }
    LOOM__U(T) base = (LOOM__U(T))a, acc = 1;
    for (unsigned long long e = (unsigned long long)b; e != 0; e >>= 1) {
        if (e & 1)
            acc *= base;
        base *= base;
    }
    return (T)acc;
}

/* NumPy: a shift by a negative count or by >= the bit width gives 0 (left and unsigned right)
 * or the sign fill, 0 or -1 (signed right). */
template <class T> LOOM__D bool loom__shift_ok(T b) {
    return (unsigned long long)(long long)b < (unsigned long long)loom__int<T>::bits;
}
template <class T> LOOM__D T loom__ileft_shift(T a, T b) {
    return loom__shift_ok(b) ? (T)((LOOM__U(T))a << b) : (T)0;
}
template <class T> LOOM__D T loom__iright_shift(T a, T b) {
    if (loom__shift_ok(b))
        return (T)(a >> b);
    return loom__ilt0(a) ? (T)-1 : (T)0;
}

/* np.round of an integer: identity for decimals >= 0, else rint(x / 10^-d) * 10^-d computed in
 * float64 and cast back, as NumPy does. */
template <class T> LOOM__D T loom__iround(T x, int decimals) {
    if (decimals >= 0)
        return x;
    return loom_cast<T>(loom__round(loom_cast<double>(x), decimals));
}

#define LOOM__INT_OPS(T)                                                                          \
    LOOM__D T loom_negative(T x) { return loom__ineg(x); }                                        \
    LOOM__D T loom_positive(T x) { return x; }                                                    \
    LOOM__D T loom_absolute(T x) { return loom__iabs(x); }                                        \
    LOOM__D T loom_sign(T x) { return loom__isign(x); }                                           \
    LOOM__D T loom_reciprocal(T x) { return loom__irecip(x); }                                    \
    LOOM__D T loom_square(T x) { return loom__imul(x, x); }                                       \
    LOOM__D T loom_floor(T x) { return x; }                                                       \
    LOOM__D T loom_ceil(T x) { return x; }                                                        \
    LOOM__D T loom_trunc(T x) { return x; }                                                       \
    LOOM__D T loom_invert(T x) { return (T)~x; }                                                  \
    LOOM__D T loom_conjugate(T x) { return x; }                                                   \
    LOOM__D T loom_real(T x) { return x; }                                                        \
    LOOM__D T loom_imag(T) { return 0; }                                                          \
    LOOM__D bool loom_logical_not(T x) { return x == 0; }                                         \
    LOOM__D bool loom_isnan(T) { return false; }                                                  \
    LOOM__D bool loom_isinf(T) { return false; }                                                  \
    LOOM__D bool loom_isfinite(T) { return true; }                                                \
    LOOM__D bool loom_signbit(T x) { return loom__ilt0(x); }                                      \
    LOOM__D T loom_round(T x, int decimals) { return loom__iround(x, decimals); }                 \
    LOOM__D T loom_add(T a, T b) { return loom__iadd(a, b); }                                     \
    LOOM__D T loom_subtract(T a, T b) { return loom__isub(a, b); }                                \
    LOOM__D T loom_multiply(T a, T b) { return loom__imul(a, b); }                                \
    LOOM__D T loom_floor_divide(T a, T b) { return loom__ifloor_divide(a, b); }                   \
    LOOM__D T loom_remainder(T a, T b) { return loom__iremainder(a, b); }                         \
    LOOM__D T loom_fmod(T a, T b) { return loom__ifmod(a, b); }                                   \
    LOOM__D T loom_power(T a, T b) { return loom__ipower(a, b); }                                 \
    LOOM__D T loom_maximum(T a, T b) { return a > b ? a : b; }                                    \
    LOOM__D T loom_minimum(T a, T b) { return a < b ? a : b; }                                    \
    LOOM__D T loom_fmax(T a, T b) { return a > b ? a : b; }                                       \
    LOOM__D T loom_fmin(T a, T b) { return a < b ? a : b; }                                       \
    LOOM__D T loom_bitwise_and(T a, T b) { return (T)(a & b); }                                   \
    LOOM__D T loom_bitwise_or(T a, T b) { return (T)(a | b); }                                    \
    LOOM__D T loom_bitwise_xor(T a, T b) { return (T)(a ^ b); }                                   \
    LOOM__D T loom_left_shift(T a, T b) { return loom__ileft_shift(a, b); }                       \
    LOOM__D T loom_right_shift(T a, T b) { return loom__iright_shift(a, b); }
LOOM__INTS(LOOM__INT_OPS)
#undef LOOM__INT_OPS
#undef LOOM__U

/* NumPy's qQ/Qq comparison loops: int64 against uint64 by value, with no float detour. */
LOOM__D int loom__cmp(lt_int64 a, lt_uint64 b) {
    if (a < 0)
        return -1;
    return (lt_uint64)a < b ? -1 : ((lt_uint64)a > b ? 1 : 0);
}
LOOM__D int loom__cmp(lt_uint64 a, lt_int64 b) { return -loom__cmp(b, a); }
#define LOOM__MIXED_COMPARE(A, B)                                                                 \
    LOOM__D bool loom_equal(A a, B b) { return loom__cmp(a, b) == 0; }                            \
    LOOM__D bool loom_not_equal(A a, B b) { return loom__cmp(a, b) != 0; }                        \
    LOOM__D bool loom_less(A a, B b) { return loom__cmp(a, b) < 0; }                              \
    LOOM__D bool loom_less_equal(A a, B b) { return loom__cmp(a, b) <= 0; }                       \
    LOOM__D bool loom_greater(A a, B b) { return loom__cmp(a, b) > 0; }                           \
    LOOM__D bool loom_greater_equal(A a, B b) { return loom__cmp(a, b) >= 0; }
LOOM__MIXED_COMPARE(lt_int64, lt_uint64)
LOOM__MIXED_COMPARE(lt_uint64, lt_int64)
#undef LOOM__MIXED_COMPARE
#endif /* LOOM_NEED_INT */
#undef LOOM__COMPARE

/* ---------------------------------------------------------------------------------------- */
/* float32, float64                                                                         */
/* ---------------------------------------------------------------------------------------- */

/* NumPy 2: sign(+-0) = +0, sign(NaN) = NaN. */
template <class F> LOOM__D F loom__fsign(F x) {
    return x > F(0) ? F(1) : (x < F(0) ? F(-1) : (x == F(0) ? F(0) : x));
}
/* NumPy's constants are computed in the type itself (NPY_PIf / 180.0f for float32). */
template <class F> LOOM__D F loom__deg2rad(F x) {
    return loom__mul(x, F(3.141592653589793238462643383279502884) / F(180));
}
template <class F> LOOM__D F loom__rad2deg(F x) {
    return loom__mul(x, F(180) / F(3.141592653589793238462643383279502884));
}

#define LOOM__FLOAT_OPS(F)                                                                        \
    LOOM__D F loom_negative(F x) { return -x; }                                                   \
    LOOM__D F loom_positive(F x) { return x; }                                                    \
    LOOM__D F loom_absolute(F x) { return loom__fabs(x); }                                        \
    LOOM__D F loom_sign(F x) { return loom__fsign(x); }                                           \
    LOOM__D F loom_reciprocal(F x) { return loom__div(F(1), x); }                                 \
    LOOM__D F loom_square(F x) { return loom__mul(x, x); }                                        \
    LOOM__D F loom_sqrt(F x) { return loom__sqrt(x); }                                            \
    LOOM__D F loom_cbrt(F x) { return loom__cbrt(x); }                                            \
    LOOM__D F loom_exp(F x) { return loom__exp(x); }                                              \
    LOOM__D F loom_exp2(F x) { return loom__exp2(x); }                                            \
    LOOM__D F loom_expm1(F x) { return loom__expm1(x); }                                          \
    LOOM__D F loom_log(F x) { return loom__log(x); }                                              \
    LOOM__D F loom_log2(F x) { return loom__log2(x); }                                            \
    LOOM__D F loom_log10(F x) { return loom__log10(x); }                                          \
    LOOM__D F loom_log1p(F x) { return loom__log1p(x); }                                          \
    LOOM__D F loom_sin(F x) { return loom__sin(x); }                                              \
    LOOM__D F loom_cos(F x) { return loom__cos(x); }                                              \
    LOOM__D F loom_tan(F x) { return loom__tan(x); }                                              \
    LOOM__D F loom_arcsin(F x) { return loom__asin(x); }                                          \
    LOOM__D F loom_arccos(F x) { return loom__acos(x); }                                          \
    LOOM__D F loom_arctan(F x) { return loom__atan(x); }                                          \
    LOOM__D F loom_sinh(F x) { return loom__sinh(x); }                                            \
    LOOM__D F loom_cosh(F x) { return loom__cosh(x); }                                            \
    LOOM__D F loom_tanh(F x) { return loom__tanh(x); }                                            \
    LOOM__D F loom_arcsinh(F x) { return loom__asinh(x); }                                        \
    LOOM__D F loom_arccosh(F x) { return loom__acosh(x); }                                        \
    LOOM__D F loom_arctanh(F x) { return loom__atanh(x); }                                        \
    LOOM__D F loom_deg2rad(F x) { return loom__deg2rad(x); }                                      \
    LOOM__D F loom_rad2deg(F x) { return loom__rad2deg(x); }                                      \
    LOOM__D F loom_floor(F x) { return loom__floor(x); }                                          \
    LOOM__D F loom_ceil(F x) { return loom__ceil(x); }                                            \
    LOOM__D F loom_trunc(F x) { return loom__trunc(x); }                                          \
    LOOM__D F loom_rint(F x) { return loom__rint(x); }                                            \
    LOOM__D F loom_conjugate(F x) { return x; }                                                   \
    LOOM__D F loom_real(F x) { return x; }                                                        \
    LOOM__D F loom_imag(F) { return F(0); }                                                       \
    LOOM__D F loom_angle(F x) { return loom__atan2(F(0), x); }                                    \
    LOOM__D bool loom_logical_not(F x) { return x == F(0); }                                      \
    LOOM__D bool loom_isnan(F x) { return loom__isnan(x); }                                       \
    LOOM__D bool loom_isinf(F x) { return loom__isinf(x); }                                       \
    LOOM__D bool loom_isfinite(F x) { return loom__isfinite(x); }                                 \
    LOOM__D bool loom_signbit(F x) { return loom__signbit(x); }                                   \
    LOOM__D F loom_round(F x, int decimals) { return loom__round(x, decimals); }                  \
    LOOM__D F loom_add(F a, F b) { return loom__add(a, b); }                                      \
    LOOM__D F loom_subtract(F a, F b) { return loom__sub(a, b); }                                 \
    LOOM__D F loom_multiply(F a, F b) { return loom__mul(a, b); }                                 \
    LOOM__D F loom_divide(F a, F b) { return loom__div(a, b); }                                   \
    LOOM__D F loom_floor_divide(F a, F b) { return loom__floor_divide(a, b); }                    \
    LOOM__D F loom_remainder(F a, F b) { return loom__remainder(a, b); }                          \
    LOOM__D F loom_fmod(F a, F b) { return loom__fmod(a, b); }                                    \
    LOOM__D F loom_power(F a, F b) { return loom__pow(a, b); }                                    \
    LOOM__D F loom_arctan2(F a, F b) { return loom__atan2(a, b); }                                \
    LOOM__D F loom_hypot(F a, F b) { return loom__hypot(a, b); }                                  \
    LOOM__D F loom_logaddexp(F a, F b) { return loom__logaddexp(a, b); }                          \
    LOOM__D F loom_logaddexp2(F a, F b) { return loom__logaddexp2(a, b); }                        \
    LOOM__D F loom_copysign(F a, F b) { return loom__copysign(a, b); }                            \
    /* NumPy's SIMD loops: a tie (+0 vs -0) picks b */                                            \
    LOOM__D F loom_maximum(F a, F b) { return (a > b || loom__isnan(a)) ? a : b; }                \
    LOOM__D F loom_minimum(F a, F b) { return (a < b || loom__isnan(a)) ? a : b; }                \
    LOOM__D F loom_fmax(F a, F b) { return (a > b || loom__isnan(b)) ? a : b; }                   \
    LOOM__D F loom_fmin(F a, F b) { return (a < b || loom__isnan(b)) ? a : b; }
LOOM__FLOATS(LOOM__FLOAT_OPS)
#undef LOOM__FLOAT_OPS

/* ---------------------------------------------------------------------------------------- */
/* float16, bfloat16: float32 arithmetic, one rounding                                      */
/* ---------------------------------------------------------------------------------------- */

#ifdef LOOM_NEED_HALF

#define LOOM__VIA1(T, name)                                                                       \
    LOOM__D T loom_##name(T x) { return loom__narrow<T>(loom_##name(loom__widen(x))); }
#define LOOM__VIA1_BOOL(T, name)                                                                  \
    LOOM__D bool loom_##name(T x) { return loom_##name(loom__widen(x)); }
#define LOOM__VIA2(T, name)                                                                       \
    LOOM__D T loom_##name(T a, T b) {                                                             \
        return loom__narrow<T>(loom_##name(loom__widen(a), loom__widen(b)));                      \
    }
#define LOOM__VIA2_BOOL(T, name)                                                                  \
    LOOM__D bool loom_##name(T a, T b) { return loom_##name(loom__widen(a), loom__widen(b)); }

/* np.round in a 16-bit type: each of NumPy's three steps rounds to the storage type. */
template <class T> LOOM__D T loom__hround(T x, int decimals) {
    const int d = decimals < -400 ? -400 : (decimals > 400 ? 400 : decimals);
    const float f = loom__widen(loom_cast<T>(loom__pow10(d < 0 ? -d : d)));
    const float xs = loom__widen(x);
    const float y = loom__widen(loom__narrow<T>(d >= 0 ? loom__mul(xs, f) : loom__div(xs, f)));
    const float r = loom__rint(y);
    return loom__narrow<T>(d >= 0 ? loom__div(r, f) : loom__mul(r, f));
}

#define LOOM__HALF_OPS(T)                                                                         \
    LOOM__VIA1(T, negative) LOOM__VIA1(T, absolute) LOOM__VIA1(T, reciprocal)                     \
    LOOM__VIA1(T, square) LOOM__VIA1(T, sqrt) LOOM__VIA1(T, cbrt) LOOM__VIA1(T, exp)              \
    LOOM__VIA1(T, exp2) LOOM__VIA1(T, expm1) LOOM__VIA1(T, log) LOOM__VIA1(T, log2)               \
    LOOM__VIA1(T, log10) LOOM__VIA1(T, log1p) LOOM__VIA1(T, sin) LOOM__VIA1(T, cos)               \
    LOOM__VIA1(T, tan) LOOM__VIA1(T, arcsin) LOOM__VIA1(T, arccos) LOOM__VIA1(T, arctan)          \
    LOOM__VIA1(T, sinh) LOOM__VIA1(T, cosh) LOOM__VIA1(T, tanh) LOOM__VIA1(T, arcsinh)            \
    LOOM__VIA1(T, arccosh) LOOM__VIA1(T, arctanh) LOOM__VIA1(T, deg2rad)                          \
    LOOM__VIA1(T, rad2deg) LOOM__VIA1(T, floor) LOOM__VIA1(T, ceil) LOOM__VIA1(T, trunc)          \
    LOOM__VIA1(T, rint) LOOM__VIA1(T, angle)                                                      \
    LOOM__VIA1_BOOL(T, logical_not) LOOM__VIA1_BOOL(T, isnan) LOOM__VIA1_BOOL(T, isinf)           \
    LOOM__VIA1_BOOL(T, isfinite) LOOM__VIA1_BOOL(T, signbit)                                      \
    LOOM__VIA2(T, add) LOOM__VIA2(T, subtract) LOOM__VIA2(T, multiply) LOOM__VIA2(T, divide)      \
    LOOM__VIA2(T, floor_divide) LOOM__VIA2(T, remainder) LOOM__VIA2(T, fmod)                      \
    LOOM__VIA2(T, power) LOOM__VIA2(T, arctan2) LOOM__VIA2(T, hypot) LOOM__VIA2(T, logaddexp)     \
    LOOM__VIA2(T, logaddexp2) LOOM__VIA2(T, copysign)                                             \
    LOOM__VIA2_BOOL(T, equal) LOOM__VIA2_BOOL(T, not_equal) LOOM__VIA2_BOOL(T, less)              \
    LOOM__VIA2_BOOL(T, less_equal) LOOM__VIA2_BOOL(T, greater) LOOM__VIA2_BOOL(T, greater_equal)  \
    LOOM__VIA2_BOOL(T, logical_and) LOOM__VIA2_BOOL(T, logical_or)                                \
    LOOM__VIA2_BOOL(T, logical_xor)                                                               \
    LOOM__D T loom_positive(T x) { return x; }                                                    \
    LOOM__D T loom_conjugate(T x) { return x; }                                                   \
    LOOM__D T loom_real(T x) { return x; }                                                        \
    LOOM__D T loom_imag(T) { return loom__narrow<T>(0.0f); }                                      \
    LOOM__D T loom_round(T x, int decimals) { return loom__hround(x, decimals); }
LOOM__HALVES(LOOM__HALF_OPS)
#undef LOOM__HALF_OPS

/* float16 as NumPy's half loops: sign(+-0) = +0, a +-0 tie keeps a. */
LOOM__VIA1(lt_float16, sign)
LOOM__D lt_float16 loom_maximum(lt_float16 a, lt_float16 b) {
    const float x = loom__widen(a), y = loom__widen(b);
    return (x >= y || loom__isnan(x)) ? a : b;
}
LOOM__D lt_float16 loom_minimum(lt_float16 a, lt_float16 b) {
    const float x = loom__widen(a), y = loom__widen(b);
    return (x <= y || loom__isnan(x)) ? a : b;
}
LOOM__D lt_float16 loom_fmax(lt_float16 a, lt_float16 b) {
    const float x = loom__widen(a), y = loom__widen(b);
    return (x >= y || loom__isnan(y)) ? a : b;
}
LOOM__D lt_float16 loom_fmin(lt_float16 a, lt_float16 b) {
    const float x = loom__widen(a), y = loom__widen(b);
    return (x <= y || loom__isnan(y)) ? a : b;
}

/* bfloat16 as ml_dtypes: sign(+-0) keeps the zero, a +-0 tie picks b (as float32 does). */
LOOM__D lt_bfloat16 loom_sign(lt_bfloat16 x) {
    return loom__widen(x) == 0.0f ? x : loom__narrow<lt_bfloat16>(loom__fsign(loom__widen(x)));
}
LOOM__VIA2(lt_bfloat16, maximum)
LOOM__VIA2(lt_bfloat16, minimum)
LOOM__VIA2(lt_bfloat16, fmax)
LOOM__VIA2(lt_bfloat16, fmin)
#undef LOOM__VIA1
#undef LOOM__VIA1_BOOL
#undef LOOM__VIA2
#undef LOOM__VIA2_BOOL
#endif /* LOOM_NEED_HALF */

/* ---------------------------------------------------------------------------------------- */
/* complex64, complex128                                                                    */
/* ---------------------------------------------------------------------------------------- */

#ifdef LOOM_NEED_COMPLEX

template <class C> LOOM__D bool loom__cnonzero(C z) { return z.re != 0 || z.im != 0; }

#define LOOM__COMPLEX_OPS(C)                                                                      \
    LOOM__D C loom_negative(C x) { return loom__cneg(x); }                                        \
    LOOM__D C loom_positive(C x) { return x; }                                                    \
    LOOM__D loom__part<C>::type loom_absolute(C x) { return loom__cabs(x); }                      \
    LOOM__D C loom_sign(C x) { return loom__csign(x); }                                           \
    LOOM__D C loom_reciprocal(C x) { return loom__creciprocal(x); }                               \
    LOOM__D C loom_square(C x) { return loom__cmul(x, x); }                                       \
    LOOM__D C loom_sqrt(C x) { return loom__csqrt(x); }                                           \
    LOOM__D C loom_exp(C x) { return loom__cexp(x); }                                             \
    LOOM__D C loom_exp2(C x) { return loom__cexp2(x); }                                           \
    LOOM__D C loom_expm1(C x) { return loom__cexpm1(x); }                                         \
    LOOM__D C loom_log(C x) { return loom__clog(x); }                                             \
    LOOM__D C loom_log2(C x) {                                                                    \
        return loom__cscale(loom__clog(x), loom__part<C>::type(1.442695040888963407359924681));   \
    }                                                                                             \
    LOOM__D C loom_log10(C x) {                                                                   \
        return loom__cscale(loom__clog(x), loom__part<C>::type(0.434294481903251827651128918));   \
    }                                                                                             \
    LOOM__D C loom_log1p(C x) { return loom__clog1p(x); }                                         \
    LOOM__D C loom_sin(C x) { return loom__csin(x); }                                             \
    LOOM__D C loom_cos(C x) { return loom__ccos(x); }                                             \
    LOOM__D C loom_tan(C x) { return loom__ctan(x); }                                             \
    LOOM__D C loom_arcsin(C x) { return loom__casin(x); }                                         \
    LOOM__D C loom_arccos(C x) { return loom__cacos(x); }                                         \
    LOOM__D C loom_arctan(C x) { return loom__catan(x); }                                         \
    LOOM__D C loom_sinh(C x) { return loom__csinh(x); }                                           \
    LOOM__D C loom_cosh(C x) { return loom__ccosh(x); }                                           \
    LOOM__D C loom_tanh(C x) { return loom__ctanh(x); }                                           \
    LOOM__D C loom_arcsinh(C x) { return loom__casinh(x); }                                       \
    LOOM__D C loom_arccosh(C x) { return loom__cacosh(x); }                                       \
    LOOM__D C loom_arctanh(C x) { return loom__catanh(x); }                                       \
    LOOM__D C loom_rint(C x) { return loom__c<C>(loom__rint(x.re), loom__rint(x.im)); }           \
    LOOM__D C loom_conjugate(C x) { return loom__cconj(x); }                                      \
    LOOM__D loom__part<C>::type loom_real(C x) { return x.re; }                                   \
    LOOM__D loom__part<C>::type loom_imag(C x) { return x.im; }                                   \
    LOOM__D loom__part<C>::type loom_angle(C x) { return loom__carg(x); }                         \
    LOOM__D bool loom_logical_not(C x) { return !loom__cnonzero(x); }                             \
    LOOM__D bool loom_isnan(C x) { return loom__cisnan(x); }                                      \
    LOOM__D bool loom_isinf(C x) { return loom__isinf(x.re) || loom__isinf(x.im); }               \
    LOOM__D bool loom_isfinite(C x) { return loom__isfinite(x.re) && loom__isfinite(x.im); }      \
    /* NumPy rounds the two parts separately */                                                   \
    LOOM__D C loom_round(C x, int d) {                                                            \
        return loom__c<C>(loom__round(x.re, d), loom__round(x.im, d));                            \
    }                                                                                             \
    LOOM__D C loom_add(C a, C b) { return loom__cadd(a, b); }                                     \
    LOOM__D C loom_subtract(C a, C b) { return loom__csub(a, b); }                                \
    LOOM__D C loom_multiply(C a, C b) { return loom__cmul(a, b); }                                \
    LOOM__D C loom_divide(C a, C b) { return loom__cdiv(a, b); }                                  \
    LOOM__D C loom_power(C a, C b) { return loom__cpow(a, b); }                                   \
    LOOM__D C loom_maximum(C a, C b) { return (loom__cisnan(a) || loom__cge(a, b)) ? a : b; }     \
    LOOM__D C loom_minimum(C a, C b) { return (loom__cisnan(a) || loom__cle(a, b)) ? a : b; }     \
    LOOM__D C loom_fmax(C a, C b) { return (loom__cisnan(b) || loom__cge(a, b)) ? a : b; }        \
    LOOM__D C loom_fmin(C a, C b) { return (loom__cisnan(b) || loom__cle(a, b)) ? a : b; }        \
    LOOM__D bool loom_equal(C a, C b) { return a.re == b.re && a.im == b.im; }                    \
    LOOM__D bool loom_not_equal(C a, C b) { return a.re != b.re || a.im != b.im; }                \
    LOOM__D bool loom_less(C a, C b) { return loom__clt(a, b); }                                  \
    LOOM__D bool loom_less_equal(C a, C b) { return loom__cle(a, b); }                            \
    LOOM__D bool loom_greater(C a, C b) { return loom__cgt(a, b); }                               \
    LOOM__D bool loom_greater_equal(C a, C b) { return loom__cge(a, b); }                         \
    LOOM__D bool loom_logical_and(C a, C b) { return loom__cnonzero(a) && loom__cnonzero(b); }    \
    LOOM__D bool loom_logical_or(C a, C b) { return loom__cnonzero(a) || loom__cnonzero(b); }     \
    LOOM__D bool loom_logical_xor(C a, C b) { return loom__cnonzero(a) != loom__cnonzero(b); }
LOOM__COMPLEXES(LOOM__COMPLEX_OPS)
#undef LOOM__COMPLEX_OPS
#endif /* LOOM_NEED_COMPLEX */

#endif /* LOOM_OPS_CUH */
