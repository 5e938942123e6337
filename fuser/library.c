/* The fixed table of library routines a plan may call: names, and whether a CUDA Graph may
 * capture them (fuser/plan.h). Entries are set from each library's documentation, never by
 * trying a capture. */
#include "plan.h"

static const loom_lib_info routines[LOOM_LIB_COUNT] = {
    /* cuBLAS supports stream capture when the workspace is set by the caller
     * (cublasSetWorkspace) and scalars are read from device memory. */
    [LOOM_LIB_CUBLAS_GEMM] = {"cublas gemm", true},
    /* syevd waits on the host for its tridiagonal stage's results. */
    /* cublasLt likewise, with the workspace given to each call and host scalars. */
    [LOOM_LIB_CUBLASLT_MATMUL] = {"cublasLt matmul", true},
    [LOOM_LIB_CUSOLVER_SYEVD] = {"cusolver syevd", false},
    /* The legacy 32-bit routine: its workspace is part of the plan (queried while planning)
     * and it does not wait on the host, like getrf. */
    [LOOM_LIB_CUSOLVER_POTRF] = {"cusolver potrf", true},
    /* cuFFT supports stream capture once its work area is set by the caller
     * (cufftSetAutoAllocation(0) + cufftSetWorkArea) and the plan exists before capture. */
    [LOOM_LIB_CUFFT] = {"cufft", true},
    /* CUB's device algorithms may be captured when their temporary storage is given. */
    [LOOM_LIB_CUB_SORT] = {"cub radix sort", true},
    /* Workspaces are part of the plan (sized by cuSOLVER's query while planning), and neither
     * routine waits on the host. */
    [LOOM_LIB_CUSOLVER_GETRF] = {"cusolver getrf", true},
    [LOOM_LIB_CUSOLVER_GETRS] = {"cusolver getrs", true},
    /* No workspace; pointer arrays and pivots live in plan buffers. */
    [LOOM_LIB_CUBLAS_GETRF_BATCHED] = {"cublas getrfBatched", true},
    [LOOM_LIB_CUBLAS_GETRS_BATCHED] = {"cublas getrsBatched", true},
    /* gesvdp returns its error estimate to the host (it waits), the automatic driver reads
     * sigma_max to decide on a second try, and workspaces come from the pool. */
    [LOOM_LIB_CUSOLVER_SVD] = {"cusolver svd", false},
    /* Workspaces in the plan (queried while planning); no host waits. */
    [LOOM_LIB_CUSOLVER_GEQRF] = {"cusolver geqrf", true},
    [LOOM_LIB_CUSOLVER_ORGQR] = {"cusolver orgqr", true},
    /* geev works partly on the host (its host workspace): an eager step. */
    [LOOM_LIB_CUSOLVER_GEEV] = {"cusolver geev", false},
    /* No workspace; pointer arrays and status words live in plan buffers; no host waits. */
    [LOOM_LIB_CUSOLVER_POTRF_BATCHED] = {"cusolver potrfBatched", true},
    /* Its workspace is taken from the pool when it runs (it is sized with the syevj
     * parameters made at the first call): eager, as syevd. */
    [LOOM_LIB_CUSOLVER_SYEVJ_BATCHED] = {"cusolver syevjBatched", false},
    /* No workspace; pointer arrays in plan buffers; its info is a host word written at the
     * call for argument errors only (as getrsBatched's). */
    [LOOM_LIB_CUBLAS_GEQRF_BATCHED] = {"cublas geqrfBatched", true},
    /* Temporary storage and the count in plan buffers; the count stays on the device. */
    [LOOM_LIB_CUB_SELECT] = {"cub select", true},
    /* Counts by atomics, sums by CUB's scan and segmented reduction; storage in the plan. */
    [LOOM_LIB_CUB_BINCOUNT] = {"cub bincount", true},
    /* The generator keeps its position on the host between calls: a captured launch replayed
     * would repeat its numbers instead of drawing new ones. */
    [LOOM_LIB_CURAND] = {"curand generate", false},
};

const loom_lib_info *loom__lib_info(loom_lib_routine r)
{
    return &routines[(unsigned)r < LOOM_LIB_COUNT ? r : 0];
}
