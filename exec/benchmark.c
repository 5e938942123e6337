/* loom_benchmark: cupyx.profiler.benchmark's loop, timing each call on the host and between
 * two CUDA events on the current stream. */
#include "cudart.h"

#include "../graph/internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static double now_seconds(void)
{
    return loom__now_ms() * 1e-3;
}

static int check_arguments(const char *fn, loom_benchmark_fn work, int n_repeat, int n_warmup,
                           double max_duration, loom_benchmark_result *result)
{
    if (!work || !result) {
        loom__error(LOOM_ERR_INVALID, fn, "%s is NULL", !work ? "fn" : "result");
        return LOOM_ERR_INVALID;
    }
    if (n_repeat < 1 || n_warmup < 0) {
        loom__error(LOOM_ERR_INVALID, fn, "n_repeat must be >= 1 and n_warmup >= 0 (got %d and %d)",
                    n_repeat, n_warmup);
        return LOOM_ERR_INVALID;
    }
    if (isnan(max_duration) || max_duration < 0) {
        loom__error(LOOM_ERR_INVALID, fn, "`max_duration` should be given in seconds (>= 0, got %g)",
                    max_duration);
        return LOOM_ERR_INVALID;
    }
    return LOOM_OK;
}

/* The timed loop, once the events exist. */
static int timed_runs(const char *fn, loom_benchmark_fn work, void *user_data, int n_repeat,
                      int n_warmup, double max_duration, cudaStream_t stream, cudaEvent_t start,
                      cudaEvent_t stop, loom_benchmark_result *r)
{
    int rc;
    for (int i = 0; i < n_warmup; i++)
        if ((rc = work(user_data)) != LOOM_OK)
            return rc;
    if ((rc = loom__cuda_check(cudaEventRecord(start, stream), fn, "cudaEventRecord")) ||
        (rc = loom__cuda_check(cudaEventSynchronize(start), fn, "cudaEventSynchronize")))
        return rc;
    double duration = 0;
    for (int i = 0; i < n_repeat && duration <= max_duration; i++) {
        if ((rc = loom__cuda_check(cudaEventRecord(start, stream), fn, "cudaEventRecord")))
            return rc;
        double t1 = now_seconds();
        if ((rc = work(user_data)) != LOOM_OK)
            return rc;
        double t2 = now_seconds();
        float ms = 0;
        if ((rc = loom__cuda_check(cudaEventRecord(stop, stream), fn, "cudaEventRecord")) ||
            (rc = loom__cuda_check(cudaEventSynchronize(stop), fn, "cudaEventSynchronize")) ||
            (rc = loom__cuda_check(cudaEventElapsedTime(&ms, start, stop), fn, "cudaEventElapsedTime")))
            return rc;
        r->cpu_times[i] = t2 - t1;
        r->gpu_times[i] = ms * 1e-3;
        r->n_runs = i + 1;
        duration += now_seconds() - t1;
    }
    return LOOM_OK;
}

int loom_benchmark(loom_benchmark_fn work, void *user_data, const char *name, int n_repeat,
                   int n_warmup, double max_duration, loom_benchmark_result *result)
{
    static const char fn[] = "loom_benchmark";
    int rc = check_arguments(fn, work, n_repeat, n_warmup, max_duration, result);
    if (rc)
        return rc;
    memset(result, 0, sizeof *result);
    snprintf(result->name, sizeof result->name, "%s", name ? name : "benchmark");
    result->device = loom_device_get();
    if ((rc = loom__device_check(fn, result->device)))
        return rc;
    loom_stream *s = loom__stream_current(fn, result->device);
    if (!s)
        return loom_last_error_code();
    result->cpu_times = calloc((size_t)n_repeat, sizeof(double));
    result->gpu_times = calloc((size_t)n_repeat, sizeof(double));
    if (!result->cpu_times || !result->gpu_times) {
        loom_benchmark_result_free(result);
        loom__error(LOOM_ERR_OOM, fn, "out of host memory for %d runs", n_repeat);
        return LOOM_ERR_OOM;
    }
    cudaEvent_t start = NULL, stop = NULL;
    if (!(rc = loom__cuda_check(cudaEventCreate(&start), fn, "cudaEventCreate")) &&
        !(rc = loom__cuda_check(cudaEventCreate(&stop), fn, "cudaEventCreate")))
        rc = timed_runs(fn, work, user_data, n_repeat, n_warmup, max_duration,
                        loom__stream_handle(s), start, stop, result);
    if (start)
        cudaEventDestroy(start);
    if (stop)
        cudaEventDestroy(stop);
    if (rc)
        loom_benchmark_result_free(result);
    return rc;
}

void loom_benchmark_result_free(loom_benchmark_result *result)
{
    if (!result)
        return;
    free(result->cpu_times);
    free(result->gpu_times);
    result->cpu_times = result->gpu_times = NULL;
    result->n_runs = 0;
}
