/* The benchmark helper without a GPU: the report's arithmetic and text against CuPy's formula
 * run by NumPy (tools/gen_benchmark_cases.py), argument errors, and a clear error when there is
 * no device. gpu_test_benchmark times real work. */
#define _POSIX_C_SOURCE 200809L /* getline, strtok_r */
#include "check.h"
#include "table_lines.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int parse_times(char *list, double *out, int cap)
{
    int n = 0;
    for (char *save = NULL, *tok = strtok_r(list, ",", &save); tok && n < cap;
         tok = strtok_r(NULL, ",", &save))
        out[n++] = strtod(tok, NULL);
    return n;
}

static int cases;

static void run_case(char *line)
{
    static double cpu[4096], gpu[4096];
    char *field[5] = {0};
    bool whole = table_fields(line, field, 5) == 5;
    CHECK(whole);
    if (!whole)
        return;
    loom_benchmark_result r = {.device = atoi(field[1])};
    snprintf(r.name, sizeof r.name, "%s", strcmp(field[0], "-") ? field[0] : "");
    int n = parse_times(field[2], cpu, 4096);
    CHECK_EQ_INT(parse_times(field[3], gpu, 4096), n);
    r.n_runs = n;
    r.cpu_times = cpu;
    r.gpu_times = gpu;
    char *text = loom_benchmark_format(&r);
    CHECK_STR(text, field[4]);
    free(text);
    cases++;
}

static void test_report_table(void)
{
    table_for_each_line(LOOM_TEST_DATA "/benchmark_cases.txt", run_case);
    CHECK_EQ_INT(cases, 6);
}

static int do_nothing(void *user_data)
{
    (void)user_data;
    return LOOM_OK;
}

static void test_errors(void)
{
    loom_benchmark_result r;
    CHECK_EQ_INT(loom_benchmark(NULL, NULL, "x", 10, 1, INFINITY, &r), LOOM_ERR_INVALID);
    CHECK_STR(loom_last_error(), "loom_benchmark: fn is NULL");
    CHECK_EQ_INT(loom_benchmark(do_nothing, NULL, "x", 10, 1, INFINITY, NULL), LOOM_ERR_INVALID);
    CHECK_STR(loom_last_error(), "loom_benchmark: result is NULL");
    CHECK_EQ_INT(loom_benchmark(do_nothing, NULL, "x", 0, 1, INFINITY, &r), LOOM_ERR_INVALID);
    CHECK(strstr(loom_last_error(), "n_repeat must be >= 1"));
    CHECK_EQ_INT(loom_benchmark(do_nothing, NULL, "x", 5, -1, INFINITY, &r), LOOM_ERR_INVALID);
    CHECK_EQ_INT(loom_benchmark(do_nothing, NULL, "x", 5, 1, NAN, &r), LOOM_ERR_INVALID);
    CHECK(strstr(loom_last_error(), "`max_duration` should be given in seconds"));
    CHECK(loom_benchmark_format(NULL) == NULL);
    CHECK_STR(loom_last_error(), "loom_benchmark_format: result is NULL");
    loom_benchmark_result empty = {.n_runs = 0};
    CHECK(loom_benchmark_format(&empty) == NULL);
    CHECK_EQ_INT(loom_benchmark_print(&empty), LOOM_ERR_INVALID);
    loom_benchmark_result_free(NULL);

    if (loom_device_count() == 0) {
        CHECK_EQ_INT(loom_benchmark(do_nothing, NULL, "x", 5, 1, INFINITY, &r), LOOM_ERR_NO_DEVICE);
        CHECK(strstr(loom_last_error(), "loom_benchmark: no NVIDIA driver/GPU found"));
        CHECK(r.cpu_times == NULL && r.gpu_times == NULL && r.n_runs == 0);
    }
}

int main(void)
{
    test_report_table();
    test_errors();
    return check_summary("test_benchmark");
}
