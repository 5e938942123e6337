#define _POSIX_C_SOURCE 200809L
/* The data-dependent-shape ops without a GPU (docs/unique.md): NumPy's result dtypes and
 * shapes where no length must be read back (empty inputs, isin, the set operations with
 * assume_unique) and its errors (tests/data/unique.txt from tools/gen_unique_cases.py); a length
 * that must be read back fails cleanly without a device and is counted as a forced evaluation of
 * reason data_dependent_shape; the plans of the lazily recorded _size variants (one CUB select
 * step, straight into its output or through scratch) and of histogram (one bincount step, after
 * an argsort with weights); the nvcc-built select layer links. */
#include "check.h"
#include "inputs.h"
#include "kernels/loom_cub_select.h"
#include "plans.h"
#include "sort.h"

#include <stdlib.h>
#include <string.h>

static int parse_shape(const char *s, int64_t *shape)
{
    int nd = 0;
    for (s += 2; *s; nd++) {
        shape[nd] = strtoll(s, (char **)&s, 10);
        if (*s == ',')
            s++;
    }
    return nd;
}

/* Compares r[0..n) with "<dtype> <shape> ..." (the rest of an ok line). */
static void check_results(const char *line, const char *want, loom_array *const *r, int n)
{
    int got = 0;
    char dt[16], shp[64];
    int at = 0;
    while (sscanf(want, "%15s %63s %n", dt, shp, &at) == 2) {
        want += at;
        if (got >= n || !r[got]) {
            CHECK(false);
            fprintf(stderr, "%s: result %d missing (%s)\n", line, got, loom_last_error());
            return;
        }
        int64_t shape[8];
        int nd = parse_shape(shp, shape);
        CHECK_STR(loom_dtype_name(loom_dtype_of(r[got])), dt);
        if (strcmp(loom_dtype_name(loom_dtype_of(r[got])), dt) != 0)
            fprintf(stderr, "  in %s\n", line);
        CHECK_EQ_INT(loom_ndim(r[got]), nd);
        for (int i = 0; i < nd && i < loom_ndim(r[got]); i++)
            CHECK_EQ_INT(loom_shape(r[got])[i], shape[i]);
        got++;
    }
    CHECK_EQ_INT(got, n);
}

static void check_error(const char *fn, const char *msg, int rc, int group)
{
    char full[400];
    snprintf(full, sizeof full, "loom_%s: %s", fn, msg);
    CHECK_STR(loom_last_error(), full);
    CHECK_EQ_INT(loom_status_group(rc), loom_status_group(group));
    if (group == LOOM_ERR_DTYPE) /* NumPy's TypeError */
        CHECK_EQ_INT(rc, group);
}

