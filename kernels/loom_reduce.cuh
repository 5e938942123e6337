/* Device helpers of generated reduction kernels: identities, combine functions, the
 * (value, index) accumulator of argmax/argmin, warp shuffles for every accumulator type, and
 * the team reduction. Included after loom_device.cuh by reduction kernels only.
 *
 * Determinism: every combination happens in an order fixed by the kernel's geometry (xor
 * butterflies inside warps, then warps in index order), never by timing, and every combine
 * is symmetric (f(a, b) == f(b, a) bit for bit), so all lanes of a butterfly agree. */
#ifndef LOOM_REDUCE_CUH
#define LOOM_REDUCE_CUH

/* ---- identities ---- */

template <class T> struct loom__limits;
#define LOOM__INT_LIMITS(T, LO, HI)                                                               \
    template <> struct loom__limits<T> {                                                          \
        static LOOM__D T lowest() { return (T)(LO); }                                             \
        static LOOM__D T highest() { return (T)(HI); }                                            \
    };
LOOM__INT_LIMITS(lt_bool, false, true)
LOOM__INT_LIMITS(lt_int8, -128, 127)
LOOM__INT_LIMITS(lt_int16, -32768, 32767)
LOOM__INT_LIMITS(lt_int32, -2147483647 - 1, 2147483647)
LOOM__INT_LIMITS(lt_int64, -9223372036854775807LL - 1, 9223372036854775807LL)
LOOM__INT_LIMITS(lt_uint8, 0, 255)
LOOM__INT_LIMITS(lt_uint16, 0, 65535)
LOOM__INT_LIMITS(lt_uint32, 0, 4294967295u)
LOOM__INT_LIMITS(lt_uint64, 0, 18446744073709551615ull)
#undef LOOM__INT_LIMITS

/* Floats (and complex numbers, through loom_cast of a real) use +-inf; NaN is nanmax's. */
template <class T> LOOM__D T loom_red_lowest() { return loom_cast<T>(-__int_as_float(0x7f800000)); }
template <class T> LOOM__D T loom_red_highest() { return loom_cast<T>(__int_as_float(0x7f800000)); }
template <class T> LOOM__D T loom_red_nan() { return loom_cast<T>(__int_as_float(0x7fc00000)); }
#define LOOM__INT_EXTREMES(T)                                                                     \
    template <> LOOM__D T loom_red_lowest<T>() { return loom__limits<T>::lowest(); }              \
    template <> LOOM__D T loom_red_highest<T>() { return loom__limits<T>::highest(); }            \
    template <> LOOM__D T loom_red_nan<T>() { return loom__limits<T>::lowest(); }
LOOM__INT_EXTREMES(lt_bool)
LOOM__INTS(LOOM__INT_EXTREMES)
#undef LOOM__INT_EXTREMES

/* ---- argmax / argmin ---- */

/* A candidate: the value and its index along the reduced axis; i < 0 means none yet. */
template <class T> struct loom_argacc {
    T v;
    long long i;
};

template <class T> LOOM__D loom_argacc<T> loom_argacc_none()
{
    loom_argacc<T> a;
    a.v = loom_cast<T>(0);
    a.i = -1;
    return a;
}

/* Picks between two candidates: the greater (MAX) or smaller value, the first index on ties;
 * a NaN wins (NumPy's argmax) unless SKIPNAN (nanargmax), where it is compared as -inf (MAX)
 * or +inf (MIN), NumPy's own definition: so it ties with a real -inf and the first index
 * wins (nanargmax([nan, -inf]) is 0), and a complex NaN is -inf+0j. */
