/* Generated kernels for the host device: the same CUDA C++ source a GPU compiles, built by a
 * host C++ compiler found at run time with the prelude kernels/loom_host.cuh, into a shared
 * object loaded with dlopen. Compiled kernels go through an in-memory table and the disk
 * cache NVRTC's kernels use (the shared object is the payload). */
#define _GNU_SOURCE
#include "exec.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define PATH_MAX_LEN 4096

/* Precise math, as NVRTC's options: no contraction into FMAs, no fast math. Hidden symbols
 * (only loom_host_entry is exported): a kernel is then inlined into the loop over its items
 * instead of being called through the PLT once per item. */
static const char *const fixed_flags[] = {"-x", "c++", "-std=c++17", "-O2", "-fPIC", "-shared",
                                          "-fvisibility=hidden", "-ffp-contract=off",
                                          "-fno-fast-math", "-w"};
#define NFIXED (sizeof fixed_flags / sizeof fixed_flags[0])

/* ---- the compiler ---- */

static pthread_once_t setup_once = PTHREAD_ONCE_INIT;
static char compiler[PATH_MAX_LEN];   /* its path; empty when none was found */
static char compiler_why[512];        /* why none was found */
static char include_dir[PATH_MAX_LEN]; /* Loom's headers written out as files */
static char fingerprint[2 * PATH_MAX_LEN];

/* name itself when it holds a slash, else the first executable of that name on PATH. */
static bool find_program(const char *name, char *out, size_t n)
{
    if (strchr(name, '/')) {
        snprintf(out, n, "%s", name);
        return access(out, X_OK) == 0;
    }
    const char *path = getenv("PATH");
    for (const char *p = path ? path : ""; *p;) {
        size_t len = strcspn(p, ":");
        if (len && (size_t)snprintf(out, n, "%.*s/%s", (int)len, p, name) < n && access(out, X_OK) == 0)
            return true;
        p += len + (p[len] == ':');
    }
    return false;
}

static void find_compiler(void)
{
    const char *env = getenv("LOOM_HOST_CC");
    if (env && *env) {
        if (!find_program(env, compiler, sizeof compiler)) {
            snprintf(compiler_why, sizeof compiler_why,
                     "LOOM_HOST_CC=\"%s\" is not an executable program", env);
            compiler[0] = '\0';
        }
        return;
    }
    static const char *const candidates[] = {"c++", "g++", "clang++", "cc", "gcc", "clang"};
    for (size_t i = 0; i < sizeof candidates / sizeof *candidates; i++)
        if (find_program(candidates[i], compiler, sizeof compiler))
            return;
    compiler[0] = '\0';
    snprintf(compiler_why, sizeof compiler_why,
             "LOOM_HOST_CC is unset and none of c++, g++, clang++, cc, gcc, clang is on PATH");
}

static int write_file(const char *path, const void *data, size_t n)
{
    char tmp[PATH_MAX_LEN + 16];
    snprintf(tmp, sizeof tmp, "%s.XXXXXX", path);
    int fd = mkstemp(tmp);
    if (fd < 0)
        return -1;
    const char *p = data;
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w <= 0) {
            close(fd);
            unlink(tmp);
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    if (close(fd) || rename(tmp, path)) {
        unlink(tmp);
        return -1;
    }
    return 0;
}

static const char *tmp_dir(void)
{
    const char *t = getenv("TMPDIR");
    return t && *t ? t : "/tmp";
}

/* Loom's device headers as files in a directory named by their hash (and the user, who alone
 * may write it), shared by every process of that user and Loom version. */
