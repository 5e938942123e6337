/* The NumPy tables of joins and gathers (tools/gen_join_cases.py, tools/gen_take_cases.py):
 * their inputs and the calls they name, shared by the CPU tests (tests/test_join.c,
 * tests/test_take.c) and the GPU test (tests/gpu/test_index.c). */
#ifndef LOOM_TEST_INDEX_CASES_H
#define LOOM_TEST_INDEX_CASES_H

#include "check.h"
#include "loom.h"

#include <stdio.h>

#include <stdlib.h>
#include <string.h>

#define MAX_IN 64
#define MAX_OUT 16

/* "2x3" or "-" (0-d) */
static inline int parse_shape(const char *s, int64_t *shape)
{
    if (strcmp(s, "-") == 0)
        return 0;
    int nd = 0;
    for (const char *p = s; *p;) {
        char *end;
        shape[nd++] = strtoll(p, &end, 10);
        p = *end == 'x' ? end + 1 : end;
    }
    return nd;
}

static inline int64_t count(int nd, const int64_t *shape)
{
    int64_t n = 1;
    for (int d = 0; d < nd; d++)
        n *= shape[d];
    return n;
}

/* Input k as tools/gen_join_cases.py fills it: int64 values cast to the dtype. */
static inline loom_array *make_input(int k, loom_dtype dt, int nd, const int64_t *shape)
{
    int64_t size = 1;
    for (int d = 0; d < nd; d++)
        size *= shape[d];
    int64_t *v = malloc((size_t)(size ? size : 1) * sizeof *v);
    for (int64_t i = 0; i < size; i++)
        v[i] = dt == LOOM_BOOL ? (i + k) % 3 == 0 : (i * 7 + 3 * k) % 61;
    loom_array *a = loom_astype(loom_asarray(v, LOOM_INT64, nd, shape), dt);
    free(v);
    return a;
}

/* "dtype:shape" filled as tools/gen_take_cases.py fills the source. */
static inline loom_array *make_source(char *spec)
{
    char *colon = strchr(spec, ':');
    *colon = 0;
    int64_t shape[LOOM_MAXDIMS];
    int nd = parse_shape(colon + 1, shape);
    int64_t n = count(nd, shape);
    loom_dtype dt = loom_dtype_from_name(spec);
    int64_t *v = malloc((size_t)(n ? n : 1) * sizeof *v);
    for (int64_t i = 0; i < n; i++)
        v[i] = dt == LOOM_BOOL ? i % 3 == 0 : (i * 7 + 3) % 61;
    loom_array *a = loom_astype(loom_asarray(v, LOOM_INT64, nd, shape), dt);
    free(v);
    return a;
}

/* "dtype:shape:v0,v1,..." as a host array of that dtype (values through int64). */
static inline loom_array *make_indices(char *spec)
{
    char *c1 = strchr(spec, ':');
    *c1 = 0;
    char *c2 = strchr(c1 + 1, ':');
    *c2 = 0;
    int64_t shape[LOOM_MAXDIMS];
    int nd = parse_shape(c1 + 1, shape);
    int64_t n = count(nd, shape);
    int64_t *v = malloc((size_t)(n ? n : 1) * sizeof *v);
    char *p = c2 + 1;
    for (int64_t i = 0; i < n; i++) {
        v[i] = strtoll(p, &p, 10);
        p += *p == ',';
    }
    loom_array *a = loom_astype(loom_asarray(v, LOOM_INT64, nd, shape), loom_dtype_from_name(spec));
    free(v);
    return a;
}

typedef struct jcase {
    char func[32];
    int nin;
    loom_array *in[MAX_IN];
    int nargs;
    int args[MAX_IN];
} jcase;

