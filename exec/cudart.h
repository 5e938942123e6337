/*
 * exec/cudart.h — the CUDA runtime for exec/ sources only (the rest of Loom never sees CUDA).
 * The C API header cuda_runtime_api.h is enough: Loom launches through cudaLaunchKernel.
 */
#ifndef LOOM_EXEC_CUDART_H
#define LOOM_EXEC_CUDART_H

#include "exec.h"

#include <cuda_runtime_api.h>

/* Returns 0 when e is cudaSuccess. Otherwise records "fn: what failed: <CUDA's message>"
 * with the matching code (LOOM_ERR_OOM for cudaErrorMemoryAllocation, LOOM_ERR_NO_DEVICE for
 * a missing device or driver, LOOM_ERR_DEVICE for a kernel fault, LOOM_ERR_CUDA otherwise) and
 * e as its detail, clears the runtime's last error and returns that code. */
int loom__cuda_check(cudaError_t e, const char *fn, const char *what);

static inline cudaStream_t loom__stream_handle(const loom_stream *s)
{
    return (cudaStream_t)s->handle;
}

#endif /* LOOM_EXEC_CUDART_H */
