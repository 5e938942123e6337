/* NVRTC and the kernel caches without a GPU: compiling for an explicit architecture, the
 * in-memory and disk caches (round trip, corrupt files, LRU eviction, disabling), statistics
 * and compile errors. */
#define _POSIX_C_SOURCE 200809L
#include "check.h"
#include "exec/exec.h"
#include "tmpdir.h"

#include <fcntl.h>
#include <pthread.h>
#include <time.h>

#define ARCH "sm_90"

static char cache_dir[4096];

static const char *const fp16_source =
    "#include <cuda_fp16.h>\n"
    "#include <cuda_bf16.h>\n"
    "#include \"loom_test_scale.h\"\n"
    "extern \"C\" __global__ void t_fp16(float *out, int n)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n)\n"
    "        out[i] = __half2float(__float2half((float)i)) * LOOM_TEST_SCALE +\n"
    "                 __bfloat162float(__float2bfloat16(1.0f));\n"
    "}\n";
static const loom__header scale_header = {"loom_test_scale.h", "#define LOOM_TEST_SCALE 3.0f\n"};

/* Kernels of identical shape (same-sized CUBINs) that differ in name and constant. */
static void small_kernel(char *name, char *src, size_t n, int k)
{
    snprintf(name, 32, "t_small%d", k);
    snprintf(src, n, "extern \"C\" __global__ void t_small%d(int *p) { p[threadIdx.x] = %d; }\n",
             k, k);
}

static loom_stats stats(void)
{
    loom_stats s;
    loom_stats_get(&s);
    return s;
}

static long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

static void set_mtime(const char *path, time_t t)
{
    struct timespec ts[2] = {{t, 0}, {t, 0}};
    utimensat(AT_FDCWD, path, ts, 0);
}

static struct timespec mtime_of(const char *path)
{
    struct stat st = {0};
    stat(path, &st);
    return st.st_mtim;
}

static void test_compile_to_cubin(void)
{
    loom_stats_reset();
    void *cubin = NULL;
    size_t size = 0;
    CHECK_EQ_INT(loom__compile_to_cubin("loom_test", "t_fp16", fp16_source, &scale_header, 1, ARCH,
                                        NULL, &cubin, &size),
                 0);
    CHECK(size > 4 && cubin && memcmp(cubin, "\x7f" "ELF", 4) == 0);
    CHECK_EQ_INT(stats().kernels_compiled, 1);
    free(cubin);

    /* Without the embedded header the include fails, and the log says which. */
    loom_clear_error();
    CHECK_EQ_INT(loom__compile_to_cubin("loom_eval", "t_fp16", fp16_source, NULL, 0, ARCH, NULL,
                                        &cubin, &size),
                 LOOM_ERR_COMPILE);
    CHECK(cubin == NULL && size == 0);
    CHECK(strstr(loom_last_error(), "loom_test_scale.h") != NULL);

    /* Extra options reach NVRTC. */
    const char *src = "extern \"C\" __global__ void t_opt(int *p) { p[0] = T_VALUE; }\n";
    CHECK_EQ_INT(loom__compile_to_cubin("loom_test", "t_opt", src, NULL, 0, ARCH,
                                        " -DT_VALUE=7   -DUNUSED=1 ", &cubin, &size),
                 0);
    free(cubin);
    CHECK_EQ_INT(stats().kernels_compiled, 2);
}

