/* LOOM_LOG: a trace of compiles, forced evaluations and launches on stderr. */
#define _POSIX_C_SOURCE 200809L
#include "exec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static atomic_int log_state = -1; /* -1: LOOM_LOG not read yet */

bool loom__log_enabled(void)
{
    int on = atomic_load_explicit(&log_state, memory_order_relaxed);
    if (on < 0) {
        const char *env = getenv("LOOM_LOG");
        on = env && *env && strcmp(env, "0") != 0;
        atomic_store_explicit(&log_state, on, memory_order_relaxed);
    }
    return on;
}

void loom__log(const char *fmt, ...)
{
    char line[1024];
    int n = snprintf(line, sizeof line, "loom: ");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
    va_end(ap);
    /* One fputs per line, so that lines of different threads do not interleave. */
    strcat(line, "\n");
    fputs(line, stderr);
}

double loom__now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}
