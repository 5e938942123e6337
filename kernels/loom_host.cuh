/* The host device's prelude: what generated kernels take from CUDA, for a host C++ compiler
 * (exec/host_compile.c passes it with -include; NVRTC never sees it).
 *
 * An elementwise kernel runs as a grid of one-thread blocks, one per work item, so its
 * grid-stride loop does exactly item b in block b. A kernel with a fixed grid (reductions,
 * scans) runs its blocks as the GPU would: every thread of a block is a fiber, switched at
 * barriers and warp shuffles, so the same geometry combines values in the same order and a
 * reduction gives the GPU's bits. Intrinsics keep CUDA's meaning: *_rn is IEEE arithmetic
 * (the compiler is told not to contract), and float-to-integer conversions saturate, NaN
 * giving the lowest value, as on the device. */
#ifndef LOOM_HOST_CUH
#define LOOM_HOST_CUH

#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <cstdlib>
#include <utility>

#include <ucontext.h>

#define LOOM_HOST 1
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline __attribute__((always_inline))
#define __launch_bounds__(...)
#define __align__(n) __attribute__((aligned(n)))

/* CUDA's vector types (float2, double2, ulonglong2: the FFT input copies), as cuda_fp16.h
 * also includes them. */
#include <vector_types.h>

/* blockIdx and gridDim are 64-bit: an elementwise grid has one block per work item. */
struct loom_host_dim3 {
    unsigned long long x, y, z;
};
struct loom_host_tid3 {
    unsigned x, y, z;
};
static thread_local loom_host_dim3 blockIdx, gridDim;
static thread_local loom_host_tid3 blockDim;
/* threadIdx is the running thread's: its fiber's when a block has several threads. */
static const loom_host_tid3 loom_host_tid0 = {0, 0, 0};
static thread_local const loom_host_tid3 *loom_host_tid = &loom_host_tid0;
#define threadIdx (*loom_host_tid)
/* Shared memory is per block: one block runs at a time on each host thread. */
#define __shared__ static thread_local

using std::isfinite;
using std::isinf;
using std::isnan;
using std::signbit;

static inline float __fadd_rn(float a, float b) { return a + b; }
static inline double __dadd_rn(double a, double b) { return a + b; }
static inline float __fsub_rn(float a, float b) { return a - b; }
static inline double __dsub_rn(double a, double b) { return a - b; }
static inline float __fmul_rn(float a, float b) { return a * b; }
static inline double __dmul_rn(double a, double b) { return a * b; }
static inline float __fdiv_rn(float a, float b) { return a / b; }
static inline double __ddiv_rn(double a, double b) { return a / b; }
static inline float __fmaf_rn(float a, float b, float c) { return std::fma(a, b, c); }
static inline double __fma_rn(double a, double b, double c) { return std::fma(a, b, c); }
static inline float __fsqrt_rn(float a) { return std::sqrt(a); }
static inline double __dsqrt_rn(double a) { return std::sqrt(a); }
static inline float __ll2float_rn(long long x) { return (float)x; }
static inline float __ull2float_rn(unsigned long long x) { return (float)x; }
static inline double __ll2double_rn(long long x) { return (double)x; }
static inline double __ull2double_rn(unsigned long long x) { return (double)x; }
static inline float __double2float_rn(double x) { return (float)x; }

template <class F> static inline long long loom_host_to_ll(F x)
{
    if (x != x || x < (F)-9223372036854775808.0)
        return LLONG_MIN;
    if (x >= (F)9223372036854775808.0)
        return LLONG_MAX;
    return (long long)x;
}
template <class F> static inline unsigned long long loom_host_to_ull(F x)
{
    if (x != x)
        return 0x8000000000000000ull;
    if (x >= (F)18446744073709551616.0)
        return ULLONG_MAX;
    return x > 0 ? (unsigned long long)x : 0;
}
static inline long long __float2ll_rz(float x) { return loom_host_to_ll(x); }
static inline long long __double2ll_rz(double x) { return loom_host_to_ll(x); }
static inline unsigned long long __float2ull_rz(float x) { return loom_host_to_ull(x); }
static inline unsigned long long __double2ull_rz(double x) { return loom_host_to_ull(x); }

static inline int __float_as_int(float x) { int i; memcpy(&i, &x, sizeof i); return i; }
static inline float __int_as_float(int i) { float x; memcpy(&x, &i, sizeof x); return x; }
static inline long long __double_as_longlong(double x) { long long i; memcpy(&i, &x, sizeof i); return i; }
static inline double __longlong_as_double(long long i) { double x; memcpy(&x, &i, sizeof x); return x; }
static inline unsigned __umulhi(unsigned a, unsigned b)
{
    return (unsigned)(((unsigned long long)a * b) >> 32);
}
static inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b)
{
    return (unsigned long long)(((unsigned __int128)a * b) >> 64);
}
/* CUDA's sin(pi x) and cos(pi x) (glibc has them only from 2.41, hence names of our own): x
 * reduced exactly to [-1, 1] by remainder, folded to [-1/2, 1/2] (exact subtractions), then
 * sin of pi times it in double; the float forms round the double result once. */