static void test_compile_errors(void)
{
    void *cubin;
    size_t size;
    loom_stats_reset();
    loom_clear_error();
    const char *bad = "extern \"C\" __global__ void t_bad(float *p) { p[0] = undefined_thing; }\n";
    CHECK_EQ_INT(loom__compile_to_cubin("loom_eval", "t_bad", bad, NULL, 0, ARCH, NULL, &cubin,
                                        &size),
                 LOOM_ERR_COMPILE);
    CHECK_EQ_INT(loom_last_error_code(), LOOM_ERR_COMPILE);
    const char *msg = loom_last_error();
    CHECK(msg && strncmp(msg, "loom_eval: NVRTC failed to compile kernel t_bad: ", 49) == 0);
    CHECK(msg && strstr(msg, "undefined_thing") && strstr(msg, "is undefined"));
    CHECK_EQ_INT(loom_last_error_detail(), 6); /* NVRTC_ERROR_COMPILATION */
    /* The source NVRTC rejected is left where the message says. */
    const char *path = msg ? strstr(msg, "source and full log in ") : NULL;
    char dumped[512] = "";
    if (path)
        sscanf(path + strlen("source and full log in "), "%511[^)]", dumped);
    FILE *f = fopen(dumped, "r");
    char text[256] = "";
    CHECK(f && fgets(text, sizeof text, f) && strcmp(text, bad) == 0);
    if (f)
        fclose(f);
    CHECK_EQ_INT(stats().kernels_compiled, 0);

    CHECK_EQ_INT(loom__compile_to_cubin("loom_eval", "t_ok", "", NULL, 0, "sm_9", NULL, &cubin,
                                        &size),
                 LOOM_ERR_COMPILE);
    CHECK(strstr(loom_last_error(), "-arch") != NULL);
    CHECK_EQ_INT(loom__compile_to_cubin("loom_eval", "t_ok", "", NULL, 0, ARCH, "--no-such-option",
                                        &cubin, &size),
                 LOOM_ERR_COMPILE);
    CHECK(strstr(loom_last_error(), "--no-such-option") != NULL);
    /* A name that is not an identifier is a name expression, which NVRTC must understand. */
    CHECK_EQ_INT(loom__compile_to_cubin("loom_eval", "bad name", "", NULL, 0, ARCH, NULL, &cubin,
                                        &size),
                 LOOM_ERR_COMPILE);
    CHECK(strstr(loom_last_error(), "loom_eval: NVRTC failed to compile kernel bad name: ") ==
          loom_last_error());
    CHECK(strstr(loom_last_error(), "identifier \"bad\" is undefined") != NULL);
    CHECK(strstr(loom_last_error(), "/bad_name.cu)") != NULL); /* the file: a clean name */
    CHECK_EQ_INT(loom__compile_to_cubin("loom_eval", "", "", NULL, 0, ARCH, NULL, &cubin, &size),
                 LOOM_ERR_INVALID);
    CHECK_STR(loom_last_error(), "loom_eval: kernel name \"\" is empty or longer than 255 characters");

    /* Through the cache: the same message, and nothing is cached. */
    loom_clear_error();
    CHECK(loom__kernel_compile("loom_eval", "t_bad", bad, NULL, 0, NULL, ARCH) == NULL);
    CHECK(strstr(loom_last_error(), "undefined_thing") != NULL);
    CHECK(loom__kernel_compile("loom_eval", NULL, bad, NULL, 0, NULL, ARCH) == NULL);
    CHECK_EQ_INT(loom_last_error_code(), LOOM_ERR_INVALID);
    CHECK_EQ_INT(tmpdir_count(cache_dir, ".lkc"), 0);
    loom_clear_error();
}

/* CuPy's name expressions: a templated kernel is found by its lowered (mangled) name, in
 * memory and through the disk cache. */
