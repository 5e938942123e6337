/* Loom device types: the C++ type behind each loom dtype in generated kernels, and the small
 * traits the other device headers share. Compiled by NVRTC (C++17); needs only the CUDA
 * include directory (cuda_fp16.h, cuda_bf16.h). The type of dtype "X" is lt_X.
 *
 * Parsing every op of every dtype dominated a kernel's compile time, so three groups exist
 * only when the kernel defines their macro before including loom_device.cuh (the generator
 * does, for the dtypes its values have): LOOM_NEED_HALF (float16, bfloat16 and the CUDA
 * headers behind them), LOOM_NEED_COMPLEX (complex64, complex128) and LOOM_NEED_INT (the
 * integer ops; the integer types and casts always exist). Without its macro a dtype's type
 * or op is undeclared: a compile error, never a different overload. */
#ifndef LOOM_TYPES_CUH
#define LOOM_TYPES_CUH

#ifdef LOOM_NEED_HALF
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#endif

#define LOOM__D __device__ __forceinline__

typedef bool lt_bool;
typedef signed char lt_int8;
typedef short lt_int16;
typedef int lt_int32;
typedef long long lt_int64;
typedef unsigned char lt_uint8;
typedef unsigned short lt_uint16;
typedef unsigned int lt_uint32;
typedef unsigned long long lt_uint64;
typedef float lt_float32;
typedef double lt_float64;
#ifdef LOOM_NEED_HALF
typedef __half lt_float16;
typedef __nv_bfloat16 lt_bfloat16;
#endif

#ifdef LOOM_NEED_COMPLEX
/* NumPy's complex layout: real part first, aligned like two components. */
struct __align__(8) loom_c64 {
    float re, im;
};
struct __align__(16) loom_c128 {
    double re, im;
};
typedef loom_c64 lt_complex64;
typedef loom_c128 lt_complex128;
#endif

/* loom_dtype_id<T>::value is T's loom_dtype enum value (LOOM_BOOL = 0 ... LOOM_COMPLEX128). */
template <class T> struct loom_dtype_id;
#define LOOM__DTYPE_ID(T, V)                                                                      \
    template <> struct loom_dtype_id<T> {                                                         \
        static const int value = V;                                                               \
    };
LOOM__DTYPE_ID(lt_bool, 0)
LOOM__DTYPE_ID(lt_int8, 1)
LOOM__DTYPE_ID(lt_int16, 2)
LOOM__DTYPE_ID(lt_int32, 3)
LOOM__DTYPE_ID(lt_int64, 4)
LOOM__DTYPE_ID(lt_uint8, 5)
LOOM__DTYPE_ID(lt_uint16, 6)
LOOM__DTYPE_ID(lt_uint32, 7)
LOOM__DTYPE_ID(lt_uint64, 8)
LOOM__DTYPE_ID(lt_float32, 11)
LOOM__DTYPE_ID(lt_float64, 12)
#ifdef LOOM_NEED_HALF
LOOM__DTYPE_ID(lt_float16, 9)
LOOM__DTYPE_ID(lt_bfloat16, 10)
#endif
#ifdef LOOM_NEED_COMPLEX
LOOM__DTYPE_ID(lt_complex64, 13)
LOOM__DTYPE_ID(lt_complex128, 14)
#endif
#undef LOOM__DTYPE_ID

/* Type lists for X-macros. */
#define LOOM__SINTS(X) X(lt_int8) X(lt_int16) X(lt_int32) X(lt_int64)
#define LOOM__UINTS(X) X(lt_uint8) X(lt_uint16) X(lt_uint32) X(lt_uint64)
#define LOOM__INTS(X) LOOM__SINTS(X) LOOM__UINTS(X)
#define LOOM__FLOATS(X) X(lt_float32) X(lt_float64)

/* Integer traits. Arithmetic happens in the unsigned type U (at least int wide) so that
 * overflow wraps instead of being undefined, as NumPy's results do. */
template <class T> struct loom__int;
#define LOOM__INT_TRAITS(T, U, BITS, SIGNED)                                                      \
    template <> struct loom__int<T> {                                                             \
        typedef U u;                                                                              \
        static const int bits = BITS;                                                             \
        static const bool is_signed = SIGNED;                                                     \
    };
LOOM__INT_TRAITS(lt_int8, unsigned int, 8, true)
LOOM__INT_TRAITS(lt_int16, unsigned int, 16, true)
LOOM__INT_TRAITS(lt_int32, unsigned int, 32, true)
LOOM__INT_TRAITS(lt_int64, unsigned long long, 64, true)
LOOM__INT_TRAITS(lt_uint8, unsigned int, 8, false)
LOOM__INT_TRAITS(lt_uint16, unsigned int, 16, false)
LOOM__INT_TRAITS(lt_uint32, unsigned int, 32, false)
LOOM__INT_TRAITS(lt_uint64, unsigned long long, 64, false)
#undef LOOM__INT_TRAITS

#ifdef LOOM_NEED_COMPLEX
#define LOOM__COMPLEXES(X) X(lt_complex64) X(lt_complex128)
/* The component type of a complex type. */
template <class C> struct loom__part;
template <> struct loom__part<loom_c64> {
    typedef float type;
};
template <> struct loom__part<loom_c128> {
    typedef double type;
};
#endif

#ifdef LOOM_NEED_HALF
#define LOOM__HALVES(X) X(lt_float16) X(lt_bfloat16)
/* float16 and bfloat16 compute in float32 and round once to storage. */
LOOM__D float loom__widen(lt_float16 x) { return __half2float(x); }
LOOM__D float loom__widen(lt_bfloat16 x) { return __bfloat162float(x); }
template <class T> LOOM__D T loom__narrow(float x);
template <> LOOM__D lt_float16 loom__narrow<lt_float16>(float x) { return __float2half_rn(x); }
template <> LOOM__D lt_bfloat16 loom__narrow<lt_bfloat16>(float x) { return __float2bfloat16_rn(x); }
#endif

#endif /* LOOM_TYPES_CUH */