template <bool MAX, bool SKIPNAN, class T>
LOOM__D loom_argacc<T> loom_red_arg(loom_argacc<T> a, loom_argacc<T> b)
{
    if (a.i < 0)
        return b;
    if (b.i < 0)
        return a;
    const bool an = loom_isnan(a.v), bn = loom_isnan(b.v);
    T av = a.v, bv = b.v;
    if (SKIPNAN) {
        const T skipped = MAX ? loom_red_lowest<T>() : loom_red_highest<T>();
        av = an ? skipped : av;
        bv = bn ? skipped : bv;
    }
    bool take_a;
    if (!SKIPNAN && (an || bn))
        take_a = an && bn ? a.i < b.i : an;
    else if (MAX ? loom_greater(av, bv) : loom_less(av, bv))
        take_a = true;
    else if (MAX ? loom_less(av, bv) : loom_greater(av, bv))
        take_a = false;
    else
        take_a = a.i < b.i;
    return take_a ? a : b;
}

/* ---- reductions without an identity (user reduction kernels) ---- */

/* A partial result that may hold nothing yet (has == 0): the first element seeds it. */
template <class T> struct loom_maybe {
    T v;
    int has;
};

/* ---- shuffles ---- */

template <class T> LOOM__D T loom_shfl_xor(T v, int m)
{
    static_assert(sizeof(T) % 4 == 0, "accumulators are 4, 8 or 16 bytes here");
    union {
        T t;
        unsigned w[sizeof(T) / 4];
    } u;
    u.t = v;
#pragma unroll
    for (int k = 0; k < (int)(sizeof(T) / 4); k++)
        u.w[k] = __shfl_xor_sync(0xffffffffu, u.w[k], m);
    return u.t;
}
LOOM__D bool loom_shfl_xor(bool v, int m) { return __shfl_xor_sync(0xffffffffu, (int)v, m) != 0; }
#define LOOM__SMALL_SHFL(T)                                                                       \
    LOOM__D T loom_shfl_xor(T v, int m) { return (T)__shfl_xor_sync(0xffffffffu, (int)v, m); }
LOOM__SMALL_SHFL(lt_int8)
LOOM__SMALL_SHFL(lt_int16)
LOOM__SMALL_SHFL(lt_uint8)
LOOM__SMALL_SHFL(lt_uint16)
#undef LOOM__SMALL_SHFL
#ifdef LOOM_NEED_HALF
LOOM__D lt_float16 loom_shfl_xor(lt_float16 v, int m) { return __shfl_xor_sync(0xffffffffu, v, m); }
LOOM__D lt_bfloat16 loom_shfl_xor(lt_bfloat16 v, int m) { return __shfl_xor_sync(0xffffffffu, v, m); }
#endif
template <class T> LOOM__D loom_argacc<T> loom_shfl_xor(loom_argacc<T> a, int m)
{
    a.v = loom_shfl_xor(a.v, m);
    a.i = loom_shfl_xor(a.i, m);
    return a;
}

template <class T> LOOM__D loom_maybe<T> loom_shfl_xor(loom_maybe<T> a, int m)
{
    a.v = loom_shfl_xor(a.v, m);
    a.has = __shfl_xor_sync(0xffffffffu, a.has, m);
    return a;
}

/* ---- team reduction ---- */

/* Combines v over each aligned team of TEAM threads (a power of two up to 1024); every thread
 * of the team gets the result. sh holds at least blockDim.x / 32 values. Every thread of the
 * block must call it (it synchronises when a team spans several warps). */
template <int TEAM, class A, class F> LOOM__D A loom_team_reduce(A v, F f, A *sh)
{
#pragma unroll
    for (int m = (TEAM < 32 ? TEAM : 32) / 2; m > 0; m /= 2)
        v = f(v, loom_shfl_xor(v, m));
    if (TEAM > 32) {
        const int warp = threadIdx.x / 32, first = (int)(threadIdx.x / TEAM) * (TEAM / 32);
        if (threadIdx.x % 32 == 0)
            sh[warp] = v;
        __syncthreads();
        v = sh[first];
        for (int k = 1; k < TEAM / 32; k++)
            v = f(v, sh[first + k]);
        __syncthreads();
    }
    return v;
}

#endif /* LOOM_REDUCE_CUH */