/* Runs the case's function; returns the number of results (0 on failure). */
static inline int run_join(const jcase *c, loom_array **out)
{
    const char *f = c->func;
    if (strcmp(f, "concatenate") == 0)
        return (out[0] = loom_concatenate(c->in, c->nin, c->args[0])) != NULL;
    if (strcmp(f, "stack") == 0)
        return (out[0] = loom_stack(c->in, c->nin, c->args[0])) != NULL;
    if (strcmp(f, "hstack") == 0)
        return (out[0] = loom_hstack(c->in, c->nin)) != NULL;
    if (strcmp(f, "vstack") == 0)
        return (out[0] = loom_vstack(c->in, c->nin)) != NULL;
    if (strcmp(f, "dstack") == 0)
        return (out[0] = loom_dstack(c->in, c->nin)) != NULL;
    if (strcmp(f, "column_stack") == 0)
        return (out[0] = loom_column_stack(c->in, c->nin)) != NULL;
    if (strcmp(f, "append") == 0)
        return (out[0] = loom_append(c->in[0], c->in[1], c->args[0])) != NULL;
    if (strcmp(f, "block") == 0)
        return (out[0] = loom_block(c->in, c->args[0], c->args[1])) != NULL;
    if (strcmp(f, "atleast_1d") == 0)
        return (out[0] = loom_atleast_1d(c->in[0])) != NULL;
    if (strcmp(f, "atleast_2d") == 0)
        return (out[0] = loom_atleast_2d(c->in[0])) != NULL;
    if (strcmp(f, "atleast_3d") == 0)
        return (out[0] = loom_atleast_3d(c->in[0])) != NULL;
    int rc = LOOM_ERR_INVALID, n = 0;
    if (strcmp(f, "split") == 0 || strcmp(f, "array_split") == 0) {
        n = c->args[0] > 0 ? c->args[0] : 1;
        rc = f[0] == 's' ? loom_split(c->in[0], c->args[0], c->args[1], out)
                         : loom_array_split(c->in[0], c->args[0], c->args[1], out);
    } else if (strcmp(f, "split_at") == 0) {
        int64_t idx[MAX_IN];
        for (int i = 1; i < c->nargs; i++)
            idx[i - 1] = c->args[i];
        n = c->nargs;
        rc = loom_split_at(c->in[0], idx, c->nargs - 1, c->args[0], out);
    } else if (strcmp(f, "hsplit") == 0 || strcmp(f, "vsplit") == 0 || strcmp(f, "dsplit") == 0) {
        n = c->args[0];
        rc = f[0] == 'h'   ? loom_hsplit(c->in[0], c->args[0], out)
             : f[0] == 'v' ? loom_vsplit(c->in[0], c->args[0], out)
                           : loom_dsplit(c->in[0], c->args[0], out);
    }
    return rc == LOOM_OK ? n : 0;
}


static const char *const pad_modes[] = {"constant",  "edge",    "wrap",    "reflect", "symmetric",
                                         "maximum",   "minimum", "mean",    "median",  "linear_ramp"};

/* The shape routines of tools/gen_shape_cases.py, arguments as it documents them. */
static inline int run_shape(const jcase *c, loom_array **out)
{
    const char *f = c->func;
    const int *g = c->args;
    int64_t w[MAX_IN];
    for (int i = 0; i < c->nargs; i++)
        w[i] = g[i];
    loom_array *a = c->nin ? c->in[0] : NULL;
    loom_array *r = NULL;
    int rc = LOOM_OK, n = 1;
    bool lists = false; /* the function writes out itself */
    if (strcmp(f, "tile") == 0)
        r = loom_tile(a, w, c->nargs);
    else if (strcmp(f, "repeat") == 0)
        r = loom_repeat(a, g[0], g[1]);
    else if (strcmp(f, "repeat_counts") == 0)
        r = loom_repeat_counts(a, w + 1, c->nargs - 1, g[0]);
    else if (strcmp(f, "resize") == 0)
        r = loom_resize(a, c->nargs, w);
    else if (strcmp(f, "pad") == 0) {
        r = loom_pad(a, w + 1, c->nargs - 1, pad_modes[g[0]], 9);
    } else if (strcmp(f, "pad_ex") == 0) { /* mode odd nstat stat... widths... */
        int nstat = g[2];
        loom_pad_options o = {.constant_value = 9, .stat_length = nstat ? w + 3 : NULL,
                              .nstat = nstat, .reflect_odd = g[1] != 0};
        r = loom_pad_ex(a, w + 3 + nstat, c->nargs - 3 - nstat, pad_modes[g[0]], &o);
    } else if (strcmp(f, "flipud") == 0)
        r = loom_flipud(a);
    else if (strcmp(f, "fliplr") == 0)
        r = loom_fliplr(a);
    else if (strcmp(f, "copy") == 0)
        r = loom_array_copy(a);
    else if (strcmp(f, "ascontiguousarray") == 0)
        r = loom_ascontiguousarray(a);
    else if (strcmp(f, "rot90") == 0)
        r = loom_rot90(a, g[0], g[1], g[2]);
    else if (strcmp(f, "meshgrid") == 0) {
        n = c->nin, lists = true;
        rc = loom_meshgrid(c->in, c->nin, g[0] ? "ij" : "xy", g[1], out);
    } else if (strcmp(f, "indices") == 0)
        r = loom_indices(c->nargs, w, LOOM_INT64);
    else if (strcmp(f, "ix_") == 0) {
        n = c->nin, lists = true;
        rc = loom_ix(c->in, c->nin, out);
    } else if (strcmp(f, "tri") == 0)
        r = loom_tri(g[0], g[1], g[2], LOOM_FLOAT32);
    else if (strcmp(f, "diag") == 0)
        r = loom_diag(a, g[0]);
    else if (strcmp(f, "diagflat") == 0)
        r = loom_diagflat(a, g[0]);
    else if (strcmp(f, "fill_diagonal") == 0)
        r = loom_fill_diagonal(a, 7, g[0]);
    else if (strcmp(f, "isclose") == 0)
        r = loom_isclose(c->in[0], c->in[1], 0.1, 2, g[0]);
    else if (strcmp(f, "select") == 0)
        r = loom_select(c->in, c->in + c->nin / 2, c->nin / 2, NULL);
    else if (strcmp(f, "choose") == 0)
        r = loom_choose(a, c->in + 1, c->nin - 1, (loom_index_mode)g[0]);
    else if (strcmp(f, "vander") == 0)
        r = loom_vander(a, g[0], g[1]);
    else if (strcmp(f, "insert") == 0)
        r = loom_insert(a, w + 1, c->nargs - 1, c->in[1], g[0]);
    else if (strcmp(f, "delete") == 0)
        r = loom_delete(a, w + 1, c->nargs - 1, g[0]);
    else if (strcmp(f, "putmask") == 0)
        r = loom_putmask(a, c->in[1], c->in[2]);
    else if (strcmp(f, "place") == 0)
        r = loom_place(a, c->in[1], c->in[2]);
    else if (strcmp(f, "copyto") == 0)
        r = loom_copyto(a, c->in[1], c->nin > 2 ? c->in[2] : NULL);
    else if (strcmp(f, "trim_zeros") == 0)
        r = loom_trim_zeros(a, (const char *const[]){"fb", "f", "b"}[g[0]]);
    if (!lists)
        out[0] = r;
    return rc == LOOM_OK && (lists || r) ? n : 0;
}

