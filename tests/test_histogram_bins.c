#define _POSIX_C_SOURCE 200809L
/* NumPy's histogram bin estimators without a GPU (docs/unique.md, "Bin estimators";
 * tests/data/histogram_bins.txt from tools/gen_histogram_bins_cases.py): from the statistics
 * NumPy computes for each data set (what Loom reads back), the host arithmetic must give NumPy's
 * number of bins for every estimator, dtype, range and widened range; NumPy's errors (unknown
 * estimator, weights, bad ranges) from loom_histogram_estimator and
 * loom_histogram_bin_edges_estimator; NULL passes through; a read-back is counted and fails
 * cleanly without a device. */
#include "check.h"
#include "graph_eval.h"
#include "histogram.h"
#include "inputs.h"

#include <stdlib.h>
#include <string.h>

/* Reads the next whitespace-separated field of *p. */
static char *field(char **p)
{
    return strtok_r(NULL, " ", p);
}

static void run_bins(char *line)
{
    char *save = NULL;
    strtok_r(line, " ", &save); /* "bins" */
    char *name = field(&save);
    loom_hist_stats s = {.dt = loom_dtype_from_name(field(&save))};
    if (s.dt == LOOM_BOOL)
        s.dt = LOOM_UINT8;
    s.n = atoll(field(&save));
    char *r = field(&save);
    double range[2];
    bool has_range = strcmp(r, "-") != 0;
    if (has_range)
        CHECK(sscanf(r, "%lf,%lf", &range[0], &range[1]) == 2);
    double first = strtod(field(&save), NULL), last = strtod(field(&save), NULL);
    bool widened = atoi(field(&save));
    s.lo = strtoll(field(&save), NULL, 10);
    s.hi = strtoll(field(&save), NULL, 10);
    s.min = strtod(field(&save), NULL);
    s.max = strtod(field(&save), NULL);
    s.std = strtod(field(&save), NULL);
    s.g1 = strtod(field(&save), NULL);
    for (int k = 0; k < 4; k++)
        s.q[k] = strtod(field(&save), NULL);
    for (int k = 0; k < 4; k++)
        s.iq[k] = strtoll(field(&save), NULL, 10);
    s.nstone = atoll(field(&save));
    s.stone_sq = calloc((size_t)(s.nstone ? s.nstone : 1), sizeof *s.stone_sq);
    for (int64_t k = 0; k < s.nstone; k++)
        s.stone_sq[k] = strtod(field(&save), NULL);
    CHECK_STR(field(&save), "->");
    int64_t want = atoll(field(&save)), got = -1;
    int rc = loom__histogram_bins_from_stats("test", &s, name, has_range ? range : NULL, first,
                                             last, widened, &got);
    CHECK_EQ_INT(rc, 0);
    if (got != want)
        fprintf(stderr, "  %s %s n=%lld: %lld bins, NumPy %lld\n", name,
                loom_dtype_name(s.dt), (long long)s.n, (long long)got, (long long)want);
    CHECK_EQ_INT(got, want);
    free(s.stone_sq);
}

/* The edges of an autodetected range of float16 or float32 data, in that dtype, bit for bit. */
static void run_edges(char *line)
{
    char *save = NULL;
    strtok_r(line, " ", &save); /* "edges" */
    loom_dtype dt = loom_dtype_from_name(field(&save));
    double first = strtod(field(&save), NULL), last = strtod(field(&save), NULL);
    int64_t nb = atoll(field(&save));
    CHECK_STR(field(&save), "->");
    loom_scope_begin();
    loom_array *e = loom__edges_in_dtype("test", dt, first, last, nb);
    CHECK(e && loom_dtype_of(e) == dt && loom_size(e) == nb + 1);
    ge_memo m = {.n = 0};
    ge_value *v = e ? ge_eval(e, &m) : NULL;
    int bad = 0;
    for (int64_t i = 0; v && i <= nb; i++) {
        double want = strtod(field(&save), NULL);
        if (v[i].re != want && bad++ < 3)
            fprintf(stderr, "  %s edges(%g, %g, %lld)[%lld] = %.9g, NumPy %.9g\n",
                    loom_dtype_name(dt), first, last, (long long)nb, (long long)i, v[i].re, want);
    }
    CHECK(v && bad == 0);
    ge_free(&m);
    loom_scope_end();
}

/* float16 or float32 edges that do not increase (too many bins for the dtype, or a constant's
 * widened range it cannot split): np.histogram's error. */