static void test_name_expression(void)
{
    static const char src[] = "template <typename T, int N>\n"
                              "__global__ void t_scale(T *x) { x[threadIdx.x] *= N; }\n";
    void *cubin = NULL;
    size_t size = 0;
    char *symbol = NULL;
    CHECK_EQ_INT(loom__compile_to_cubin_symbol("loom_test", "t_scale<float, 3>", src, NULL, 0, ARCH,
                                               NULL, &cubin, &size, &symbol),
                 0);
    CHECK_STR(symbol ? symbol : "", "_Z7t_scaleIfLi3EEvPT_");
    CHECK(size > 0);
    free(cubin);
    free(symbol);
    CHECK_EQ_INT(loom__compile_to_cubin_symbol("loom_test", "t_plain", "extern \"C\" __global__ void t_plain() {}",
                                               NULL, 0, ARCH, NULL, &cubin, &size, &symbol),
                 0);
    CHECK_STR(symbol ? symbol : "", "t_plain");
    free(cubin);
    free(symbol);
    /* an expression naming no kernel of the source */
    CHECK_EQ_INT(loom__compile_to_cubin_symbol("loom_eval", "t_scale<float>", src, NULL, 0, ARCH, NULL,
                                               &cubin, &size, &symbol),
                 LOOM_ERR_COMPILE);
    CHECK(symbol == NULL && cubin == NULL);
    CHECK(strstr(loom_last_error(), "t_scale") != NULL);

    loom__exec_clear_memory_caches();
    for (int pass = 0; pass < 2; pass++) { /* compiled, then read back from the disk cache */
        loom_stats_reset();
        const loom__kernel *k = loom__kernel_compile("loom_test", "t_scale<int, 2>", src, NULL, 0, NULL, ARCH);
        CHECK(k != NULL);
        CHECK_STR(k ? k->name : "", "t_scale<int, 2>");
        CHECK_STR(k ? k->symbol : "", "_Z7t_scaleIiLi2EEvPT_");
        CHECK_EQ_INT(stats().disk_cache_hits, pass);
        loom__exec_clear_memory_caches();
    }
    loom_clear_error();
}

static void test_memory_and_disk_cache(void)
{
    char path[4400];
    loom__exec_clear_memory_caches();
    loom_stats_reset();
    const loom__kernel *k =
        loom__kernel_compile("loom_test", "t_fp16", fp16_source, &scale_header, 1, NULL, ARCH);
    CHECK(k && strcmp(k->name, "t_fp16") == 0 && strcmp(k->arch, ARCH) == 0 && !k->handle);
    loom_stats s = stats();
    CHECK_EQ_INT(s.kernels_compiled, 1);
    CHECK_EQ_INT(s.memory_cache_hits, 0);
    CHECK_EQ_INT(s.disk_cache_hits, 0);
    CHECK_EQ_INT(loom__kcache_path(path, sizeof path, "t_fp16", fp16_source, &scale_header, 1,
                                   NULL, ARCH),
                 0);
    CHECK(strncmp(path, cache_dir, strlen(cache_dir)) == 0);
    CHECK(file_size(path) > (long)k->cubin_size);
    size_t size = k ? k->cubin_size : 0;
    void *copy = malloc(size);
    if (k)
        memcpy(copy, k->cubin, size);

    /* The memory cache: the same entry. */
    CHECK(loom__kernel_compile("loom_test", "t_fp16", fp16_source, &scale_header, 1, NULL, ARCH) ==
          k);
    CHECK_EQ_INT(stats().memory_cache_hits, 1);

    /* The disk cache, once the memory cache is gone: the same CUBIN, no compile. */
    loom__exec_clear_memory_caches();
    k = loom__kernel_compile("loom_test", "t_fp16", fp16_source, &scale_header, 1, NULL, ARCH);
    s = stats();
    CHECK_EQ_INT(s.kernels_compiled, 1);
    CHECK_EQ_INT(s.disk_cache_hits, 1);
    CHECK(k && k->cubin_size == size && memcmp(k->cubin, copy, size) == 0);
    free(copy);

    /* Options, architecture, headers and name are all part of the key. */
    CHECK(loom__kernel_compile("loom_test", "t_fp16", fp16_source, &scale_header, 1, "-DX=1",
                               ARCH) != k);
    CHECK(loom__kernel_compile("loom_test", "t_fp16", fp16_source, &scale_header, 1, NULL,
                               "sm_80") != k);
    loom__header other = {"loom_test_scale.h", "#define LOOM_TEST_SCALE 4.0f\n"};
    CHECK(loom__kernel_compile("loom_test", "t_fp16", fp16_source, &other, 1, NULL, ARCH) != k);
    CHECK_EQ_INT(stats().kernels_compiled, 4);
    CHECK_EQ_INT(tmpdir_count(cache_dir, ".lkc"), 4);
    CHECK_EQ_INT(loom__kcache_path(path, sizeof path, "t_fp16", fp16_source, &scale_header, 1,
                                   NULL, "sm_80"),
                 0);
    CHECK(file_size(path) > 0);

    /* A header's text is in the key as a hash and length: a 256 KB header does not make a
     * 256 KB cache file, and one changed byte, same length, is still another kernel. */
    size_t big_len = 256 * 1024;
    char *big_text = malloc(big_len + 1);
    if (big_text) {
        memset(big_text, ' ', big_len);
        static const char def[] = "#define LOOM_TEST_SCALE 3.0f\n//";
        memcpy(big_text, def, sizeof def - 1);
        big_text[big_len] = '\0';
        loom__header big = {"loom_test_scale.h", big_text};
        const loom__kernel *kb =
            loom__kernel_compile("loom_test", "t_fp16", fp16_source, &big, 1, NULL, ARCH);
        CHECK(kb && kb != k);
        CHECK_EQ_INT(loom__kcache_path(path, sizeof path, "t_fp16", fp16_source, &big, 1, NULL,
                                       ARCH),
                     0);
        CHECK(file_size(path) > 0 && file_size(path) < (long)big_len / 4);
        big_text[big_len - 1] = 'x';
        const loom__kernel *kx =
            loom__kernel_compile("loom_test", "t_fp16", fp16_source, &big, 1, NULL, ARCH);
        CHECK(kx && kx != kb);
        CHECK_EQ_INT(stats().kernels_compiled, 6);
        free(big_text);
    }
}

