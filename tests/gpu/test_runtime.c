/* The runtime on a GPU: device properties, NVRTC kernels loaded and launched into pool
 * buffers, the disk cache seen from a second process, streams (created, wrapped, current,
 * per thread), stream-ordered frees across streams, the memory pool (statistics, limit,
 * out of memory and recovery, trimming), transfers and pinned buffers. Skips (77) without a
 * device. Run with "--child" it is the second process of the disk cache check. */
#define _POSIX_C_SOURCE 200809L
#include "check.h"
#include "exec/exec.h"
#include "slow_kernel.h"
#include "tmpdir.h"

#include <pthread.h>
#include <spawn.h>
#include <sys/wait.h>

extern char **environ;

#define FN "loom_test"
#define MIB ((size_t)1 << 20)

static char cache_dir[4096];

static const loom__header mix_header = {
    "loom_test_mix.h", "__device__ __forceinline__ unsigned loom_test_mix(unsigned i, unsigned s)\n"
                       "{ return i * 2654435761u + s; }\n"};
static const char *const pattern_source =
    "#include \"loom_test_mix.h\"\n"
    "extern \"C\" __global__ void t_pattern(unsigned *out, unsigned n, unsigned seed)\n"
    "{\n"
    "    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n)\n"
    "        out[i] = loom_test_mix(i, seed);\n"
    "}\n";
static const char *const half_source =
    "#include <cuda_fp16.h>\n"
    "#include <cuda_bf16.h>\n"
    "extern \"C\" __global__ void t_half(float *out, int n)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n)\n"
    "        out[i] = __half2float(__float2half((float)i)) +\n"
    "                 __bfloat162float(__float2bfloat16(0.5f));\n"
    "}\n";
static unsigned host_mix(unsigned i, unsigned seed)
{
    return i * 2654435761u + seed;
}

static loom_stats stats(void)
{
    loom_stats s;
    loom_stats_get(&s);
    return s;
}

static const loom__kernel *pattern_kernel(void)
{
    return loom__kernel_get(FN, "t_pattern", pattern_source, &mix_header, 1, NULL);
}

static void report_error(const char *what)
{
    if (loom_last_error())
        fprintf(stderr, "  %s: %s\n", what, loom_last_error());
}

static loom_buffer *alloc(size_t bytes, loom_stream *s)
{
    loom_buffer *b = loom__buffer_alloc(FN, bytes, 0, s);
    if (!b)
        report_error("loom__buffer_alloc");
    return b;
}

/* Queues t_pattern over b's first n words on s (NULL: the current stream). */
static int fill(const loom__kernel *k, loom_buffer *b, unsigned n, unsigned seed, loom_stream *s)
{
    if (!k || !b)
        return -1;
    void *ptr = b->ptr;
    void *args[] = {&ptr, &n, &seed};
    loom__dim3 grid = {(n + 255) / 256, 1, 1}, block = {256, 1, 1};
    int err = loom__kernel_launch(FN, k, grid, block, 0, s, args);
    if (err)
        report_error("loom__kernel_launch");
    return err;
}

/* Copies b back through s and counts the words that differ from the pattern (n on failure). */
static size_t pattern_errors(loom_buffer *b, unsigned n, unsigned seed, loom_stream *s)
{
    unsigned *host = malloc((size_t)n * sizeof *host);
    size_t bad = n;
    if (b && host && loom__copy_to_host(FN, host, b->ptr, (size_t)n * sizeof *host, s) == 0) {
        bad = 0;
        for (unsigned i = 0; i < n; i++)
            bad += host[i] != host_mix(i, seed);
    } else {
        report_error("loom__copy_to_host");
    }
    free(host);
    return bad;
}