/* Checks one result against "dtype shape v0 v1 ..." at *p (the caller's way: on the CPU
 * through graph_eval.h, on the GPU by reading it back), advancing *p past it. */
typedef void (*case_checker)(const char *where, loom_array *r, char **p);

/* Checks a call's nout results out against the table's result: "err MESSAGE" must be the
 * failure of loom_<name> with MESSAGE, "ok K ..." K results, each checked by check. */
static inline void check_result(const char *where, const char *name, char *result, int nout,
                                loom_array **out, case_checker check)
{
    if (strncmp(result, "err ", 4) == 0) {
        char want[512];
        snprintf(want, sizeof want, "loom_%s: %s", name, result + 4);
        CHECK(nout == 0);
        CHECK_STR(loom_last_error(), want);
        if (nout || !loom_last_error() || strcmp(loom_last_error(), want))
            fprintf(stderr, "%s\n", where);
        return;
    }
    char *q;
    strtok_r(result, " ", &q); /* "ok" */
    int want = atoi(strtok_r(NULL, " ", &q));
    CHECK_EQ_INT(nout, want);
    if (nout != want)
        fprintf(stderr, "%s: %s\n", where, loom_last_error());
    for (int i = 0; i < nout && nout == want; i++)
        check(where, out[i], &q);
}

/* Runs every case of a table in tools/gen_join_cases.py's format through run; failures must
 * match NumPy's message ("loom_<func>: ..."; check_errors false skips them). Returns the
 * number of cases. */
