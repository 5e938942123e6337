/* Copies between Loom arrays and page-locked host memory queued on the current stream
 * (loom_get_async, loom_asarray_async): they overlap other work instead of stopping the host,
 * and need no staging copy. */
#include "cudart.h"

#include "../graph/internal.h"

static bool page_locked(const void *p)
{
    struct cudaPointerAttributes attr;
    if (cudaPointerGetAttributes(&attr, p) != cudaSuccess) {
        cudaGetLastError();
        return false;
    }
    return attr.type == cudaMemoryTypeHost;
}

int loom_get_async(loom_array *a, void *dst, size_t dst_bytes)
{
    static const char fn[] = "loom_get_async";
    if (loom__check_array_list(fn, &a, 1))
        return LOOM_ERR_INVALID;
    size_t need = (size_t)loom_size(a) * loom_dtype_size(loom_dtype_of(a));
    if (need && !dst) {
        loom__error(LOOM_ERR_INVALID, fn, "dst is NULL");
        return LOOM_ERR_INVALID;
    }
    if (dst_bytes < need) {
        loom__error(LOOM_ERR_INVALID, fn, "dst holds %zu bytes but the %s array needs %zu",
                    dst_bytes, loom_dtype_name(loom_dtype_of(a)), need);
        return LOOM_ERR_INVALID;
    }
    if (a->device == LOOM_DEVICE_CPU) { /* pinned copies are a GPU's; loom_get reads host arrays */
        loom__error(LOOM_ERR_UNSUPPORTED, fn, "not available on the host device");
        return LOOM_ERR_UNSUPPORTED;
    }
    if (need == 0)
        return LOOM_OK;
    int rc = loom__device_init(fn);
    if (rc)
        return rc;
    if (!page_locked(dst)) {
        loom__error(LOOM_ERR_INVALID, fn,
                    "dst is not page-locked host memory (use loom_host_alloc_pinned, or loom_get)");
        return LOOM_ERR_INVALID;
    }
    if ((rc = loom__eval_named(fn, a)))
        return rc;
    loom_buffer *b = loom__node_buffer(a);
    loom_stream *s = loom__stream_current(fn, b->device);
    if (!s)
        return loom_last_error_code();
    if ((rc = loom__buffer_wait(fn, b, s)))
        return rc;
    int prev;
    if ((rc = loom__device_push(fn, b->device, &prev)))
        return rc;
    rc = loom__cuda_check(cudaMemcpyAsync(dst, b->ptr, need, cudaMemcpyDeviceToHost,
                                          loom__stream_handle(s)),
                          fn, "cudaMemcpyAsync");
    loom__device_pop(prev);
    /* a may be released before the copy runs: its buffer's free waits for this stream. */
    return rc ? rc : loom__buffer_record_use(fn, b, s);
}

loom_array *loom_asarray_async(const void *data, loom_dtype dtype, int ndim, const int64_t *shape)
{
    static const char fn[] = "loom_asarray_async";
    int64_t size;
    if (loom__check_shape(fn, ndim, shape, &size))
        return NULL;
    if (loom_dtype_size(dtype) == 0) {
        loom__error(LOOM_ERR_INVALID, fn, "invalid dtype %d", (int)dtype);
        return NULL;
    }
    size_t bytes = (size_t)size * loom_dtype_size(dtype);
    if (bytes && !data) {
        loom__error(LOOM_ERR_INVALID, fn, "data is NULL for %lld elements", (long long)size);
        return NULL;
    }
    int device;
    if (loom_device_get() == LOOM_DEVICE_CPU) { /* pinned uploads are a GPU's */
        loom__error(LOOM_ERR_UNSUPPORTED, fn, "not available on the host device");
        return NULL;
    }
    if (loom__device_current(fn, &device))
        return NULL;
    if (bytes && !page_locked(data)) {
        loom__error(LOOM_ERR_INVALID, fn,
                    "data is not page-locked host memory (use loom_host_alloc_pinned, or loom_asarray)");
        return NULL;
    }
    loom_stream *s = loom__stream_current(fn, device);
    loom_buffer *b = s ? loom__buffer_alloc(fn, bytes, device, s) : NULL;
    if (!b)
        return NULL;
    if (bytes && loom__cuda_check(cudaMemcpyAsync(b->ptr, data, bytes, cudaMemcpyHostToDevice,
                                                  loom__stream_handle(s)),
                                  fn, "cudaMemcpyAsync")) {
        loom__buffer_release(b);
        return NULL;
    }
    loom_array *a = loom__node_alloc(fn, LOOM_OP_DEVICE, dtype, ndim, shape);
    if (!a) {
        loom__buffer_release(b);
        return NULL;
    }
    a->device = device;
    loom__node_set_buffer(a, b);
    return loom__node_finish(a);
}