static inline double loom_host_sinpi(double x)
{
    double r = std::remainder(x, 2.0);
    r = r > 0.5 ? 1.0 - r : r < -0.5 ? -1.0 - r : r;
    return std::sin(3.141592653589793 * r);
}
static inline double loom_host_cospi(double x)
{
    double a = std::fabs(std::remainder(x, 2.0));
    return a > 0.5 ? -loom_host_sinpi(a - 0.5) : loom_host_sinpi(0.5 - a);
}
static inline void loom_host_sincospi(double x, double *s, double *c)
{
    *s = loom_host_sinpi(x), *c = loom_host_cospi(x);
}
static inline void loom_host_sincospif(float x, float *s, float *c)
{
    *s = (float)loom_host_sinpi(x), *c = (float)loom_host_cospi(x);
}
#define sinpi loom_host_sinpi
#define cospi loom_host_cospi
#define sincospi loom_host_sincospi
#define sincospif loom_host_sincospif

/* glibc declares an __expf of its own */
static inline float loom_host_expf(float x) { return std::exp(x); }
#define __expf loom_host_expf

/* ---- blocks of several threads: one fiber per thread, switched at barriers ---- */

enum { LOOM_HOST_RUN, LOOM_HOST_AT_BLOCK, LOOM_HOST_AT_WARP, LOOM_HOST_DONE };
enum { LOOM_HOST_STACK = 64 * 1024, LOOM_HOST_SLOT = 16 };

struct loom_host_fiber {
    ucontext_t ctx;
    loom_host_tid3 tid;
    int state;
};

struct loom_host_block {
    ucontext_t sched;
    loom_host_fiber *fibers;
    char *stacks;
    int n, current;
    unsigned char (*slots)[32][LOOM_HOST_SLOT]; /* one row per warp: shuffled values */
    void (*invoke)(void **);
    void **argv;
};
static thread_local loom_host_block *loom_host_blk;

/* The running thread waits until its block (or its warp) reaches the same point. */
static inline void loom_host_wait(int at)
{
    loom_host_block *b = loom_host_blk;
    if (!b)
        return; /* a block of one thread */
    loom_host_fiber *f = &b->fibers[b->current];
    f->state = at;
    swapcontext(&f->ctx, &b->sched);
}

static inline void __syncthreads() { loom_host_wait(LOOM_HOST_AT_BLOCK); }

static inline int loom_host_lane() { return (int)(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)); }

/* Every lane of the warp writes v, then reads lane src's (its own when src is outside). */
template <class T> static inline T loom_host_shuffle(T v, int src, bool inside)
{
    static_assert(sizeof(T) <= LOOM_HOST_SLOT, "shuffled values are at most 16 bytes");
    loom_host_block *b = loom_host_blk;
    if (!b)
        return v;
    const int me = loom_host_lane(), warp = me / 32, lane = me % 32;
    memcpy(b->slots[warp][lane], &v, sizeof v);
    loom_host_wait(LOOM_HOST_AT_WARP);
    T r = v;
    if (inside)
        memcpy(&r, b->slots[warp][src], sizeof r);
    loom_host_wait(LOOM_HOST_AT_WARP);
    return r;
}
template <class T> static inline T __shfl_xor_sync(unsigned, T v, int m, int width = 32)
{
    const int lane = loom_host_lane() % 32;
    return loom_host_shuffle(v, lane ^ m, (lane ^ m) / width == lane / width);
}
template <class T> static inline T __shfl_up_sync(unsigned, T v, unsigned delta, int width = 32)
{
    const int lane = loom_host_lane() % 32;
    return loom_host_shuffle(v, lane - (int)delta, lane % width >= (int)delta);
}
template <class T> static inline T __shfl_down_sync(unsigned, T v, unsigned delta, int width = 32)
{
    const int lane = loom_host_lane() % 32;
    return loom_host_shuffle(v, lane + (int)delta, lane % width + (int)delta < width);
}
template <class T> static inline T __shfl_sync(unsigned, T v, int src, int width = 32)
{
    const int lane = loom_host_lane() % 32;
    return loom_host_shuffle(v, lane / width * width + src % width, true);
}

static void loom_host_fiber_main()
{
    loom_host_block *b = loom_host_blk;
    b->invoke(b->argv);
    b->fibers[b->current].state = LOOM_HOST_DONE;
}

/* Lets waiting threads go once everyone they wait for has arrived (or finished). False when
 * nobody can go on: a barrier some thread never reaches. */
static inline bool loom_host_release(loom_host_block *b)
{
    bool block_ready = true, any = false;
    for (int i = 0; i < b->n; i++)
        if (b->fibers[i].state != LOOM_HOST_DONE)
            block_ready &= b->fibers[i].state == LOOM_HOST_AT_BLOCK;
    for (int w = 0; w * 32 < b->n; w++) {
        bool warp_ready = true;
        for (int i = w * 32; i < b->n && i < w * 32 + 32; i++)
            if (b->fibers[i].state != LOOM_HOST_DONE)
                warp_ready &= b->fibers[i].state == LOOM_HOST_AT_WARP;
        for (int i = w * 32; i < b->n && i < w * 32 + 32; i++)
            if ((warp_ready && b->fibers[i].state == LOOM_HOST_AT_WARP) ||
                (block_ready && b->fibers[i].state == LOOM_HOST_AT_BLOCK)) {
                b->fibers[i].state = LOOM_HOST_RUN;
                any = true;
            }
    }
    return any;
}

