/* The host device against the host's memory bandwidth, in one run: a plain copy loop over
 * 2^26 float32 values on as many threads as the host device uses (what the memory can do),
 * then fused elementwise chains on the host device over the same values (x made and kept on
 * the host device, so each run reads 4N bytes and writes 4N). Bandwidth counts bytes read
 * plus bytes written; every time is the median of REPS after a warm-up (which compiles).
 *   host_bandwidth copy      ms=... GB/s=...            the plain loop
 *   host_bandwidth <chain>   ms=... GB/s=... of_copy=... a fused chain (of_copy: its fraction
 *                                                       of the copy's bandwidth)
 * Chains: axpb (x*2 + 1: memory-bound anywhere), poly (a degree-4 polynomial: ten flops an
 * element), demo (the demo's sin(x)*2 + cos(x)**2 - exp(-x)/(1 + x*x): C library calls).
 * LOOM_HOST_THREADS caps the threads of both. */
#define _POSIX_C_SOURCE 200809L
#include "bench_time.h"
#include "loom.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define N ((int64_t)1 << 26)
#define REPS 7

typedef struct copy_part {
    const float *x;
    float *y;
    int64_t first, last;
} copy_part;

static void *copy_range(void *arg)
{
    copy_part *p = arg;
    for (int64_t i = p->first; i < p->last; i++)
        p->y[i] = p->x[i];
    return NULL;
}

static int host_threads(void)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    const char *cap = getenv("LOOM_HOST_THREADS");
    long t = cpus < 1 ? 1 : cpus;
    if (cap && atol(cap) > 0 && atol(cap) < t)
        t = atol(cap);
    return (int)(t > 256 ? 256 : t);
}

/* The median time of the copy loop split over nt threads, in ms. */
static double copy_ms(const float *x, float *y, int nt)
{
    double t[REPS];
    for (int r = -1; r < REPS; r++) {
        pthread_t tid[256];
        copy_part part[256];
        double t0 = bench_now_ms();
        for (int k = 0; k < nt; k++) {
            part[k] = (copy_part){x, y, N * k / nt, N * (k + 1) / nt};
            if (k && pthread_create(&tid[k], NULL, copy_range, &part[k]) != 0)
                copy_range(&part[k]), tid[k] = 0;
        }
        copy_range(&part[0]);
        for (int k = 1; k < nt; k++)
            if (tid[k])
                pthread_join(tid[k], NULL);
        if (r >= 0)
            t[r] = bench_now_ms() - t0;
    }
    qsort(t, REPS, sizeof *t, bench_by_value);
    return t[REPS / 2];
}

static loom_array *axpb(loom_array *x)
{
    return loom_add_scalar(loom_mul_scalar(x, 2.0), 1.0);
}

static loom_array *poly(loom_array *x)
{
    loom_array *p = loom_add_scalar(loom_mul_scalar(x, 0.5), -1.25);
    p = loom_add_scalar(loom_multiply(p, x), 0.75);
    p = loom_add_scalar(loom_multiply(p, x), 2.0);
    return loom_add_scalar(loom_multiply(p, x), -0.125);
}

static loom_array *demo(loom_array *x)
{
    loom_array *a = loom_mul_scalar(loom_sin(x), 2.0);
    loom_array *b = loom_power(loom_cos(x), loom_scalar(2.0));
    loom_array *c = loom_divide(loom_exp(loom_negative(x)), loom_add_scalar(loom_multiply(x, x), 1.0));
    return loom_subtract(loom_add(a, b), c);
}

/* The median time of evaluating f(x) on the host device, in ms; < 0 on an error. */
static double chain_ms(loom_array *(*f)(loom_array *), loom_array *x)
{
    double t[REPS];
    for (int r = -1; r < REPS; r++) {
        double t0 = bench_now_ms();
        loom_scope_begin();
        int rc = loom_eval(f(x));
        loom_scope_end();
        if (rc != LOOM_OK) {
            fprintf(stderr, "host_bandwidth: %s\n", loom_last_error());
            return -1;
        }
        if (r >= 0)
            t[r] = bench_now_ms() - t0;
    }
    qsort(t, REPS, sizeof *t, bench_by_value);
    return t[REPS / 2];
}

int main(void)
{
    if (loom_device_set(LOOM_DEVICE_CPU) != LOOM_OK) {
        fprintf(stderr, "host_bandwidth: %s\n", loom_last_error());
        return 1;
    }
    float *x = malloc((size_t)N * sizeof *x), *y = malloc((size_t)N * sizeof *y);
    if (!x || !y) {
        fprintf(stderr, "host_bandwidth: out of host memory\n");
        return 1;
    }
    for (int64_t i = 0; i < N; i++)
        x[i] = (float)(i % 1000) * 1e-3f;
    memset(y, 0, (size_t)N * sizeof *y);
    const double gb = 2.0 * (double)N * sizeof(float) / 1e9;
    const int nt = host_threads();
    double copy = copy_ms(x, y, nt);
    printf("host_bandwidth copy ms=%.2f GB/s=%.2f threads=%d\n", copy, gb / copy * 1e3, nt);

    loom_array *lx = loom_linspace(-3, 3, N, true, LOOM_FLOAT32);
    int bad = loom_eval(lx) != LOOM_OK;
    static const struct {
        const char *name;
        loom_array *(*f)(loom_array *);
    } chains[] = {{"axpb", axpb}, {"poly", poly}, {"demo", demo}};
    for (size_t c = 0; c < sizeof chains / sizeof *chains && !bad; c++) {
        double ms = chain_ms(chains[c].f, lx);
        bad |= ms < 0;
        if (ms >= 0)
            printf("host_bandwidth %s ms=%.2f GB/s=%.2f of_copy=%.2f\n", chains[c].name, ms,
                   gb / ms * 1e3, copy / ms);
    }
    loom_release(lx);
    free(x);
    free(y);
    return bad;
}
