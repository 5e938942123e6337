/* The in-memory kernel cache in front of the disk cache and NVRTC, and kernel loading and
 * launching through the runtime's library API (cudaLibraryLoadData / cudaLibraryGetKernel).
 *
 * Entries are keyed by the full canonical key (format, Loom and NVRTC versions, compile
 * options, architecture, kernel name, header names with a hash and length of each header's
 * text, source), compared in full: the key's hash only picks the bucket and names the disk
 * file.
 *
 * One mutex guards the table, and compiles run outside it so that a long compile never
 * blocks lookups. Two threads that miss on the same kernel at the same time may both compile
 * it; the second to finish finds the first one's entry and drops its own. That is wasted work,
 * never a wrong result, and rare: the executor caches plans, and with them kernel pointers.
 *
 * The table is bounded (LRU): past its capacity, inserting a kernel evicts the least recently
 * used one that no cached plan holds (loom__kernel_get_held / loom__kernel_drop). Held kernels
 * are never evicted, so a plan's kernel handles stay loaded as long as the plan is cached;
 * when every kernel is held the table grows past the capacity until plans are dropped. */
#define _POSIX_C_SOURCE 200809L
#include "cudart.h"
#include "exec.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* v3: the cached payload is the kernel's CUBIN symbol, a NUL, then the CUBIN. */
#define KEY_FORMAT "loom kernel cache key v3"

typedef struct entry {
    loom__kernel k; /* first: callers get &entry->k */
    uint64_t hash;
    char *key;
    size_t key_len;
    char *payload;         /* the cached bytes: k.symbol, its NUL, then k.cubin */
    cudaLibrary_t library; /* NULL until loaded */
    int holds;             /* cached plans using the kernel: never evicted while > 0 */
    uint64_t last_use;     /* the use clock when last looked up, for LRU eviction */
    struct entry *next;
} entry;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static entry **buckets;
static size_t nbuckets, nentries;
static size_t capacity = LOOM__KCACHE_DEFAULT_CAPACITY;
static uint64_t use_clock;

/* ---- keys ---- */

typedef struct keybuf {
    char *p;
    size_t len, cap;
    bool failed;
} keybuf;

/* Appends "label <length>:<bytes>\n": length-prefixed, so that no two inputs give one key. */
static void key_add(keybuf *kb, const char *label, const char *s)
{
    size_t n = strlen(s);
    char head[64];
    int h = snprintf(head, sizeof head, "%s %zu:", label, n);
    size_t need = kb->len + (size_t)h + n + 1;
    if (kb->failed)
        return;
    if (need > kb->cap) {
        size_t cap = kb->cap ? kb->cap : 4096;
        while (cap < need)
            cap *= 2;
        char *p = realloc(kb->p, cap);
        if (!p) {
            kb->failed = true;
            return;
        }
        kb->p = p;
        kb->cap = cap;
    }
    memcpy(kb->p + kb->len, head, (size_t)h);
    memcpy(kb->p + kb->len + h, s, n);
    kb->len += (size_t)h + n;
    kb->p[kb->len++] = '\n';
}

static int check_args(const char *fn, const char *name, const char *source,
                      const loom__header *headers, int nheaders)
{
    bool ok = name && source && nheaders >= 0 && (nheaders == 0 || headers);
    for (int i = 0; ok && i < nheaders; i++)
        ok = headers[i].name && headers[i].source;
    if (!ok)
        loom__error(LOOM_ERR_INVALID, fn, "kernel %s: missing name, source or header",
                    name ? name : "(null)");
    return ok ? 0 : LOOM_ERR_INVALID;
}

static char *make_key(const char *fn, const char *name, const char *source,
                      const loom__header *headers, int nheaders, const char *extra_options,
                      const char *arch, size_t *len)
{
    keybuf kb = {0};
    key_add(&kb, "format", KEY_FORMAT);
    key_add(&kb, "loom", LOOM_VERSION_STRING);
    key_add(&kb, "compiler", loom__nvrtc_fingerprint());
    key_add(&kb, "arch", arch);
    key_add(&kb, "options", extra_options ? extra_options : "");
    key_add(&kb, "name", name);
    /* A header's text is keyed by its FNV-1a 64 and length, not stored: the embedded headers
     * are ~100 KB, which every disk-cache file used to carry. */
    for (int i = 0; i < nheaders; i++) {
        uint64_t hash;
        size_t n;
        if (!loom__device_header_digest(headers[i].source, &hash, &n)) {
            n = strlen(headers[i].source);
            hash = loom__fnv1a64(headers[i].source, n, LOOM__FNV1A64_INIT);
        }
        char digest[64];
        snprintf(digest, sizeof digest, "fnv1a64 %016llx length %zu", (unsigned long long)hash, n);
        key_add(&kb, "header", headers[i].name);
        key_add(&kb, "header-source", digest);
    }
    key_add(&kb, "source", source);
    if (kb.failed) {
        free(kb.p);
        loom__error(LOOM_ERR_OOM, fn, "out of host memory");
        return NULL;
    }
    *len = kb.len;
    return kb.p;
}

