/* Reading device results back and comparing them with a NumPy table's "dtype shape v0 v1 ..."
 * (tests/index_cases.h's case_checker), for the GPU tests of index routines. */
#ifndef LOOM_TEST_GPU_TABLE_VALUES_H
#define LOOM_TEST_GPU_TABLE_VALUES_H

#include "index_cases.h"

#include <math.h>

/* r's elements (real parts) as float64 on the host; NULL when reading failed. */
static inline double *read_back(loom_array *r)
{
    int64_t n = loom_size(r);
    double *v = malloc((size_t)(n ? n : 1) * sizeof *v);
    loom_dtype dt = loom_dtype_of(r);
    loom_array *f = loom_astype(dt == LOOM_COMPLEX64 || dt == LOOM_COMPLEX128 ? loom_real(r) : r,
                                LOOM_FLOAT64);
    if (!f || loom_get(f, v, (size_t)n * sizeof *v) != LOOM_OK) {
        free(v);
        return NULL;
    }
    return v;
}

/* Compares r with "dtype shape v0 v1 ..." at *p, each value within rtol of NumPy's (0: equal). */
static inline void check_values_rtol(const char *where, loom_array *r, char **p, double rtol)
{
    char *dt = strtok_r(NULL, " ", p), *shape_s = strtok_r(NULL, " ", p);
    int64_t shape[LOOM_MAXDIMS];
    int nd = parse_shape(shape_s, shape);
    CHECK_STR(loom_dtype_name(loom_dtype_of(r)), dt);
    CHECK_EQ_INT(loom_ndim(r), nd);
    double *v = read_back(r);
    CHECK(v != NULL);
    if (!v) {
        fprintf(stderr, "%s: %s\n", where, loom_last_error());
        return;
    }
    int bad = 0;
    for (int64_t i = 0; i < loom_size(r); i++) {
        double want = strtod(strtok_r(NULL, " ", p), NULL);
        bool ok = rtol > 0 ? fabs(v[i] - want) <= rtol * fabs(want) : v[i] == want;
        if (!ok && bad++ < 3)
            fprintf(stderr, "%s: element %lld is %.9g, NumPy %.9g\n", where, (long long)i, v[i],
                    want);
    }
    CHECK_EQ_INT(bad, 0);
    free(v);
}

/* Exact comparison (the tables' values are small integers, exact in every dtype). */
static inline void check_values(const char *where, loom_array *r, char **p)
{
    check_values_rtol(where, r, p, 0);
}

#endif