static void run_case(const char *line)
{
    char fn[24], a1[24], a2[24], a3[24];
    int at = 0;
    const char *arrow = strstr(line, "-> ");
    if (!arrow)
        return;
    const char *rest = arrow + 3;
    bool ok = strncmp(rest, "ok ", 3) == 0;
    const char *body = rest + (ok ? 3 : strncmp(rest, "err ", 4) == 0 ? 4 : 0);
    int nargs = sscanf(line, "%23s %23s %23s %23s %n", fn, a1, a2, a3, &at);
    loom_array *r[4] = {NULL, NULL, NULL, NULL};
    int n = -1;
    int64_t shape[8];
    if (strcmp(fn, "unique") == 0 && nargs == 4) {
        int flags = atoi(a3);
        loom_array *a = test_input(parse_shape(a2, shape), shape, loom_dtype_from_name(a1));
        n = loom_unique(a, flags & 1, flags & 2, flags & 4, LOOM_AXIS_NONE, true, r, 4);
    } else if (strcmp(fn, "nonzero") == 0) {
        loom_array *a = test_input(parse_shape(a2, shape), shape, loom_dtype_from_name(a1));
        n = loom_nonzero(a, r, 4);
    } else if (strcmp(fn, "flatnonzero") == 0 || strcmp(fn, "argwhere") == 0) {
        loom_array *a = test_input(parse_shape(a2, shape), shape, loom_dtype_from_name(a1));
        r[0] = fn[0] == 'f' ? loom_flatnonzero(a) : loom_argwhere(a);
        n = 1;
    } else if (strcmp(fn, "isin") == 0) {
        loom_array *a = test_input(parse_shape(a2, shape), shape, loom_dtype_from_name(a1));
        loom_array *t = loom_astype(loom_arange(0, 3, 1, LOOM_INT64), loom_dtype_from_name(a3));
        r[0] = loom_isin(a, t, true, false);
        n = 1;
    } else if (strcmp(fn, "bincount") == 0) {
        char wdt[16];
        long long wn, ml;
        CHECK(sscanf(line, "%*s %*s %*s %15s %lld %lld", wdt, &wn, &ml) == 3);
        loom_array *x = test_input(parse_shape(a2, shape), shape, loom_dtype_from_name(a1));
        loom_array *w = wdt[0] == '-' ? NULL
                                      : test_input(1, (const int64_t[]){wn}, loom_dtype_from_name(wdt));
        r[0] = loom_bincount(x, w, ml);
        n = r[0] ? 1 : loom_last_error_code();
    } else if (strcmp(fn, "histogram") == 0 || strcmp(fn, "histogram_edges") == 0) {
        char ranges[64], wspec[32];
        long long na = atoll(a2), wn = atoll(a2);
        int density = 0;
        bool edges = fn[9] == '_';
        if (edges)
            CHECK(sscanf(line, "%*s %*s %*s %*s %31s %d", wspec, &density) == 2);
        else
            CHECK(sscanf(line, "%*s %*s %*s %*s %63s %31s %d", ranges, wspec, &density) == 3);
        loom_array *x = test_input(1, (const int64_t[]){na}, loom_dtype_from_name(a1));
        char *colon = strchr(wspec, ':');
        if (colon) {
            *colon = 0;
            wn = atoll(colon + 1);
        }
        loom_array *w = wspec[0] == '-' ? NULL
                                        : test_input(1, (const int64_t[]){wn}, loom_dtype_from_name(wspec));
        if (edges) {
            double edges[8];
            int ne = 0;
            for (char *tok = strtok(a3, ","); tok && ne < 8; tok = strtok(NULL, ","))
                edges[ne++] = strtod(tok, NULL);
            n = loom_histogram_edges(x, edges, ne, w, density, &r[0]);
            n = n == LOOM_OK ? 1 : n;
        } else {
            double range[2];
            bool has_range = ranges[0] != '-';
            if (has_range)
                sscanf(ranges, "%lf,%lf", &range[0], &range[1]);
            n = loom_histogram(x, atoll(a3), has_range ? range : NULL, w, density, &r[0], &r[1]);
            n = n == LOOM_OK ? 2 : n;
        }
    } else if (strcmp(fn, "getitem_mask") == 0) {
        loom_array *x = test_input(parse_shape(a1, shape), shape, LOOM_FLOAT32);
        loom_index_term t[4];
        int nt = 0;
        for (char *tok = strtok(a2, ";"); tok && nt < 4; tok = strtok(NULL, ";"), nt++) {
            t[nt] = (loom_index_term){.kind = LOOM_INDEX_SLICE, .start = LOOM_NONE,
                                      .stop = LOOM_NONE, .step = 1};
            if (tok[0] == 'e')
                t[nt].kind = LOOM_INDEX_ELLIPSIS;
            else if (tok[0] == 'n')
                t[nt].kind = LOOM_INDEX_NEWAXIS;
            else if (tok[0] == 'i')
                t[nt] = (loom_index_term){.kind = LOOM_INDEX_INT, .start = atoll(tok + 2)};
            else if (tok[0] == 'm') {
                int64_t ms[8];
                int mnd = parse_shape(tok, ms);
                t[nt] = (loom_index_term){.kind = LOOM_INDEX_ARRAY,
                                          .array = test_input(mnd, ms, LOOM_BOOL)};
            }
        }
        r[0] = loom_getitem(x, t, nt);
        n = r[0] ? 1 : loom_last_error_code();
        strcpy(fn, "getitem");
    } else if (strcmp(fn, "unique_axis") == 0) {
        int flags = atoi(line + at);
        loom_array *a = test_input(parse_shape(a2, shape), shape, loom_dtype_from_name(a1));
        n = loom_unique(a, flags & 1, flags & 2, flags & 4, atoi(a3), true, r, 4);
        strcpy(fn, "unique");
    } else {
        loom_array *x = test_input(1, (const int64_t[]){0}, loom_dtype_from_name(a1));
        loom_array *y = test_input(2, (const int64_t[]){2, 0}, loom_dtype_from_name(a2));
        n = 1;
        if (strcmp(fn, "intersect1d") == 0)
            CHECK_EQ_INT(loom_intersect1d(x, y, true, false, r, 1), 1);
        else
            r[0] = fn[3] == 'x' ? loom_setxor1d(x, y, true) : loom_setdiff1d(x, y, true);
    }
    if (ok) {
        if (n < 0)
            fprintf(stderr, "%s: %s\n", line, loom_last_error());
        check_results(line, body, r, n < 0 ? 0 : n);
    } else {
        CHECK(n < 0 && r[0] == NULL);
        check_error(fn, body, n, strncmp(body, "Cannot cast", 11) == 0 ? LOOM_ERR_DTYPE
                                                                       : LOOM_ERR_INVALID);
    }
}

