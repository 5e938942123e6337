/* The one header generated kernels include: Loom's dtypes (lt_<dtype>), loom_cast<To>(x), and
 * every elementwise op as loom_<numpy name>(...) with NumPy's semantics per loop dtype, the
 * elements of the range generators, and with LOOM_NEED_RANDOM the random generators
 * (loom_random.cuh). */
#ifndef LOOM_DEVICE_CUH
#define LOOM_DEVICE_CUH

#include "loom_types.cuh"
#include "loom_cast.cuh"
#include "loom_ops.cuh"
#include "loom_gen.cuh"
#ifdef LOOM_NEED_RANDOM
#include "loom_random.cuh"
#endif

#endif /* LOOM_DEVICE_CUH */