static void test_device(void)
{
    CHECK(loom_device_count() >= 1);
    CHECK_EQ_INT(loom_device_set(0), 0);
    CHECK_EQ_INT(loom_device_get(), 0);
    loom_clear_error();
    CHECK_EQ_INT(loom_device_set(loom_device_count()), LOOM_ERR_INVALID);
    CHECK(loom_last_error() && strstr(loom_last_error(), "loom_device_set: device ") &&
          strstr(loom_last_error(), " is out of range ("));
    CHECK_EQ_INT(loom_device_set(-2), LOOM_ERR_INVALID);
    CHECK_EQ_INT(loom_device_get(), 0);
    /* -1 is the host device (docs/host-device.md); back to the GPU after it */
    CHECK_EQ_INT(loom_device_set(LOOM_DEVICE_CPU), LOOM_OK);
    CHECK_EQ_INT(loom_device_get(), LOOM_DEVICE_CPU);
    CHECK_EQ_INT(loom_device_set(0), LOOM_OK);
    CHECK_EQ_INT(loom_device_get(), 0);
    loom_clear_error();

    const loom__device_props *p = loom__device_props_get(FN, 0);
    CHECK(p != NULL);
    if (!p)
        return;
    char arch[16];
    snprintf(arch, sizeof arch, "sm_%d%d", p->cc_major, p->cc_minor);
    CHECK_STR(p->arch, arch);
    CHECK(p->cc_major >= 7);
    CHECK(p->sm_count > 0);
    CHECK_EQ_INT(p->warp_size, 32);
    CHECK(p->max_threads_per_block >= 1024);
    CHECK(p->l2_bytes > 0);
    CHECK(p->smem_per_block >= 48 * 1024);
    CHECK(p->smem_per_block_optin >= p->smem_per_block);
    CHECK(p->total_mem > 0);
    CHECK(loom__device_props_get(FN, 0) == p);
    printf("device 0: %s, %s, %d SMs, L2 %zu KiB, shared memory per block %zu KiB (opt-in)\n",
           p->name, p->arch, p->sm_count, p->l2_bytes >> 10, p->smem_per_block_optin >> 10);

    /* With a device, its own architecture wins over LOOM_ARCH. */
    setenv("LOOM_ARCH", "sm_75", 1);
    CHECK_EQ_INT(loom__target_arch(FN, arch), 0);
    CHECK_STR(arch, p->arch);
    unsetenv("LOOM_ARCH");
    CHECK_EQ_INT(loom_device_synchronize(), 0);
}

static void test_kernels(void)
{
    loom_stats_reset();
    const loom__kernel *k = pattern_kernel();
    CHECK(k && k->handle);
    if (!k) {
        report_error("loom__kernel_get");
        return;
    }
    loom_stats s = stats();
    CHECK_EQ_INT(s.kernels_compiled, 1); /* the cache directory is new */
    CHECK_EQ_INT(s.disk_cache_hits, 0);
    CHECK(pattern_kernel() == k);
    CHECK_EQ_INT(stats().memory_cache_hits, 1);

    unsigned n = 100003;
    loom_buffer *b = alloc((size_t)n * 4, NULL);
    CHECK(b && b->ptr && b->bytes == (size_t)n * 4 && b->device == 0 &&
          atomic_load(&b->refcount) == 1);
    CHECK_EQ_INT(fill(k, b, n, 12345, NULL), 0);
    CHECK_EQ_INT(pattern_errors(b, n, 12345, loom_stream_get_current()), 0);
    s = stats();
    CHECK_EQ_INT(s.kernels_launched, 1);
    CHECK_EQ_INT(s.bytes_allocated, (uint64_t)n * 4);

    /* A bad launch fails with CUDA's reason and leaves the device usable. */
    loom_clear_error();
    void *ptr = b ? b->ptr : NULL;
    unsigned seed = 1;
    void *args[] = {&ptr, &n, &seed};
    CHECK_EQ_INT(loom__kernel_launch(FN, k, (loom__dim3){1, 1, 1}, (loom__dim3){4096, 1, 1}, 0,
                                     NULL, args),
                 LOOM_ERR_CUDA);
    const char *want = FN ": launching kernel t_pattern failed: ";
    CHECK(loom_last_error() && strncmp(loom_last_error(), want, strlen(want)) == 0);
    CHECK_EQ_INT(stats().kernels_launched, 1);
    CHECK_EQ_INT(fill(k, b, n, 777, NULL), 0);
    CHECK_EQ_INT(pattern_errors(b, n, 777, loom_stream_get_current()), 0);
    if (b)
        loom__buffer_release(b);

    /* The toolkit's device headers are found at run time. */
    const loom__kernel *h = loom__kernel_get(FN, "t_half", half_source, NULL, 0, NULL);
    CHECK(h != NULL);
    loom_buffer *hb = alloc(2048 * sizeof(float), NULL);
    if (h && hb) {
        void *hp = hb->ptr;
        int hn = 2048;
        void *hargs[] = {&hp, &hn};
        CHECK_EQ_INT(loom__kernel_launch(FN, h, (loom__dim3){8, 1, 1}, (loom__dim3){256, 1, 1}, 0,
                                         NULL, hargs),
                     0);
        float out[2048];
        CHECK_EQ_INT(loom__copy_to_host(FN, out, hp, sizeof out, loom_stream_get_current()), 0);
        int bad = 0;
        for (int i = 0; i < 2048; i++)
            bad += out[i] != (float)i + 0.5f;
        CHECK_EQ_INT(bad, 0);
    }
    if (hb)
        loom__buffer_release(hb);

    /* A name that the source does not define. */
    loom_clear_error();
    CHECK(loom__kernel_get(FN, "t_missing", pattern_source, &mix_header, 1, NULL) == NULL);
    CHECK(loom_last_error() &&
          strstr(loom_last_error(), "loom_test: kernel t_missing is not in its compiled source"));
    /* Compiled for another architecture, not loaded: no launch. */
    const loom__kernel *other =
        loom__kernel_compile(FN, "t_pattern", pattern_source, &mix_header, 1, NULL, "sm_80");
    if (other && other != k) {
        CHECK_EQ_INT(loom__kernel_launch(FN, other, (loom__dim3){1, 1, 1}, (loom__dim3){1, 1, 1}, 0,
                                         NULL, args),
                     LOOM_ERR_INVALID);
        CHECK_STR(loom_last_error(), "loom_test: kernel t_pattern is compiled but not loaded");
    }
    loom_clear_error();
}

