/* kernels/loom_cub.h — the C entry points of the nvcc-built CUB layer (kernels/loom_sort.cu).
 * A thin layer: exec/ calls these as library steps with buffers from the plan; they launch
 * CUB's device algorithms on the given stream and allocate nothing, so a CUDA Graph may capture
 * them (docs/sorting.md). Plain C: no CUDA header needed to include it. */
#ifndef LOOM_KERNELS_CUB_H
#define LOOM_KERNELS_CUB_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A stable ascending radix sort of rows rows of n keys each (C-contiguous), optionally carrying
 * int64 values. keys[0] holds the input and keys[1] is as large; both are overwritten (CUB's
 * DoubleBuffer form), likewise values[0] and values[1] (values[0] NULL: keys only). */
typedef struct loom_cub_sort_call {
    int dtype; /* loom_dtype of the keys: bool, integers, float16, bfloat16, float32, float64 */
    int bits;  /* the key bits ordered, from bit 0 (0: all): keys known to be in [0, 2^bits) */
    int64_t n, rows;
    void *keys[2];
    void *values[2];
    void *temp; /* CUB's temporary storage, temp_bytes long */
    size_t temp_bytes;
} loom_cub_sort_call;

/* The temporary storage the sort needs (no work done): a cudaError_t. */
int loom__cub_sort_temp_bytes(const loom_cub_sort_call *c, size_t *bytes);
/* Sorts on stream (a cudaStream_t); *which is the buffer of each pair (0 or 1) that holds the
 * sorted keys and values. Returns a cudaError_t (cudaErrorInvalidValue for a dtype CUB is not
 * built for here). */
int loom__cub_sort(const loom_cub_sort_call *c, void *stream, int *which);

#ifdef __cplusplus
}
#endif
#endif
