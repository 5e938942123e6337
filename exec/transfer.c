/* Host <-> device copies on a stream.
 *
 * Uploads go through pinned staging buffers: a cudaMemcpyAsync from pageable memory may wait
 * for the stream's earlier work, while from pinned memory it only queues, so an upload never
 * waits for pending kernels. Chunks bound the staging memory of a large upload; the pool hands
 * a chunk's buffer out again once its copy is done. Downloads are synchronous anyway, and the
 * driver stages pageable destinations itself, so they copy directly. */
#include "cudart.h"

#include <string.h>

#define UPLOAD_CHUNK ((size_t)8 << 20)

int loom__copy_to_device(const char *fn, void *dst, const void *src, size_t bytes, loom_stream *s)
{
    int prev, err = loom__device_push(fn, s->device, &prev);
    if (err)
        return err;
    for (size_t off = 0; off < bytes && !err; off += UPLOAD_CHUNK) {
        size_t n = bytes - off < UPLOAD_CHUNK ? bytes - off : UPLOAD_CHUNK;
        void *stage = loom__pinned_get(fn, n);
        if (!stage) {
            err = loom_last_error_code();
            break;
        }
        memcpy(stage, (const char *)src + off, n);
        err = loom__cuda_check(cudaMemcpyAsync((char *)dst + off, stage, n,
                                               cudaMemcpyHostToDevice, loom__stream_handle(s)),
                               fn, "cudaMemcpyAsync");
        loom__pinned_release(stage, err ? NULL : s);
    }
    loom__device_pop(prev);
    return err;
}

int loom__copy_to_host(const char *fn, void *dst, const void *src, size_t bytes, loom_stream *s)
{
    if (bytes == 0)
        return 0;
    int prev, err = loom__device_push(fn, s->device, &prev);
    if (err)
        return err;
    cudaStream_t h = loom__stream_handle(s);
    err = loom__cuda_check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, h), fn,
                           "cudaMemcpyAsync");
    if (!err)
        err = loom__cuda_check(cudaStreamSynchronize(h), fn, "cudaStreamSynchronize");
    loom__device_pop(prev);
    return err;
}
