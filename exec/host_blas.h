/* exec/host_blas.h — CBLAS and LAPACKE for the host device's library steps, loaded at run time
 * with dlopen (exec/host_blas_load.c; no header or link dependency), and the steps they run:
 * GEMMs (exec/host_gemm.c) and the decompositions (exec/host_lapack.c, exec/host_eigen.c,
 * exec/host_svd.c). Every argument is checked before a call: a rejected one makes the reference
 * CBLAS and LAPACK (not OpenBLAS) print and exit the process.
 * Internal to exec/. */
#ifndef LOOM_EXEC_HOST_BLAS_H
#define LOOM_EXEC_HOST_BLAS_H

#include "steps.h"

/* CBLAS's and LAPACKE's constants (their enums and defines are these ints). */
enum { LOOM__COL_MAJOR = 102, LOOM__CBLAS_NO_TRANS = 111, LOOM__CBLAS_TRANS = 112,
       LOOM__CBLAS_CONJ_TRANS = 113 };
/* LAPACKE's "could not allocate" results. */
enum { LOOM__LAPACK_WORK_MEMORY_ERROR = -1010, LOOM__LAPACK_TRANSPOSE_MEMORY_ERROR = -1011 };

/* The prototypes are CBLAS's and LAPACKE's with 32-bit ints (lapack_int, blasint) and the
 * arrays as void pointers: one type serves the four element types of a routine. */
typedef struct loom__host_blas {
    void (*sgemm)(int order, int ta, int tb, int m, int n, int k, float alpha, const void *a,
                  int lda, const void *b, int ldb, float beta, void *c, int ldc);
    void (*dgemm)(int order, int ta, int tb, int m, int n, int k, double alpha, const void *a,
                  int lda, const void *b, int ldb, double beta, void *c, int ldc);
    /* cgemm, zgemm: alpha and beta point at complex values */
    void (*complex_gemm[2])(int order, int ta, int tb, int m, int n, int k, const void *alpha,
                            const void *a, int lda, const void *b, int ldb, const void *beta,
                            void *c, int ldc);
} loom__host_blas;

/* LAPACKE's _work routines (no NaN check of the input, workspaces from the caller). Arrays
 * indexed by loom__host_type_index: S, D, C, Z. */
typedef struct loom__host_lapack {
    int (*getrf[4])(int layout, int m, int n, void *a, int lda, int *ipiv);
    int (*getrs[4])(int layout, char trans, int n, int nrhs, const void *a, int lda,
                    const int *ipiv, void *b, int ldb);
    int (*potrf[4])(int layout, char uplo, int n, void *a, int lda);
    int (*geqrf[4])(int layout, int m, int n, void *a, int lda, void *tau, void *work, int lwork);
    /* orgqr (real), ungqr (complex) */
    int (*orgqr[4])(int layout, int m, int n, int k, void *a, int lda, const void *tau,
                    void *work, int lwork);
    /* ssyevd, dsyevd */
    int (*syevd[2])(int layout, char jobz, char uplo, int n, void *a, int lda, void *w,
                    void *work, int lwork, int *iwork, int liwork);
    /* cheevd, zheevd */
    int (*heevd[2])(int layout, char jobz, char uplo, int n, void *a, int lda, void *w,
                    void *work, int lwork, void *rwork, int lrwork, int *iwork, int liwork);
    /* sgesdd, dgesdd */
    int (*gesdd[2])(int layout, char jobz, int m, int n, void *a, int lda, void *s, void *u,
                    int ldu, void *vt, int ldvt, void *work, int lwork, int *iwork);
    /* cgesdd, zgesdd */
    int (*complex_gesdd[2])(int layout, char jobz, int m, int n, void *a, int lda, void *s,
                            void *u, int ldu, void *vt, int ldvt, void *work, int lwork,
                            void *rwork, int *iwork);
    /* cgeev, zgeev (eig's matrices are complex) */
    int (*complex_geev[2])(int layout, char jobvl, char jobvr, int n, void *a, int lda, void *w,
                           void *vl, int ldvl, void *vr, int ldvr, void *work, int lwork,
                           void *rwork);
} loom__host_lapack;

