/* loom_benchmark on the device: a spin kernel of known length is timed on the current stream
 * within the event resolution and clock range, warm-ups are excluded, max_duration stops the
 * loop, a failing function stops it with its status, and a Loom evaluation can be timed.
 * Skips (77) without a device. */
#define _POSIX_C_SOURCE 200809L
#include "check.h"
#include "slow_kernel.h"

#include <cuda_runtime_api.h>
#include <math.h>
#include <stdlib.h>

#define FN "loom_test"
#define SPIN_CYCLES 20000000LL /* about 10 ms at 2 GHz */

typedef struct spin_work {
    void *buffer;
    long long cycles;
    int calls;
    int fail_at; /* the call that returns an error (0: none) */
} spin_work;

static int spin(void *user_data)
{
    spin_work *w = user_data;
    w->calls++;
    if (w->fail_at && w->calls == w->fail_at)
        return LOOM_ERR_UNSUPPORTED;
    return slow_fill(FN, w->buffer, 1, 0, w->cycles, loom_stream_get_current());
}

static void test_spin_kernel(void *buffer)
{
    int khz = 0;
    cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0); /* the highest SM clock */
    CHECK(khz > 0);
    spin_work w = {.buffer = buffer, .cycles = SPIN_CYCLES};
    loom_benchmark_result r;
    CHECK_EQ_INT(loom_benchmark(spin, &w, "spin", 20, 3, INFINITY, &r), LOOM_OK);
    CHECK_EQ_INT(r.n_runs, 20);
    CHECK_EQ_INT(w.calls, 23); /* 3 warm-ups, not timed */
    /* The kernel spins at least this long: the attribute is the nominal boost clock, and an
     * H100 was seen running 0.7% above it (10.03 ms for a nominal 10.10), hence the 5%. */
    double shortest = 0.95 * SPIN_CYCLES / (khz * 1e3);
    for (int i = 0; i < r.n_runs; i++) {
        /* Events resolve about 0.5 us; the clock may run below its highest rate, and a launch
         * adds some microseconds. */
        CHECK(r.gpu_times[i] >= shortest - 1e-6);
        CHECK(r.gpu_times[i] <= 4 * shortest);
        /* A launch returns long before the kernel ends: the host time is not the GPU's. */
        CHECK(r.cpu_times[i] > 0 && r.cpu_times[i] < r.gpu_times[i]);
    }
    char *text = loom_benchmark_format(&r);
    CHECK(text && strncmp(text, "spin                :    CPU:", 29) == 0 && strstr(text, "GPU-0:"));
    printf("%s\n", text ? text : "(null)");
    free(text);
    loom_benchmark_result_free(&r);
    CHECK(r.cpu_times == NULL && r.n_runs == 0);
}

static void test_max_duration_and_failure(void *buffer)
{
    spin_work w = {.buffer = buffer, .cycles = SPIN_CYCLES};
    loom_benchmark_result r;
    /* Each run takes about 10 ms: the loop stops after the run that passes 25 ms. */
    CHECK_EQ_INT(loom_benchmark(spin, &w, "capped", 1000, 0, 0.025, &r), LOOM_OK);
    CHECK(r.n_runs >= 1 && r.n_runs < 20);
    double total = 0;
    for (int i = 0; i < r.n_runs - 1; i++)
        total += r.gpu_times[i];
    CHECK(total <= 0.025 + 1e-3); /* every run but the last started within the budget */
    loom_benchmark_result_free(&r);

    spin_work bad = {.buffer = buffer, .cycles = 1000, .fail_at = 5};
    CHECK_EQ_INT(loom_benchmark(spin, &bad, "fails", 10, 2, INFINITY, &r), LOOM_ERR_UNSUPPORTED);
    CHECK(r.cpu_times == NULL && r.gpu_times == NULL && r.n_runs == 0);
    CHECK_EQ_INT(bad.calls, 5);
}

typedef struct eval_work {
    loom_array *x;
} eval_work;

static int evaluate_sin(void *user_data)
{
    eval_work *w = user_data;
    loom_array *y = loom_sin(w->x);
    int rc = loom_eval(y);
    loom_release(y);
    return rc;
}

static void test_loom_work(void)
{
    loom_array *x = loom_linspace(0, 1, 1 << 22, true, LOOM_FLOAT32);
    CHECK_EQ_INT(loom_eval(x), LOOM_OK);
    eval_work w = {x};
    loom_benchmark_result r;
    CHECK_EQ_INT(loom_benchmark(evaluate_sin, &w, "sin", 50, 5, INFINITY, &r), LOOM_OK);
    CHECK_EQ_INT(r.n_runs, 50);
    for (int i = 0; i < r.n_runs; i++)
        CHECK(r.gpu_times[i] > 0 && r.gpu_times[i] < 0.1);
    CHECK_EQ_INT(loom_benchmark_print(&r), LOOM_OK);
    loom_benchmark_result_free(&r);
    loom_release(x);
}

int main(void)
{
    if (loom_device_count() == 0) {
        printf("gpu_test_benchmark: no CUDA device, skipped\n");
        return 77;
    }
    void *buffer = NULL;
    CHECK(cudaMalloc(&buffer, 256) == cudaSuccess);
    test_spin_kernel(buffer);
    test_max_duration_and_failure(buffer);
    test_loom_work();
    cudaFree(buffer);
    return check_summary("gpu_test_benchmark");
}
