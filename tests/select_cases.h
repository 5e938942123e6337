/* The NumPy table of selections by a condition and boolean assignment
 * (tools/gen_select_cases.py -> tests/data/select_cases.txt): compress, extract, one-argument
 * where, ix_ with a boolean array, a[mask] = values and place. Shared by
 * tests/test_select_cond.c (CPU: the cases that need no read-back in full, the others must try
 * exactly one read-back) and tests/gpu/test_select_cond.c (every case on the device). */
#ifndef LOOM_TEST_SELECT_CASES_H
#define LOOM_TEST_SELECT_CASES_H

#include "index_cases.h"
#include "table_lines.h"

/* COND of the table's args (cdtype ndim dims... values...) as an array; *used gets the
 * number of args it took. */
static inline loom_array *make_cond(const char *const *args, int *used)
{
    static const loom_dtype dts[] = {LOOM_BOOL, LOOM_INT64, LOOM_FLOAT64};
    int k = 0;
    loom_dtype dt = dts[atoi(args[k++])];
    int nd = atoi(args[k++]);
    int64_t shape[LOOM_MAXDIMS];
    for (int d = 0; d < nd; d++)
        shape[d] = atoll(args[k++]);
    int64_t n = count(nd, shape);
    int64_t *v = malloc((size_t)(n ? n : 1) * sizeof *v);
    for (int64_t i = 0; i < n; i++)
        v[i] = atoll(args[k++]);
    loom_array *c = loom_astype(loom_asarray(v, LOOM_INT64, nd, shape), dt);
    free(v);
    *used = k;
    return c;
}

/* Runs one case; returns the number of results written to out (0 when the call failed). */
static inline int run_select(const char *func, loom_array *const *in, const char *const *args,
                             loom_array **out)
{
    int used;
    if (strcmp(func, "compress") == 0) {
        int axis = strcmp(args[0], "N") == 0 ? LOOM_AXIS_NONE : atoi(args[0]);
        return (out[0] = loom_compress(make_cond(args + 1, &used), in[0], axis)) != NULL;
    }
    if (strcmp(func, "trim_zeros") == 0) {
        static const char *const trims[] = {"fb", "f", "b", "fx"};
        int axis = strcmp(args[0], "N") == 0 ? LOOM_AXIS_NONE : atoi(args[0]);
        loom_array *x = make_cond(args + 2, &used);
        const char *t = trims[atoi(args[1])];
        return (out[0] = axis == LOOM_AXIS_NONE ? loom_trim_zeros(x, t) : loom_trim_zeros_axis(x, t, axis)) != NULL;
    }
    loom_array *c = make_cond(args, &used);
    if (strcmp(func, "extract") == 0)
        return (out[0] = loom_extract(c, in[0])) != NULL;
    if (strcmp(func, "ix") == 0)
        return loom_ix((loom_array *[]){c, in[0]}, 2, out) == LOOM_OK ? 2 : 0;
    if (strcmp(func, "where") == 0) {
        int n = loom_where_nonzero(c, out, MAX_OUT);
        return n > 0 ? n : 0;
    }
    if (strcmp(func, "setitem_mask") == 0) {
        loom_index_term t = {.kind = LOOM_INDEX_ARRAY, .array = c};
        return (out[0] = loom_setitem(in[0], &t, 1, in[1])) != NULL;
    }
    return (out[0] = loom_place(in[0], c, in[1])) != NULL;
}

/* What run_select_table was asked to do with each case (table_for_each_line's callback takes
 * the line only). */
static struct {
    bool (*check_numpy)(bool reads);
    void (*done_read)(const char *where, int nout);
    case_checker check;
    int ncases;
} select_run;

static inline void select_case(char *line)
{
    char where[160];
    snprintf(where, sizeof where, "select_cases.txt:%d", ++select_run.ncases);
    char *fields[5], *save, *p, *tok;
    fields[0] = strtok_r(line, "|", &save);
    for (int i = 1; i < 5; i++)
        fields[i] = strtok_r(NULL, "|", &save);
    char func[32];
    sscanf(fields[0], "%31s", func);
    bool reads = atoi(fields[1]) != 0;
    loom_scope_begin();
    loom_array *in[MAX_IN];
    int nin = 0;
    for (tok = strtok_r(fields[2], " ", &p); tok; tok = strtok_r(NULL, " ", &p)) {
        char *colon = strchr(tok, ':');
        *colon = 0;
        int64_t shape[LOOM_MAXDIMS];
        int nd = parse_shape(colon + 1, shape);
        in[nin] = make_input(nin, loom_dtype_from_name(tok), nd, shape);
        nin++;
    }
    const char *args[256];
    int nargs = 0;
    for (tok = strtok_r(fields[3], " ", &p); tok && nargs < 256; tok = strtok_r(NULL, " ", &p))
        args[nargs++] = tok;
    bool numpy = select_run.check_numpy(reads);
    loom_array *out[MAX_OUT] = {0};
    loom_clear_error();
    int nout = run_select(func, in, args, out);
    bool axis = strcmp(func, "trim_zeros") == 0 && strcmp(args[0], "N") != 0;
    if (!numpy)
        select_run.done_read(where, nout);
    else
        check_result(where,
                     strcmp(func, "where") == 0          ? "where_nonzero"
                     : strcmp(func, "setitem_mask") == 0 ? "setitem"
                     : axis                              ? "trim_zeros_axis"
                                                         : func,
                     fields[4] + 1, nout, out, select_run.check);
    loom_scope_end();
}

/* Every case of the table: check_numpy is called before each call with the case's read flag
 * and says whether to check the result against NumPy (true) or to hand the call's outcome to
 * done_read (false). Returns the number of cases. */
static inline int run_select_table(const char *path, bool (*check_numpy)(bool reads),
                                   void (*done_read)(const char *where, int nout),
                                   case_checker check)
{
    select_run.check_numpy = check_numpy;
    select_run.done_read = done_read;
    select_run.check = check;
    select_run.ncases = 0;
    return table_for_each_line(path, select_case);
}

#endif
