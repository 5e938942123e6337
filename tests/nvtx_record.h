/* The NVTX ranges a test process pushes (one thread's), as tests/nvtx_recorder.c (an NVTX
 * injection library) writes them. Include after defining _POSIX_C_SOURCE 200809L; the test target defines
 * LOOM_NVTX_RECORDER, the library's path. */
#ifndef LOOM_TEST_NVTX_RECORD_H
#define LOOM_TEST_NVTX_RECORD_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { NVTX_RECORD_MAX = 256, NVTX_NAME_MAX = 512 };

typedef struct nvtx_record {
    bool injected;    /* NVTX loaded the recorder and took its callbacks */
    int n;            /* ranges pushed */
    int max_depth;    /* deepest nesting */
    bool balanced;    /* every push popped, no pop without a push */
    char name[NVTX_RECORD_MAX][NVTX_NAME_MAX];
    int depth[NVTX_RECORD_MAX]; /* how many ranges were open around each (0: outermost) */
} nvtx_record;

/* Before the process's first NVTX call: NVTX reads these once, at its initialisation. */
static inline void nvtx_record_start(const char *file)
{
    setenv("NVTX_INJECTION64_PATH", LOOM_NVTX_RECORDER, 1);
    setenv("LOOM_NVTX_RECORD", file, 1);
}

/* Reads the recorder's file into r; false if it cannot be read. */
static inline bool nvtx_record_read(const char *file, nvtx_record *r)
{
    memset(r, 0, sizeof *r);
    r->balanced = true;
    FILE *f = fopen(file, "r");
    if (!f)
        return false;
    char line[NVTX_NAME_MAX + 8];
    int open = 0;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        if (!strcmp(line, "injected")) {
            r->injected = true;
        } else if (!strncmp(line, "push ", 5)) {
            int at = 0; /* past "push THREAD NS " */
            sscanf(line, "push %*s %*s %n", &at);
            if (r->n < NVTX_RECORD_MAX && at > 0) {
                snprintf(r->name[r->n], NVTX_NAME_MAX, "%s", line + at);
                r->depth[r->n++] = open;
            }
            if (++open > r->max_depth)
                r->max_depth = open;
        } else if (!strncmp(line, "pop ", 4) && --open < 0) {
            r->balanced = false;
        }
    }
    fclose(f);
    r->balanced = r->balanced && open == 0;
    return true;
}

/* The index of the first range whose name starts with prefix at or after `from`, or -1. */
static inline int nvtx_record_find(const nvtx_record *r, const char *prefix, int from)
{
    for (int i = from; i < r->n; i++)
        if (!strncmp(r->name[i], prefix, strlen(prefix)))
            return i;
    return -1;
}

#endif
