/* kernels/loom_cub_select.h — the C entry points of the nvcc-built stream compaction
 * (kernels/loom_select.cu) behind loom_flatnonzero and everything built on it (nonzero,
 * unique, the set operations, boolean masks: docs/unique.md). Like kernels/loom_cub.h: buffers
 * from the plan, CUB on the given stream, nothing allocated, so a CUDA Graph may capture it. */
#ifndef LOOM_KERNELS_CUB_SELECT_H
#define LOOM_KERNELS_CUB_SELECT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The flat positions i of the n flags (bytes, nonzero meaning true) that are set, ascending,
 * written to out[0, out_len): out[j] is the j-th set position for j < the number set, and n
 * after it. CUB's DeviceSelect writes them to `selected` (out itself when out_len >= n or the
 * caller knows the count is out_len, else n int64s of scratch) and the count to *num. */
typedef struct loom_cub_select_call {
    const uint8_t *flags;
    int64_t n;
    int64_t *out;
    int64_t out_len;
    int64_t *selected;
    int64_t *num; /* one int64 of scratch */
    int exact;    /* out_len is the number of set flags: no padding pass */
    void *temp;   /* CUB's temporary storage, temp_bytes long */
    size_t temp_bytes;
} loom_cub_select_call;

/* The temporary storage the selection needs (no work done): a cudaError_t. */
int loom__cub_select_temp_bytes(int64_t n, size_t *bytes);
/* Runs on stream (a cudaStream_t); returns a cudaError_t. */
int loom__cub_select(const loom_cub_select_call *c, void *stream);

#ifdef __cplusplus
}
#endif
#endif
