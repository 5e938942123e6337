/* cuFFT: a plan cache per device, least recently used plans evicted past the size limit
 * (loom_fft_plan_cache_set_size), like cupy.fft.config.get_plan_cache. Plans are made when a
 * Loom plan is prepared, outside any capture, with cuFFT's own work allocation off: the work
 * area is a buffer of the Loom plan's arena, so each run (and each stream) has its own and a
 * CUDA Graph may capture the call. A prepared step holds its cuFFT plan: eviction only drops
 * the cache's hold, and a plan goes when nothing holds it. A step may ask for a store callback
 * (fuser/fft_callback.c): its source is compiled to LTO-IR and linked into the plan, which is
 * cached under the callback's scale too. */
#include "steps.h"

#include <cufftXt.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define KEY_WORDS 21
#define DEFAULT_SIZE 16

struct loom__fft_plan {
    int64_t key[KEY_WORDS];
    cufftHandle handle;
    size_t work_bytes;
    /* The store callback's LTO-IR: cuFFT keeps the pointer cufftXtSetJITCallback was given and
     * reads it when the plan is made (freed before that, planning fails with
     * CUFFT_INTERNAL_ERROR), so it lives as long as the plan. */
    void *callback_ltoir;
    int holds;                 /* the cache's and the steps' */
    bool cached;
    struct loom__fft_plan *newer, *older; /* the device's list, most recent first */
};

static struct loom__fft_plan *newest[LOOM__MAX_DEVICES];
static int counts[LOOM__MAX_DEVICES];
static int cache_size = DEFAULT_SIZE;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static int fft_check(cufftResult r, const char *fn, const char *what)
{
    if (r == CUFFT_SUCCESS)
        return LOOM_OK;
    int code = r == CUFFT_ALLOC_FAILED ? LOOM_ERR_OOM : LOOM_ERR_LIBRARY;
    loom__error(code, fn, "%s failed (cuFFT status %d)", what, (int)r);
    loom__error_set_detail((int)r);
    return code;
}

static void make_key(const loom_fft_args *a, int device, int64_t *k)
{
    int64_t v[KEY_WORDS] = {a->type, a->dtype, a->inverse, a->rank,
                            a->n[0], a->n[1], a->n[2],
                            a->inembed[0], a->inembed[1], a->inembed[2],
                            a->onembed[0], a->onembed[1], a->onembed[2],
                            a->istride, a->idist, a->ostride, a->odist, a->batch, device,
                            a->store_scale, 0};
    if (a->store_scale)
        memcpy(&v[20], &a->scale, sizeof a->scale);
    /* Unused axes must not split equal plans. */
    for (int i = a->rank; i < 3; i++)
        v[4 + i] = v[7 + i] = v[10 + i] = 0;
    memcpy(k, v, sizeof v);
}

static void unlink_plan(struct loom__fft_plan *p, int device)
{
    if (p->newer)
        p->newer->older = p->older;
    else
        newest[device] = p->older;
    if (p->older)
        p->older->newer = p->newer;
    p->newer = p->older = NULL;
}

static void push_newest(struct loom__fft_plan *p, int device)
{
    p->older = newest[device];
    p->newer = NULL;
    if (newest[device])
        newest[device]->newer = p;
    newest[device] = p;
}

/* Drops one hold; the plan is destroyed with the last. Called with the lock held. */
static void drop_locked(struct loom__fft_plan *p)
{
    if (p && --p->holds == 0) {
        cufftDestroy(p->handle);
        free(p->callback_ltoir);
        free(p);
    }
}

/* Evicts the device's least recently used plans past limit. Called with the lock held. */
static void trim_locked(int device, int limit)
{
    while (counts[device] > limit) {
        struct loom__fft_plan *p = newest[device];
        while (p->older)
            p = p->older;
        unlink_plan(p, device);
        p->cached = false;
        counts[device]--;
        drop_locked(p);
    }
}

static cudaDataType_t in_type(const loom_fft_args *a, bool dbl)
{
    if (a->type == LOOM_FFT_R2C)
        return dbl ? CUDA_R_64F : CUDA_R_32F;
    return dbl ? CUDA_C_64F : CUDA_C_32F;
}

static cudaDataType_t out_type(const loom_fft_args *a, bool dbl)
{
    if (a->type == LOOM_FFT_C2R)
        return dbl ? CUDA_R_64F : CUDA_R_32F;
    return dbl ? CUDA_C_64F : CUDA_C_32F;
}

