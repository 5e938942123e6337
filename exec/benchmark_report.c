/* The text of a benchmark result, as str() of cupyx.profiler.benchmark's result writes it. */
#include "../fuser/strbuf.h"
#include "../graph/internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* "    CPU:{mean:9.3f} us" and, for more than one run, the population standard deviation, the
 * minimum and the maximum, in microseconds. */
static void report_item(loom_strbuf *sb, const char *label, const double *t, int n)
{
    double sum = 0, lo = INFINITY, hi = -INFINITY;
    for (int i = 0; i < n; i++) {
        sum += t[i] * 1e6;
        lo = fmin(lo, t[i] * 1e6);
        hi = fmax(hi, t[i] * 1e6);
    }
    double mean = sum / n, squares = 0;
    for (int i = 0; i < n; i++)
        squares += (t[i] * 1e6 - mean) * (t[i] * 1e6 - mean);
    loom__sb_printf(sb, "    %s:%9.3f us", label, mean);
    if (n > 1)
        loom__sb_printf(sb, "   +/-%6.3f (min:%9.3f / max:%9.3f) us", sqrt(squares / n), lo, hi);
}

char *loom_benchmark_format(const loom_benchmark_result *r)
{
    static const char fn[] = "loom_benchmark_format";
    if (!r || r->n_runs < 1 || !r->cpu_times || !r->gpu_times) {
        loom__error(LOOM_ERR_INVALID, fn, "%s", !r ? "result is NULL" : "the result holds no runs");
        return NULL;
    }
    loom_strbuf sb = {0};
    loom__sb_printf(&sb, "%-20s:", r->name);
    report_item(&sb, "CPU", r->cpu_times, r->n_runs);
    char label[32];
    snprintf(label, sizeof label, "GPU-%d", r->device);
    loom__sb_printf(&sb, " ");
    report_item(&sb, label, r->gpu_times, r->n_runs);
    char *text = loom__sb_take(&sb);
    if (!text)
        loom__error(LOOM_ERR_OOM, fn, "out of host memory");
    return text;
}

int loom_benchmark_print(const loom_benchmark_result *r)
{
    char *text = loom_benchmark_format(r);
    if (!text)
        return loom_last_error_code();
    printf("%s\n", text);
    free(text);
    return LOOM_OK;
}