/* ---- the table (callers hold the lock) ---- */

static entry *find(uint64_t hash, const char *key, size_t len)
{
    if (!nbuckets)
        return NULL;
    for (entry *e = buckets[hash % nbuckets]; e; e = e->next) {
        if (e->hash == hash && e->key_len == len && memcmp(e->key, key, len) == 0) {
            e->last_use = ++use_clock;
            return e;
        }
    }
    return NULL;
}

static int insert(entry *e)
{
    if (nentries >= nbuckets) {
        size_t n = nbuckets ? 2 * nbuckets : 256;
        entry **grown = calloc(n, sizeof *grown);
        if (!grown)
            return -1;
        for (size_t i = 0; i < nbuckets; i++) {
            for (entry *x = buckets[i], *next; x; x = next) {
                next = x->next;
                x->next = grown[x->hash % n];
                grown[x->hash % n] = x;
            }
        }
        free(buckets);
        buckets = grown;
        nbuckets = n;
    }
    e->next = buckets[e->hash % nbuckets];
    buckets[e->hash % nbuckets] = e;
    e->last_use = ++use_clock;
    nentries++;
    return 0;
}

/* Unlinks the least recently used kernel that nothing holds, other than keep, or returns
 * NULL. A linear scan: it runs only past the capacity, next to a compile or a disk read. */
static entry *take_lru_victim(const entry *keep)
{
    entry **victim = NULL;
    for (size_t i = 0; i < nbuckets; i++)
        for (entry **pp = &buckets[i]; *pp; pp = &(*pp)->next)
            if (!(*pp)->holds && *pp != keep &&
                (!victim || (*pp)->last_use < (*victim)->last_use))
                victim = pp;
    if (!victim)
        return NULL;
    entry *e = *victim;
    *victim = e->next;
    nentries--;
    return e;
}

static void entry_free(entry *e)
{
    if (e->library && cudaLibraryUnload(e->library) != cudaSuccess)
        cudaGetLastError();
    free((void *)e->k.name);
    free(e->payload);
    free(e->key);
    free(e);
}

/* Frees evicted entries (a list through next). Unloading a library whose kernels may still
 * run is undefined: an evicted kernel was last launched by a plan that is gone, whose work may
 * still be queued on any stream. Eviction is rare (the cache holds thousands of kernels), so
 * waiting for every device first is cheap enough. */
static void free_evicted(entry *victims)
{
    bool loaded = false;
    for (entry *v = victims; v; v = v->next)
        loaded |= v->library != NULL;
    if (loaded)
        loom__capture_lock(); /* no capture may hold these kernels' work while we wait */
    for (int d = 0; loaded && d < loom_device_count(); d++) {
        int prev;
        if (loom__device_push_quiet(d, &prev) == 0) {
            if (cudaDeviceSynchronize() != cudaSuccess)
                cudaGetLastError();
            loom__device_pop(prev);
        }
    }
    if (loaded)
        loom__capture_unlock();
    for (entry *next; victims; victims = next) {
        next = victims->next;
        LOOM__LOG("kernel cache: evicted %s for %s", victims->k.name, victims->k.arch);
        entry_free(victims);
    }
}

void loom__kcache_clear_kernels(void)
{
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < nbuckets; i++) {
        for (entry *e = buckets[i], *next; e; e = next) {
            next = e->next;
            entry_free(e);
        }
    }
    free(buckets);
    buckets = NULL;
    nbuckets = nentries = 0;
    pthread_mutex_unlock(&lock);
}

/* ---- lookups ---- */

/* Compiles the kernel into a cache payload (malloc'd): its CUBIN symbol, a NUL, its CUBIN. */
static char *compile(const char *fn, const char *name, const char *source,
                     const loom__header *headers, int nheaders, const char *arch,
                     const char *extra_options, size_t *size)
{
    void *cubin;
    size_t cubin_size;
    char *symbol;
    if (loom__compile_to_cubin_symbol(fn, name, source, headers, nheaders, arch, extra_options,
                                      &cubin, &cubin_size, &symbol) != 0)
        return NULL;
    const size_t symbol_size = strlen(symbol) + 1;
    char *payload = malloc(symbol_size + cubin_size);
    if (payload) {
        memcpy(payload, symbol, symbol_size);
        memcpy(payload + symbol_size, cubin, cubin_size);
        *size = symbol_size + cubin_size;
    } else {
        loom__error(LOOM_ERR_OOM, fn, "out of host memory");
    }
    free(symbol);
    free(cubin);
    return payload;
}

