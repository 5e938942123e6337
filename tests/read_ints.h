/* Reading whitespace-separated integers of the NumPy-made test tables. */
#ifndef LOOM_TEST_READ_INTS_H
#define LOOM_TEST_READ_INTS_H

#include <stdint.h>
#include <stdlib.h>

/* count integers from *at into out, advancing *at; -1 when one is missing */
static inline int read_ints(char **at, int count, int64_t *out)
{
    for (int i = 0; i < count; i++) {
        char *end;
        out[i] = strtoll(*at, &end, 10);
        if (end == *at)
            return -1;
        *at = end;
    }
    return 0;
}

#endif