static void test_table(void)
{
    FILE *f = fopen(LOOM_TEST_DATA "/unique.txt", "r");
    CHECK(f != NULL);
    char line[512];
    int cases = 0;
    while (f && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        loom_scope_begin();
        loom_clear_error();
        run_case(line);
        loom_scope_end();
        cases++;
    }
    if (f)
        fclose(f);
    CHECK(cases > 950);
}

static void test_null_and_errors(void)
{
    loom_array *out[4] = {NULL};
    loom_clear_error();
    CHECK(loom_flatnonzero(NULL) == NULL && loom_argwhere(NULL) == NULL &&
          loom_unique_values(NULL) == NULL && loom_union1d(NULL, NULL) == NULL &&
          loom_isin(NULL, NULL, false, false) == NULL && loom_setxor1d(NULL, NULL, false) == NULL &&
          loom_setdiff1d(NULL, NULL, true) == NULL && loom_in1d(NULL, NULL, true, true) == NULL &&
          loom_flatnonzero_size(NULL, 3, 0) == NULL);
    CHECK_EQ_INT(loom_last_error_code(), LOOM_OK);
    loom_scope_begin();
    loom_array *a = test_input(2, (const int64_t[]){2, 3}, LOOM_INT32);
    CHECK_EQ_INT(loom_nonzero(a, out, 1), LOOM_ERR_INVALID);
    CHECK_STR(loom_last_error(), "loom_nonzero: out has room for 1 arrays, the input has 2 dimensions");
    CHECK_EQ_INT(loom_unique(a, true, true, false, LOOM_AXIS_NONE, true, out, 2), LOOM_ERR_INVALID);
    CHECK_STR(loom_last_error(), "loom_unique: out has room for 2 arrays, 3 are asked for");
    CHECK(out[0] == NULL && out[1] == NULL);
    /* complex histograms: equal bins need a range; estimators and complex weights are absent */
    loom_array *c = test_input(1, (const int64_t[]){4}, LOOM_COMPLEX64), *h = NULL;
    CHECK_EQ_INT(loom_histogram(c, 3, NULL, NULL, false, &h, NULL), LOOM_ERR_UNSUPPORTED);
    CHECK_STR(loom_last_error(), "loom_histogram: equal bins of a complex array need a range "
                                 "(complex edges from its min and max are not supported)");
    CHECK(h == NULL && loom_histogram_bin_edges(c, 3, NULL) == NULL);
    CHECK_EQ_INT(loom_histogram_estimator(c, "sqrt", (const double[]){0, 1}, NULL, false, &h,
                                          NULL),
                 LOOM_ERR_UNSUPPORTED);
    CHECK_STR(loom_last_error(),
              "loom_histogram_estimator: bin estimators on complex arrays are not supported");
    CHECK_EQ_INT(loom_histogram(loom_real(c), 3, NULL, c, false, &h, NULL), LOOM_ERR_UNSUPPORTED);
    CHECK_STR(loom_last_error(), "loom_histogram: complex weights are not supported yet");
    CHECK(loom_flatnonzero_size(a, -1, 0) == NULL);
    CHECK_STR(loom_last_error(), "loom_flatnonzero_size: size must be non-negative, got -1");
    loom_scope_end();
}

