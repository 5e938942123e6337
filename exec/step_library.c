/* The runner of library-call steps: one entry per routine of the fixed table (fuser/library.c),
 * and the dispatch every step kind goes through. */
#include "steps.h"

int loom__library_prepare(const char *fn, const loom_libcall *l, int device)
{
    switch (l->routine) {
    case LOOM_LIB_CUBLAS_GEMM:
        return loom__cublas_prepare(fn, device);
    case LOOM_LIB_CUBLASLT_MATMUL:
        return loom__cublaslt_prepare(fn, device);
    case LOOM_LIB_CUSOLVER_SYEVD:
    case LOOM_LIB_CUSOLVER_POTRF:
    case LOOM_LIB_CUSOLVER_GETRF:
    case LOOM_LIB_CUSOLVER_GETRS:
    case LOOM_LIB_CUSOLVER_GEQRF:
    case LOOM_LIB_CUSOLVER_ORGQR:
    case LOOM_LIB_CUSOLVER_GEEV:
    case LOOM_LIB_CUSOLVER_POTRF_BATCHED:
    case LOOM_LIB_CUSOLVER_SYEVJ_BATCHED:
        return loom__cusolver_prepare(fn, device);
    case LOOM_LIB_CUSOLVER_SVD: {
        int rc = loom__cusolver_prepare(fn, device);
        return rc ? rc : loom__cublas_prepare(fn, device); /* the gesvd fallback's adjoint */
    }
    case LOOM_LIB_CUBLAS_GETRF_BATCHED:
    case LOOM_LIB_CUBLAS_GETRS_BATCHED:
    case LOOM_LIB_CUBLAS_GEQRF_BATCHED:
        return loom__cublas_prepare(fn, device);
    default:
        return LOOM_OK;
    }
}

int loom__library_run(const char *fn, const loom_libcall *l, const loom__step_state *r,
                      int device, void *const *addr, cudaStream_t st)
{
    switch (l->routine) {
    case LOOM_LIB_CUBLAS_GEMM:
        return loom__cublas_gemm(fn, l, device, addr, st);
    case LOOM_LIB_CUBLASLT_MATMUL:
        return loom__cublaslt_matmul(fn, l, device, addr, st);
    case LOOM_LIB_CUSOLVER_SYEVD:
        return loom__cusolver_syevd(fn, l, device, addr, st);
    case LOOM_LIB_CUSOLVER_POTRF:
        return loom__cusolver_potrf(fn, l, device, addr, st);
    case LOOM_LIB_CUFFT:
        return loom__cufft_exec(fn, l, r, addr, st);
    case LOOM_LIB_CUB_SORT:
        return loom__cub_sort_run(fn, l, addr, st);
    case LOOM_LIB_CUB_SELECT:
        return loom__cub_select_run(fn, l, addr, st);
    case LOOM_LIB_CUB_BINCOUNT:
        return loom__cub_bincount_run(fn, l, addr, st);
    case LOOM_LIB_CUSOLVER_GETRF:
        return loom__cusolver_getrf(fn, l, device, addr, st);
    case LOOM_LIB_CUSOLVER_GETRS:
        return loom__cusolver_getrs(fn, l, device, addr, st);
    case LOOM_LIB_CUBLAS_GETRF_BATCHED:
        return loom__cublas_getrf_batched(fn, l, device, addr, st);
    case LOOM_LIB_CUBLAS_GETRS_BATCHED:
        return loom__cublas_getrs_batched(fn, l, device, addr, st);
    case LOOM_LIB_CUSOLVER_SVD:
        return loom__cusolver_svd(fn, l, device, addr, st);
    case LOOM_LIB_CUSOLVER_GEQRF:
    case LOOM_LIB_CUSOLVER_ORGQR:
        return loom__cusolver_qr(fn, l, device, addr, st);
    case LOOM_LIB_CUSOLVER_GEEV:
        return loom__cusolver_geev(fn, l, device, addr, st);
    case LOOM_LIB_CUSOLVER_POTRF_BATCHED:
        return loom__cusolver_potrf_batched(fn, l, device, addr, st);
    case LOOM_LIB_CUSOLVER_SYEVJ_BATCHED:
        return loom__cusolver_syevj_batched(fn, l, device, addr, st);
    case LOOM_LIB_CUBLAS_GEQRF_BATCHED:
        return loom__cublas_geqrf_batched(fn, l, device, addr, st);
    case LOOM_LIB_CURAND:
        return loom__curand_generate(fn, l, addr, st);
    default:
        loom__error(LOOM_ERR_INVALID, fn, "internal error: unknown library routine %d",
                    (int)l->routine);
        return LOOM_ERR_INVALID;
    }
}

