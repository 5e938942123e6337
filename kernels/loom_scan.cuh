/* Inclusive scans for generated kernels (fuser/codegen_scan.c), included after loom_device.cuh.
 * A scan runs over "lines": line k has L elements read by load(k, l) and written by
 * store(k, l, v); the generated kernel supplies both (layout, casts) and the combining op.
 * Every combination order is fixed by the launch geometry, which the generator derives from
 * sizes alone: the same input gives the same bits on any device. No atomics.
 *
 * The running value of a chunk's elements lives in registers; invalid slots past a line's
 * end hold the op's identity, which only ever combines into values that are not stored. */
#ifndef LOOM_SCAN_CUH
#define LOOM_SCAN_CUH

#include "loom_types.cuh"

/* __shfl_up_sync / __shfl_sync of every accumulator type: the narrow integers travel as int,
 * complex numbers as their two parts. */
template <class T> struct loom__shfl_as {
    typedef T type;
};
template <> struct loom__shfl_as<bool> {
    typedef int type;
};
template <> struct loom__shfl_as<signed char> {
    typedef int type;
};
template <> struct loom__shfl_as<short> {
    typedef int type;
};
template <> struct loom__shfl_as<unsigned char> {
    typedef unsigned type;
};
template <> struct loom__shfl_as<unsigned short> {
    typedef unsigned type;
};

template <class T> LOOM__D T loom__shfl_up(T v, int delta)
{
    return (T)__shfl_up_sync(0xffffffffu, (typename loom__shfl_as<T>::type)v, delta);
}

template <class T> LOOM__D T loom__shfl(T v, int lane)
{
    return (T)__shfl_sync(0xffffffffu, (typename loom__shfl_as<T>::type)v, lane);
}

#ifdef LOOM_NEED_COMPLEX
#define LOOM__SHFL_COMPLEX(C)                                                                     \
    template <> LOOM__D C loom__shfl_up<C>(C v, int delta)                                        \
    {                                                                                             \
        v.re = __shfl_up_sync(0xffffffffu, v.re, delta);                                          \
        v.im = __shfl_up_sync(0xffffffffu, v.im, delta);                                          \
        return v;                                                                                 \
    }                                                                                             \
    template <> LOOM__D C loom__shfl<C>(C v, int lane)                                            \
    {                                                                                             \
        v.re = __shfl_sync(0xffffffffu, v.re, lane);                                              \
        v.im = __shfl_sync(0xffffffffu, v.im, lane);                                              \
        return v;                                                                                 \
    }
LOOM__SHFL_COMPLEX(loom_c64)
LOOM__SHFL_COMPLEX(loom_c128)
#undef LOOM__SHFL_COMPLEX
#endif

/* Inclusive scan of one value per lane of a full warp (Kogge-Stone); earlier lanes' values
 * always come first in op, so the order of combination is the sequence's. */
template <class T, class Op> LOOM__D T loom__warp_scan(T v, Op op)
{
    const int lane = (int)(threadIdx.x & 31);
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
        T u = loom__shfl_up(v, d);
        if (lane >= d)
            v = op(u, v);
    }
    return v;
}

/* Exclusive scan of one value per thread of a BLOCK-thread block: excl combines the values of
 * the threads before this one (has is false for thread 0, which has none); total combines
 * all. Every thread of the block must call it. */
template <int BLOCK, class T, class Op>
LOOM__D void loom__block_exclusive(T v, Op op, T &excl, bool &has, T &total)
{
    const int warps = BLOCK / 32;
    __shared__ __align__(16) unsigned char raw[warps * sizeof(T)];
    T *sums = (T *)raw;
    const int lane = (int)(threadIdx.x & 31), warp = (int)(threadIdx.x >> 5);
    T inc = loom__warp_scan(v, op);
    T up = loom__shfl_up(inc, 1);
    if (lane == 31)
        sums[warp] = inc;
    __syncthreads();
    T before = sums[0]; /* the warps before this one, when there are any */
    for (int k = 1; k < warp; k++)
        before = op(before, sums[k]);
    total = sums[0];
    for (int k = 1; k < warps; k++)
        total = op(total, sums[k]);
    __syncthreads(); /* sums is reused by the next call */
    if (lane > 0) {
        excl = warp > 0 ? op(before, up) : up;
        has = true;
    } else {
        excl = before;
        has = warp > 0;
    }
}

/* Loads ITEMS consecutive elements per thread of chunk [s, s + BLOCK * ITEMS) of a line ending
 * at end, and scans them in the thread (x[j] then holds the thread's inclusive prefix). */
template <int BLOCK, int ITEMS, class I, class T, class Op, class Load>
LOOM__D void loom__thread_chunk(I line, I s, I end, T ident, Op op, Load load, T (&x)[ITEMS])
{
    const I first = s + (I)threadIdx.x * ITEMS;
#pragma unroll
    for (int j = 0; j < ITEMS; j++)
        x[j] = first + j < end ? load(line, first + j) : ident;
#pragma unroll
    for (int j = 1; j < ITEMS; j++)
        x[j] = op(x[j - 1], x[j]);
}

