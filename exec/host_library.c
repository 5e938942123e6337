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

/* Why the host cannot run a routine family's step now (its library missing), else NULL. */
static const char *always(const loom_libcall *l)
{
    (void)l;
    return NULL;
}

static const char *needs_blas(const loom_libcall *l)
{
    const char *why = NULL;
    (void)l;
    return loom__host_blas_get(&why) ? NULL : why;
}

static const char *needs_lapacke(const loom_libcall *l)
{
    const char *why = NULL;
    (void)l;
    return loom__host_lapack_get(&why) ? NULL : why;
}

static const char *needs_kissfft(const loom_libcall *l)
{
    (void)l;
    return loom__host_fft_missing();
}

static int curand_run(const char *fn, const loom_libcall *l, void *const *addr)
{
    return loom__curand_generate(fn, l, addr, NULL); /* a host generator, no stream */
}

/* Each routine the host runs: its runner and what it needs. Routines absent here (none but
 * the GPU's own) are not available on the host device. */
static const struct host_routine {
    int (*run)(const char *fn, const loom_libcall *l, void *const *addr);
    const char *(*missing)(const loom_libcall *l);
} routines[LOOM_LIB_COUNT] = {
    [LOOM_LIB_CUFFT] = {loom__host_fft_run, needs_kissfft},
    [LOOM_LIB_CURAND] = {curand_run, always},
    [LOOM_LIB_CUBLAS_GEMM] = {loom__host_gemm, needs_blas},
    [LOOM_LIB_CUBLASLT_MATMUL] = {loom__host_gemm, needs_blas},
    [LOOM_LIB_CUSOLVER_SYEVD] = {loom__host_syevd, needs_lapacke},
    [LOOM_LIB_CUSOLVER_SYEVJ_BATCHED] = {loom__host_syevd, needs_lapacke},
    [LOOM_LIB_CUSOLVER_POTRF] = {loom__host_potrf, needs_lapacke},
    [LOOM_LIB_CUSOLVER_POTRF_BATCHED] = {loom__host_potrf, needs_lapacke},
    [LOOM_LIB_CUSOLVER_GETRF] = {loom__host_getrf, needs_lapacke},
    [LOOM_LIB_CUBLAS_GETRF_BATCHED] = {loom__host_getrf, needs_lapacke},
    [LOOM_LIB_CUSOLVER_GETRS] = {loom__host_getrs, needs_lapacke},
    [LOOM_LIB_CUBLAS_GETRS_BATCHED] = {loom__host_getrs, needs_lapacke},
    [LOOM_LIB_CUSOLVER_GEQRF] = {loom__host_geqrf, needs_lapacke},
    [LOOM_LIB_CUBLAS_GEQRF_BATCHED] = {loom__host_geqrf, needs_lapacke},
    [LOOM_LIB_CUSOLVER_ORGQR] = {loom__host_orgqr, needs_lapacke},
    [LOOM_LIB_CUSOLVER_SVD] = {loom__host_svd, needs_lapacke},
    [LOOM_LIB_CUSOLVER_GEEV] = {loom__host_geev, needs_lapacke},
    [LOOM_LIB_CUB_SORT] = {loom__host_sort, loom__host_sort_unavailable},
    [LOOM_LIB_CUB_SELECT] = {loom__host_select, always},
    [LOOM_LIB_CUB_BINCOUNT] = {loom__host_bincount, always},
};

static const struct host_routine *routine_of(const loom_step *s)
{
    unsigned r = (unsigned)s->lib.routine;
    return r < LOOM_LIB_COUNT && routines[r].run ? &routines[r] : NULL;
}

int loom__host_library_check(const char *fn, const loom_step *s)
{
    const struct host_routine *h = routine_of(s);
    const char *why = h ? h->missing(&s->lib) : NULL;
    return h && !why ? LOOM_OK : unavailable(fn, s, why);
}

int loom__host_library_run(const char *fn, const loom_step *s, void *const *addr)
{
    const struct host_routine *h = routine_of(s);
    return h ? h->run(fn, &s->lib, addr) : unavailable(fn, s, NULL);
}