static inline int run_table(const char *path, int (*run)(const jcase *, loom_array **),
                            case_checker check, bool check_errors)
{
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    if (!f)
        return 0;
    char *line = NULL;
    size_t cap = 0;
    int ncases = 0;
    while (getline(&line, &cap, f) > 0) {
        line[strcspn(line, "\n")] = 0;
        char where[160];
        snprintf(where, sizeof where, "%s:%d", strrchr(path, '/') + 1, ++ncases);
        char *fields[4], *save;
        fields[0] = strtok_r(line, "|", &save);
        for (int i = 1; i < 4; i++)
            fields[i] = strtok_r(NULL, "|", &save);
        char *result = fields[3] + 1;
        bool err = strncmp(result, "err ", 4) == 0;
        if (err && !check_errors)
            continue;
        jcase c = {0};
        sscanf(fields[0], "%31s", c.func);
        if (strcmp(c.func, "trim_zeros") == 0 && loom_device_count() <= 0)
            continue; /* it reads the values at the call */
        loom_scope_begin();
        char *p, *tok;
        for (tok = strtok_r(fields[1], " ", &p); tok; tok = strtok_r(NULL, " ", &p)) {
            char *colon = strchr(tok, ':');
            *colon = 0;
            int64_t shape[LOOM_MAXDIMS];
            int nd = parse_shape(colon + 1, shape);
            c.in[c.nin] = make_input(c.nin, loom_dtype_from_name(tok), nd, shape);
            c.nin++;
        }
        for (tok = strtok_r(fields[2], " ", &p); tok; tok = strtok_r(NULL, " ", &p))
            c.args[c.nargs++] = strcmp(tok, "N") == 0 ? LOOM_AXIS_NONE : atoi(tok);
        /* place with no values reads the mask's count at the call (tests/select_cases.h) */
        if (strcmp(c.func, "place") == 0 && loom_size(c.in[2]) == 0 && loom_size(c.in[0]) > 0 &&
            loom_device_count() <= 0) {
            loom_scope_end();
            continue;
        }
        loom_array *out[MAX_OUT] = {0};
        loom_clear_error();
        int nout = run(&c, out);
        check_result(where, strcmp(c.func, "ix_") == 0 ? "ix" : c.func, result, nout, out, check);
        loom_scope_end();
    }
    free(line);
    fclose(f);
    return ncases;
}

/* "i:K", "s:START:STOP:STEP" (N: None), "n", "e" or "a:dtype:shape:values" as an index term. */
static inline loom_index_term parse_term(char *tok)
{
    loom_index_term t = {0};
    if (tok[0] == 'n' || tok[0] == 'e') {
        t.kind = tok[0] == 'n' ? LOOM_INDEX_NEWAXIS : LOOM_INDEX_ELLIPSIS;
    } else if (tok[0] == 'i') {
        t.kind = LOOM_INDEX_INT;
        t.start = strtoll(tok + 2, NULL, 10);
    } else if (tok[0] == 's') {
        int64_t v[3];
        char *p = tok + 2;
        for (int k = 0; k < 3; k++) {
            v[k] = *p == 'N' ? (k == 2 ? 1 : LOOM_NONE) : strtoll(p, NULL, 10);
            p = strchr(p, ':');
            p = p ? p + 1 : p;
        }
        t.kind = LOOM_INDEX_SLICE;
        t.start = v[0], t.stop = v[1], t.step = v[2];
    } else {
        t.kind = LOOM_INDEX_ARRAY;
        t.array = make_indices(tok + 2);
    }
    return t;
}

/* The outcome of a case whose table result is "err MESSAGE", "oob ..." or "ok ...": an error
 * must be fn's failure with MESSAGE, anything else a result. Returns "oob" or "ok" with *q
 * after it for the caller to check r, or NULL when nothing is left to check. */
static inline const char *case_outcome(const char *where, const char *fn, loom_array *r,
                                       char *result, char **q)
{
    char *kind = strtok_r(result, " ", q);
    if (strcmp(kind, "err") == 0) {
        char want[512];
        snprintf(want, sizeof want, "%s: %s", fn, *q);
        CHECK(r == NULL);
        CHECK_STR(loom_last_error(), want);
        if (r || !loom_last_error() || strcmp(loom_last_error(), want))
            fprintf(stderr, "%s\n", where);
        return NULL;
    }
    if (!r) {
        CHECK(r != NULL);
        fprintf(stderr, "%s: %s\n", where, loom_last_error());
        return NULL;
    }
    return kind;
}

/* Checks an index out of bounds of result r of function func: the gather names axis and size
 * (the caller's way: on the CPU the reference evaluator, on the GPU a read that fails). */
typedef void (*oob_checker)(const char *where, loom_array *r, loom_array *a, const char *func,
                            int64_t axis, int64_t size);

/* Runs every case of take_cases.txt (func | a | indices | axis mode | result) or
 * getitem_cases.txt (getitem | a | terms | result): errors at the call must be NumPy's
 * (check_errors false skips them), out-of-bounds cases go to oob, values to check. Returns the
 * number of cases. */
