/* Library steps on the host device (docs/host-device.md): each routine family's host
 * implementation, and what a step the host cannot run reports. The plan is the GPU's: buffers,
 * operands and status words are where the fuser put them; only the routine differs. */
#include "steps.h"
#include "host_blas.h"
#include "host_library.h"

static int unavailable(const char *fn, const loom_step *s, const char *why)
{
    loom__error(LOOM_ERR_UNSUPPORTED, fn, "%s%s%s%s is not available on the host device%s%s",
                loom__lib_info(s->lib.routine)->name, s->summary ? " (" : "",
                s->summary ? s->summary : "", s->summary ? ")" : "", why ? ": " : "", why ? why : "");
    return LOOM_ERR_UNSUPPORTED;
}

int loom__host_library_check(const char *fn, const loom_step *s)
{
    const char *why = NULL;
    switch (s->lib.routine) {
    case LOOM_LIB_CUFFT:
        if (!(why = loom__host_fft_missing()))
            return LOOM_OK;
        return unavailable(fn, s, why);
    case LOOM_LIB_CURAND:
        return LOOM_OK;
    case LOOM_LIB_CUBLAS_GEMM:
    case LOOM_LIB_CUBLASLT_MATMUL:
        return loom__host_blas_get(&why) ? LOOM_OK : unavailable(fn, s, why);
    case LOOM_LIB_CUSOLVER_SYEVD:
    case LOOM_LIB_CUSOLVER_SYEVJ_BATCHED:
    case LOOM_LIB_CUSOLVER_POTRF:
    case LOOM_LIB_CUSOLVER_POTRF_BATCHED:
    case LOOM_LIB_CUSOLVER_GETRF:
    case LOOM_LIB_CUSOLVER_GETRS:
    case LOOM_LIB_CUBLAS_GETRF_BATCHED:
    case LOOM_LIB_CUBLAS_GETRS_BATCHED:
    case LOOM_LIB_CUSOLVER_GEQRF:
    case LOOM_LIB_CUBLAS_GEQRF_BATCHED:
    case LOOM_LIB_CUSOLVER_ORGQR:
    case LOOM_LIB_CUSOLVER_SVD:
    case LOOM_LIB_CUSOLVER_GEEV:
        return loom__host_lapack_get(&why) ? LOOM_OK : unavailable(fn, s, why);
    case LOOM_LIB_CUB_SORT:
        why = loom__host_sort_unavailable(&s->lib);
        return why ? unavailable(fn, s, why) : LOOM_OK;
    case LOOM_LIB_CUB_SELECT:
    case LOOM_LIB_CUB_BINCOUNT:
        return LOOM_OK;
    default:
        return unavailable(fn, s, why);
    }
}

int loom__host_library_run(const char *fn, const loom_step *s, void *const *addr)
{
    const loom_libcall *l = &s->lib;
    switch (l->routine) {
    case LOOM_LIB_CUFFT:
        return loom__host_fft_run(fn, l, addr);
    case LOOM_LIB_CURAND:
        return loom__curand_generate(fn, l, addr, NULL);
    case LOOM_LIB_CUBLAS_GEMM:
    case LOOM_LIB_CUBLASLT_MATMUL:
        return loom__host_gemm(fn, l, addr);
    case LOOM_LIB_CUSOLVER_SYEVD:
    case LOOM_LIB_CUSOLVER_SYEVJ_BATCHED:
        return loom__host_syevd(fn, l, addr);
    case LOOM_LIB_CUSOLVER_POTRF:
    case LOOM_LIB_CUSOLVER_POTRF_BATCHED:
        return loom__host_potrf(fn, l, addr);
    case LOOM_LIB_CUSOLVER_GETRF:
    case LOOM_LIB_CUBLAS_GETRF_BATCHED:
        return loom__host_getrf(fn, l, addr);
    case LOOM_LIB_CUSOLVER_GETRS:
    case LOOM_LIB_CUBLAS_GETRS_BATCHED:
        return loom__host_getrs(fn, l, addr);
    case LOOM_LIB_CUSOLVER_GEQRF:
    case LOOM_LIB_CUBLAS_GEQRF_BATCHED:
        return loom__host_geqrf(fn, l, addr);
    case LOOM_LIB_CUSOLVER_ORGQR:
        return loom__host_orgqr(fn, l, addr);
    case LOOM_LIB_CUSOLVER_SVD:
        return loom__host_svd(fn, l, addr);
    case LOOM_LIB_CUSOLVER_GEEV:
        return loom__host_geev(fn, l, addr);
    case LOOM_LIB_CUB_SORT:
        return loom__host_sort(fn, l, addr);
    case LOOM_LIB_CUB_SELECT:
        return loom__host_select(fn, l, addr);
    case LOOM_LIB_CUB_BINCOUNT:
        return loom__host_bincount(fn, l, addr);
    default:
        return unavailable(fn, s, NULL);
    }
}