/* The block scans elements [begin, end) of one line in chunks of BLOCK * ITEMS, carrying the
 * running value from chunk to chunk; with has_carry, carry comes before element begin. */
template <int BLOCK, int ITEMS, class I, class T, class Op, class Load, class Store>
LOOM__D void loom__block_scan_range(I line, I begin, I end, bool has_carry, T carry, T ident,
                                    Op op, Load load, Store store)
{
    for (I s = begin; s < end; s += (I)BLOCK * ITEMS) {
        T x[ITEMS];
        loom__thread_chunk<BLOCK, ITEMS>(line, s, end, ident, op, load, x);
        T excl, total;
        bool has;
        loom__block_exclusive<BLOCK>(x[ITEMS - 1], op, excl, has, total);
        const bool hp = has_carry || has;
        const T pre = has_carry ? (has ? op(carry, excl) : carry) : excl;
        const I first = s + (I)threadIdx.x * ITEMS;
#pragma unroll
        for (int j = 0; j < ITEMS; j++)
            if (first + j < end)
                store(line, first + j, hp ? op(pre, x[j]) : x[j]);
        carry = has_carry ? op(carry, total) : total;
        has_carry = true;
    }
}

/* One warp per line, 32 elements per step (short lines). blockDim.x must be a multiple of 32. */
template <class I, class T, class Op, class Load, class Store>
LOOM__D void loom_scan_warp_lines(I nlines, I L, T ident, Op op, Load load, Store store)
{
    const I per_block = (I)(blockDim.x >> 5), lane = (I)(threadIdx.x & 31);
    for (I line = (I)blockIdx.x * per_block + (I)(threadIdx.x >> 5); line < nlines;
         line += (I)gridDim.x * per_block) {
        T carry = ident;
        for (I s = 0; s < L; s += 32) {
            const I l = s + lane;
            T v = loom__warp_scan(l < L ? load(line, l) : ident, op);
            if (s > 0)
                v = op(carry, v);
            if (l < L)
                store(line, l, v);
            carry = loom__shfl(v, 31);
        }
    }
}

/* One block per line, chunks of BLOCK * ITEMS with a carry (long lines). */
template <int BLOCK, int ITEMS, class I, class T, class Op, class Load, class Store>
LOOM__D void loom_scan_block_lines(I nlines, I L, T ident, Op op, Load load, Store store)
{
    for (I line = (I)blockIdx.x; line < nlines; line += (I)gridDim.x)
        loom__block_scan_range<BLOCK, ITEMS>(line, (I)0, L, false, ident, ident, op, load, store);
}

/* One thread per line, sequential along it: consecutive threads take consecutive lines, so
 * loads coalesce when lines interleave in memory (a scan over a leading axis). */
template <class I, class T, class Op, class Load, class Store>
LOOM__D void loom_scan_thread_lines(I nlines, I L, Op op, Load load, Store store)
{
    for (I line = (I)blockIdx.x * (I)blockDim.x + (I)threadIdx.x; line < nlines;
         line += (I)gridDim.x * (I)blockDim.x) {
        T acc = load(line, (I)0);
        store(line, (I)0, acc);
        for (I l = 1; l < L; l++) {
            acc = op(acc, load(line, l));
            store(line, l, acc);
        }
    }
}

/* Few long lines, pass 1 of 3: block (c, line) writes the total of chunk c (BLOCK * ITEMS
 * elements) of its line to totals[line * gridDim.x + c]. */
template <int BLOCK, int ITEMS, class I, class T, class Op, class Load>
LOOM__D void loom_scan_chunk_totals(I L, T ident, Op op, Load load, T *totals)
{
    const I line = (I)blockIdx.y, c = (I)blockIdx.x, s = c * BLOCK * ITEMS;
    const I end = L - s < (I)BLOCK * ITEMS ? L : s + (I)BLOCK * ITEMS;
    T x[ITEMS];
    loom__thread_chunk<BLOCK, ITEMS>(line, s, end, ident, op, load, x);
    T excl, total;
    bool has;
    loom__block_exclusive<BLOCK>(x[ITEMS - 1], op, excl, has, total);
    if (threadIdx.x == 0)
        totals[line * (I)gridDim.x + c] = total;
}

/* Pass 3 of 3 (pass 2 scans the totals per line with loom_scan_block_lines): block (c, line)
 * scans chunk c seeded with the inclusive prefix of the chunks before it. */
template <int BLOCK, int ITEMS, class I, class T, class Op, class Load, class Store>
LOOM__D void loom_scan_chunks_seeded(I L, T ident, Op op, Load load, Store store,
                                     const T *prefix)
{
    const I line = (I)blockIdx.y, c = (I)blockIdx.x, s = c * BLOCK * ITEMS;
    const I end = L - s < (I)BLOCK * ITEMS ? L : s + (I)BLOCK * ITEMS;
    const T seed = c > 0 ? prefix[line * (I)gridDim.x + c - 1] : ident;
    loom__block_scan_range<BLOCK, ITEMS>(line, s, end, c > 0, seed, ident, op, load, store);
}

#endif /* LOOM_SCAN_CUH */