/* A length read back: one forced evaluation of reason data_dependent_shape; without a device it
 * fails with LOOM_ERR_NO_DEVICE and nothing else happens. */
static void test_read_back_counted(void)
{
    loom_scope_begin();
    loom_stats before, after;
    loom_stats_get(&before);
    loom_clear_error();
    loom_array *a = loom_arange(0, 10, 1, LOOM_INT32);
    loom_array *r = loom_flatnonzero(loom_greater_scalar(a, 6));
    loom_stats_get(&after);
    CHECK_EQ_INT(after.forced_evals_by_reason[LOOM_EVAL_DATA_DEPENDENT_SHAPE] -
                     before.forced_evals_by_reason[LOOM_EVAL_DATA_DEPENDENT_SHAPE], 1);
    CHECK_STR(loom_eval_reason_name(LOOM_EVAL_DATA_DEPENDENT_SHAPE), "data_dependent_shape");
    if (loom_device_count() == 0) {
        CHECK(r == NULL);
        CHECK_EQ_INT(loom_last_error_code(), LOOM_ERR_NO_DEVICE);
    } else {
        CHECK(r && loom_size(r) == 3);
    }
    loom_scope_end();
}

static const loom_libcall *library_step(const loom_plan *p, loom_lib_routine routine, int *nlib)
{
    const loom_libcall *l = NULL;
    *nlib = 0;
    for (int i = 0; p && i < p->nsteps; i++)
        if (p->steps[i].kind == LOOM_STEP_LIBRARY) {
            ++*nlib;
            if (p->steps[i].lib.routine == routine)
                l = &p->steps[i].lib;
        }
    return l;
}

/* flatnonzero_size(x > 3, size): a kernel writes the mask into a temporary, one CUB select
 * step reads it; shorter than the mask, the positions go through scratch; a kernel applies
 * fill_value. */
