/* The NumPy table of updates that scatter (tools/gen_scatter_cases.py): ufunc.at, setitem,
 * put and put_along_axis, shared by the CPU test (tests/test_scatter.c) and the GPU test
 * (tests/gpu/test_scatter.c). Needs tests/index_cases.h. */
#ifndef LOOM_TEST_SCATTER_CASES_H
#define LOOM_TEST_SCATTER_CASES_H

#include "index_cases.h"
#include "table_lines.h"

/* Checks that reading result r of func, an update of a, fails as an index out of bounds for
 * axis of size. */
typedef void (*scatter_oob_checker)(const char *where, loom_array *r, loom_array *a,
                                    const char *func, int64_t axis, int64_t size);

static inline loom_array *run_scatter(const char *func, loom_array *a, loom_index_term *terms,
                                      int n, loom_array *v)
{
    if (strcmp(func, "put_along_axis") == 0)
        return loom_put_along_axis(a, terms[0].array, v, (int)terms[1].start);
    if (strncmp(func, "put_", 4) == 0) {
        loom_index_mode m = func[4] == 'w' ? LOOM_MODE_WRAP : func[4] == 'c' ? LOOM_MODE_CLIP
                                                                              : LOOM_MODE_RAISE;
        return loom_put(a, terms[0].array, v, m);
    }
    if (strcmp(func, "setitem") == 0)
        return loom_setitem(a, terms, n, v);
    if (strcmp(func, "at_add") == 0)
        return loom_at_add(a, terms, n, v);
    if (strcmp(func, "at_subtract") == 0)
        return loom_at_subtract(a, terms, n, v);
    if (strcmp(func, "at_multiply") == 0)
        return loom_at_multiply(a, terms, n, v);
    if (strcmp(func, "at_minimum") == 0)
        return loom_at_minimum(a, terms, n, v);
    return loom_at_maximum(a, terms, n, v);
}

/* The function named in Loom's messages for table function func. */
static inline void scatter_fn_name(const char *func, char *out, size_t n)
{
    bool put = strncmp(func, "put_", 4) == 0 && strcmp(func, "put_along_axis") != 0;
    snprintf(out, n, "loom_%s", put ? "put" : func);
}

/* What run_scatter_table checks with (table_for_each_line's callback has no context). */
static case_checker scatter_check;
static scatter_oob_checker scatter_oob;
static bool scatter_check_errors;
static int scatter_ncases;

/* One case: func | a | terms | values | result. */
static inline void scatter_case(char *line)
{
    char where[160];
    snprintf(where, sizeof where, "scatter_cases.txt:%d", ++scatter_ncases);
    char *field[5] = {0}, *save, *p, *tok, *q;
    int nf = 0;
    for (tok = strtok_r(line, "|", &save); tok && nf < 5; tok = strtok_r(NULL, "|", &save))
        field[nf++] = tok;
    CHECK_EQ_INT(nf, 5);
    if (nf != 5)
        return;
    char *result = field[4] + 1;
    if (strncmp(result, "err ", 4) == 0 && !scatter_check_errors)
        return;
    char func[32], fn[48];
    sscanf(field[0], "%31s", func);
    scatter_fn_name(func, fn, sizeof fn);
    loom_scope_begin();
    loom_array *a = make_source(strtok_r(field[1], " ", &p));
    loom_index_term terms[16];
    int n = 0;
    for (tok = strtok_r(field[2], " ", &p); tok && n < 16; tok = strtok_r(NULL, " ", &p))
        terms[n++] = parse_term(tok);
    loom_array *v = make_indices(strtok_r(field[3], " ", &p));
    loom_clear_error();
    loom_array *r = run_scatter(func, a, terms, n, v);
    const char *kind = case_outcome(where, fn, r, result, &q);
    if (kind && strcmp(kind, "oob") == 0) {
        int64_t ax = strtoll(strtok_r(NULL, " ", &q), NULL, 10);
        scatter_oob(where, r, a, fn, ax, strtoll(strtok_r(NULL, " ", &q), NULL, 10));
    } else if (kind) {
        scatter_check(where, r, &q);
    }
    loom_scope_end();
}

/* Runs every case of scatter_cases.txt; errors are checked when check_errors. Returns the
 * number of cases. */
static inline int run_scatter_table(const char *path, case_checker check,
                                    scatter_oob_checker oob, bool check_errors)
{
    scatter_check = check;
    scatter_oob = oob;
    scatter_check_errors = check_errors;
    scatter_ncases = 0;
    return table_for_each_line(path, scatter_case);
}

#endif
