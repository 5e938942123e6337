// Stream compaction behind loom_flatnonzero (kernels/loom_cub_select.h): CUB's
// DeviceSelect::Flagged over the counting sequence 0..n-1, then, unless the count is known to
// be the output's length, one pass that copies the first out_len positions into the output
// and pads the rest with n.
#include "loom_cub_select.h"

#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>

namespace {

__global__ void pad_positions(int64_t *out, int64_t out_len, const int64_t *selected,
                              const int64_t *num, int64_t n)
{
    int64_t count = num ? *num : 0;
    for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < out_len;
         i += int64_t(gridDim.x) * blockDim.x) {
        if (i >= count)
            out[i] = n;
        else if (selected != out)
            out[i] = selected[i];
    }
}

cudaError_t select_flagged(const loom_cub_select_call *c, void *temp, size_t &bytes,
                           cudaStream_t st)
{
    return cub::DeviceSelect::Flagged(temp, bytes, thrust::counting_iterator<int64_t>(0),
                                      c->flags, c->selected, c->num, c->n, st);
}

} // namespace

extern "C" int loom__cub_select_temp_bytes(int64_t n, size_t *bytes)
{
    loom_cub_select_call c = {};
    c.n = n;
    *bytes = 0;
    return int(select_flagged(&c, nullptr, *bytes, nullptr));
}

extern "C" int loom__cub_select(const loom_cub_select_call *c, void *stream)
{
    cudaStream_t st = static_cast<cudaStream_t>(stream);
    cudaError_t e = cudaSuccess;
    if (c->n > 0) {
        size_t bytes = c->temp_bytes;
        e = select_flagged(c, c->temp, bytes, st);
    }
    if (e != cudaSuccess || c->exact || c->out_len == 0)
        return int(e);
    int64_t blocks = (c->out_len + 255) / 256;
    pad_positions<<<unsigned(blocks < 4096 ? blocks : 4096), 256, 0, st>>>(
        c->out, c->out_len, c->selected, c->n > 0 ? c->num : nullptr, c->n);
    return int(cudaGetLastError());
}