static void run_narrow(const char *line)
{
    char dt[16];
    double first, last;
    long long nb;
    CHECK(sscanf(line, "narrow %15s %lf %lf %lld", dt, &first, &last, &nb) == 4);
    loom_scope_begin();
    CHECK(loom__edges_in_dtype("loom_histogram", loom_dtype_from_name(dt), first, last, nb) ==
          NULL);
    char full[300];
    snprintf(full, sizeof full, "loom_histogram: %s", strstr(line, "-> ") + 3);
    CHECK_STR(loom_last_error(), full);
    loom_scope_end();
}

static void run_error(const char *line)
{
    char name[32], dt[16], r[64];
    int n, weighted;
    CHECK(sscanf(line, "err %31s %15s %d %63s %d", name, dt, &n, r, &weighted) == 5);
    const char *msg = strstr(line, "-> ") + 3;
    double range[2];
    bool has_range = strcmp(r, "-") != 0;
    if (has_range)
        CHECK(sscanf(r, "%lf,%lf", &range[0], &range[1]) == 2);
    loom_scope_begin();
    loom_array *a = test_input(1, (const int64_t[]){n}, loom_dtype_from_name(dt));
    loom_array *w = weighted ? test_input(1, (const int64_t[]){n}, LOOM_FLOAT64) : NULL;
    loom_array *h = NULL, *e = NULL;
    char full[300];
    loom_clear_error();
    int rc = loom_histogram_estimator(a, name, has_range ? range : NULL, w, false, &h, &e);
    CHECK(rc != LOOM_OK && loom_status_group(rc) == LOOM_ERR_INVALID && !h && !e);
    snprintf(full, sizeof full, "loom_histogram_estimator: %s", msg);
    CHECK_STR(loom_last_error(), full);
    if (!weighted) {
        CHECK(loom_histogram_bin_edges_estimator(a, name, has_range ? range : NULL) == NULL);
        snprintf(full, sizeof full, "loom_histogram_bin_edges_estimator: %s", msg);
        CHECK_STR(loom_last_error(), full);
    }
    loom_scope_end();
}

static void test_table(void)
{
    FILE *f = fopen(LOOM_TEST_DATA "/histogram_bins.txt", "r");
    CHECK(f != NULL);
    static char line[1 << 16];
    int cases = 0;
    while (f && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        if (strncmp(line, "bins ", 5) == 0)
            run_bins(line);
        else if (strncmp(line, "edges ", 6) == 0)
            run_edges(line);
        else if (strncmp(line, "narrow ", 7) == 0)
            run_narrow(line);
        else
            run_error(line);
        cases++;
    }
    if (f)
        fclose(f);
    CHECK(cases > 150);
}

static void test_null_and_args(void)
{
    loom_array *h = (loom_array *)1, *e = (loom_array *)1;
    loom_clear_error();
    CHECK_EQ_INT(loom_histogram_estimator(NULL, "auto", NULL, NULL, false, &h, &e),
                 LOOM_ERR_INVALID);
    CHECK(h == NULL && e == NULL);
    CHECK(loom_histogram_bin_edges_estimator(NULL, "auto", NULL) == NULL);
    loom_scope_begin();
    loom_array *a = test_input(1, (const int64_t[]){6}, LOOM_FLOAT32);
    CHECK_EQ_INT(loom_histogram_estimator(a, NULL, NULL, NULL, false, &h, NULL), LOOM_ERR_INVALID);
    CHECK_STR(loom_last_error(), "loom_histogram_estimator: bins is NULL");
    CHECK(loom_histogram_bin_edges_estimator(a, NULL, NULL) == NULL);
    CHECK_STR(loom_last_error(), "loom_histogram_bin_edges_estimator: bins is NULL");
    CHECK_EQ_INT(loom_histogram_estimator(a, "sqrt", NULL, NULL, false, NULL, NULL),
                 LOOM_ERR_INVALID);
    CHECK_STR(loom_last_error(), "loom_histogram_estimator: hist is NULL");
    /* the min and max, then the statistics, are read back: counted, and without a device the
     * call fails cleanly */
    loom_stats before, after;
    loom_stats_get(&before);
    int rc = loom_histogram_estimator(a, "fd", NULL, NULL, false, &h, &e);
    loom_stats_get(&after);
    CHECK(after.forced_evals_by_reason[LOOM_EVAL_DATA_DEPENDENT_SHAPE] >
          before.forced_evals_by_reason[LOOM_EVAL_DATA_DEPENDENT_SHAPE]);
    if (loom_device_count() == 0)
        CHECK(rc == LOOM_ERR_NO_DEVICE && h == NULL && e == NULL);
    else
        CHECK(rc == LOOM_OK && h && e && loom_size(e) == loom_size(h) + 1);
    loom_scope_end();
}

int main(void)
{
    test_table();
    test_null_and_args();
    return check_summary("test_histogram_bins");
}
