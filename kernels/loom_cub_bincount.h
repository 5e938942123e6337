/* kernels/loom_cub_bincount.h — the C entry points of the nvcc-built bin counts
 * (kernels/loom_bincount.cu) behind loom_bincount and loom_histogram (docs/unique.md). Like
 * kernels/loom_cub.h: buffers from the plan, work on the given stream, nothing allocated.
 * Deterministic: integer counts by atomics (exact in any order), weighted sums by CUB's
 * segmented reduction over the weights sorted by bin (a fixed order, no float atomics). */
#ifndef LOOM_KERNELS_CUB_BINCOUNT_H
#define LOOM_KERNELS_CUB_BINCOUNT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* out[k] for k in [0, len): how many of the n bins x[i] (each in [0, len)) are k, as int64;
 * with weights (n doubles, x then sorted ascending), the sum of the weights of bin k as a
 * double. scratch: 2 * (len + 1) int64s (weights only). */
typedef struct loom_cub_bincount_call {
    const int64_t *x;
    const double *weights;
    int64_t n, len;
    void *out;
    int64_t *scratch;
    void *temp; /* CUB's temporary storage, temp_bytes long (weights only) */
    size_t temp_bytes;
} loom_cub_bincount_call;

/* The temporary storage a weighted count of len bins needs (no work done): a cudaError_t. */
int loom__cub_bincount_temp_bytes(int64_t len, size_t *bytes);
/* Runs on stream (a cudaStream_t); returns a cudaError_t. */
int loom__cub_bincount(const loom_cub_bincount_call *c, void *stream);

#ifdef __cplusplus
}
#endif
#endif