/* The second process: the kernel comes from the disk cache the first one wrote. */
static int child_main(void)
{
    loom_stats_reset();
    const loom__kernel *k = pattern_kernel();
    loom_stats s = stats();
    CHECK(k && k->handle);
    CHECK_EQ_INT(s.disk_cache_hits, 1);
    CHECK_EQ_INT(s.kernels_compiled, 0);
    unsigned n = 5000;
    loom_buffer *b = alloc((size_t)n * 4, NULL);
    CHECK_EQ_INT(fill(k, b, n, 99, NULL), 0);
    CHECK_EQ_INT(pattern_errors(b, n, 99, loom_stream_get_current()), 0);
    if (b)
        loom__buffer_release(b);
    loom__exec_clear_memory_caches();
    return check_summary("gpu_test_runtime (second process)");
}

static void test_second_process(void)
{
    /* A fresh process (a CUDA context must not cross fork): exec this binary again. */
    char *argv[] = {"gpu_test_runtime", "--child", NULL};
    pid_t pid;
    int status = -1;
    int rc = posix_spawn(&pid, "/proc/self/exe", NULL, NULL, argv, environ);
    CHECK_EQ_INT(rc, 0);
    if (rc == 0)
        waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

typedef struct thread_result {
    loom_stream *main_stream;
    bool own_stream, ok;
} thread_result;

static void *thread_body(void *arg)
{
    thread_result *r = arg;
    loom_stream *mine = loom_stream_get_current();
    r->own_stream = mine && mine != r->main_stream && mine->kind == LOOM__STREAM_DEFAULT &&
                    mine->handle != r->main_stream->handle;
    loom_buffer *b = alloc(1000 * 4, NULL);
    r->ok = b && loom__buffer_stream(b) == mine && fill(pattern_kernel(), b, 1000, 5, NULL) == 0 &&
            pattern_errors(b, 1000, 5, mine) == 0;
    if (b)
        loom__buffer_release(b);
    return NULL;
}

static void test_streams(void)
{
    const loom__kernel *k = pattern_kernel();
    unsigned n = 4096;
    loom_stream *def = loom_stream_get_current();
    CHECK(def && def->kind == LOOM__STREAM_DEFAULT && def->device == 0 && def->handle);
    if (!def || !k)
        return;
    CHECK(loom_stream_handle(NULL) == def->handle);
    CHECK(loom_stream_handle(def) == def->handle);

    /* A created stream made current: allocations and launches go to it. */
    loom_stream *s = loom_stream_create();
    CHECK(s && s->handle && s->handle != def->handle && s->kind == LOOM__STREAM_OWNED);
    if (!s)
        return;
    CHECK_EQ_INT(loom_stream_set_current(s), 0);
    CHECK(loom_stream_get_current() == s);
    CHECK(loom_stream_handle(NULL) == s->handle);
    loom_buffer *b = alloc((size_t)n * 4, NULL);
    CHECK(b && loom__buffer_stream(b) == s);
    CHECK_EQ_INT(fill(k, b, n, 7, NULL), 0);
    CHECK_EQ_INT(loom_stream_synchronize(NULL), 0);
    CHECK_EQ_INT(pattern_errors(b, n, 7, s), 0);
    /* Destroyed while current and while a buffer still has to be freed on it. */
    loom_stream_destroy(s);
    CHECK(loom_stream_get_current() == def);
    CHECK_EQ_INT(atomic_load(&s->refcount), 1); /* the buffer's */
    if (b)
        loom__buffer_release(b); /* frees on s, then s goes */

    /* Wrapping an external stream (another stream's handle stands for the user's). */
    loom_stream *owner = loom_stream_create();
    loom_stream *w = owner ? loom_stream_wrap(loom_stream_handle(owner)) : NULL;
    CHECK(w && w->handle == owner->handle && w->kind == LOOM__STREAM_WRAPPED && w->device == 0);
    if (w) {
        CHECK_EQ_INT(loom_stream_set_current(w), 0);
        b = alloc((size_t)n * 4, NULL);
        CHECK(b && loom__buffer_stream(b) == w);
        CHECK_EQ_INT(fill(k, b, n, 8, NULL), 0);
        CHECK_EQ_INT(loom_stream_synchronize(w), 0);
        CHECK_EQ_INT(pattern_errors(b, n, 8, w), 0);
        if (b)
            loom__buffer_release(b);
        loom_stream_destroy(w);
        CHECK(loom_stream_get_current() == def);
        /* Loom did not destroy the wrapped handle. */
        CHECK_EQ_INT(loom_stream_synchronize(owner), 0);
    }
    loom_stream_destroy(owner);

    /* The legacy default stream, wrapped. */
    loom_stream *legacy = loom_stream_wrap(NULL);
    CHECK(legacy && legacy->handle == NULL && legacy->device == 0);
    if (legacy) {
        b = alloc((size_t)n * 4, legacy);
        CHECK_EQ_INT(fill(k, b, n, 9, legacy), 0);
        CHECK_EQ_INT(pattern_errors(b, n, 9, legacy), 0);
        if (b)
            loom__buffer_release(b);
        loom_stream_destroy(legacy);
    }

    /* NULL restores the default; the default cannot be destroyed. */
    loom_stream *s2 = loom_stream_create();
    CHECK_EQ_INT(loom_stream_set_current(s2), 0);
    CHECK_EQ_INT(loom_stream_set_current(NULL), 0);
    CHECK(loom_stream_get_current() == def);
    loom_stream_destroy(s2);
    loom_stream_destroy(def);
    CHECK(loom_stream_get_current() == def);
    CHECK_EQ_INT(loom_stream_synchronize(def), 0);

    /* Another thread has its own default stream. */
    thread_result r = {def, false, false};
    pthread_t t;
    CHECK_EQ_INT(pthread_create(&t, NULL, thread_body, &r), 0);
    pthread_join(t, NULL);
    CHECK(r.own_stream);
    CHECK(r.ok);
    loom_clear_error();
}

/* A buffer used on a second stream and then released: its stream-ordered free must wait for
 * that use, or the memory handed to the next allocation would be overwritten by it. */
static void test_cross_stream_free(void)
{
    const loom__kernel *k = pattern_kernel();
    const loom__kernel *slow = loom__kernel_get(FN, "t_slow_fill", slow_source, NULL, 0, NULL);
    loom_stream *def = loom_stream_get_current();
    loom_stream *s2 = loom_stream_create();
    CHECK(k && slow && def && s2);
    if (!k || !slow || !def || !s2) {
        loom_stream_destroy(s2);
        return;
    }
    unsigned n = 1u << 20, value = 0xdeadbeef;
    long long cycles = 200000000; /* about 0.1 s */
    loom_buffer *a = alloc((size_t)n * 4, def);
    if (a) {
        void *ptr = a->ptr;
        void *args[] = {&ptr, &n, &value, &cycles};
        CHECK_EQ_INT(loom__kernel_launch(FN, slow, (loom__dim3){1, 1, 1}, (loom__dim3){256, 1, 1},
                                         0, s2, args),
                     0);
        CHECK_EQ_INT(loom__buffer_record_use(FN, a, s2), 0);
        CHECK_EQ_INT(loom__buffer_record_use(FN, a, def), 0); /* the home stream: nothing */
        loom__buffer_release(a);
    }
    loom_buffer *b = alloc((size_t)n * 4, def);
    CHECK_EQ_INT(fill(k, b, n, 31, def), 0);
    CHECK_EQ_INT(loom_device_synchronize(), 0);
    CHECK_EQ_INT(pattern_errors(b, n, 31, def), 0);
    if (b)
        loom__buffer_release(b);
    loom_stream_destroy(s2);
}

static void test_mempool(void)
{
    const loom__kernel *k = pattern_kernel();
    uint64_t allocated = 0;
    loom_stats_reset();
    CHECK_EQ_INT(loom_mempool_free_all_blocks(), 0);
    CHECK_EQ_INT(loom_mempool_used_bytes(), 0);

    loom_buffer *b = alloc(64 * MIB, NULL);
    allocated += 64 * MIB;
    CHECK_EQ_INT(loom_mempool_used_bytes(), 64 * MIB);
    CHECK(loom_mempool_total_bytes() >= 64 * MIB);
    if (b)
        loom__buffer_release(b);
    CHECK_EQ_INT(loom_mempool_used_bytes(), 0);
    CHECK_EQ_INT(loom_stream_synchronize(NULL), 0);
    /* Freed memory stays in the pool and is reused. */
    size_t total = loom_mempool_total_bytes();
    CHECK(total >= 64 * MIB);
    b = alloc(64 * MIB, NULL);
    allocated += 64 * MIB;
    CHECK_EQ_INT(loom_mempool_total_bytes(), total);
    if (b)
        loom__buffer_release(b);
    CHECK_EQ_INT(loom_mempool_free_all_blocks(), 0);
    CHECK(loom_mempool_total_bytes() < 64 * MIB);

    /* The limit. */
    CHECK_EQ_INT(loom_mempool_set_limit(4 * MIB), 0);
    CHECK_EQ_INT(loom_mempool_get_limit(), 4 * MIB);
    loom_buffer *three = alloc(3 * MIB, NULL);
    allocated += 3 * MIB;
    loom_clear_error();
    loom_buffer *over = loom__buffer_alloc(FN, 2 * MIB, 0, NULL);
    CHECK(over == NULL);
    CHECK_EQ_INT(loom_last_error_code(), LOOM_ERR_OOM);
    CHECK_STR(loom_last_error(), "loom_test: out of memory allocating 2097152 bytes on device 0 "
                                 "(the memory pool limit is 4194304 bytes; 3145728 bytes in use "
                                 "by Loom)");
    if (over)
        loom__buffer_release(over);
    CHECK_EQ_INT(loom_mempool_used_bytes(), 3 * MIB);
    loom_buffer *one = alloc(MIB, NULL); /* exactly up to the limit */
    allocated += MIB;
    CHECK(one != NULL);
    if (one)
        loom__buffer_release(one);
    if (three)
        loom__buffer_release(three);
    CHECK_EQ_INT(loom_mempool_set_limit(0), 0);
    CHECK_EQ_INT(loom_mempool_get_limit(), 0);
    b = alloc(8 * MIB, NULL);
    allocated += 8 * MIB;
    CHECK(b != NULL);
    if (b)
        loom__buffer_release(b);

    /* More than the device has: LOOM_ERR_OOM after trimming and retrying, then recovery. */
    const loom__device_props *p = loom__device_props_get(FN, 0);
    if (p) {
        loom_clear_error();
        loom_buffer *huge = loom__buffer_alloc(FN, p->total_mem + ((size_t)1 << 30), 0, NULL);
        CHECK(huge == NULL);
        CHECK_EQ_INT(loom_last_error_code(), LOOM_ERR_OOM);
        const char *msg = loom_last_error();
        CHECK(msg && strstr(msg, "loom_test: out of memory allocating ") &&
              strstr(msg, "the device has no more free memory"));
        if (loom_last_error_code() != LOOM_ERR_OOM)
            report_error("device out of memory");
        if (huge)
            loom__buffer_release(huge);
    }
    unsigned n = (unsigned)(MIB / 4);
    b = alloc(MIB, NULL);
    allocated += MIB;
    CHECK_EQ_INT(fill(k, b, n, 3, NULL), 0);
    CHECK_EQ_INT(pattern_errors(b, n, 3, loom_stream_get_current()), 0);
    if (b)
        loom__buffer_release(b);
    CHECK_EQ_INT(loom_mempool_used_bytes(), 0);

    loom_buffer *zero = alloc(0, NULL);
    CHECK(zero && zero->ptr == NULL && zero->bytes == 0);
    if (zero)
        loom__buffer_release(zero);
    CHECK_EQ_INT(stats().bytes_allocated, allocated);

    loom_clear_error();
    CHECK(loom__buffer_alloc(FN, 16, loom_device_count(), NULL) == NULL);
    CHECK_EQ_INT(loom_last_error_code(), LOOM_ERR_INVALID);
    loom_clear_error();
}

static void test_transfers(void)
{
    /* Several upload chunks and a tail. */
    size_t n = (20 << 20) + 12345;
    unsigned char *src = malloc(n), *dst = malloc(n);
    loom_stream *s = loom_stream_get_current();
    loom_buffer *b = alloc(n, NULL);
    CHECK(src && dst && s && b);
    if (src && dst && s && b) {
        uint32_t x = 2463534242u;
        for (size_t i = 0; i < n; i++) {
            x ^= x << 13, x ^= x >> 17, x ^= x << 5;
            src[i] = (unsigned char)x;
        }
        CHECK_EQ_INT(loom__copy_to_device(FN, b->ptr, src, n, s), 0);
        /* The source may be reused as soon as the upload returns. */
        memset(src, 0xee, n);
        CHECK_EQ_INT(loom__copy_to_host(FN, dst, b->ptr, n, s), 0);
        x = 2463534242u;
        size_t bad = 0;
        for (size_t i = 0; i < n; i++) {
            x ^= x << 13, x ^= x >> 17, x ^= x << 5;
            bad += dst[i] != (unsigned char)x;
        }
        CHECK_EQ_INT(bad, 0);
        CHECK_EQ_INT(loom__copy_to_device(FN, b->ptr, src, 0, s), 0);
        CHECK_EQ_INT(loom__copy_to_host(FN, dst, b->ptr, 0, s), 0);
    }
    if (b)
        loom__buffer_release(b);
    free(src);
    free(dst);

    /* Pinned buffers are reused. */
    void *p = loom__pinned_get(FN, 1000);
    CHECK(p != NULL);
    if (p) {
        memset(p, 1, 1000);
        loom__pinned_release(p, NULL);
        void *q = loom__pinned_get(FN, 1000);
        CHECK(q == p);
        loom__pinned_release(q, s);
    }
    loom__pinned_trim();
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--child") == 0)
        return child_main();
    if (loom_device_count() == 0) {
        printf("gpu_test_runtime: no CUDA device, skipped\n");
        return 77;
    }
    if (!tmpdir_make(cache_dir, sizeof cache_dir)) {
        perror("mkdtemp");
        return 1;
    }
    setenv("LOOM_CACHE_DIR", cache_dir, 1);
    unsetenv("LOOM_CACHE");
    test_device();
    test_kernels();
    test_second_process();
    test_streams();
    test_cross_stream_free();
    test_mempool();
    test_transfers();
    loom__exec_clear_memory_caches();
    tmpdir_remove(cache_dir);
    return check_summary("gpu_test_runtime");
}
