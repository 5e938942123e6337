/*
 * exec/exec.h — the runtime's internal API for the executor and the tests: devices, streams,
 * device memory, transfers, NVRTC and the kernel caches, statistics and logging.
 *
 * No CUDA types here (handles are void *), so tests and other directories can include it
 * without the CUDA headers; exec/cudart.h has the few helpers that need them. docs/runtime.md
 * describes the behaviour these functions implement.
 *
 * Errors follow the library's rule: a failing call records "fn: reason" with loom__error and
 * returns NULL or a LOOM_ERR_* code; fn is the public function the caller is serving.
 */
#ifndef LOOM_EXEC_H
#define LOOM_EXEC_H

#include "internal.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Devices beyond this many are ignored (their ids are rejected). */
#define LOOM__MAX_DEVICES 64

/* ---- devices (exec/device.c) ---- */

typedef struct loom__device_props {
    char name[256];
    char arch[16];               /* NVRTC's -arch value for this device: "sm_90" */
    int cc_major, cc_minor;
    int sm_count;
    int max_threads_per_block;
    int max_threads_per_sm;
    int warp_size;
    size_t l2_bytes;
    size_t smem_per_block;       /* what a kernel gets without opting in (48 KiB) */
    size_t smem_per_block_optin; /* the most a kernel may ask for after opting in */
    size_t smem_per_sm;
    size_t total_mem;
} loom__device_props;

/* Finds the CUDA devices (once per process). Returns 0, or LOOM_ERR_NO_DEVICE with
 * "fn: no CUDA device (cudaGetDeviceCount: ...)" recorded. */
int loom__device_init(const char *fn);
/* Writes the calling thread's current device (the CUDA runtime's). Returns 0 or an error
 * (no device). */
int loom__device_current(const char *fn, int *device);
/* Checks 0 <= device < count; LOOM_ERR_INVALID ("device 3 is out of range (2 devices)") or
 * LOOM_ERR_NO_DEVICE otherwise. */
int loom__device_check(const char *fn, int device);
/* Makes device current for the CUDA runtime on this thread and writes the previous one to
 * *prev, for loom__device_pop. Work on an array's own device goes between the two. */
int loom__device_push(const char *fn, int device, int *prev);
void loom__device_pop(int prev);
/* loom__device_push for release paths: records no error; returns 0 or -1. */
int loom__device_push_quiet(int device, int *prev);
/* The cached properties of device (NULL with the error recorded if there is none). */
const loom__device_props *loom__device_props_get(const char *fn, int device);
/* The architecture to compile for: the current device's when there is a device, else the
 * environment variable LOOM_ARCH (e.g. "sm_90"), else "sm_90". out has room for 16 bytes.
 * Returns 0, or LOOM_ERR_INVALID for a malformed LOOM_ARCH. */
int loom__target_arch(const char *fn, char *out);

/* ---- streams (exec/stream.c) ---- */

typedef enum loom__stream_kind {
    LOOM__STREAM_DEFAULT, /* Loom's per-thread, per-device default: never destroyed by the user */
    LOOM__STREAM_OWNED,   /* made by loom_stream_create: destroyed with its last reference */
    LOOM__STREAM_WRAPPED  /* the user's cudaStream_t: never destroyed by Loom */
} loom__stream_kind;

/* Reference counted: the user's handle, the per-thread current-stream slots and every buffer
 * allocated on the stream each hold one, so a stream lives as long as memory is freed on it. */
struct loom_stream {
    atomic_int refcount;
    int device;
    loom__stream_kind kind;
    void *handle; /* cudaStream_t */
};

/* The calling thread's current stream on device (its default stream, created on first use,
 * unless loom_stream_set_current chose another). Borrowed: valid while it stays current. */
loom_stream *loom__stream_current(const char *fn, int device);
loom_stream *loom__stream_retain(loom_stream *s);
void loom__stream_release(loom_stream *s);

/* Serialises CUDA Graph captures with work queued on streams another thread may be capturing
 * (exec/stream.c has the rule). */
void loom__capture_lock(void);
void loom__capture_unlock(void);

/* ---- device memory (exec/mempool.c) ---- */