/* Runs one block of b->n threads to its end; false on a barrier that can never be passed. */
static inline bool loom_host_run_block(loom_host_block *b)
{
    for (int i = 0; i < b->n; i++) {
        loom_host_fiber *f = &b->fibers[i];
        f->tid = {(unsigned)(i % blockDim.x), (unsigned)(i / blockDim.x % blockDim.y),
                  (unsigned)(i / (blockDim.x * blockDim.y))};
        f->state = LOOM_HOST_RUN;
        getcontext(&f->ctx);
        f->ctx.uc_stack.ss_sp = b->stacks + (size_t)i * LOOM_HOST_STACK;
        f->ctx.uc_stack.ss_size = LOOM_HOST_STACK;
        f->ctx.uc_link = &b->sched;
        makecontext(&f->ctx, loom_host_fiber_main, 0);
    }
    for (;;) {
        bool ran = false;
        for (int i = 0; i < b->n; i++) {
            if (b->fibers[i].state != LOOM_HOST_RUN)
                continue;
            b->current = i;
            loom_host_tid = &b->fibers[i].tid;
            swapcontext(&b->sched, &b->fibers[i].ctx);
            ran = true;
        }
        loom_host_tid = &loom_host_tid0;
        bool done = true;
        for (int i = 0; i < b->n; i++)
            done &= b->fibers[i].state == LOOM_HOST_DONE;
        if (done)
            return true;
        if (!loom_host_release(b) && !ran)
            return false;
    }
}

/* ---- the launch ---- */

template <class... A> constexpr std::size_t loom_host_arity(void (*)(A...)) { return sizeof...(A); }

template <class... A, std::size_t... I>
static inline void loom_host_call(void (*kernel)(A...), void **argv, std::index_sequence<I...>)
{
    kernel(*(A *)argv[I]...);
}
template <auto K> static void loom_host_invoke(void **argv)
{
    loom_host_call(K, argv, std::make_index_sequence<loom_host_arity(K)>{});
}

/* Items [first, last) of an elementwise grid (one-thread blocks along x). The kernel is inlined
 * into the loop (flatten), so the addresses of the thread-local block indices are computed once
 * rather than per item (each costs a __tls_get_addr call in a shared object), and no item pays
 * the three divisions of a 3-D block index: either costs more than a memory-bound item. */
template <auto K> __attribute__((flatten)) static void loom_host_items(void **argv, long long first, long long last)
{
    blockIdx = {0, 0, 0};
    for (long long i = first; i < last; i++) {
        blockIdx.x = (unsigned long long)i;
        loom_host_invoke<K>(argv);
    }
}

/* Runs blocks [first, last) of the grid dims[0..2] of blocks dims[3..5] (x fastest). 0, or -1
 * when a block cannot finish (a barrier not every thread reaches) or memory runs out. */
template <auto K> static inline int loom_host_launch(void **argv, long long first, long long last, const long long *dims)
{
    gridDim = {(unsigned long long)dims[0], (unsigned long long)dims[1], (unsigned long long)dims[2]};
    blockDim = {(unsigned)dims[3], (unsigned)dims[4], (unsigned)dims[5]};
    const long long threads = dims[3] * dims[4] * dims[5];
    loom_host_block b = {};
    if (threads > 1) {
        b.n = (int)threads;
        b.fibers = (loom_host_fiber *)calloc((size_t)threads, sizeof *b.fibers);
        b.stacks = (char *)malloc((size_t)threads * LOOM_HOST_STACK);
        b.slots = (unsigned char (*)[32][LOOM_HOST_SLOT])calloc((size_t)(threads + 31) / 32, sizeof *b.slots);
        b.invoke = loom_host_invoke<K>;
        b.argv = argv;
        if (!b.fibers || !b.stacks || !b.slots) {
            free(b.fibers), free(b.stacks), free(b.slots);
            return -1;
        }
    }
    if (threads == 1 && dims[1] == 1 && dims[2] == 1) {
        loom_host_items<K>(argv, first, last);
        return 0;
    }
    int rc = 0;
    for (long long i = first; i < last && rc == 0; i++) {
        blockIdx = {(unsigned long long)(i % dims[0]), (unsigned long long)(i / dims[0] % dims[1]),
                    (unsigned long long)(i / (dims[0] * dims[1]))};
        if (threads == 1) {
            loom_host_invoke<K>(argv);
            continue;
        }
        loom_host_blk = &b;
        if (!loom_host_run_block(&b))
            rc = -1;
        loom_host_blk = nullptr;
    }
    free(b.fibers), free(b.stacks), free(b.slots);
    return rc;
}

#endif /* LOOM_HOST_CUH */