static void test_plan_sized(void)
{
    loom_scope_begin();
    loom_array *x = loom_sin(loom_linspace(0, 6, 1000, true, LOOM_FLOAT32));
    for (int k = 0; k < 2; k++) {
        int64_t size = k ? 2000 : 10;
        loom_array *r = loom_flatnonzero_size(loom_greater_scalar(x, 0.5), size, -1);
        CHECK(r && loom_dtype_of(r) == LOOM_INT64 && loom_ndim(r) == 1 && loom_shape(r)[0] == size);
        loom_plan *p = test_plan(&r, 1, true);
        int nlib;
        const loom_libcall *l = library_step(p, LOOM_LIB_CUB_SELECT, &nlib);
        CHECK(l != NULL && nlib == 1);
        if (l) {
            CHECK_EQ_INT(l->nbuffers, 4);
            CHECK(p->buffers[l->buffer[0]].role == LOOM_BUF_TEMP);
            CHECK(p->buffers[l->buffer[0]].bytes >= 1000);
            CHECK(l->args.select.n == 1000 && l->args.select.out_len == size);
            CHECK(!l->args.select.exact);
            CHECK_EQ_INT(l->buffer[2] == l->buffer[1], k == 1);
            CHECK(p->buffers[l->buffer[3]].bytes >= 8);
        }
        CHECK(loom__lib_info(LOOM_LIB_CUB_SELECT)->capturable);
        loom__plan_free(p);
        CHECK_EQ_INT(test_compile_plan(&r, 1, true, false), 3); /* mask, select, fill */
    }
    /* nonzero_size: coordinates of a 2-D mask, padded with fill_value */
    loom_array *out[2];
    loom_array *m = test_input(2, (const int64_t[]){4, 5}, LOOM_BOOL);
    CHECK_EQ_INT(loom_nonzero_size(m, 7, 0, out, 2), 2);
    for (int i = 0; i < 2; i++)
        CHECK(loom_shape(out[i])[0] == 7 && loom_dtype_of(out[i]) == LOOM_INT64);
    CHECK(test_compile_plan(out, 2, true, false) > 0);
    CHECK(test_compile_plan(out, 2, false, false) > 0);
    /* an empty size or mask needs no step */
    loom_array *e = loom_flatnonzero_size(m, 0, 5);
    CHECK(e && loom_size(e) == 0);
    loom_scope_end();
}

/* histogram with a range records lazily: one bincount step over the bins a kernel computes
 * (one more bin for the outside); with weights an argsort step first, and the weighted form's
 * scratch. */
static void test_plan_histogram(void)
{
    loom_scope_begin();
    loom_array *a = loom_sin(loom_linspace(0, 6, 500, true, LOOM_FLOAT32));
    for (int weighted = 0; weighted < 2; weighted++) {
        loom_array *w = weighted ? loom_cos(loom_linspace(0, 6, 500, true, LOOM_FLOAT64)) : NULL;
        loom_array *h = NULL, *e = NULL;
        CHECK_EQ_INT(loom_histogram(a, 10, (const double[]){-0.5, 0.5}, w, false, &h, &e),
                     LOOM_OK);
        CHECK(h && loom_size(h) == 10 && e && loom_size(e) == 11);
        CHECK(h && loom_dtype_of(h) == (weighted ? LOOM_FLOAT64 : LOOM_INT64));
        CHECK(e && loom_dtype_of(e) == LOOM_FLOAT32);
        loom_plan *p = test_plan(&h, 1, true);
        int nlib;
        const loom_libcall *l = library_step(p, LOOM_LIB_CUB_BINCOUNT, &nlib);
        CHECK(l != NULL);
        CHECK_EQ_INT(nlib, 1 + weighted); /* the argsort's radix sort */
        if (l) {
            CHECK(l->args.bincount.n == 500 && l->args.bincount.len == 11);
            CHECK_EQ_INT(l->args.bincount.weighted, weighted);
            CHECK_EQ_INT(l->nbuffers, weighted ? 4 : 2);
            CHECK(p->buffers[l->buffer[0]].role == LOOM_BUF_TEMP);
            if (weighted)
                CHECK(p->buffers[l->buffer[3]].bytes >= 2 * 12 * sizeof(int64_t));
        }
        CHECK(loom__lib_info(LOOM_LIB_CUB_BINCOUNT)->capturable);
        loom__plan_free(p);
        CHECK(test_compile_plan(&h, 1, true, false) > 0);
        CHECK(test_compile_plan(&h, 1, false, false) > 0);
    }
    /* explicit edges: the bins from a fused comparison reduction */
    loom_array *h = NULL;
    CHECK_EQ_INT(loom_histogram_edges(a, (const double[]){-1, 0, 0.5, 1}, 4, NULL, true, &h),
                 LOOM_OK);
    CHECK(h && loom_size(h) == 3 && loom_dtype_of(h) == LOOM_FLOAT64);
    CHECK(test_compile_plan(&h, 1, true, false) > 0);
    /* complex data: lexicographic comparisons and the real part of the complex offset compile,
     * with equal bins over a range (complex edges) and with explicit edges */
    loom_array *c = loom_astype(a, LOOM_COMPLEX64), *e = NULL;
    CHECK_EQ_INT(loom_histogram(c, 4, (const double[]){-0.5, 0.5}, NULL, true, &h, &e), LOOM_OK);
    CHECK(h && loom_dtype_of(h) == LOOM_FLOAT64 && e && loom_dtype_of(e) == LOOM_COMPLEX64);
    CHECK(test_compile_plan(&h, 1, true, false) > 0);
    CHECK(test_compile_plan(&h, 1, false, false) > 0);
    CHECK_EQ_INT(loom_histogram_edges(c, (const double[]){-1, 0, 0.5, 1}, 4, NULL, false, &h),
                 LOOM_OK);
    CHECK(h && loom_dtype_of(h) == LOOM_INT64 && loom_size(h) == 3);
    CHECK(test_compile_plan(&h, 1, true, false) > 0);
    loom_scope_end();
}