/* A new device buffer of bytes (refcount 1) from device's pool, allocated stream-ordered on
 * stream (NULL: the calling thread's current stream on device; otherwise a stream of device).
 * The buffer is freed, when its last reference goes, stream-ordered on that same stream, after
 * every other stream recorded with loom__buffer_record_use has reached its recorded use.
 * Past the pool's limit (loom_mempool_set_limit) it fails at once; when the device runs out it
 * calls the reclaim hook, synchronizes the device, trims the pool and retries once. Either way
 * it returns NULL with LOOM_ERR_OOM ("fn: out of memory allocating N bytes on device D (...)").
 * A buffer of 0 bytes has ptr NULL and costs nothing. */
loom_buffer *loom__buffer_alloc(const char *fn, size_t bytes, int device, loom_stream *stream);
/* The same, naming what the memory is for in the out-of-memory message ("... allocating N bytes
 * for the result of add (shape (1000,), float32) on device D"); what may be NULL. */
loom_buffer *loom__buffer_alloc_for(const char *fn, const char *what, size_t bytes, int device,
                                    loom_stream *stream);
/* A buffer for bytes at offset inside whole (a result of a multi-output node): it keeps the
 * allocation alive, and streams and uses are those of the allocation. NULL on out of memory. */
loom_buffer *loom__buffer_part(const char *fn, loom_buffer *whole, size_t offset, size_t bytes);
/* A buffer over memory another library owns (DLPack imports), at home on stream home: when
 * its last reference goes, home waits for the buffer's uses, the host waits for home, and
 * release(release_ctx) gives the memory back. NULL when host memory runs out. */
loom_buffer *loom__buffer_wrap(const char *fn, void *ptr, size_t bytes, int device,
                               loom_stream *home, void (*release)(void *), void *release_ctx);
/* Records that work just queued on s reads or writes b, so b's stream-ordered free waits
 * for it. Needed only when s is not the stream b was allocated on (it does nothing then). */
int loom__buffer_record_use(const char *fn, loom_buffer *b, loom_stream *s);
/* Makes s wait, on the device, until b's value is written: b is produced on the stream it was
 * allocated on (its home), so when s is another stream an event recorded on the home stream
 * now (after everything queued there, the producing work included) is waited for. Nothing
 * when s is the home stream. Must not be called while s is being captured. */
int loom__buffer_wait(const char *fn, loom_buffer *b, loom_stream *s);
/* The stream b was allocated on (borrowed). */
loom_stream *loom__buffer_stream(const loom_buffer *b);
/* Whether work on s may write over b's memory: b is a pool allocation of its own (no part,
 * no wrapped memory) at home on s, held by one reference, and no other
 * stream's use of it is recorded. */
bool loom__buffer_writable_on(const loom_buffer *b, const loom_stream *s);
/* Called by an allocation that ran out of device memory, on the allocating thread, before it
 * synchronizes the device, trims the pool and retries: the executor frees what its caches hold
 * on the device (exec/run.c). It must not wait for a Loom lock: the allocating thread may hold
 * the evaluation lock. */
typedef void (*loom__reclaim_fn)(int device);
void loom__mempool_set_reclaim(loom__reclaim_fn fn);
/* Failure injection for tests: counting device allocations from now (0: the next one), the
 * nth fails as if the device had no memory left; with persistent its retry after reclaiming
 * fails too (the caller sees LOOM_ERR_OOM), else the retry succeeds. nth < 0 turns it off. */
void loom__mempool_inject_failure(long nth, bool persistent);
/* How many injected failures fired since loom__mempool_inject_failure. */
long loom__mempool_injected_failures(void);

/* ---- status words of library routines (exec/check.c) ---- */

typedef struct loom__check loom__check;
struct loom_plan;
/* The check for the values one run of plan p writes: its status buffers (addresses in addr,
 * all inside the allocation status) and the pending checks of the values it reads. *out is
 * NULL when there is nothing to check. */
int loom__check_make(const char *fn, const struct loom_plan *p, void *const *addr, loom_buffer *status,
                     loom__check **out);
/* Gives buffer b (the allocation it is part of) check c, unless it already has one. */
void loom__check_attach(loom_buffer *b, loom__check *c);
/* b now holds c, the check of a run that wrote over b's old value in place; b's old check is
 * dropped (a check made from a run that read b keeps it as a parent). */
void loom__check_replace(loom_buffer *b, loom__check *c);
void loom__check_release(loom__check *c);
/* Resolves b's check after its value was read on s (the stream has been waited for): LOOM_OK,
 * or LOOM_ERR_LINALG with "fn: Singular matrix"-style error recorded (every later read of b
 * or of values computed from it reports the same). */
int loom__check_read(const char *fn, loom_buffer *b, loom_stream *s);

