/* The on-disk kernel cache: one file per kernel, named by the hash of its full key.
 *
 * File layout (native byte order; another order fails the magic check and is a miss):
 *   0  magic "LOOMKC" 0 1        (8 bytes)
 *   8  format version            (u32, FORMAT_VERSION)
 *  12  reserved                  (u32, 0)
 *  16  key length                (u64)
 *  24  payload length            (u64)
 *  32  FNV-1a 64 of the payload  (u64)
 *  40  key, then payload (CUBIN)
 * The full key is stored and compared, so a hash collision or a stale file is a miss, never a
 * wrong kernel. Anything that does not check out is a miss; the compile that follows
 * overwrites the file. Writers go through a temp file and rename(), so readers in other
 * processes see either the old file or the new one. The cache is best effort: I/O errors are
 * logged (LOOM_LOG) and otherwise ignored. */
#define _POSIX_C_SOURCE 200809L
#include "exec.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define FORMAT_VERSION 1u
#define HEADER_BYTES 40
#define DEFAULT_MAX_BYTES ((uint64_t)1 << 30)
#define MAX_PAYLOAD ((uint64_t)1 << 30)
#define SUFFIX ".lkc"
/* Temp files left by a writer that died are removed by eviction once this old. */
#define STALE_TEMP_SECONDS 3600
#define DIR_BUF 4096
#define PATH_BUF (DIR_BUF + 256 + 2)

static const char magic[8] = {'L', 'O', 'O', 'M', 'K', 'C', 0, 1};

int loom__disk_cache_dir(char *buf, size_t n)
{
    const char *enabled = getenv("LOOM_CACHE");
    if (enabled && strcmp(enabled, "0") == 0)
        return -1;
    const char *dir = getenv("LOOM_CACHE_DIR");
    int w;
    if (dir) {
        if (!*dir)
            return -1;
        w = snprintf(buf, n, "%s", dir);
    } else if ((dir = getenv("XDG_CACHE_HOME")) && *dir) {
        w = snprintf(buf, n, "%s/loom", dir);
    } else if ((dir = getenv("HOME")) && *dir) {
        w = snprintf(buf, n, "%s/.cache/loom", dir);
    } else {
        return -1;
    }
    return w > 0 && (size_t)w < n ? 0 : -1;
}

int loom__disk_cache_path(char *buf, size_t n, uint64_t hash)
{
    char dir[DIR_BUF];
    if (loom__disk_cache_dir(dir, sizeof dir) != 0)
        return -1;
    int w = snprintf(buf, n, "%s/%016llx" SUFFIX, dir, (unsigned long long)hash);
    return w > 0 && (size_t)w < n ? 0 : -1;
}

static int read_all(int fd, void *buf, size_t n)
{
    for (size_t done = 0; done < n;) {
        ssize_t r = read(fd, (char *)buf + done, n - done);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        done += (size_t)r;
    }
    return 0;
}

