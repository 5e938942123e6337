/* Reads the NumPy oracle files of tests/data (made by tools/gen_dtype_tables.py): lines
 * "op n operand... -> result [loop]", '#' comments. Operands are dtype names, weak Python scalars
 * "int:300" / "float:0.5" / "complex:1j", or "none". */
#ifndef LOOM_TEST_ORACLE_H
#define LOOM_TEST_ORACLE_H

#include "check.h"
#include "internal.h"

#include <stdlib.h>

typedef struct oracle_case {
    const char *file;
    int line;
    char op[32];
    int n;
    char args[4][32];
    char result[32];
    char loop[32];
} oracle_case;

/* Calls fn on every case of tests/data/<name>; returns the number of cases, -1 if unreadable. */
static int oracle_each(const char *name, void (*fn)(const oracle_case *c, void *ctx), void *ctx)
{
    char path[1024], buf[512];
    snprintf(path, sizeof path, "%s/%s", LOOM_TEST_DATA, name);
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "cannot open %s\n", path);
        return -1;
    }
    int count = 0;
    oracle_case c = {.file = name};
    while (fgets(buf, sizeof buf, f)) {
        c.line++;
        if (buf[0] == '#' || buf[0] == '\n')
            continue;
        char arrow[4];
        int used = 0;
        if (sscanf(buf, "%31s %d%n", c.op, &c.n, &used) != 2 || c.n < 0 || c.n > 4) {
            fprintf(stderr, "%s:%d: bad line\n", name, c.line);
            fclose(f);
            return -1;
        }
        char *p = buf + used;
        for (int i = 0; i < c.n; i++) {
            int w = 0;
            sscanf(p, "%31s%n", c.args[i], &w);
            p += w;
        }
        c.loop[0] = '\0';
        if (sscanf(p, "%3s %31s %31s", arrow, c.result, c.loop) < 2 || strcmp(arrow, "->") != 0) {
            fprintf(stderr, "%s:%d: bad line\n", name, c.line);
            fclose(f);
            return -1;
        }
        fn(&c, ctx);
        count++;
    }
    fclose(f);
    return count;
}

/* A strong array of dtype dt and the given shape (contents never read: no GPU here). */
static loom_array *oracle_array(loom_dtype dt, int ndim, const int64_t *shape)
{
    loom_array *a = loom__node_alloc("test", LOOM_OP_EMPTY, dt, ndim, shape);
    return a ? loom__node_finish(a) : NULL;
}

/* The array for an operand token (a (2,) array for a dtype name); NULL for "none". */
static loom_array *oracle_operand(const char *tok)
{
    if (strcmp(tok, "none") == 0)
        return NULL;
    if (strncmp(tok, "int:", 4) == 0)
        return loom_scalar_int(strtoll(tok + 4, NULL, 10));
    if (strncmp(tok, "float:", 6) == 0)
        return loom_scalar(strtod(tok + 6, NULL));
    if (strncmp(tok, "complex:", 8) == 0)
        return loom_scalar_complex(0.0, strtod(tok + 8, NULL));
    loom_dtype dt = loom_dtype_from_name(tok);
    if (dt == LOOM_NO_DTYPE) {
        fprintf(stderr, "unknown operand %s\n", tok);
        return NULL;
    }
    return oracle_array(dt, 1, (int64_t[]){2});
}

#endif