/* ---- pinned host memory and transfers (exec/pinned.c, exec/transfer.c) ---- */

/* A page-locked host buffer of at least bytes from a reused pool (NULL and an error recorded
 * on failure). Give it back with loom__pinned_release. */
void *loom__pinned_get(const char *fn, size_t bytes);
/* Returns p to the pool; it is handed out again only once the work queued on s so far
 * (typically the copy that reads it) has completed. s NULL: reusable at once. */
void loom__pinned_release(void *p, loom_stream *s);
/* Frees the idle pinned buffers (waiting for their pending copies). */
void loom__pinned_trim(void);
/* Host to device, ordered on s (which must belong to dst's device); returns as soon as src
 * has been staged, so the caller may reuse src at once. */
int loom__copy_to_device(const char *fn, void *dst, const void *src, size_t bytes, loom_stream *s);
/* Device to host, ordered on s; returns when the data is in dst. */
int loom__copy_to_host(const char *fn, void *dst, const void *src, size_t bytes, loom_stream *s);

/* ---- NVRTC and the kernel caches (exec/nvrtc.c, exec/kcache.c, exec/diskcache.c) ---- */

/* A header that generated source may #include "name" (device headers embedded as strings). */
typedef struct loom__header {
    const char *name;
    const char *source;
} loom__header;

/* A compiled kernel, owned by the in-memory cache. The kernel must be declared
 * extern "C" __global__ name(...). The cache is bounded (least recently used kernels are
 * evicted past LOOM__KCACHE_DEFAULT_CAPACITY): a kernel from loom__kernel_get_held stays valid
 * until loom__kernel_drop; one from loom__kernel_compile or loom__kernel_get only until the
 * cache evicts it (after capacity other kernels were inserted) or loom__kcache_clear_kernels
 * (tests). */
typedef struct loom__kernel {
    const char *name;   /* a C identifier or a name expression (loom__compile_to_cubin_symbol) */
    const char *symbol; /* the CUBIN's name of the kernel: name, or its lowered name */
    char arch[16];
    const void *cubin;
    size_t cubin_size;
    void *handle; /* cudaKernel_t once loom__kernel_get has loaded it, else NULL */
} loom__kernel;

/* Compiles source with NVRTC to CUBIN for arch ("sm_90"). Needs no GPU. Options: -arch=arch,
 * -std=c++17, precise math (no fast math, no flush to zero), the CUDA include directory, then
 * extra_options (NULL or space-separated, e.g. "-DN=4 --use_fast_math"). On success *cubin is
 * malloc'd (the caller frees it). On a compile error returns LOOM_ERR_COMPILE with
 * "fn: NVRTC failed to compile kernel name: <log>". Counts kernels_compiled. */
int loom__compile_to_cubin(const char *fn, const char *name, const char *source,
                           const loom__header *headers, int nheaders, const char *arch,
                           const char *extra_options, void **cubin, size_t *cubin_size);
/* loom__compile_to_cubin, where a name that is not a C identifier is a name expression
 * (CuPy's name_expressions: "scale<float, 4>", "ns::kernel"): NVRTC instantiates it and
 * *symbol (malloc'd) receives its lowered name, the CUBIN's symbol; for a C identifier
 * *symbol is a copy of name. */
int loom__compile_to_cubin_symbol(const char *fn, const char *name, const char *source,
                                  const loom__header *headers, int nheaders, const char *arch,
                                  const char *extra_options, void **cubin, size_t *cubin_size,
                                  char **symbol);
/* Compiles a device function with NVRTC to LTO-IR for arch (-dlto -rdc=true, the same fixed
 * options, no headers), for cuFFT's JIT callbacks; name names the program. *ltoir is malloc'd.
 * Needs no GPU. Returns 0 or the error recorded under fn. */
int loom__compile_to_ltoir(const char *fn, const char *name, const char *source,
                           const char *arch, void **ltoir, size_t *size);
/* The kernel compiled for arch (NULL: loom__target_arch) through the caches (memory, then
 * disk, then NVRTC), not loaded: needs no GPU. NULL with the error recorded on failure. */
const loom__kernel *loom__kernel_compile(const char *fn, const char *name, const char *source,
                                         const loom__header *headers, int nheaders,
                                         const char *extra_options, const char *arch);
/* The kernel compiled for the current device and loaded (handle set), through the caches.
 * Libraries are context-independent in CUDA 12+, so the handle serves every device of the
 * same architecture. */