/* The callback's LTO-IR for arch: from the disk cache (keyed by NVRTC's fingerprint, the
 * architecture and the source, like kernels), else compiled and stored there. */
static int callback_ltoir(const char *fn, const char *name, const char *src, const char *arch,
                          void **ltoir, size_t *size)
{
    const char *fp = loom__nvrtc_fingerprint();
    size_t len = strlen(fp) + strlen(arch) + strlen(src) + 32;
    char *key = malloc(len);
    if (!key) {
        loom__error(LOOM_ERR_OOM, fn, "out of host memory");
        return LOOM_ERR_OOM;
    }
    len = (size_t)snprintf(key, len, "cufft callback LTO-IR\n%s\n%s\n%s", fp, arch, src);
    uint64_t hash = loom__fnv1a64(key, len, LOOM__FNV1A64_INIT);
    int rc = LOOM_OK;
    if (loom__disk_cache_read(key, len, hash, ltoir, size)) {
        LOOM__LOG("cuFFT callback %s for %s loaded from the disk cache (%zu bytes of LTO-IR)",
                  name, arch, *size);
    } else {
        rc = loom__compile_to_ltoir(fn, name, src, arch, ltoir, size);
        if (rc == LOOM_OK)
            loom__disk_cache_write(key, len, hash, *ltoir, *size);
    }
    free(key);
    return rc;
}

/* Links a's store callback into the plan being made (after cufftCreate, before planning);
 * *ltoir_out keeps its LTO-IR, which must outlive the planning. */
static int set_store_callback(const char *fn, const loom_fft_args *a, int device, cufftHandle h,
                              void **ltoir_out)
{
    const loom__device_props *props = loom__device_props_get(fn, device);
    if (!props)
        return loom_last_error_code();
    char name[64];
    char *src = loom__fft_store_callback(a, name, sizeof name);
    if (!src) {
        loom__error(LOOM_ERR_OOM, fn, "out of host memory");
        return LOOM_ERR_OOM;
    }
    void *ltoir = NULL;
    size_t size = 0;
    int rc = callback_ltoir(fn, name, src, props->arch, &ltoir, &size);
    bool dbl = a->dtype == LOOM_FLOAT64 || a->dtype == LOOM_COMPLEX128;
    if (rc == LOOM_OK)
        rc = fft_check(cufftXtSetJITCallback(h, name, ltoir, size,
                                             dbl ? CUFFT_CB_ST_COMPLEX_DOUBLE : CUFFT_CB_ST_COMPLEX,
                                             NULL),
                       fn, "cufftXtSetJITCallback");
    *ltoir_out = ltoir;
    free(src);
    return rc;
}

static int make_plan(const char *fn, const loom_fft_args *a, int device, struct loom__fft_plan *p)
{
    bool dbl = a->dtype == LOOM_FLOAT64 || a->dtype == LOOM_COMPLEX128;
    long long n[3], inembed[3], onembed[3];
    for (int k = 0; k < 3; k++) {
        n[k] = a->n[k];
        inembed[k] = a->inembed[k];
        onembed[k] = a->onembed[k];
    }
    int rc = fft_check(cufftCreate(&p->handle), fn, "cufftCreate");
    if (rc)
        return rc;
    rc = fft_check(cufftSetAutoAllocation(p->handle, 0), fn, "cufftSetAutoAllocation");
    if (rc == LOOM_OK && a->store_scale)
        rc = set_store_callback(fn, a, device, p->handle, &p->callback_ltoir);
    if (rc == LOOM_OK)
        rc = fft_check(cufftXtMakePlanMany(p->handle, a->rank, n, inembed, a->istride, a->idist,
                                           in_type(a, dbl), onembed, a->ostride, a->odist,
                                           out_type(a, dbl), a->batch, &p->work_bytes,
                                           dbl ? CUDA_C_64F : CUDA_C_32F),
                       fn, "cufftXtMakePlanMany");
    if (rc) {
        cufftDestroy(p->handle);
        free(p->callback_ltoir);
        p->callback_ltoir = NULL;
    }
    return rc;
}

