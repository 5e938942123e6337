/* CBLAS and LAPACKE for the host device, loaded at run time with dlopen (docs/host-device.md):
 * Loom has no link or header dependency on them, and a machine without them still runs every
 * other step. Each library is loaded once for the process, at the first plan that needs it;
 * a missing library or symbol is remembered as the reason its steps are not available. */
#define _GNU_SOURCE
#include "host_blas.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define INSTALL_HINT "install OpenBLAS and LAPACKE, e.g. Debian's libopenblas0 and liblapacke"

static pthread_once_t blas_once = PTHREAD_ONCE_INIT, lapack_once = PTHREAD_ONCE_INIT;
static loom__host_blas blas;
static loom__host_lapack lapack;
static bool blas_loaded, lapack_loaded;
static char blas_why[1024], lapack_why[1024];

int loom__host_type_index(loom_dtype dt)
{
    return dt == LOOM_FLOAT32 ? 0 : dt == LOOM_FLOAT64 ? 1 : dt == LOOM_COMPLEX64 ? 2 : 3;
}

/* The address of symbol name (a printf format of one char argument, LAPACK's type letter) in
 * handle, or NULL after naming it in *missing. */
static void *symbol(void *handle, const char *format, char letter, char *missing, size_t n)
{
    char name[64];
    snprintf(name, sizeof name, format, letter);
    void *p = dlsym(handle, name);
    if (!p && !*missing)
        snprintf(missing, n, "%s", name);
    return p;
}

/* dlsym's void * as the function pointer *slot (POSIX guarantees the conversion). */
#define RESOLVE(slot, handle, format, letter, missing)                                           \
    do {                                                                                         \
        void *p_ = symbol(handle, format, letter, missing, sizeof missing);                      \
        memcpy(&(slot), &p_, sizeof p_);                                                         \
    } while (0)

static bool resolve_blas(void *h, char *missing, size_t n)
{
    char miss[64] = "";
    RESOLVE(blas.sgemm, h, "cblas_%cgemm", 's', miss);
    RESOLVE(blas.dgemm, h, "cblas_%cgemm", 'd', miss);
    RESOLVE(blas.complex_gemm[0], h, "cblas_%cgemm", 'c', miss);
    RESOLVE(blas.complex_gemm[1], h, "cblas_%cgemm", 'z', miss);
    snprintf(missing, n, "%s", miss);
    return !*miss;
}

static bool resolve_lapack(void *h, char *missing, size_t n)
{
    static const char letters[4] = {'s', 'd', 'c', 'z'};
    char miss[64] = "";
    for (int t = 0; t < 4; t++) {
        char c = letters[t];
        RESOLVE(lapack.getrf[t], h, "LAPACKE_%cgetrf_work", c, miss);
        RESOLVE(lapack.getrs[t], h, "LAPACKE_%cgetrs_work", c, miss);
        RESOLVE(lapack.potrf[t], h, "LAPACKE_%cpotrf_work", c, miss);
        RESOLVE(lapack.geqrf[t], h, "LAPACKE_%cgeqrf_work", c, miss);
        RESOLVE(lapack.orgqr[t], h, t < 2 ? "LAPACKE_%corgqr_work" : "LAPACKE_%cungqr_work", c,
                miss);
        if (t < 2) {
            RESOLVE(lapack.syevd[t], h, "LAPACKE_%csyevd_work", c, miss);
            RESOLVE(lapack.gesdd[t], h, "LAPACKE_%cgesdd_work", c, miss);
        } else {
            RESOLVE(lapack.heevd[t - 2], h, "LAPACKE_%cheevd_work", c, miss);
            RESOLVE(lapack.complex_gesdd[t - 2], h, "LAPACKE_%cgesdd_work", c, miss);
            RESOLVE(lapack.complex_geev[t - 2], h, "LAPACKE_%cgeev_work", c, miss);
        }
    }
    snprintf(missing, n, "%s", miss);
    return !*miss;
}

/* LOOM_HOST_THREADS caps OpenBLAS's threads as it caps the host kernels' (OpenBLAS, found
 * through handle's dependencies too; other BLAS libraries keep their own setting). */
static void cap_threads(void *handle)
{
    const char *env = getenv("LOOM_HOST_THREADS");
    void *p = env && atoi(env) > 0 ? dlsym(handle, "openblas_set_num_threads") : NULL;
    void (*set)(int);
    if (p) {
        memcpy(&set, &p, sizeof p);
        set(atoi(env));
    }
}

/* Opens the library named by the environment variable env, else the first of candidates that
 * loads and resolves; on failure writes why into why (what: the library's kind). */
static bool load(const char *env, const char *const *candidates, int ncandidates,
                 const char *what, bool (*resolve)(void *, char *, size_t), char *why, size_t n)
{
    const char *chosen = getenv(env);
    char missing[64] = "";
    if (chosen && *chosen) {
        void *h = dlopen(chosen, RTLD_NOW | RTLD_LOCAL);
        if (!h) {
            const char *e = dlerror();
            snprintf(why, n, "%s=\"%s\" could not be loaded (%s)", env, chosen, e ? e : "?");
            return false;
        }
        if (!resolve(h, missing, sizeof missing)) {
            snprintf(why, n, "%s=\"%s\" has no %s (%s is missing)", env, chosen, what, missing);
            dlclose(h);
            return false;
        }
        cap_threads(h);
        return true;
    }
    for (int i = 0; i < ncandidates; i++) {
        void *h = dlopen(candidates[i], RTLD_NOW | RTLD_LOCAL);
        if (h && resolve(h, missing, sizeof missing)) {
            cap_threads(h);
            return true;
        }
        if (h)
            dlclose(h);
    }
    char names[256] = "";
    for (int i = 0; i < ncandidates; i++)
        snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s",
                 i == 0 ? "" : i + 1 < ncandidates ? ", " : " or ", candidates[i]);
    snprintf(why, n, "%s could not be loaded with %s (%s)", names, what, INSTALL_HINT);
    return false;
}

static void load_blas(void)
{
    static const char *const names[] = {"libopenblas.so.0", "libcblas.so.3", "libblas.so.3"};
    blas_loaded = load("LOOM_HOST_BLAS", names, 3, "CBLAS", resolve_blas, blas_why,
                       sizeof blas_why);
}

static void load_lapack(void)
{
    static const char *const names[] = {"liblapacke.so.3"};
    lapack_loaded = load("LOOM_HOST_LAPACKE", names, 1, "LAPACKE", resolve_lapack, lapack_why,
                         sizeof lapack_why);
}

const loom__host_blas *loom__host_blas_get(const char **why)
{
    pthread_once(&blas_once, load_blas);
    *why = blas_why;
    return blas_loaded ? &blas : NULL;
}

const loom__host_lapack *loom__host_lapack_get(const char **why)
{
    pthread_once(&lapack_once, load_lapack);
    *why = lapack_why;
    return lapack_loaded ? &lapack : NULL;
}

int loom__host_lapack_failed(const char *fn, const char *routine, int result)
{
    if (result == LOOM__LAPACK_WORK_MEMORY_ERROR || result == LOOM__LAPACK_TRANSPOSE_MEMORY_ERROR) {
        loom__error(LOOM_ERR_OOM, fn, "out of host memory in LAPACKE's %s", routine);
        return LOOM_ERR_OOM;
    }
    loom__error(LOOM_ERR_INVALID, fn, "internal error: LAPACKE's %s rejected argument %d", routine,
                -result);
    return LOOM_ERR_INVALID;
}