const loom__kernel *loom__kernel_get(const char *fn, const char *name, const char *source,
                                     const loom__header *headers, int nheaders,
                                     const char *extra_options);

/* loom__kernel_compile and loom__kernel_get that also hold the kernel: it is never evicted
 * until loom__kernel_drop (cached plans hold their kernels). */
const loom__kernel *loom__kernel_compile_held(const char *fn, const char *name,
                                              const char *source, const loom__header *headers,
                                              int nheaders, const char *extra_options,
                                              const char *arch);
const loom__kernel *loom__kernel_get_held(const char *fn, const char *name, const char *source,
                                          const loom__header *headers, int nheaders,
                                          const char *extra_options);
void loom__kernel_drop(const loom__kernel *k);
/* Kernels the in-memory cache keeps before evicting unheld ones. */
#define LOOM__KCACHE_DEFAULT_CAPACITY 4096
/* Sets the capacity (0: the default); takes effect at the next insertion (tests). */
void loom__kcache_set_capacity(size_t kernels);
/* Kernels in the in-memory cache. */
size_t loom__kcache_count(void);
/* Evicts every kernel no plan holds, unloading their libraries (after waiting for the devices):
 * what an allocation that ran out of device memory reclaims. */
void loom__kcache_trim(void);

/* Loom's device headers (the .cuh files of kernels/), which generated kernels include. */
const loom__header *loom__device_headers(int *count);
/* The FNV-1a 64 and length of source when it is one of those headers' texts (computed once);
 * false for any other text. */
bool loom__device_header_digest(const char *source, uint64_t *hash, size_t *length);

typedef struct loom__dim3 {
    unsigned x, y, z;
} loom__dim3;

/* Launches a kernel from loom__kernel_get on s (NULL: the current stream of the current
 * device); args as for cudaLaunchKernel. Counts kernels_launched. */
int loom__kernel_launch(const char *fn, const loom__kernel *k, loom__dim3 grid, loom__dim3 block,
                        size_t smem_bytes, loom_stream *s, void **args);

/* Drops every in-memory kernel cache entry (unloading its library). It invalidates every
 * loom__kernel pointer handed out: callers clear what holds them first
 * (loom__exec_clear_memory_caches does both). */
void loom__kcache_clear_kernels(void);
/* Drops every cached plan, then every in-memory kernel (for tests). */
void loom__exec_clear_memory_caches(void);
/* The disk cache file that the kernel (same arguments as loom__kernel_compile, arch given)
 * lives in. Returns 0, or -1 when the disk cache is disabled or the path does not fit. */
int loom__kcache_path(char *buf, size_t n, const char *name, const char *source,
                      const loom__header *headers, int nheaders, const char *extra_options,
                      const char *arch);

/* The i-th -I option of the CUDA toolkit headers generated code includes (cuda_fp16.h...;
 * LOOM_CUDA_INCLUDE, then its cccl subdirectory), NULL past the last. */
const char *loom__cuda_include_option(int i);
/* NVRTC's version and the options every compile passes ("-std=c++17 ... -I<dir>"), which
 * cache keys include. Computed once. */
const char *loom__nvrtc_fingerprint(void);

/* Disk cache (best effort: failures are misses and are logged, never reported). Directory:
 * LOOM_CACHE_DIR, else $XDG_CACHE_HOME/loom, else $HOME/.cache/loom; LOOM_CACHE=0 or an empty
 * LOOM_CACHE_DIR disables it. Returns 0 with the directory in buf, or -1 when disabled. */
int loom__disk_cache_dir(char *buf, size_t n);
/* The file for key (hash = loom__fnv1a64 of the key). 0, or -1 if disabled / too long. */
int loom__disk_cache_path(char *buf, size_t n, uint64_t hash);
/* 1 and a malloc'd *payload when the file for key holds a valid entry for exactly this key
 * (its mtime is then touched for LRU eviction); 0 on any miss. */
int loom__disk_cache_read(const void *key, size_t key_len, uint64_t hash, void **payload,
                          size_t *payload_len);
/* Writes the entry atomically (temp file + rename), then evicts the least recently used files
 * while the directory holds more than LOOM_CACHE_MAX_BYTES (default 1 GiB). */
void loom__disk_cache_write(const void *key, size_t key_len, uint64_t hash, const void *payload,
                            size_t payload_len);


/* ---- statistics (exec/stats.c) ---- */

