/* What the bodies of user kernels see besides their parameters (docs/custom-kernels.md):
 * raw parameters and CuPy's _ind. Included by generated kernels that inline a user kernel. */
#ifndef LOOM_USER_CUH
#define LOOM_USER_CUH

/* A raw parameter: the whole array, C-contiguous, indexed by the user (x[i], x.size()). */
template <class T> struct loom_raw {
    T *p;
    long long n;
    __device__ __forceinline__ T &operator[](long long k) const { return p[k]; }
    __device__ __forceinline__ long long size() const { return n; }
};

/* CuPy's _ind: the element index of the iteration space (get()) and its size (size()). */
struct loom_indexer {
    long long i, n;
    __device__ __forceinline__ long long get() const { return i; }
    __device__ __forceinline__ long long size() const { return n; }
};

#endif
