/* The clock and the sort of the host-side benchmark tools (record_overhead, host_path,
 * compile_time, cold_start). */
#ifndef LOOM_BENCH_TIME_H
#define LOOM_BENCH_TIME_H

#include <time.h>

static inline double bench_now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static inline double bench_now_ms(void)
{
    return bench_now_ns() / 1e6;
}

/* qsort's order for doubles, for medians */
static inline int bench_by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

#endif