static int library_steps(loom_array *r)
{
    loom_plan *p = test_plan(&r, 1, true);
    int nlib = 0;
    for (int i = 0; p && i < p->nsteps; i++)
        nlib += p->steps[i].kind == LOOM_STEP_LIBRARY;
    loom__plan_free(p);
    return nlib;
}

/* unique along an axis sorts the slices as rows by a lexsort of their columns: one stable
 * argsort per column, two for float16 (NumPy compares float16 fields with NaN first), three for
 * complex; its count is read back like every unique's. */
static void test_unique_axis_plans(void)
{
    loom_scope_begin();
    struct {
        loom_dtype dt;
        int sorts_per_column;
    } cols[] = {{LOOM_INT32, 1}, {LOOM_FLOAT64, 1}, {LOOM_BOOL, 1}, {LOOM_FLOAT16, 2},
                {LOOM_COMPLEX64, 3}};
    for (size_t k = 0; k < sizeof cols / sizeof cols[0]; k++) {
        loom_array *rows = test_input(2, (const int64_t[]){7, 3}, cols[k].dt);
        loom_array *perm = loom__lexsort_rows("test", rows);
        CHECK(perm && loom_dtype_of(perm) == LOOM_INT64 && loom_size(perm) == 7);
        CHECK_EQ_INT(library_steps(perm), 3 * cols[k].sorts_per_column);
        CHECK(test_compile_plan(&perm, 1, true, false) > 0);
    }
    loom_stats before, after;
    loom_stats_get(&before);
    loom_clear_error();
    loom_array *out[2] = {NULL, NULL};
    int rc = loom_unique(test_input(3, (const int64_t[]){2, 4, 3}, LOOM_FLOAT32), false, true,
                         false, 1, true, out, 2);
    loom_stats_get(&after);
    CHECK_EQ_INT(after.forced_evals_by_reason[LOOM_EVAL_DATA_DEPENDENT_SHAPE] -
                     before.forced_evals_by_reason[LOOM_EVAL_DATA_DEPENDENT_SHAPE], 1);
    if (loom_device_count() == 0) {
        CHECK(rc == LOOM_ERR_NO_DEVICE && out[0] == NULL && out[1] == NULL);
    } else {
        CHECK_EQ_INT(rc, 2);
        CHECK(out[1] && loom_ndim(out[1]) == 1 && loom_shape(out[1])[0] == 4);
    }
    loom_scope_end();
}

static void test_cub_links(void)
{
    size_t bytes = 0;
    int rc = loom__cub_select_temp_bytes(1000, &bytes);
    CHECK(rc != 0 || bytes > 0);
    CHECK(loom_device_count() == 0 || rc == 0);
}

int main(void)
{
    test_table();
    test_null_and_errors();
    test_read_back_counted();
    test_plan_sized();
    test_plan_histogram();
    test_unique_axis_plans();
    test_cub_links();
    return check_summary("test_unique");
}