typedef enum loom__stat {
    LOOM__STAT_KERNELS_COMPILED,
    LOOM__STAT_MEMORY_CACHE_HITS,
    LOOM__STAT_DISK_CACHE_HITS,
    LOOM__STAT_KERNELS_LAUNCHED,
    LOOM__STAT_GRAPH_LAUNCHES,
    LOOM__STAT_BYTES_ALLOCATED,
    LOOM__STAT_HOST_SYNCS,
    LOOM__STAT_FFT_PLAN_HITS,
    LOOM__STAT_FFT_PLAN_MISSES,
    LOOM__STAT_UPDATES_IN_PLACE,
    LOOM__STAT_COUNT
} loom__stat;

void loom__stat_add(loom__stat which, uint64_t n);
/* Counts a forced evaluation (forced_evals and forced_evals_by_reason) and logs it. */
void loom__stat_forced_eval(loom_eval_reason reason);

/* Evaluates a and copies its nbytes of C-ordered elements to host memory dst, naming fn in
 * errors (exec/run.c: loom_get, loom_asnumpy, printing). */
int loom__read_back(const char *fn, loom_array *a, void *dst, size_t nbytes);
/* loom_eval of one array, naming fn in errors. */
int loom__eval_named(const char *fn, loom_array *a);

/* ---- NVTX ranges (exec/nvtx.c) ---- */

/* False when LOOM_NVTX=0 (read once). */
bool loom__nvtx_enabled(void);
/* Opens and closes a range named name on this thread (nothing when disabled). */
void loom__nvtx_push(const char *name);
void loom__nvtx_pop(void);

/* ---- logging (exec/log.c) ---- */

/* True when LOOM_LOG is set to something other than "" or "0" (read once). */
bool loom__log_enabled(void);
/* Writes "loom: <message>\n" to stderr in one write. Use LOOM__LOG so that the arguments are
 * not even evaluated when logging is off. */
void loom__log(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
#define LOOM__LOG(...)                                                                            \
    do {                                                                                          \
        if (loom__log_enabled())                                                                  \
            loom__log(__VA_ARGS__);                                                               \
    } while (0)
/* Monotonic milliseconds, for timing compiles. */
double loom__now_ms(void);

/* ---- the host device (exec/device_env.c, exec/host_memory.c, exec/host_compile.c,
 *      exec/host_run.c; docs/host-device.md) ---- */

/* Reports the LOOM_DEVICE value that named no device (arrays of LOOM__DEVICE_BAD_ENV). */
int loom__device_env_error(const char *fn);
/* A host buffer of bytes, 64-byte aligned (refcount 1; ptr NULL for 0 bytes), within the host
 * pool's limit; NULL with LOOM_ERR_OOM recorded ("... for <what> on the host device"). */
loom_buffer *loom__host_buffer_alloc(const char *fn, const char *what, size_t bytes);
size_t loom__host_used_bytes(void);
/* Bytes of freed host blocks kept for reuse, and giving them all back. */
size_t loom__host_cached_bytes(void);
void loom__host_cache_trim(void);
void loom__host_set_limit(size_t bytes);
size_t loom__host_get_limit(void);
/* A generated kernel compiled for the host: runs blocks [first, last) (x fastest) of the grid
 * dims[0..2] of blocks of dims[3..5] threads, with argv as cudaLaunchKernel's. 0, or -1 when
 * a block cannot finish (a barrier some thread never reaches) or memory runs out. */
typedef int (*loom__host_entry)(void **argv, long long first, long long last, const long long *dims);
/* The kernel name of source compiled by the host compiler through the caches (memory, then
 * disk, then the compiler), loaded. NULL with the error recorded (LOOM_ERR_COMPILE with the
 * compiler's log; LOOM_ERR_UNSUPPORTED when no compiler is found). */
loom__host_entry loom__host_kernel_get(const char *fn, const char *name, const char *source,
                                       const char *options);
/* Runs entry's whole grid (dims as above) on the host's cores (LOOM_HOST_THREADS caps them);
 * 0 or -1 as entry. */
int loom__host_launch(loom__host_entry entry, void **argv, const long long *dims);
/* The same without counting a kernel launch: host library steps spread their own work (rows of
 * a sort) this way. */
int loom__host_run_blocks(loom__host_entry entry, void **argv, const long long *dims);
/* Evaluates arrays of the host device (exec/run.c calls it under the evaluation lock). */
int loom__host_eval(const char *fn, loom_array *const *arrays, int n);

#endif /* LOOM_EXEC_H */
