/* An array's values read back to the host as float64 (a failed read is a failed check). */
#ifndef LOOM_TEST_HOST_VALUES_H
#define LOOM_TEST_HOST_VALUES_H

#include "check.h"

#include <stdlib.h>

static inline double *host_values(loom_array *a, int64_t n)
{
    double *v = malloc((size_t)(n ? n : 1) * sizeof *v);
    loom_scope_begin(); /* the cast belongs to this scope, whether or not the caller has one */
    const int rc = loom_get(loom_astype(a, LOOM_FLOAT64), v, (size_t)n * sizeof *v);
    CHECK_EQ_INT(rc, LOOM_OK);
    if (rc)
        fprintf(stderr, "%s\n", loom_last_error());
    loom_scope_end();
    return v;
}

#endif