/* The libraries, loaded once for the process (thread-safe): CBLAS from LOOM_HOST_BLAS, else
 * the first of libopenblas.so.0, libcblas.so.3, libblas.so.3 that has it; LAPACKE from
 * LOOM_HOST_LAPACKE, else liblapacke.so.3. NULL, with *why set to why not (a static phrase
 * for "... is not available on the host device: <why>"), when it cannot be loaded. */
const loom__host_blas *loom__host_blas_get(const char **why);
const loom__host_lapack *loom__host_lapack_get(const char **why);

/* 0, 1, 2, 3 for float32, float64, complex64, complex128: LAPACK's S, D, C, Z. */
int loom__host_type_index(loom_dtype dt);

/* ---- the steps (each runs one library step of the plan; addr: the plan's buffers) ---- */

/* cublas gemm and cublasLt matmul (bias, relu-bias epilogues) on CBLAS. */
int loom__host_gemm(const char *fn, const loom_libcall *l, void *const *addr);
/* LU: getrf, getrs (per matrix and batched over pointer arrays). */
int loom__host_getrf(const char *fn, const loom_libcall *l, void *const *addr);
int loom__host_getrs(const char *fn, const loom_libcall *l, void *const *addr);
/* cholesky: potrf (per matrix and batched). */
int loom__host_potrf(const char *fn, const loom_libcall *l, void *const *addr);
/* eigh: syevd / heevd for both the per-matrix and the Jacobi-batched steps
 * (exec/host_eigen.c). */
int loom__host_syevd(const char *fn, const loom_libcall *l, void *const *addr);
/* QR: geqrf (per matrix and batched), orgqr / ungqr. */
int loom__host_geqrf(const char *fn, const loom_libcall *l, void *const *addr);
int loom__host_orgqr(const char *fn, const loom_libcall *l, void *const *addr);
/* SVD: gesdd for every driver (exec/host_svd.c). */
int loom__host_svd(const char *fn, const loom_libcall *l, void *const *addr);
/* eig: cgeev / zgeev (exec/host_eigen.c). */
int loom__host_geev(const char *fn, const loom_libcall *l, void *const *addr);

/* ---- helpers of the LAPACK steps (exec/host_lapack.c) ---- */

/* The LAPACKE table for a step on rows x cols matrices, or NULL with LOOM_ERR_UNSUPPORTED
 * recorded under fn: "<what> is not available on the host device: <why>", or sizes beyond
 * LAPACK's 32-bit ints. */
const loom__host_lapack *loom__host_lapack_for(const char *fn, const char *what, int64_t rows,
                                               int64_t cols);
/* The lwork to pass after a workspace query answered in query's first element (of dt). */
int loom__host_lwork(const void *query, loom_dtype dt);
/* Matrix b of operand k: pointers, an array of matrix addresses; else bytes apart. */
void *loom__host_matrix(const loom_libcall *l, void *const *addr, int k, bool pointers, int64_t b,
                        size_t bytes);
/* One pool buffer for a LAPACK routine's work (lwork elements of dt), rwork (lrwork of dt's
 * real part) and iwork (liwork ints), the sizes a query gave; released with buffer. NULL
 * buffer, with LOOM_ERR_OOM recorded under fn naming what, when the pool has no room. */
typedef struct loom__host_workspace {
    loom_buffer *buffer;
    void *work, *rwork;
    int *iwork;
} loom__host_workspace;
int loom__host_workspace_get(const char *fn, const char *what, loom_dtype dt, int64_t lwork,
                             int64_t lrwork, int64_t liwork, loom__host_workspace *w);
/* A LAPACKE result other than 0 or a positive info: LAPACKE's memory errors as LOOM_ERR_OOM,
 * a rejected argument as an internal error, both naming routine under fn. */
int loom__host_lapack_failed(const char *fn, const char *routine, int result);

#endif /* LOOM_EXEC_HOST_BLAS_H */