/* Damages the cache file of kernel (name, src) with how, then checks that the next lookup is a
 * miss that compiles and rewrites the file, and that the rewritten file is a hit. */
static void check_damaged(const char *what, const char *name, const char *src,
                          void (*damage)(const char *path))
{
    char path[4400];
    loom__kcache_path(path, sizeof path, name, src, NULL, 0, NULL, ARCH);
    damage(path);
    loom__exec_clear_memory_caches();
    loom_stats_reset();
    const loom__kernel *k = loom__kernel_compile("loom_test", name, src, NULL, 0, NULL, ARCH);
    loom_stats s = stats();
    if (!k || s.kernels_compiled != 1 || s.disk_cache_hits != 0)
        fprintf(stderr, "damaged cache file (%s) was not a miss\n", what);
    CHECK(k != NULL);
    CHECK_EQ_INT(s.kernels_compiled, 1);
    CHECK_EQ_INT(s.disk_cache_hits, 0);
    loom__exec_clear_memory_caches();
    loom_stats_reset();
    k = loom__kernel_compile("loom_test", name, src, NULL, 0, NULL, ARCH);
    s = stats();
    if (s.disk_cache_hits != 1)
        fprintf(stderr, "damaged cache file (%s) was not rewritten\n", what);
    CHECK(k != NULL);
    CHECK_EQ_INT(s.kernels_compiled, 0);
    CHECK_EQ_INT(s.disk_cache_hits, 1);
}

static void write_bytes(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (f) {
        fwrite(data, 1, n, f);
        fclose(f);
    }
}

static void flip_byte(const char *path, long offset)
{
    FILE *f = fopen(path, "r+b");
    if (!f)
        return;
    fseek(f, offset, offset < 0 ? SEEK_END : SEEK_SET);
    int c = fgetc(f);
    fseek(f, offset, offset < 0 ? SEEK_END : SEEK_SET);
    fputc(c ^ 0x5a, f);
    fclose(f);
}

static void damage_payload(const char *path) { flip_byte(path, -1); }
static void damage_key(const char *path) { flip_byte(path, 40); }
static void damage_magic(const char *path) { flip_byte(path, 0); }
static void damage_version(const char *path) { flip_byte(path, 8); }
static void damage_truncate(const char *path) { truncate(path, file_size(path) / 2); }
static void damage_extend(const char *path)
{
    FILE *f = fopen(path, "ab");
    if (f) {
        fputs("trailing", f);
        fclose(f);
    }
}
static void damage_empty(const char *path) { write_bytes(path, "", 0); }
static void damage_garbage(const char *path)
{
    char junk[4096];
    for (size_t i = 0; i < sizeof junk; i++)
        junk[i] = (char)(i * 131 + 7);
    write_bytes(path, junk, sizeof junk);
}
static void damage_short_header(const char *path) { write_bytes(path, "LOOMKC", 6); }

