// Bin counts behind loom_bincount and loom_histogram (kernels/loom_cub_bincount.h): integer
// atomics for the counts; for weights, the counts' exclusive sum gives each bin's segment of
// the weights sorted by bin, and CUB's segmented reduction sums each segment in a fixed order.
#include "loom_cub_bincount.h"

#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_reduce.cuh>

namespace {

__global__ void count_bins(const int64_t *x, int64_t n, unsigned long long *counts)
{
    for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
         i += int64_t(gridDim.x) * blockDim.x)
        atomicAdd(&counts[x[i]], 1ull);
}

unsigned grid(int64_t n)
{
    int64_t blocks = (n + 255) / 256;
    return unsigned(blocks < 4096 ? (blocks > 0 ? blocks : 1) : 4096);
}

// temp == nullptr: only the size query.
cudaError_t weighted(const loom_cub_bincount_call *c, void *temp, size_t &bytes, cudaStream_t st)
{
    int64_t *counts = c->scratch, *offsets = c->scratch ? c->scratch + c->len + 1 : nullptr;
    size_t scan = 0, reduce = 0;
    cudaError_t e = cub::DeviceScan::ExclusiveSum(nullptr, scan, counts, offsets, c->len + 1, st);
    if (e == cudaSuccess)
        e = cub::DeviceSegmentedReduce::Sum(nullptr, reduce, c->weights,
                                            static_cast<double *>(c->out), c->len, offsets,
                                            offsets ? offsets + 1 : nullptr, st);
    if (e != cudaSuccess || !temp) {
        bytes = scan > reduce ? scan : reduce;
        return e;
    }
    e = cub::DeviceScan::ExclusiveSum(temp, scan, counts, offsets, c->len + 1, st);
    if (e == cudaSuccess)
        e = cub::DeviceSegmentedReduce::Sum(temp, reduce, c->weights,
                                            static_cast<double *>(c->out), c->len, offsets,
                                            offsets + 1, st);
    return e;
}

} // namespace

extern "C" int loom__cub_bincount_temp_bytes(int64_t len, size_t *bytes)
{
    loom_cub_bincount_call c = {};
    c.len = len;
    *bytes = 0;
    return int(weighted(&c, nullptr, *bytes, nullptr));
}

extern "C" int loom__cub_bincount(const loom_cub_bincount_call *c, void *stream)
{
    cudaStream_t st = static_cast<cudaStream_t>(stream);
    int64_t *counts = c->weights ? c->scratch : static_cast<int64_t *>(c->out);
    // the weighted form counts one bin more: the exclusive sum's last entry is n
    int64_t nbins = c->len + (c->weights ? 1 : 0);
    cudaError_t e = cudaMemsetAsync(counts, 0, size_t(nbins) * sizeof(int64_t), st);
    if (e == cudaSuccess && c->n > 0) {
        count_bins<<<grid(c->n), 256, 0, st>>>(c->x, c->n,
                                               reinterpret_cast<unsigned long long *>(counts));
        e = cudaGetLastError();
    }
    if (e != cudaSuccess || !c->weights)
        return int(e);
    size_t bytes = c->temp_bytes;
    return int(weighted(c, c->temp, bytes, st));
}