static void write_headers(void)
{
    int nh;
    const loom__header *h = loom__device_headers(&nh);
    uint64_t hash = 1469598103934665603ull;
    for (int i = 0; i < nh; i++) {
        hash = loom__fnv1a64(h[i].name, strlen(h[i].name) + 1, hash);
        hash = loom__fnv1a64(h[i].source, strlen(h[i].source), hash);
    }
    snprintf(include_dir, sizeof include_dir, "%s/loom-host-%u-%016llx", tmp_dir(), (unsigned)getuid(),
             (unsigned long long)hash);
    struct stat st;
    if (mkdir(include_dir, 0700) != 0 &&
        (errno != EEXIST || lstat(include_dir, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != getuid() ||
         (st.st_mode & 077))) {
        include_dir[0] = '\0';
        return;
    }
    for (int i = 0; i < nh; i++) {
        char path[2 * PATH_MAX_LEN];
        snprintf(path, sizeof path, "%s/%s", include_dir, h[i].name);
        if (write_file(path, h[i].source, strlen(h[i].source))) {
            include_dir[0] = '\0';
            return;
        }
    }
}

static void setup(void)
{
    find_compiler();
    write_headers();
    size_t used = (size_t)snprintf(fingerprint, sizeof fingerprint, "host-cc %s", compiler);
    struct stat st;
    if (compiler[0] && stat(compiler, &st) == 0) /* a reinstalled compiler is another compiler */
        used += (size_t)snprintf(fingerprint + used, sizeof fingerprint - used, " %lld %lld",
                                 (long long)st.st_size, (long long)st.st_mtime);
    for (size_t i = 0; i < NFIXED && used < sizeof fingerprint; i++)
        used += (size_t)snprintf(fingerprint + used, sizeof fingerprint - used, " %s", fixed_flags[i]);
    for (int i = 0; loom__cuda_include_option(i) && used < sizeof fingerprint; i++)
        used += (size_t)snprintf(fingerprint + used, sizeof fingerprint - used, " %s",
                                 loom__cuda_include_option(i));
}

/* ---- compiling ---- */

/* A user kernel's NVRTC options: only -D and -U mean the same to a host compiler. */
static int add_options(const char *fn, const char *options, char *copy, const char **argv, int *argc,
                       int most)
{
    if (!options)
        return LOOM_OK;
    strcpy(copy, options);
    for (char *tok = strtok(copy, " \t"); tok; tok = strtok(NULL, " \t")) {
        if ((strncmp(tok, "-D", 2) != 0 && strncmp(tok, "-U", 2) != 0) || *argc >= most) {
            loom__error(LOOM_ERR_UNSUPPORTED, fn,
                        "the kernel option \"%s\" is not available on the host device (only -D and -U are)", tok);
            return LOOM_ERR_UNSUPPORTED;
        }
        argv[(*argc)++] = tok;
    }
    return LOOM_OK;
}

static char *read_whole(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    if (fseek(f, 0, SEEK_END) == 0) {
        long len = ftell(f);
        if (len >= 0 && fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)len + 1))) {
            *n = fread(buf, 1, (size_t)len, f);
            buf[*n] = '\0';
        }
    }
    fclose(f);
    return buf;
}

/* Runs the compiler on source (with the launch entry appended) in a fresh directory; *so gets
 * the shared object's bytes. */