/* A valid file of another kernel under this kernel's name: the full key must differ. */
static void damage_other_key(const char *path)
{
    char name[32], src[256], other[4400];
    small_kernel(name, src, sizeof src, 9);
    loom__kernel_compile("loom_test", name, src, NULL, 0, NULL, ARCH);
    loom__kcache_path(other, sizeof other, name, src, NULL, 0, NULL, ARCH);
    rename(other, path);
}

static void test_damaged_files(void)
{
    char name[32], src[256];
    small_kernel(name, src, sizeof src, 1);
    loom__kernel_compile("loom_test", name, src, NULL, 0, NULL, ARCH);
    check_damaged("payload byte", name, src, damage_payload);
    check_damaged("key byte", name, src, damage_key);
    check_damaged("magic", name, src, damage_magic);
    check_damaged("version", name, src, damage_version);
    check_damaged("truncated", name, src, damage_truncate);
    check_damaged("trailing bytes", name, src, damage_extend);
    check_damaged("empty", name, src, damage_empty);
    check_damaged("garbage", name, src, damage_garbage);
    check_damaged("short header", name, src, damage_short_header);
    check_damaged("another kernel's file", name, src, damage_other_key);
    CHECK(loom_last_error() == NULL); /* misses are never errors */
}

static void test_lru_eviction(void)
{
    char dir[4400], name[4][32], src[4][256], path[4][4400];
    snprintf(dir, sizeof dir, "%s/lru", cache_dir);
    setenv("LOOM_CACHE_DIR", dir, 1);
    loom__exec_clear_memory_caches();
    for (int i = 0; i < 4; i++) {
        small_kernel(name[i], src[i], sizeof src[i], i + 1);
        loom__kcache_path(path[i], sizeof path[i], name[i], src[i], NULL, 0, NULL, ARCH);
    }
    time_t now = time(NULL);
    for (int i = 0; i < 3; i++) {
        CHECK(loom__kernel_compile("loom_test", name[i], src[i], NULL, 0, NULL, ARCH) != NULL);
        set_mtime(path[i], now - 400 + 100 * i);
    }
    long s = file_size(path[0]);
    CHECK(s > 0 && labs(file_size(path[1]) - s) < s / 8 && labs(file_size(path[2]) - s) < s / 8);

    /* A hit makes kernel 0, the oldest, the most recently used. */
    loom__exec_clear_memory_caches();
    loom_stats_reset();
    CHECK(loom__kernel_compile("loom_test", name[0], src[0], NULL, 0, NULL, ARCH) != NULL);
    CHECK_EQ_INT(stats().disk_cache_hits, 1);
    CHECK(mtime_of(path[0]).tv_sec >= now - 5);

    /* Room for about 2.5 files: writing the 4th evicts the two least recently used. */
    char cap[32];
    snprintf(cap, sizeof cap, "%ld", s * 5 / 2);
    setenv("LOOM_CACHE_MAX_BYTES", cap, 1);
    CHECK(loom__kernel_compile("loom_test", name[3], src[3], NULL, 0, NULL, ARCH) != NULL);
    CHECK(file_size(path[0]) > 0);
    CHECK(file_size(path[1]) < 0);
    CHECK(file_size(path[2]) < 0);
    CHECK(file_size(path[3]) > 0);

    /* A cap below one file still keeps the file just written. */
    setenv("LOOM_CACHE_MAX_BYTES", "1", 1);
    loom__exec_clear_memory_caches();
    CHECK(loom__kernel_compile("loom_test", name[1], src[1], NULL, 0, NULL, ARCH) != NULL);
    CHECK(file_size(path[1]) > 0);
    CHECK(file_size(path[0]) < 0 && file_size(path[3]) < 0);
    CHECK_EQ_INT(tmpdir_count(dir, ".lkc"), 1);

    /* Temp files of a writer that died are removed once stale; a fresh one is left alone. */
    char stale[4500], fresh[4500];
    snprintf(stale, sizeof stale, "%s.tmp.AAAAAA", path[2]);
    snprintf(fresh, sizeof fresh, "%s.tmp.BBBBBB", path[3]);
    write_bytes(stale, "x", 1);
    write_bytes(fresh, "x", 1);
    set_mtime(stale, now - 7200);
    unsetenv("LOOM_CACHE_MAX_BYTES");
    loom__exec_clear_memory_caches();
    CHECK(loom__kernel_compile("loom_test", name[2], src[2], NULL, 0, NULL, ARCH) != NULL);
    CHECK(file_size(stale) < 0);
    CHECK(file_size(fresh) == 1);
    unlink(fresh);
    setenv("LOOM_CACHE_DIR", cache_dir, 1);
}

