/* Reading tests/data/matmul.txt (NumPy's answers, tools/gen_matmul_cases.py): each selected case
 * is run and its result dtype and shape, or its error, checked, and where the line has them the
 * checksums of its values against the recorded graph's (tests/graph_eval.h). Shared by
 * tests/test_matmul.c and tests/test_einsum.c, each of which selects its own functions. */
#ifndef LOOM_TEST_MATMUL_CASES_H
#define LOOM_TEST_MATMUL_CASES_H

#include "check.h"
#include "graph_eval.h"

#include <stdlib.h>
#include <string.h>

/* "2,3" into v; returns the count ("" is 0). */
static int mc_parse_list(const char *s, int64_t *v, int cap)
{
    int n = 0;
    while (*s && *s != '|' && n < cap) {
        char *end;
        v[n++] = strtoll(s, &end, 10);
        if (end == s)
            break;
        s = *end == ',' ? end + 1 : end;
    }
    return n;
}

/* "float32:2,3", operand t of its case: the generator's small integers, cast from float64 or
 * complex128. */
static loom_array *mc_operand(const char *tok, int t)
{
    char dt[32];
    const char *colon = strchr(tok, ':');
    if (!colon || colon - tok >= (long)sizeof dt)
        return NULL;
    memcpy(dt, tok, (size_t)(colon - tok));
    dt[colon - tok] = '\0';
    int64_t shape[LOOM_MAXDIMS], size = 1;
    int nd = mc_parse_list(colon + 1, shape, LOOM_MAXDIMS);
    for (int i = 0; i < nd; i++)
        size *= shape[i];
    loom_dtype d = loom_dtype_from_name(dt);
    bool complex = d == LOOM_COMPLEX64 || d == LOOM_COMPLEX128;
    double *v = calloc((size_t)(size ? 2 * size : 1), sizeof *v);
    for (int64_t i = 0; v && i < size; i++) {
        double *e = complex ? v + 2 * i : v + i;
        if (d == LOOM_BOOL)
            e[0] = (i + t) % 3 != 0;
        else if (d >= LOOM_UINT8 && d <= LOOM_UINT64)
            e[0] = (double)((7 * i + 3 * t) % 4);
        else
            e[0] = (double)((7 * i + 3 * t) % 5 - 1);
        if (complex)
            e[1] = (double)((3 * i + t) % 4 - 2);
    }
    loom_array *a = loom_asarray(v, complex ? LOOM_COMPLEX128 : LOOM_FLOAT64, nd, shape);
    free(v);
    return loom_astype(a, d);
}

/* The line's checksums of r's values ("v:<c1>,<c2>"): true when they match. */
static bool mc_values_match(loom_array *r, const char *v)
{
    long long c1, c2;
    if (sscanf(v, "v:%lld,%lld", &c1, &c2) != 2)
        return false;
    ge_memo *m = calloc(1, sizeof *m);
    ge_value *x = m ? ge_eval(r, m) : NULL;
    double s1 = 0, s2 = 0;
    for (int64_t i = 0; x && i < r->size; i++) {
        s1 += x[i].re * (double)(i % 13 + 1) + x[i].im * (double)(i % 11 + 2);
        s2 += (fabs(x[i].re) + 3 * fabs(x[i].im)) * (double)(i % 5 + 1);
    }
    bool ok = x && s1 == (double)c1 && s2 == (double)c2;
    if (m)
        ge_free(m);
    free(m);
    return ok;
}

static loom_array *mc_run(const char *fn, const char *extra, loom_array **ops, int n)
{
    int64_t v[2 * LOOM_MAXDIMS];
    if (!strcmp(fn, "matmul"))
        return loom_matmul(ops[0], ops[1]);
    if (!strcmp(fn, "dot"))
        return loom_dot(ops[0], ops[1]);
    if (!strcmp(fn, "vdot"))
        return loom_vdot(ops[0], ops[1]);
    if (!strcmp(fn, "inner"))
        return loom_inner(ops[0], ops[1]);
    if (!strcmp(fn, "outer"))
        return loom_outer(ops[0], ops[1]);
    if (!strcmp(fn, "kron"))
        return loom_kron(ops[0], ops[1]);
    if (!strcmp(fn, "tensordot")) {
        int xa[LOOM_MAXDIMS], xb[LOOM_MAXDIMS];
        const char *bar = strchr(extra, '|');
        int na = mc_parse_list(extra + 2, v, LOOM_MAXDIMS);
        for (int i = 0; i < na; i++)
            xa[i] = (int)v[i];
        int nb = bar ? mc_parse_list(bar + 1, v, LOOM_MAXDIMS) : 0;
        for (int i = 0; i < nb; i++)
            xb[i] = (int)v[i];
        return loom_tensordot(ops[0], ops[1], xa, xb, na < nb ? na : nb);
    }
    if (!strcmp(fn, "trace") || !strcmp(fn, "diagonal")) {
        long long off = 0;
        int a1 = 0, a2 = 0;
        sscanf(extra, "o:%lld,%d,%d", &off, &a1, &a2);
        return (fn[0] == 't' ? loom_trace : loom_diagonal)(ops[0], off, a1, a2);
    }
    if (!strcmp(fn, "linalg_matrix_power"))
        return loom_linalg_matrix_power(ops[0], strtoll(extra + 2, NULL, 10));
    if (!strcmp(fn, "linalg_multi_dot"))
        return loom_linalg_multi_dot(ops, n);
    if (!strcmp(fn, "einsum")) {
        char sub[256];
        snprintf(sub, sizeof sub, "%s", extra + 2);
        for (char *c = sub; *c; c++)
            if (*c == '~')
                *c = ' ';
        return loom_einsum(sub, ops, n);
    }
    fprintf(stderr, "matmul.txt: unknown function %s\n", fn);
    return NULL;
}