static inline int run_gather_table(const char *path, case_checker check, oob_checker oob,
                                   bool check_errors)
{
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    if (!f)
        return 0;
    char *line = NULL;
    size_t cap = 0;
    int ncases = 0;
    while (getline(&line, &cap, f) > 0) {
        line[strcspn(line, "\n")] = 0;
        char where[160];
        snprintf(where, sizeof where, "%s:%d", strrchr(path, '/') + 1, ++ncases);
        char *field[5] = {0}, *save, *p, *tok;
        int nf = 0;
        for (tok = strtok_r(line, "|", &save); tok && nf < 5; tok = strtok_r(NULL, "|", &save))
            field[nf++] = tok;
        char *result = field[nf - 1] + 1, *q;
        if (strncmp(result, "err ", 4) == 0 && !check_errors)
            continue;
        char func[32];
        sscanf(field[0], "%31s", func);
        loom_scope_begin();
        loom_array *a = make_source(strtok_r(field[1], " ", &p)), *r;
        if (strcmp(func, "getitem") == 0) {
            loom_index_term terms[16];
            int n = 0;
            for (tok = strtok_r(field[2], " ", &p); tok && n < 16; tok = strtok_r(NULL, " ", &p))
                terms[n++] = parse_term(tok);
            loom_clear_error();
            r = loom_getitem(a, terms, n);
        } else {
            char mode[16], axis_s[16];
            sscanf(field[3], "%15s %15s", axis_s, mode);
            int axis = strcmp(axis_s, "N") == 0 ? LOOM_AXIS_NONE : atoi(axis_s);
            loom_index_mode m = mode[0] == 'w'   ? LOOM_MODE_WRAP
                                : mode[0] == 'c' ? LOOM_MODE_CLIP
                                                 : LOOM_MODE_RAISE;
            loom_array *idx = make_indices(strtok_r(field[2], " ", &p));
            loom_clear_error();
            r = strcmp(func, "take") == 0 ? loom_take_mode(a, idx, axis, m)
                                          : loom_take_along_axis(a, idx, axis);
        }
        char fn[48];
        snprintf(fn, sizeof fn, "loom_%s", func);
        const char *kind = case_outcome(where, fn, r, result, &q);
        if (kind && strcmp(kind, "oob") == 0) {
            int64_t ax = strtoll(strtok_r(NULL, " ", &q), NULL, 10);
            oob(where, r, a, func, ax, strtoll(strtok_r(NULL, " ", &q), NULL, 10));
        } else if (kind) {
            check(where, r, &q);
        }
        loom_scope_end();
    }
    free(line);
    fclose(f);
    return ncases;
}

/* Checks r's dtype and shape against "dtype shape" at *p, advancing *p past them. */
static inline bool check_layout(const char *where, loom_array *r, char **p)
{
    char *dt = strtok_r(NULL, " ", p), *shape_s = strtok_r(NULL, " ", p);
    int64_t shape[LOOM_MAXDIMS];
    int nd = parse_shape(shape_s, shape);
    bool ok = strcmp(loom_dtype_name(loom_dtype_of(r)), dt) == 0 && loom_ndim(r) == nd;
    for (int d = 0; ok && d < nd; d++)
        ok = loom_shape(r)[d] == shape[d];
    CHECK(ok);
    if (!ok)
        fprintf(stderr, "%s: got %s ndim %d, NumPy %s %s\n", where,
                loom_dtype_name(loom_dtype_of(r)), loom_ndim(r), dt, shape_s);
    return ok;
}

#ifdef LOOM_TEST_GRAPH_EVAL_H
/* The CPU checker of run_table: the value through tests/graph_eval.h. */
static inline void ge_check_result(const char *where, loom_array *r, char **p)
{
    if (!check_layout(where, r, p)) {
        for (int64_t i = 0; i < loom_size(r) || i < 1; i++)
            strtok_r(NULL, " ", p);
        return;
    }
    ge_memo m = {0};
    ge_value *v = ge_eval(r, &m);
    CHECK(v != NULL);
    int bad = 0;
    for (int64_t i = 0; i < loom_size(r); i++) {
        double want = strtod(strtok_r(NULL, " ", p), NULL);
        if (v && v[i].re != want && bad++ < 3)
            fprintf(stderr, "%s: element %lld is %g, NumPy %g\n", where, (long long)i, v[i].re,
                    want);
    }
    CHECK_EQ_INT(bad, 0);
    ge_free(&m);
}


/* The CPU oob_checker: the gather names the axis and size, and the reference finds it. */
static inline void ge_check_oob(const char *where, loom_array *r, loom_array *a, const char *func,
                                int64_t axis, int64_t size)
{
    (void)a, (void)func;
    CHECK(r->op == LOOM_OP_TAKE);
    if (r->op != LOOM_OP_TAKE) {
        fprintf(stderr, "%s: not a gather\n", where);
        return;
    }
    CHECK_EQ_INT(r->param.take.report_axis, axis);
    CHECK_EQ_INT(r->param.take.report_size, size);
    ge_memo m = {0};
    CHECK(ge_eval(r, &m) != NULL);
    CHECK_EQ_INT(m.oob, 1);
    ge_free(&m);
}
#endif

#endif