static void test_disabled(void)
{
    char buf[4400], name[32], src[256];
    int before = tmpdir_count(cache_dir, ".lkc");
    small_kernel(name, src, sizeof src, 5);

    setenv("LOOM_CACHE", "0", 1);
    CHECK_EQ_INT(loom__disk_cache_dir(buf, sizeof buf), -1);
    loom__exec_clear_memory_caches();
    loom_stats_reset();
    CHECK(loom__kernel_compile("loom_test", name, src, NULL, 0, NULL, ARCH) != NULL);
    loom__exec_clear_memory_caches();
    CHECK(loom__kernel_compile("loom_test", name, src, NULL, 0, NULL, ARCH) != NULL);
    CHECK_EQ_INT(stats().kernels_compiled, 2);
    CHECK_EQ_INT(tmpdir_count(cache_dir, ".lkc"), before);
    unsetenv("LOOM_CACHE");

    setenv("LOOM_CACHE_DIR", "", 1);
    CHECK_EQ_INT(loom__disk_cache_dir(buf, sizeof buf), -1);
    CHECK_EQ_INT(loom__kcache_path(buf, sizeof buf, name, src, NULL, 0, NULL, ARCH), -1);
    loom__exec_clear_memory_caches();
    CHECK(loom__kernel_compile("loom_test", name, src, NULL, 0, NULL, ARCH) != NULL);
    CHECK_EQ_INT(stats().kernels_compiled, 3);
    CHECK_EQ_INT(tmpdir_count(cache_dir, ".lkc"), before);

    /* The default locations. */
    const char *home = getenv("HOME");
    char *saved_home = home ? strdup(home) : NULL;
    unsetenv("LOOM_CACHE_DIR");
    setenv("XDG_CACHE_HOME", "/xdg", 1);
    CHECK(loom__disk_cache_dir(buf, sizeof buf) == 0 && strcmp(buf, "/xdg/loom") == 0);
    unsetenv("XDG_CACHE_HOME");
    setenv("HOME", "/home/someone", 1);
    CHECK(loom__disk_cache_dir(buf, sizeof buf) == 0);
    CHECK_STR(buf, "/home/someone/.cache/loom");
    unsetenv("HOME");
    CHECK_EQ_INT(loom__disk_cache_dir(buf, sizeof buf), -1);
    if (saved_home)
        setenv("HOME", saved_home, 1);
    free(saved_home);
    setenv("LOOM_CACHE_DIR", cache_dir, 1);
}

/* A cache directory that cannot be created: the compile still succeeds. */
static void test_unwritable_dir(void)
{
    char file[4400], dir[4500], name[32], src[256];
    snprintf(file, sizeof file, "%s/a-file", cache_dir);
    write_bytes(file, "x", 1);
    snprintf(dir, sizeof dir, "%s/sub", file);
    setenv("LOOM_CACHE_DIR", dir, 1);
    small_kernel(name, src, sizeof src, 6);
    loom_clear_error();
    CHECK(loom__kernel_compile("loom_test", name, src, NULL, 0, NULL, ARCH) != NULL);
    CHECK(loom_last_error() == NULL);
    setenv("LOOM_CACHE_DIR", cache_dir, 1);
    unlink(file);
}

static const loom__kernel *thread_results[4];

