// CUB's radix sorts behind loom_sort and loom_argsort (kernels/loom_cub.h): DeviceRadixSort for
// one row, DeviceSegmentedRadixSort for many; both stable, in the DoubleBuffer form, so the
// only temporary storage is CUB's own bookkeeping.
#include "loom_cub.h"

#include "loom.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <climits>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_segmented_radix_sort.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

namespace {

struct row_start {
    int n;
    __host__ __device__ int operator()(int row) const { return row * n; }
};

// temp == nullptr: only the size query. Many rows are sorted in chunks whose keys fit CUB's
// int item count.
template <typename K>
cudaError_t sort_typed(const loom_cub_sort_call *c, void *temp, size_t *bytes, cudaStream_t st,
                       int *which)
{
    const int bits = c->bits > 0 && c->bits < int(sizeof(K) * 8) ? c->bits : int(sizeof(K) * 8);
    cub::DoubleBuffer<K> keys(static_cast<K *>(c->keys[0]), static_cast<K *>(c->keys[1]));
    cub::DoubleBuffer<int64_t> vals(static_cast<int64_t *>(c->values[0]),
                                    static_cast<int64_t *>(c->values[1]));
    bool pairs = c->values[0] != nullptr;
    cudaError_t e = cudaSuccess;
    if (c->rows == 1) {
        e = pairs ? cub::DeviceRadixSort::SortPairs(temp, *bytes, keys, vals, c->n, 0, bits, st)
                  : cub::DeviceRadixSort::SortKeys(temp, *bytes, keys, c->n, 0, bits, st);
        if (which)
            *which = pairs ? vals.selector : keys.selector;
        return e;
    }
    int64_t chunk = INT_MAX / c->n;
    size_t need = 0;
    for (int64_t r = 0; r < c->rows && e == cudaSuccess; r += chunk) {
        int rows = int(r + chunk < c->rows ? chunk : c->rows - r);
        int64_t at = r * c->n;
        cub::DoubleBuffer<K> k(keys.d_buffers[0] + at, keys.d_buffers[1] + at);
        cub::DoubleBuffer<int64_t> v(pairs ? vals.d_buffers[0] + at : nullptr,
                                     pairs ? vals.d_buffers[1] + at : nullptr);
        auto begin = thrust::make_transform_iterator(thrust::counting_iterator<int>(0),
                                                     row_start{int(c->n)});
        size_t b = *bytes;
        int items = int(rows * c->n);
        e = pairs ? cub::DeviceSegmentedRadixSort::SortPairs(temp, b, k, v, items, rows, begin,
                                                             begin + 1, 0, bits, st)
                  : cub::DeviceSegmentedRadixSort::SortKeys(temp, b, k, items, rows, begin,
                                                            begin + 1, 0, bits, st);
        need = b > need ? b : need;
        if (which)
            *which = pairs ? v.selector : k.selector;
    }
    if (!temp)
        *bytes = need;
    return e;
}

cudaError_t sort_any(const loom_cub_sort_call *c, void *temp, size_t *bytes, cudaStream_t st,
                     int *which)
{
    switch (c->dtype) {
    case LOOM_BOOL:
    case LOOM_UINT8:
        return sort_typed<uint8_t>(c, temp, bytes, st, which);
    case LOOM_INT8:
        return sort_typed<int8_t>(c, temp, bytes, st, which);
    case LOOM_INT16:
        return sort_typed<int16_t>(c, temp, bytes, st, which);
    case LOOM_UINT16:
        return sort_typed<uint16_t>(c, temp, bytes, st, which);
    case LOOM_INT32:
        return sort_typed<int32_t>(c, temp, bytes, st, which);
    case LOOM_UINT32:
        return sort_typed<uint32_t>(c, temp, bytes, st, which);
    case LOOM_INT64:
        return sort_typed<int64_t>(c, temp, bytes, st, which);
    case LOOM_UINT64:
        return sort_typed<uint64_t>(c, temp, bytes, st, which);
    case LOOM_FLOAT16:
        return sort_typed<__half>(c, temp, bytes, st, which);
    case LOOM_BFLOAT16:
        return sort_typed<__nv_bfloat16>(c, temp, bytes, st, which);
    case LOOM_FLOAT32:
        return sort_typed<float>(c, temp, bytes, st, which);
    case LOOM_FLOAT64:
        return sort_typed<double>(c, temp, bytes, st, which);
    default:
        return cudaErrorInvalidValue;
    }
}

} // namespace

extern "C" int loom__cub_sort_temp_bytes(const loom_cub_sort_call *c, size_t *bytes)
{
    *bytes = 0;
    return int(sort_any(c, nullptr, bytes, nullptr, nullptr));
}

extern "C" int loom__cub_sort(const loom_cub_sort_call *c, void *stream, int *which)
{
    size_t bytes = c->temp_bytes;
    *which = 0;
    return int(sort_any(c, c->temp, &bytes, static_cast<cudaStream_t>(stream), which));
}
