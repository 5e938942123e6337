/* Elements of the range generators as NumPy 2 computes them (docs/views.md, "Ranges").
 *  - arange: NumPy sets element 0 to T(start) and element 1 to T(start + step), then fills
 *    element i >= 2 with first + i * (second - first) in T's arithmetic: wrapping integers, float
 *    for float32 (so arange(0, 1, 0.1, float32)[9] is 0.90000004f), float for float16 and
 *    bfloat16 (NumPy's HALF_fill, ml_dtypes' fill), the real part for complex types.
 *  - linspace: computed in float64 as start + (i / divisor) * scale (divisor 1 and scale the
 *    step, except NumPy's two special cases: a step that underflows to 0 divides first, and a
 *    range with no interval multiplies by the whole delta), the last element exactly stop when
 *    it is an endpoint, floored for integer dtypes, then cast once. */
#ifndef LOOM_GEN_CUH
#define LOOM_GEN_CUH

#include "loom_cast.cuh"
#include "loom_math.cuh"

/* first + i * (second - first) in the float type F (i rounded to F as C converts it), each
 * operation rounded on its own whatever --fmad says. */
template <class F> LOOM__D F loom__fill_float(F first, F second, long long i)
{
    return loom__add(first, loom__mul((F)i, loom__sub(second, first)));
}

template <class T> LOOM__D T loom_arange_at(double start, double next, long long i)
{
    constexpr int id = loom_dtype_id<T>::value;
    if (i == 0)
        return loom_cast<T>(start);
    if (i == 1)
        return loom_cast<T>(next);
    if constexpr (id == 11 || id == 12) {
        return loom__fill_float(loom_cast<T>(start), loom_cast<T>(next), i);
    } else if constexpr (id == 9 || id == 10) {
        float first = loom__norm(loom_cast<T>(start)), second = loom__norm(loom_cast<T>(next));
        return loom_cast<T>(loom__fill_float(first, second, i));
    } else if constexpr (id == 13 || id == 14) {
        typedef decltype(T().re) P;
        T r;
        r.re = loom__fill_float(loom_cast<P>(start), loom_cast<P>(next), i);
        r.im = (P)0;
        return r;
    } else {
        /* integers and bool: modular arithmetic in 64 bits, wrapped to T by the cast */
        unsigned long long first = (unsigned long long)loom__norm(loom_cast<T>(start));
        unsigned long long second = (unsigned long long)loom__norm(loom_cast<T>(next));
        return loom_cast<T>(first + (unsigned long long)i * (second - first));
    }
}

template <class T>
LOOM__D T loom_linspace_at(double start, double scale, double divisor, double stop,
                           long long last, long long i)
{
    constexpr int id = loom_dtype_id<T>::value;
    double y = i == last ? stop : loom__add(loom__mul(__ddiv_rn((double)i, divisor), scale), start);
    if constexpr (id >= 1 && id <= 8)
        y = floor(y);
    return loom_cast<T>(y);
}

#endif /* LOOM_GEN_CUH */