/* The entry for the kernel through memory, disk and NVRTC; with hold, one hold is taken under
 * the same lock that found or inserted it, so eviction can never take it in between. */
static entry *lookup(const char *fn, const char *name, const char *source,
                     const loom__header *headers, int nheaders, const char *extra_options,
                     const char *arch, bool hold)
{
    char archbuf[16];
    if (check_args(fn, name, source, headers, nheaders) != 0)
        return NULL;
    if (!arch) {
        if (loom__target_arch(fn, archbuf) != 0)
            return NULL;
        arch = archbuf;
    }
    size_t len;
    char *key = make_key(fn, name, source, headers, nheaders, extra_options, arch, &len);
    if (!key)
        return NULL;
    uint64_t hash = loom__fnv1a64(key, len, LOOM__FNV1A64_INIT);
    pthread_mutex_lock(&lock);
    entry *e = find(hash, key, len);
    if (e && hold)
        e->holds++;
    pthread_mutex_unlock(&lock);
    if (e) {
        loom__stat_add(LOOM__STAT_MEMORY_CACHE_HITS, 1);
        free(key);
        return e;
    }

    void *payload;
    size_t size;
    bool hit = loom__disk_cache_read(key, len, hash, &payload, &size);
    if (hit && !memchr(payload, 0, size)) { /* not a payload of this format: compile again */
        free(payload);
        hit = false;
    }
    if (hit) {
        loom__stat_add(LOOM__STAT_DISK_CACHE_HITS, 1);
        LOOM__LOG("kernel %s for %s loaded from the disk cache (%zu bytes)", name, arch, size);
    } else if (!(payload = compile(fn, name, source, headers, nheaders, arch, extra_options, &size))) {
        free(key);
        return NULL;
    } else {
        loom__disk_cache_write(key, len, hash, payload, size);
    }

    e = calloc(1, sizeof *e);
    char *name_copy = strdup(name);
    if (!e || !name_copy) {
        free(e);
        free(name_copy);
        free(payload);
        free(key);
        loom__error(LOOM_ERR_OOM, fn, "out of host memory");
        return NULL;
    }
    e->k.name = name_copy;
    snprintf(e->k.arch, sizeof e->k.arch, "%s", arch);
    e->payload = payload;
    e->k.symbol = payload;
    const size_t symbol_size = strlen(payload) + 1;
    e->k.cubin = (char *)payload + symbol_size;
    e->k.cubin_size = size - symbol_size;
    e->hash = hash;
    e->key = key;
    e->key_len = len;
    entry *victims = NULL, *v;
    pthread_mutex_lock(&lock);
    entry *existing = find(hash, key, len);
    int err = existing ? 0 : insert(e);
    entry *found = existing ? existing : err ? NULL : e;
    if (found && hold)
        found->holds++;
    while (!existing && !err && nentries > capacity && (v = take_lru_victim(e))) {
        v->next = victims;
        victims = v;
    }
    pthread_mutex_unlock(&lock);
    free_evicted(victims);
    if (existing || err) {
        entry_free(e);
        if (err)
            loom__error(LOOM_ERR_OOM, fn, "out of host memory");
    }
    return found;
}

const loom__kernel *loom__kernel_compile(const char *fn, const char *name, const char *source,
                                         const loom__header *headers, int nheaders,
                                         const char *extra_options, const char *arch)
{
    entry *e = lookup(fn, name, source, headers, nheaders, extra_options, arch, false);
    return e ? &e->k : NULL;
}

const loom__kernel *loom__kernel_compile_held(const char *fn, const char *name,
                                              const char *source, const loom__header *headers,
                                              int nheaders, const char *extra_options,
                                              const char *arch)
{
    entry *e = lookup(fn, name, source, headers, nheaders, extra_options, arch, true);
    return e ? &e->k : NULL;
}

/* Loads e's library once (for every device of its architecture). */
static int load(const char *fn, entry *e)
{
    pthread_mutex_lock(&lock);
    bool loaded = e->library != NULL;
    pthread_mutex_unlock(&lock);
    if (loaded)
        return 0;

    cudaLibrary_t lib;
    cudaKernel_t kernel;
    if (loom__cuda_check(cudaLibraryLoadData(&lib, e->k.cubin, NULL, NULL, 0, NULL, NULL, 0), fn,
                         "cudaLibraryLoadData") != 0)
        return -1;
    cudaError_t ge = cudaLibraryGetKernel(&kernel, lib, e->k.symbol);
    if (ge != cudaSuccess) {
        cudaGetLastError();
        cudaLibraryUnload(lib);
        loom__error(LOOM_ERR_CUDA, fn,
                    "kernel %s is not in its compiled source (cudaLibraryGetKernel: %s); it "
                    "must be declared extern \"C\" __global__",
                    e->k.name, cudaGetErrorString(ge));
        return -1;
    }
    pthread_mutex_lock(&lock);
    if (!e->library) {
        e->library = lib;
        e->k.handle = kernel;
        lib = NULL;
    }
    pthread_mutex_unlock(&lock);
    if (lib)
        cudaLibraryUnload(lib);
    return 0;
}

