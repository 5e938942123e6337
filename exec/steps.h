/* exec/steps.h — one runner per plan step kind (exec/step_*.c), and the replay of a plan's
 * steps as CUDA Graph segments (exec/replay.c). Internal to exec/. */
#ifndef LOOM_EXEC_STEPS_H
#define LOOM_EXEC_STEPS_H

#include "cudart.h"
#include "fuser/plan.h"

/* What a step needs at run time beyond the plan: prepared once per cached plan, arguments
 * refreshed each run. */
typedef struct loom__step_state {
    const loom__kernel *kernel; /* kernel steps with work: compiled and loaded; else NULL */
    void **argv;                /* kernel steps: cudaLaunchKernel's argument pointers */
    struct loom__fft_plan *fft; /* cuFFT steps: the cuFFT plan held (exec/cufft.c) */
} loom__step_state;

/* Whether step s does anything (kernels without work and empty copies do not). */
bool loom__step_has_work(const loom_step *s);
/* Whether a CUDA Graph may capture s (kernels and copies always; library routines per the
 * fixed table; host synchronisations never). */
bool loom__step_capturable(const loom_step *s);

/* ---- kernels (exec/step_kernel.c) ---- */

/* Compiles and loads a kernel step with work through the kernel caches, holding the kernel in
 * the in-memory cache (the cached plan drops it when it goes). */
int loom__kernel_step_prepare(const char *fn, const loom_step *s, loom__step_state *r);
/* The grid kernel k launches with on a device with props. */
dim3 loom__kernel_grid(const loom_kernel *k, const loom__device_props *props);
/* The block it launches with. */
dim3 loom__kernel_block(const loom_kernel *k);
/* Points argv (k->nargs entries) at k's values and at ptrs, which it fills with the addresses
 * of k's buffers (addr: one per plan buffer). Checks vector alignment. */
int loom__kernel_args(const char *fn, const loom_kernel *k, void *const *addr, void **ptrs,
                      void **argv);

/* ---- library calls (exec/step_library.c, exec/cublas.c) ---- */

/* The address of library call l's operand k (its plan buffer plus byte offset). */
static inline void *loom__lib_operand(const loom_libcall *l, void *const *addr, int k)
{
    return (char *)addr[l->buffer[k]] + l->byte_offset[k];
}

/* Makes what library call l needs on device before any run: handles and their constants, made
 * outside any CUDA Graph capture (their setup allocates and waits). */
int loom__library_prepare(const char *fn, const loom_libcall *l, int device);
int loom__cublas_prepare(const char *fn, int device);
/* Runs library call l on device's stream st with buffer addresses addr. */
int loom__library_run(const char *fn, const loom_libcall *l, const loom__step_state *r,
                      int device, void *const *addr, cudaStream_t st);
/* A cuBLAS/cublasLt status (a cublasStatus_t) as a Loom error under fn: LOOM_OK, else
 * LOOM_ERR_OOM or LOOM_ERR_CUDA with "what: cuBLAS's message". */
int loom__cublas_check(int st, const char *fn, const char *what);
/* cublasGemmStridedBatchedEx with the device's handle (exec/cublas.c). */
int loom__cublas_gemm(const char *fn, const loom_libcall *l, int device, void *const *addr,
                      cudaStream_t st);

/* cublasLt (exec/cublaslt.c): the device's handle, a product with its bias (relu) epilogue,
 * and the measured probe deciding where that wins (loom_fuse_options.epilogue_wins). */
int loom__cublaslt_prepare(const char *fn, int device);
int loom__cublaslt_matmul(const char *fn, const loom_libcall *l, int device, void *const *addr,
                          cudaStream_t st);
bool loom__cublaslt_epilogue_wins(int device, const loom_gemm_args *g);

/* cuSOLVER (exec/cusolver.c): the device's handle, and the eigen-decomposition. */
int loom__cusolver_prepare(const char *fn, int device);
int loom__cusolver_syevd(const char *fn, const loom_libcall *l, int device, void *const *addr,
                         cudaStream_t st);
/* cholesky: potrf's workspace query (asked while planning), potrf per matrix, and
 * potrfBatched over a pointer array; eigh of stacks of tiny matrices: syevjBatched. */
int loom__cusolver_potrf_workspace(const char *fn, const loom_libcall *l, int device,
                                   size_t *bytes);
int loom__cusolver_potrf(const char *fn, const loom_libcall *l, int device, void *const *addr,
                         cudaStream_t st);
int loom__cusolver_potrf_batched(const char *fn, const loom_libcall *l, int device,
                                 void *const *addr, cudaStream_t st);
int loom__cusolver_syevj_batched(const char *fn, const loom_libcall *l, int device,
                                 void *const *addr, cudaStream_t st);
/* QR of stacks of small matrices: cublas<t>geqrfBatched over pointer arrays (exec/cublas.c). */
int loom__cublas_geqrf_batched(const char *fn, const loom_libcall *l, int device,
                               void *const *addr, cudaStream_t st);
/* LU: getrf's workspace query (asked while planning), getrf and getrs per matrix; cuBLAS's
 * batched getrf and getrs over pointer arrays (exec/cublas.c). */
int loom__cusolver_getrf_workspace(const char *fn, const loom_libcall *l, int device,
                                   size_t *bytes);
int loom__cusolver_getrf(const char *fn, const loom_libcall *l, int device, void *const *addr,
                         cudaStream_t st);
