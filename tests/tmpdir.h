/* Private temp directories for tests that write files (kernel caches). Include after defining
 * _POSIX_C_SOURCE 200809L. */
#ifndef LOOM_TEST_TMPDIR_H
#define LOOM_TEST_TMPDIR_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Creates /tmp/loom-test-XXXXXX (or under $TMPDIR) in buf (at least 4096 bytes). */
static inline char *tmpdir_make(char *buf, size_t n)
{
    const char *base = getenv("TMPDIR");
    snprintf(buf, n, "%s/loom-test-XXXXXX", base && *base ? base : "/tmp");
    return mkdtemp(buf);
}

/* Removes dir and everything below it. */
static inline void tmpdir_remove(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    for (struct dirent *e; (e = readdir(d));) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        struct stat st;
        size_t n = strlen(dir) + strlen(e->d_name) + 2;
        char *path = malloc(n);
        if (!path)
            break;
        snprintf(path, n, "%s/%s", dir, e->d_name);
        if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
            tmpdir_remove(path);
        else
            unlink(path);
        free(path);
    }
    closedir(d);
    rmdir(dir);
}

/* The number of entries in dir whose name ends with suffix. */
static inline int tmpdir_count(const char *dir, const char *suffix)
{
    DIR *d = opendir(dir);
    int count = 0;
    size_t ns = strlen(suffix);
    if (!d)
        return 0;
    for (struct dirent *e; (e = readdir(d));) {
        size_t n = strlen(e->d_name);
        if (n >= ns && strcmp(e->d_name + n - ns, suffix) == 0 && strcmp(e->d_name, ".") &&
            strcmp(e->d_name, ".."))
            count++;
    }
    closedir(d);
    return count;
}

#endif
