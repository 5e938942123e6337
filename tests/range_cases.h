/* The NumPy table of arange and linspace (tests/data/ranges.txt, tools/gen_range_cases.py),
 * read one case at a time by test_creation (CPU) and gpu_test_ranges. */
#ifndef LOOM_TEST_RANGE_CASES_H
#define LOOM_TEST_RANGE_CASES_H

#include "loom.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RANGE_MAX 128

typedef struct range_case {
    char line[4096];    /* the case as written, for messages */
    bool linspace;
    loom_dtype dt;
    double start, stop, step; /* arange */
    int64_t num;              /* linspace */
    bool endpoint;
    const char *error;  /* NumPy's message (into line), or NULL */
    int n;              /* the result's length */
    double v[RANGE_MAX];/* its values (complex: the real part) */
} range_case;

/* Reads the next case of f into c; false at the end (or on a line it cannot read, which it
 * reports). */
static inline bool range_case_next(FILE *f, range_case *c)
{
    while (fgets(c->line, sizeof c->line, f)) {
        if (c->line[0] == '#' || c->line[0] == '\n')
            continue;
        c->line[strcspn(c->line, "\n")] = 0;
        char op[16], dt[16];
        int used = 0, endpoint = 0;
        long long num = 0;
        memset(c->v, 0, sizeof c->v);
        c->linspace = strncmp(c->line, "linspace ", 9) == 0;
        bool ok = c->linspace
                      ? sscanf(c->line, "%15s %15s %lf %lf %lld %d%n", op, dt, &c->start, &c->stop,
                               &num, &endpoint, &used) == 6
                      : sscanf(c->line, "%15s %15s %lf %lf %lf%n", op, dt, &c->start, &c->stop,
                               &c->step, &used) == 5;
        c->num = num;
        c->endpoint = endpoint;
        c->dt = loom_dtype_from_name(dt);
        loom_clear_error();
        const char *rest = c->line + used;
        c->error = NULL;
        c->n = 0;
        if (ok && strncmp(rest, " ! ", 3) == 0) {
            c->error = rest + 3;
        } else if (ok && sscanf(rest, " : %d%n", &c->n, &used) == 1 && c->n <= RANGE_MAX) {
            rest += used;
            for (int i = 0; i < c->n && ok; i++) {
                char *end;
                c->v[i] = strtod(rest, &end);
                ok = end != rest;
                rest = end;
            }
        } else {
            ok = false;
        }
        if (ok && (int)c->dt >= 0)
            return true;
        fprintf(stderr, "ranges.txt: cannot read \"%s\"\n", c->line);
    }
    return false;
}

/* The case's array (NULL with the error recorded when Loom refuses it). */
static inline loom_array *range_case_array(const range_case *c)
{
    return c->linspace ? loom_linspace(c->start, c->stop, c->num, c->endpoint, c->dt)
                       : loom_arange(c->start, c->stop, c->step, c->dt);
}

/* Loom's refusal must carry NumPy's message (without its final period). */
static inline bool range_error_matches(const range_case *c, const char *got)
{
    char want[256];
    snprintf(want, sizeof want, "%s", c->error);
    size_t len = strlen(want);
    if (len && want[len - 1] == '.')
        want[len - 1] = 0;
    return got && strstr(got, want);
}

#endif
