/* Captures stderr into a file while Loom logs (LOOM_LOG writes there), then reads it back. */
#ifndef LOOM_TEST_CAPTURE_STDERR_H
#define LOOM_TEST_CAPTURE_STDERR_H

#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

typedef struct stderr_capture {
    int saved;
    char path[4200];
} stderr_capture;

/* Sends stderr to dir/stderr.txt. */
static inline void capture_begin(stderr_capture *c, const char *dir)
{
    snprintf(c->path, sizeof c->path, "%s/stderr.txt", dir);
    fflush(stderr);
    c->saved = dup(2);
    int fd = open(c->path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    dup2(fd, 2);
    close(fd);
}

/* Restores stderr and reads what was written into text (NUL-terminated). */
static inline void capture_end(stderr_capture *c, char *text, size_t cap)
{
    fflush(stderr);
    dup2(c->saved, 2);
    close(c->saved);
    FILE *f = fopen(c->path, "r");
    size_t n = f ? fread(text, 1, cap - 1, f) : 0;
    if (f)
        fclose(f);
    text[n] = '\0';
}

#endif