static int write_all(int fd, const void *buf, size_t n)
{
    for (size_t done = 0; done < n;) {
        ssize_t w = write(fd, (const char *)buf + done, n - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        done += (size_t)w;
    }
    return 0;
}

/* Checks the open file against key; returns the payload or NULL (a miss, and why). */
static void *read_entry(int fd, const void *key, size_t key_len, size_t *payload_len,
                        const char **why)
{
    struct stat st;
    unsigned char h[HEADER_BYTES];
    uint32_t version;
    uint64_t klen, plen, sum;
    *why = "unreadable";
    if (fstat(fd, &st) != 0 || read_all(fd, h, sizeof h) != 0)
        return NULL;
    memcpy(&version, h + 8, 4);
    memcpy(&klen, h + 16, 8);
    memcpy(&plen, h + 24, 8);
    memcpy(&sum, h + 32, 8);
    *why = "not a Loom cache file of this version";
    if (memcmp(h, magic, sizeof magic) != 0 || version != FORMAT_VERSION)
        return NULL;
    *why = "key mismatch";
    if (klen != key_len)
        return NULL;
    *why = "truncated or oversized";
    if (plen == 0 || plen > MAX_PAYLOAD || (uint64_t)st.st_size != HEADER_BYTES + klen + plen)
        return NULL;
    char *buf = malloc(key_len + plen);
    *why = "out of host memory";
    if (!buf)
        return NULL;
    *why = "truncated";
    if (read_all(fd, buf, key_len + plen) != 0)
        goto miss;
    *why = "key mismatch";
    if (memcmp(buf, key, key_len) != 0)
        goto miss;
    *why = "checksum mismatch";
    if (loom__fnv1a64(buf + key_len, plen, LOOM__FNV1A64_INIT) != sum)
        goto miss;
    memmove(buf, buf + key_len, plen);
    *payload_len = plen;
    return buf;
miss:
    free(buf);
    return NULL;
}

int loom__disk_cache_read(const void *key, size_t key_len, uint64_t hash, void **payload,
                          size_t *payload_len)
{
    char path[PATH_BUF];
    *payload = NULL;
    *payload_len = 0;
    if (loom__disk_cache_path(path, sizeof path, hash) != 0)
        return 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    const char *why;
    void *p = read_entry(fd, key, key_len, payload_len, &why);
    if (p)
        futimens(fd, NULL); /* the LRU clock: a hit makes the file the newest */
    close(fd);
    if (!p) {
        LOOM__LOG("disk cache: ignoring %s (%s)", path, why);
        return 0;
    }
    *payload = p;
    return 1;
}

/* mkdir -p, private to the user: others must not plant kernels in it. */
static int make_dirs(const char *dir)
{
    char tmp[DIR_BUF];
    if (snprintf(tmp, sizeof tmp, "%s", dir) >= (int)sizeof tmp)
        return -1;
    for (char *p = tmp + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(tmp, 0700) != 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    return mkdir(tmp, 0700) != 0 && errno != EEXIST ? -1 : 0;
}

typedef struct cache_file {
    char name[64];
    off_t size;
    struct timespec mtime;
} cache_file;

static int older_first(const void *a, const void *b)
{
    const cache_file *x = a, *y = b;
    if (x->mtime.tv_sec != y->mtime.tv_sec)
        return x->mtime.tv_sec < y->mtime.tv_sec ? -1 : 1;
    if (x->mtime.tv_nsec != y->mtime.tv_nsec)
        return x->mtime.tv_nsec < y->mtime.tv_nsec ? -1 : 1;
    return strcmp(x->name, y->name);
}

static bool is_cache_name(const char *name)
{
    return strlen(name) == 16 + strlen(SUFFIX) && strspn(name, "0123456789abcdef") == 16 &&
           strcmp(name + 16, SUFFIX) == 0;
}

static uint64_t max_bytes(void)
{
    const char *env = getenv("LOOM_CACHE_MAX_BYTES");
    if (!env || !*env)
        return DEFAULT_MAX_BYTES;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(env, &end, 10);
    return errno || *end || *env == '-' ? DEFAULT_MAX_BYTES : (uint64_t)v;
}

/* Removes the least recently used files (oldest mtime) until the cache fits its cap, never the
 * one just written (keep). */
static void evict(const char *dir, const char *keep)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    cache_file *files = NULL;
    size_t n = 0, cap = 0;
    uint64_t total = 0;
    time_t now = time(NULL);
    char path[PATH_BUF];
    for (struct dirent *e; (e = readdir(d));) {
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        bool temp = strstr(e->d_name, SUFFIX ".tmp.") != NULL;
        if ((!temp && !is_cache_name(e->d_name)) || stat(path, &st) != 0 || !S_ISREG(st.st_mode))
            continue;
        if (temp) {
            if (now - st.st_mtime > STALE_TEMP_SECONDS)
                unlink(path);
            continue;
        }
        total += (uint64_t)st.st_size;
        if (strcmp(e->d_name, keep) == 0)
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            cache_file *grown = realloc(files, cap * sizeof *files);
            if (!grown)
                break;
            files = grown;
        }
        size_t len = strlen(e->d_name); /* is_cache_name bounds it; a Debug gcc cannot see that */
        if (len >= sizeof files[n].name)
            continue;
        memcpy(files[n].name, e->d_name, len + 1);
        files[n].size = st.st_size;
        files[n].mtime = st.st_mtim;
        n++;
    }
    closedir(d);
    uint64_t limit = max_bytes();
    if (total > limit) {
        qsort(files, n, sizeof *files, older_first);
        for (size_t i = 0; i < n && total > limit; i++) {
            snprintf(path, sizeof path, "%s/%s", dir, files[i].name);
            if (unlink(path) == 0) {
                total -= (uint64_t)files[i].size;
                LOOM__LOG("disk cache: evicted %s (%lld bytes)", path, (long long)files[i].size);
            }
        }
    }
    free(files);
}

void loom__disk_cache_write(const void *key, size_t key_len, uint64_t hash, const void *payload,
                            size_t payload_len)
{
    char dir[DIR_BUF], path[PATH_BUF], tmp[PATH_BUF + 16];
    if (loom__disk_cache_dir(dir, sizeof dir) != 0 ||
        loom__disk_cache_path(path, sizeof path, hash) != 0)
        return;
    if (make_dirs(dir) != 0) {
        LOOM__LOG("disk cache: cannot create %s: %s", dir, strerror(errno));
        return;
    }
    snprintf(tmp, sizeof tmp, "%s.tmp.XXXXXX", path);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        LOOM__LOG("disk cache: cannot create a file in %s: %s", dir, strerror(errno));
        return;
    }
    unsigned char h[HEADER_BYTES] = {0};
    uint32_t version = FORMAT_VERSION;
    uint64_t klen = key_len, plen = payload_len;
    uint64_t sum = loom__fnv1a64(payload, payload_len, LOOM__FNV1A64_INIT);
    memcpy(h, magic, sizeof magic);
    memcpy(h + 8, &version, 4);
    memcpy(h + 16, &klen, 8);
    memcpy(h + 24, &plen, 8);
    memcpy(h + 32, &sum, 8);
    bool ok = write_all(fd, h, sizeof h) == 0 && write_all(fd, key, key_len) == 0 &&
              write_all(fd, payload, payload_len) == 0;
    ok = close(fd) == 0 && ok;
    if (!ok || rename(tmp, path) != 0) {
        LOOM__LOG("disk cache: cannot write %s: %s", path, strerror(errno));
        unlink(tmp);
        return;
    }
    LOOM__LOG("disk cache: wrote %s (%zu bytes)", path, HEADER_BYTES + key_len + payload_len);
    evict(dir, strrchr(path, '/') + 1);
}