static int compile(const char *fn, const char *name, const char *source, const char *options, void **so,
                   size_t *so_len)
{
    char dir[PATH_MAX_LEN], src[PATH_MAX_LEN + 16], out[PATH_MAX_LEN + 16], log[PATH_MAX_LEN + 16];
    snprintf(dir, sizeof dir, "%s/loom-host-cc-XXXXXX", tmp_dir());
    if (!mkdtemp(dir)) {
        loom__error(LOOM_ERR_IO, fn, "cannot make a directory for the host compiler in %s: %s", tmp_dir(),
                    strerror(errno));
        return LOOM_ERR_IO;
    }
    snprintf(src, sizeof src, "%s/k.cpp", dir);
    snprintf(out, sizeof out, "%s/k.so", dir);
    snprintf(log, sizeof log, "%s/log", dir);
    size_t len = strlen(source), glue_len = 320 + 2 * strlen(name);
    char *text = malloc(len + glue_len);
    char *opt_copy = malloc(options ? strlen(options) + 1 : 1);
    int rc = LOOM_OK;
    if (!text || !opt_copy) {
        loom__error(LOOM_ERR_OOM, fn, "out of host memory");
        rc = LOOM_ERR_OOM;
        goto done;
    }
    memcpy(text, source, len);
    len += (size_t)snprintf(text + len, glue_len,
                            "\nextern \"C\" __attribute__((visibility(\"default\"))) int loom_host_entry(void **argv, long long first, long long last, "
                            "const long long *dims)\n{\n    return loom_host_launch<%s>(argv, first, last, dims);\n}\n",
                            name);
    if (write_file(src, text, len)) {
        loom__error(LOOM_ERR_IO, fn, "cannot write %s: %s", src, strerror(errno));
        rc = LOOM_ERR_IO;
        goto done;
    }
    enum { MOST = 64 };
    const char *argv[MOST + 16];
    char inc[PATH_MAX_LEN + 4];
    int argc = 0;
    argv[argc++] = compiler;
    for (size_t i = 0; i < NFIXED; i++)
        argv[argc++] = fixed_flags[i];
    snprintf(inc, sizeof inc, "-I%s", include_dir);
    argv[argc++] = inc;
    for (int i = 0; loom__cuda_include_option(i); i++)
        argv[argc++] = loom__cuda_include_option(i);
    argv[argc++] = "-include";
    argv[argc++] = "loom_host.cuh";
    if ((rc = add_options(fn, options, opt_copy, argv, &argc, MOST)) != LOOM_OK)
        goto done;
    argv[argc++] = "-o";
    argv[argc++] = out;
    argv[argc++] = src;
    argv[argc] = NULL;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    pid_t pid;
    double t0 = loom__now_ms();
    int err = posix_spawn(&pid, compiler, &fa, NULL, (char *const *)argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    int status = 0;
    while (!err && waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (err || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        size_t n = 0;
        char *text_log = read_whole(log, &n);
        /* the refused source stays where the message says, as NVRTC's do */
        char kept[PATH_MAX_LEN + 80];
        snprintf(kept, sizeof kept, "%s/%s.host.cpp", tmp_dir(), name);
        rename(src, kept);
        loom__error(LOOM_ERR_COMPILE, fn, "the host compiler %s failed to compile kernel %s: %.3000s (source in %s)",
                    compiler, name, err ? strerror(err) : text_log ? text_log : "(no output)", kept);
        free(text_log);
        rc = LOOM_ERR_COMPILE;
        goto done;
    }
    if (!(*so = read_whole(out, so_len))) {
        loom__error(LOOM_ERR_IO, fn, "cannot read the host compiler's output %s", out);
        rc = LOOM_ERR_IO;
        goto done;
    }
    loom__stat_add(LOOM__STAT_KERNELS_COMPILED, 1);
    LOOM__LOG("compiled kernel %s for the host in %.1f ms (%zu bytes of shared object)", name,
              loom__now_ms() - t0, *so_len);
done:
    unlink(src);
    unlink(out);
    unlink(log);
    rmdir(dir);
    free(text);
    free(opt_copy);
    return rc;
}

/* dlopen needs a file: the shared object is written to a private one, loaded and unlinked. */
static loom__host_entry load(const char *fn, const char *name, const void *so, size_t so_len, void **handle)
{
    char path[PATH_MAX_LEN];
    snprintf(path, sizeof path, "%s/loom-host-so-XXXXXX", tmp_dir());
    int fd = mkstemp(path);
    bool ok = fd >= 0;
    for (size_t done = 0; ok && done < so_len;) {
        ssize_t w = write(fd, (const char *)so + done, so_len - done);
        ok = w > 0;
        done += ok ? (size_t)w : 0;
    }
    if (fd >= 0)
        ok = close(fd) == 0 && ok;
    *handle = ok ? dlopen(path, RTLD_NOW | RTLD_LOCAL) : NULL;
    if (fd >= 0)
        unlink(path);
    void *sym = *handle ? dlsym(*handle, "loom_host_entry") : NULL;
    if (!sym) {
        const char *why = ok ? dlerror() : strerror(errno);
        loom__error(LOOM_ERR_IO, fn, "cannot load host kernel %s: %s", name, why ? why : "no entry point");
        if (*handle)
            dlclose(*handle);
        return NULL;
    }
    loom__host_entry e;
    memcpy(&e, &sym, sizeof e); /* object to function pointer, as POSIX allows */
    return e;
}

/* ---- the in-memory table: every kernel compiled in this process, kept loaded ---- */

typedef struct entry {
    struct entry *next;
    uint64_t hash;
    char *key;
    size_t key_len;
    loom__host_entry fn;
} entry;

enum { BUCKETS = 1024 };
static entry *table[BUCKETS];
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;

static loom__host_entry lookup(const char *key, size_t key_len, uint64_t hash)
{
    loom__host_entry found = NULL;
    pthread_mutex_lock(&table_lock);
    for (entry *e = table[hash % BUCKETS]; e && !found; e = e->next)
        if (e->hash == hash && e->key_len == key_len && memcmp(e->key, key, key_len) == 0)
            found = e->fn;
    pthread_mutex_unlock(&table_lock);
    return found;
}

static void insert(char *key, size_t key_len, uint64_t hash, loom__host_entry fn)
{
    entry *e = malloc(sizeof *e);
    if (!e) { /* the kernel stays loaded; it is only compiled again next time */
        free(key);
        return;
    }
    *e = (entry){.hash = hash, .key = key, .key_len = key_len, .fn = fn};
    pthread_mutex_lock(&table_lock);
    e->next = table[hash % BUCKETS];
    table[hash % BUCKETS] = e;
    pthread_mutex_unlock(&table_lock);
}

/* The full cache key: the compiler and its flags, Loom's version, the headers, the options,
 * the name and the source, each length-prefixed. */
static char *make_key(const char *name, const char *source, const char *options, size_t *len)
{
    const char *parts[] = {"loom host kernel 1", LOOM_VERSION_STRING, fingerprint, include_dir,
                           options ? options : "", name, source};
    size_t n = 0;
    for (size_t i = 0; i < sizeof parts / sizeof *parts; i++)
        n += 20 + strlen(parts[i]);
    char *key = malloc(n + 1);
    if (!key)
        return NULL;
    size_t used = 0;
    for (size_t i = 0; i < sizeof parts / sizeof *parts; i++)
        used += (size_t)snprintf(key + used, n + 1 - used, "%zu:%s", strlen(parts[i]), parts[i]);
    *len = used;
    return key;
}

loom__host_entry loom__host_kernel_get(const char *fn, const char *name, const char *source,
                                       const char *options)
{
    pthread_once(&setup_once, setup);
    size_t key_len;
    char *key = make_key(name, source, options, &key_len);
    if (!key) {
        loom__error(LOOM_ERR_OOM, fn, "out of host memory");
        return NULL;
    }
    uint64_t hash = loom__fnv1a64(key, key_len, 1469598103934665603ull);
    loom__host_entry e = lookup(key, key_len, hash);
    if (e) {
        loom__stat_add(LOOM__STAT_MEMORY_CACHE_HITS, 1);
        free(key);
        return e;
    }
    if (!compiler[0] || !include_dir[0]) {
        if (!compiler[0])
            loom__error(LOOM_ERR_UNSUPPORTED, fn, "no host C++ compiler for the host device: %s", compiler_why);
        else
            loom__error(LOOM_ERR_IO, fn, "cannot write Loom's headers for the host compiler under %s", tmp_dir());
        free(key);
        return NULL;
    }
    void *so = NULL, *handle;
    size_t so_len = 0;
    bool from_disk = loom__disk_cache_read(key, key_len, hash, &so, &so_len) == 1;
    if (from_disk) {
        loom__stat_add(LOOM__STAT_DISK_CACHE_HITS, 1);
        LOOM__LOG("kernel %s for the host loaded from the disk cache (%zu bytes)", name, so_len);
    } else if (compile(fn, name, source, options, &so, &so_len) != LOOM_OK) {
        free(key);
        return NULL;
    }
    e = load(fn, name, so, so_len, &handle);
    if (!e && from_disk) { /* a file the loader refuses is a miss, as a corrupt one */
        free(so);
        so = NULL;
        from_disk = false;
        if (compile(fn, name, source, options, &so, &so_len) == LOOM_OK)
            e = load(fn, name, so, so_len, &handle);
    }
    if (e && !from_disk)
        loom__disk_cache_write(key, key_len, hash, so, so_len);
    free(so);
    if (e)
        insert(key, key_len, hash, e);
    else
        free(key);
    return e;
}