static const loom__kernel *get(const char *fn, const char *name, const char *source,
                               const loom__header *headers, int nheaders,
                               const char *extra_options, bool hold)
{
    int dev;
    if (loom__device_current(fn, &dev) != 0)
        return NULL;
    const loom__device_props *props = loom__device_props_get(fn, dev);
    if (!props)
        return NULL;
    entry *e = lookup(fn, name, source, headers, nheaders, extra_options, props->arch, hold);
    if (!e)
        return NULL;
    if (load(fn, e) != 0) {
        if (hold)
            loom__kernel_drop(&e->k);
        return NULL;
    }
    return &e->k;
}

const loom__kernel *loom__kernel_get(const char *fn, const char *name, const char *source,
                                     const loom__header *headers, int nheaders,
                                     const char *extra_options)
{
    return get(fn, name, source, headers, nheaders, extra_options, false);
}

const loom__kernel *loom__kernel_get_held(const char *fn, const char *name, const char *source,
                                          const loom__header *headers, int nheaders,
                                          const char *extra_options)
{
    return get(fn, name, source, headers, nheaders, extra_options, true);
}

void loom__kernel_drop(const loom__kernel *k)
{
    if (!k)
        return;
    pthread_mutex_lock(&lock);
    ((entry *)k)->holds--;
    pthread_mutex_unlock(&lock);
}

void loom__kcache_trim(void)
{
    entry *victims = NULL, *v;
    pthread_mutex_lock(&lock);
    while ((v = take_lru_victim(NULL))) {
        v->next = victims;
        victims = v;
    }
    pthread_mutex_unlock(&lock);
    free_evicted(victims);
}

void loom__kcache_set_capacity(size_t kernels)
{
    pthread_mutex_lock(&lock);
    capacity = kernels ? kernels : LOOM__KCACHE_DEFAULT_CAPACITY;
    pthread_mutex_unlock(&lock);
}

size_t loom__kcache_count(void)
{
    pthread_mutex_lock(&lock);
    size_t n = nentries;
    pthread_mutex_unlock(&lock);
    return n;
}

int loom__kernel_launch(const char *fn, const loom__kernel *k, loom__dim3 grid, loom__dim3 block,
                        size_t smem_bytes, loom_stream *s, void **args)
{
    int dev, prev, err;
    if (!k->handle) {
        loom__error(LOOM_ERR_INVALID, fn, "kernel %s is compiled but not loaded", k->name);
        return LOOM_ERR_INVALID;
    }
    if (!s) {
        if ((err = loom__device_current(fn, &dev)) != 0)
            return err;
        if (!(s = loom__stream_current(fn, dev)))
            return loom_last_error_code();
    }
    if ((err = loom__device_push(fn, s->device, &prev)) != 0)
        return err;
    dim3 g = {grid.x, grid.y, grid.z}, b = {block.x, block.y, block.z};
    cudaError_t e = cudaLaunchKernel((const void *)k->handle, g, b, args, smem_bytes,
                                     loom__stream_handle(s));
    loom__device_pop(prev);
    if (e != cudaSuccess) {
        char what[320];
        snprintf(what, sizeof what, "launching kernel %s", k->name);
        return loom__cuda_check(e, fn, what);
    }
    loom__stat_add(LOOM__STAT_KERNELS_LAUNCHED, 1);
    LOOM__LOG("launch %s grid (%u,%u,%u) block (%u,%u,%u) smem %zu on stream %p", k->name,
              grid.x, grid.y, grid.z, block.x, block.y, block.z, smem_bytes, s->handle);
    return 0;
}

int loom__kcache_path(char *buf, size_t n, const char *name, const char *source,
                      const loom__header *headers, int nheaders, const char *extra_options,
                      const char *arch)
{
    const char *fn = "loom__kcache_path";
    size_t len;
    char *key;
    if (check_args(fn, name, source, headers, nheaders) != 0 ||
        !(key = make_key(fn, name, source, headers, nheaders, extra_options, arch, &len)))
        return -1;
    int r = loom__disk_cache_path(buf, n, loom__fnv1a64(key, len, LOOM__FNV1A64_INIT));
    free(key);
    return r;
}