static int mc_reported;

static void mc_report(const char *line, const char *why, loom_array *r)
{
    check_failures++;
    if (mc_reported++ < 30)
        fprintf(stderr, "matmul.txt: %s  -- %s (got %s, %s)\n", line, why,
                r ? loom_dtype_name(loom_dtype_of(r)) : "NULL",
                loom_last_error() ? loom_last_error() : "no error");
}

/* Checks one line; returns 1 if it was selected. */
static int mc_check_line(const char *line, bool (*select)(const char *fn))
{
    const char *arrow = strstr(line, " -> ");
    char left[1024];
    if (!arrow || arrow - line >= (long)sizeof left) {
        mc_report(line, "bad line", NULL);
        return 0;
    }
    memcpy(left, line, (size_t)(arrow - line));
    left[arrow - line] = '\0';
    char *fn = strtok(left, " "), *extra = strtok(NULL, " "), *count = strtok(NULL, " ");
    if (!fn || !extra || !count) {
        mc_report(line, "bad line", NULL);
        return 0;
    }
    if (!select(fn))
        return 0;
    int n = atoi(count);
    loom_scope_begin();
    loom_array *ops[16] = {0};
    for (int i = 0; i < n && i < 16; i++)
        ops[i] = mc_operand(strtok(NULL, " "), i);
    loom_clear_error();
    loom_array *r = mc_run(fn, extra, ops, n);
    check_count++;
    const char *verdict = arrow + 4;
    if (!strncmp(verdict, "err ", 4)) {
        const char *rest = verdict + 4;
        char want_fn[64];
        snprintf(want_fn, sizeof want_fn, "loom_%s: ", fn);
        const char *e = loom_last_error();
        if (r || !e || strncmp(e, want_fn, strlen(want_fn)) != 0 || !strstr(e, rest))
            mc_report(line, "expected this error", r);
    } else {
        char want_dt[32], want_shape[300], want_v[64] = "";
        sscanf(verdict, "ok %31s %299s %63s", want_dt, want_shape, want_v);
        int64_t dims[LOOM_MAXDIMS];
        int nd = mc_parse_list(want_shape + 2, dims, LOOM_MAXDIMS);
        bool ok = r && !strcmp(loom_dtype_name(loom_dtype_of(r)), want_dt) &&
                  loom_ndim(r) == nd && !loom_is_weak(r);
        for (int i = 0; ok && i < nd; i++)
            ok = loom_shape(r)[i] == dims[i];
        if (!ok) {
            mc_report(line, "expected this dtype and shape", r);
        } else if (want_v[0]) {
            check_count++;
            if (!mc_values_match(r, want_v))
                mc_report(line, "expected these values", r);
        }
    }
    loom_scope_end();
    return 1;
}

/* Runs every selected case of matmul.txt; returns how many there were. */
static int run_matmul_cases(bool (*select)(const char *fn))
{
    char path[1024], line[1024];
    snprintf(path, sizeof path, "%s/matmul.txt", LOOM_TEST_DATA);
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    if (!f)
        return 0;
    int n = 0;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        if (line[0] == '#' || !line[0])
            continue;
        n += mc_check_line(line, select);
    }
    fclose(f);
    return n;
}

/* The distinct nodes reachable from r with op (r included). */
static int count_op_rec(loom_array *r, loom_op op, loom_array **seen, int *nseen)
{
    if (!r)
        return 0;
    for (int i = 0; i < *nseen; i++)
        if (seen[i] == r)
            return 0;
    if (*nseen < 512)
        seen[(*nseen)++] = r;
    int n = r->op == op;
    for (int i = 0; i < r->ninputs; i++)
        n += count_op_rec(r->inputs[i], op, seen, nseen);
    return n;
}

static int count_op(loom_array *r, loom_op op)
{
    loom_array *seen[512];
    int nseen = 0;
    return count_op_rec(r, op, seen, &nseen);
}

#endif
