/* Reading tests/data/matmul.txt (NumPy's answers, tools/gen_matmul_cases.py): each selected case
 * is run and its result dtype and shape, or its error, checked. Shared by tests/test_matmul.c
 * and tests/test_einsum.c, each of which selects its own functions. */
#ifndef LOOM_TEST_MATMUL_CASES_H
#define LOOM_TEST_MATMUL_CASES_H

#include "check.h"

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

/* "float32:2,3" (contents never read: no GPU here). */
static loom_array *mc_operand(const char *tok)
{
    char dt[32];
    const char *colon = strchr(tok, ':');
    if (!colon || colon - tok >= (long)sizeof dt)
        return NULL;
    memcpy(dt, tok, (size_t)(colon - tok));
    dt[colon - tok] = '\0';
    int64_t shape[LOOM_MAXDIMS];
    int nd = mc_parse_list(colon + 1, shape, LOOM_MAXDIMS);
    return loom_empty(nd, shape, loom_dtype_from_name(dt));
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
        ops[i] = mc_operand(strtok(NULL, " "));
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
        char want_dt[32], want_shape[300];
        sscanf(verdict, "ok %31s %299s", want_dt, want_shape);
        int64_t dims[LOOM_MAXDIMS];
        int nd = mc_parse_list(want_shape + 2, dims, LOOM_MAXDIMS);
        bool ok = r && !strcmp(loom_dtype_name(loom_dtype_of(r)), want_dt) &&
                  loom_ndim(r) == nd && !loom_is_weak(r);
        for (int i = 0; ok && i < nd; i++)
            ok = loom_shape(r)[i] == dims[i];
        if (!ok)
            mc_report(line, "expected this dtype and shape", r);
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

#endif