static void *compile_thread(void *arg)
{
    int i = (int)(intptr_t)arg;
    thread_results[i] = loom__kernel_compile(
        "loom_test", "t_threads", "extern \"C\" __global__ void t_threads(int *p) { *p = 1; }\n",
        NULL, 0, NULL, ARCH);
    return NULL;
}

static void test_threads(void)
{
    pthread_t t[4];
    loom__exec_clear_memory_caches();
    loom_stats_reset();
    for (int i = 0; i < 4; i++)
        pthread_create(&t[i], NULL, compile_thread, (void *)(intptr_t)i);
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    CHECK(thread_results[0] != NULL);
    for (int i = 1; i < 4; i++)
        CHECK(thread_results[i] == thread_results[0]);
    loom_stats s = stats();
    CHECK(s.kernels_compiled + s.disk_cache_hits + s.memory_cache_hits == 4);
    CHECK(s.kernels_compiled + s.disk_cache_hits >= 1);
}

/* The in-memory cache keeps at most its capacity of kernels, evicting the least recently used
 * one that no plan holds; a held kernel stays (its pointer valid) however many come after. */
static void test_memory_bound(void)
{
    char name[6][32], src[6][256];
    setenv("LOOM_CACHE", "0", 1); /* an evicted kernel then compiles again */
    loom__exec_clear_memory_caches();
    loom__kcache_set_capacity(3);
    for (int i = 0; i < 6; i++)
        small_kernel(name[i], src[i], sizeof src[i], 20 + i);
    const loom__kernel *held =
        loom__kernel_compile_held("loom_test", name[0], src[0], NULL, 0, NULL, ARCH);
    CHECK(held != NULL);
    for (int i = 1; i < 6; i++) {
        CHECK(loom__kernel_compile("loom_test", name[i], src[i], NULL, 0, NULL, ARCH) != NULL);
        CHECK(loom__kcache_count() <= 3);
    }
    /* Kernels 1 to 3 went (least recently used first); 0 is held, 4 and 5 are the newest. */
    loom_stats_reset();
    CHECK(loom__kernel_compile("loom_test", name[0], src[0], NULL, 0, NULL, ARCH) == held);
    CHECK(loom__kernel_compile("loom_test", name[5], src[5], NULL, 0, NULL, ARCH) != NULL);
    CHECK_EQ_INT(stats().memory_cache_hits, 2);
    CHECK_EQ_INT(stats().kernels_compiled, 0);
    CHECK(loom__kernel_compile("loom_test", name[1], src[1], NULL, 0, NULL, ARCH) != NULL);
    CHECK_EQ_INT(stats().kernels_compiled, 1);
    CHECK_EQ_INT(loom__kcache_count(), 3);
    CHECK_STR(held->name, name[0]);

    /* Dropped, the kernel is evicted like any other once it is the least recently used. */
    loom__kernel_drop(held);
    for (int i = 2; i < 5; i++)
        CHECK(loom__kernel_compile("loom_test", name[i], src[i], NULL, 0, NULL, ARCH) != NULL);
    loom_stats_reset();
    CHECK(loom__kernel_compile("loom_test", name[0], src[0], NULL, 0, NULL, ARCH) != NULL);
    CHECK_EQ_INT(stats().kernels_compiled, 1);
    loom__kcache_set_capacity(0);
    unsetenv("LOOM_CACHE");
}

int main(void)
{
    if (!tmpdir_make(cache_dir, sizeof cache_dir)) {
        perror("mkdtemp");
        return 1;
    }
    setenv("LOOM_CACHE_DIR", cache_dir, 1);
    unsetenv("LOOM_CACHE");
    unsetenv("LOOM_CACHE_MAX_BYTES");
    test_compile_to_cubin();
    test_compile_errors();
    test_memory_and_disk_cache();
    test_damaged_files();
    test_lru_eviction();
    test_disabled();
    test_unwritable_dir();
    test_threads();
    test_memory_bound();
    test_name_expression();
    loom__exec_clear_memory_caches();
    tmpdir_remove(cache_dir);
    return check_summary("test_exec_cache");
}