int loom__cusolver_getrs(const char *fn, const loom_libcall *l, int device, void *const *addr,
                         cudaStream_t st);
int loom__cublas_getrf_batched(const char *fn, const loom_libcall *l, int device,
                               void *const *addr, cudaStream_t st);
int loom__cublas_getrs_batched(const char *fn, const loom_libcall *l, int device,
                               void *const *addr, cudaStream_t st);
/* dst = src^H (src^T for real dtypes), two n x n column-major matrices that do not overlap,
 * on st with cuBLAS's geam (exec/cublas.c). */
int loom__cublas_adjoint(const char *fn, int device, cudaStream_t st, loom_dtype dt, int64_t n,
                         const void *src, void *dst);
/* SVD of each matrix of a stack (exec/cusolver.c), an eager step. */
int loom__cusolver_svd(const char *fn, const loom_libcall *l, int device, void *const *addr,
                       cudaStream_t st);
/* QR (exec/cusolver.c): the workspace query of geqrf and orgqr (asked while planning), and
 * either call over a stack, one call per matrix. */
int loom__cusolver_qr_workspace(const char *fn, const loom_libcall *l, int device, size_t *bytes);
int loom__cusolver_qr(const char *fn, const loom_libcall *l, int device, void *const *addr,
                      cudaStream_t st);
/* One RandomState draw (exec/curand.c): a cuRAND generate call on st, in draw order. */
int loom__curand_generate(const char *fn, const loom_libcall *l, void *const *addr, cudaStream_t st);
/* eig (exec/cusolver.c): Xgeev of each matrix of a stack, an eager step. */
int loom__cusolver_geev(const char *fn, const loom_libcall *l, int device, void *const *addr,
                        cudaStream_t st);
/* How many matrices the automatic SVD driver recomputed with gesvd since the process began
 * (tests check that rank-deficient input takes that path). */
uint64_t loom__cusolver_svd_fallbacks(void);
/* The workspace library call l needs on device (loom_fuse_options.workspace_query). */
int loom__library_workspace(const char *fn, const loom_libcall *l, int device, size_t *bytes);

/* The legacy cuSOLVER and cuBLAS APIs name one function per type: s = <prefix><t><name>(...)
 * with t S, D, C or Z for dtype dt (float32, float64, complex64, complex128). Real and complex
 * names may differ (orgqr, ungqr). */
#define LOOM__TYPED_CALL(s, dt, prefix, real, cplx, ...)                                        \
    do {                                                                                         \
        switch ((loom_dtype)(dt)) {                                                              \
        case LOOM_FLOAT32:                                                                       \
            (s) = prefix##S##real(__VA_ARGS__);                                                  \
            break;                                                                               \
        case LOOM_COMPLEX64:                                                                     \
            (s) = prefix##C##cplx(__VA_ARGS__);                                                  \
            break;                                                                               \
        case LOOM_COMPLEX128:                                                                    \
            (s) = prefix##Z##cplx(__VA_ARGS__);                                                  \
            break;                                                                               \
        default:                                                                                 \
            (s) = prefix##D##real(__VA_ARGS__);                                                  \
            break;                                                                               \
        }                                                                                        \
    } while (0)

/* cuFFT (exec/cufft.c): step `step` of plan gets its cuFFT plan from the cache (a hold kept in
 * r until loom__cufft_drop) and its work area at the end of the plan's arena. */
int loom__cufft_prepare(const char *fn, loom_plan *plan, int step, loom__step_state *r);
void loom__cufft_drop(struct loom__fft_plan *p);
int loom__cufft_exec(const char *fn, const loom_libcall *l, const loom__step_state *r,
                     void *const *addr, cudaStream_t st);
/* CUB's radix sort (exec/cub.c, kernels/loom_sort.cu). */
int loom__cub_sort_run(const char *fn, const loom_libcall *l, void *const *addr, cudaStream_t st);
int loom__cub_bincount_workspace(const char *fn, const loom_libcall *l, size_t *bytes);
int loom__cub_bincount_run(const char *fn, const loom_libcall *l, void *const *addr,
                           cudaStream_t st);
int loom__cub_select_workspace(const char *fn, const loom_libcall *l, size_t *bytes);
int loom__cub_select_run(const char *fn, const loom_libcall *l, void *const *addr,
                         cudaStream_t st);

/* ---- any step ---- */

/* Runs step s (prepared in r) on st: launched directly, or recorded when st is capturing. */
int loom__step_run(const char *fn, const loom_step *s, const loom__step_state *r,
                   void *const *addr, cudaStream_t st, const loom__device_props *props);

/* ---- replay (exec/replay.c) ---- */

typedef struct loom__replay loom__replay;

/* The replay state of plan p: its steps cut into segments of capturable steps. NULL when
 * memory runs out (error recorded under fn). */
loom__replay *loom__replay_new(const char *fn, const loom_plan *p);
void loom__replay_free(loom__replay *r);
/* Runs plan p on s: each capturable segment as one CUDA Graph launch (captured once; kernel
 * nodes patched when the segment holds only kernels; otherwise captured again and the
 * instantiated graph updated when an address or value changed), every other step directly.
 * LOOM_GRAPHS=0 runs every step directly. */
int loom__replay_run(const char *fn, loom__replay *r, const loom_plan *p,
                     const loom__step_state *runs, void *const *addr, loom_stream *s,
                     const loom__device_props *props);

#endif
