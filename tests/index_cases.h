/* The NumPy tables of joins and gathers (tools/gen_join_cases.py, tools/gen_take_cases.py):
 * their inputs and the calls they name, shared by the CPU tests (tests/test_join.c,
 * tests/test_take.c) and the GPU test (tests/gpu/test_index.c). */
#ifndef LOOM_TEST_INDEX_CASES_H
#define LOOM_TEST_INDEX_CASES_H

#include "loom.h"

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

#endif
