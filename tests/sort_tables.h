/* Reading the result columns of tests/data/sort.txt and search.txt (tools/gen_sort_cases.py,
 * tools/gen_search_cases.py): shapes written "s:2,3" ("s:" is 0-d) and dtype names. */
#ifndef LOOM_TEST_SORT_TABLES_H
#define LOOM_TEST_SORT_TABLES_H

#include "check.h"

#include <stdlib.h>

static inline int parse_shape(const char *s, int64_t *shape)
{
    int nd = 0;
    for (s += 2; *s; nd++) {
        shape[nd] = strtoll(s, (char **)&s, 10);
        if (*s == ',')
            s++;
    }
    return nd;
}

/* r has dtype dt and the shape written in shape_text. */
static inline void check_dtype_shape(const loom_array *r, const char *dt, const char *shape_text)
{
    int64_t want[8];
    int nd = parse_shape(shape_text, want);
    CHECK_STR(loom_dtype_name(loom_dtype_of(r)), dt);
    CHECK_EQ_INT(loom_ndim(r), nd);
    for (int i = 0; i < nd && i < loom_ndim(r); i++)
        CHECK_EQ_INT(loom_shape(r)[i], want[i]);
}

#endif