/* The cached plan for a on device (a new hold), made on a miss. */
static int plan_get(const char *fn, const loom_fft_args *a, int device,
                    struct loom__fft_plan **out)
{
    int64_t key[KEY_WORDS];
    make_key(a, device, key);
    pthread_mutex_lock(&lock);
    for (struct loom__fft_plan *p = newest[device]; p; p = p->older) {
        if (memcmp(p->key, key, sizeof key) == 0) {
            unlink_plan(p, device);
            push_newest(p, device);
            p->holds++;
            pthread_mutex_unlock(&lock);
            loom__stat_add(LOOM__STAT_FFT_PLAN_HITS, 1);
            *out = p;
            return LOOM_OK;
        }
    }
    pthread_mutex_unlock(&lock);
    loom__stat_add(LOOM__STAT_FFT_PLAN_MISSES, 1);
    struct loom__fft_plan *p = calloc(1, sizeof *p);
    if (!p) {
        loom__error(LOOM_ERR_OOM, fn, "out of host memory");
        return LOOM_ERR_OOM;
    }
    memcpy(p->key, key, sizeof key);
    int rc = make_plan(fn, a, device, p);
    if (rc) {
        free(p);
        return rc;
    }
    LOOM__LOG("cuFFT plan made: rank %d, batch %lld, work area %zu bytes%s", a->rank,
              (long long)a->batch, p->work_bytes, a->store_scale ? ", store callback" : "");
    pthread_mutex_lock(&lock);
    p->holds = 1;
    if (cache_size > 0) {
        p->holds++;
        p->cached = true;
        push_newest(p, device);
        counts[device]++;
        trim_locked(device, cache_size);
    }
    pthread_mutex_unlock(&lock);
    *out = p;
    return LOOM_OK;
}

int loom__cufft_prepare(const char *fn, loom_plan *plan, int step, loom__step_state *r)
{
    loom_libcall *l = &plan->steps[step].lib;
    int rc = plan_get(fn, &l->args.fft, plan->steps[step].device, &r->fft);
    if (rc || l->workspace < 0 || r->fft->work_bytes == 0)
        return rc;
    /* The work area goes at the end of the arena, apart from every other temporary. */
    loom_plan_buffer *ws = &plan->buffers[l->workspace];
    size_t at = (plan->arena_bytes + 255) / 256 * 256;
    ws->arena_offset = at;
    ws->bytes = r->fft->work_bytes;
    l->workspace_bytes = ws->bytes;
    plan->arena_bytes = at + ws->bytes;
    return LOOM_OK;
}

void loom__cufft_drop(struct loom__fft_plan *p)
{
    pthread_mutex_lock(&lock);
    drop_locked(p);
    pthread_mutex_unlock(&lock);
}

int loom__cufft_exec(const char *fn, const loom_libcall *l, const loom__step_state *r,
                     void *const *addr, cudaStream_t st)
{
    cufftHandle h = r->fft->handle;
    int rc = fft_check(cufftSetStream(h, st), fn, "setting cuFFT's stream");
    if (rc == LOOM_OK && r->fft->work_bytes)
        rc = fft_check(cufftSetWorkArea(h, addr[l->workspace]), fn, "setting cuFFT's work area");
    if (rc == LOOM_OK)
        rc = fft_check(cufftXtExec(h, loom__lib_operand(l, addr, 0), loom__lib_operand(l, addr, 1),
                                   l->args.fft.inverse ? CUFFT_INVERSE : CUFFT_FORWARD),
                       fn, "cufftXtExec");
    return rc;
}

/* ---- public ---- */

int loom_fft_plan_cache_set_size(int size)
{
    if (size < 0) {
        loom__error(LOOM_ERR_INVALID, "loom_fft_plan_cache_set_size",
                    "size must be non-negative, got %d", size);
        return LOOM_ERR_INVALID;
    }
    pthread_mutex_lock(&lock);
    cache_size = size;
    for (int d = 0; d < LOOM__MAX_DEVICES; d++)
        trim_locked(d, size);
    pthread_mutex_unlock(&lock);
    return LOOM_OK;
}

int loom_fft_plan_cache_get_size(void)
{
    pthread_mutex_lock(&lock);
    int size = cache_size;
    pthread_mutex_unlock(&lock);
    return size;
}

int loom_fft_plan_cache_count(void)
{
    pthread_mutex_lock(&lock);
    int n = 0;
    for (int d = 0; d < LOOM__MAX_DEVICES; d++)
        n += counts[d];
    pthread_mutex_unlock(&lock);
    return n;
}

void loom_fft_plan_cache_clear(void)
{
    pthread_mutex_lock(&lock);
    for (int d = 0; d < LOOM__MAX_DEVICES; d++)
        trim_locked(d, 0);
    pthread_mutex_unlock(&lock);
}