int loom__library_workspace(const char *fn, const loom_libcall *l, int device, size_t *bytes)
{
    *bytes = 0;
    switch (l->routine) {
    case LOOM_LIB_CUSOLVER_GETRF:
        return loom__cusolver_getrf_workspace(fn, l, device, bytes);
    case LOOM_LIB_CUSOLVER_POTRF:
        return loom__cusolver_potrf_workspace(fn, l, device, bytes);
    case LOOM_LIB_CUSOLVER_GEQRF:
    case LOOM_LIB_CUSOLVER_ORGQR:
        return loom__cusolver_qr_workspace(fn, l, device, bytes);
    case LOOM_LIB_CUB_SELECT:
        return loom__cub_select_workspace(fn, l, bytes);
    case LOOM_LIB_CUB_BINCOUNT:
        return loom__cub_bincount_workspace(fn, l, bytes);
    default:
        return LOOM_OK;
    }
}

bool loom__step_has_work(const loom_step *s)
{
    if (s->kind == LOOM_STEP_KERNEL)
        return s->kernel.work > 0;
    if (s->kind == LOOM_STEP_COPY)
        return s->copy.bytes > 0;
    return true;
}

bool loom__step_capturable(const loom_step *s)
{
    switch (s->kind) {
    case LOOM_STEP_KERNEL:
    case LOOM_STEP_COPY:
        return true;
    case LOOM_STEP_LIBRARY:
        return loom__lib_info(s->lib.routine)->capturable;
    default:
        return false;
    }
}

int loom__step_run(const char *fn, const loom_step *s, const loom__step_state *r,
                   void *const *addr, cudaStream_t st, const loom__device_props *props)
{
    switch (s->kind) {
    case LOOM_STEP_KERNEL: {
        const loom_kernel *k = &s->kernel;
        dim3 g = loom__kernel_grid(k, props);
        dim3 b = loom__kernel_block(k);
        LOOM__LOG("launch %s (%s) grid %u,%u,%u block %u,%u,%u", k->name, k->summary, g.x, g.y,
                  g.z, b.x, b.y, b.z);
        cudaError_t e = cudaLaunchKernel((const void *)r->kernel->handle, g, b, r->argv,
                                         k->shared_mem, st);
        return loom__cuda_check(e, fn, "launching a kernel");
    }
    case LOOM_STEP_LIBRARY:
        LOOM__LOG("library call: %s", loom__lib_info(s->lib.routine)->name);
        return loom__library_run(fn, &s->lib, r, s->device, addr, st);
    case LOOM_STEP_COPY: {
        const loom_copy *c = &s->copy;
        cudaError_t e = cudaMemcpyAsync((char *)addr[c->dst] + c->dst_offset,
                                        (const char *)addr[c->src] + c->src_offset, c->bytes,
                                        cudaMemcpyDeviceToDevice, st);
        return loom__cuda_check(e, fn, "copying between device buffers");
    }
    case LOOM_STEP_HOST_SYNC:
        loom__stat_add(LOOM__STAT_HOST_SYNCS, 1);
        return loom__cuda_check(cudaStreamSynchronize(st), fn, "waiting for the stream");
    }
    return LOOM_OK;
}
