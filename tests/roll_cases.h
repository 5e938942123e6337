/* One case of tests/data/roll_cases.txt (tools/gen_roll_cases.py), read and applied to
 * arange(size).reshape(shape) as int64, for the CPU and GPU roll tests. */
#ifndef LOOM_TEST_ROLL_CASES_H
#define LOOM_TEST_ROLL_CASES_H

#include "loom.h"
#include "read_ints.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct roll_case {
    char func[16]; /* roll, fftshift, ifftshift, or prog (a fused program, named in name) */
    char name[64];
    int ndim, nshift, naxes; /* naxes -1: axis=None */
    int64_t shape[8], shift[8], size;
    int axes[8];
    char *result; /* after "=> ": "OK values..." or "ERR message", its newline cut */
} roll_case;

/* Reads line (modified: the newline is cut) into c; false for comments and malformed lines. */
static inline bool roll_case_read(char *line, roll_case *c)
{
    memset(c, 0, sizeof *c);
    char *at = line, *arrow = strstr(line, "=> ");
    int used;
    if (line[0] == '#' || !arrow || sscanf(at, "%15s%n", c->func, &used) != 1)
        return false;
    at += used;
    arrow[strcspn(arrow, "\n")] = 0;
    c->result = arrow + 3;
    if (strcmp(c->func, "prog") == 0)
        return sscanf(at, "%63s", c->name) == 1;
    int64_t nd, nshift, naxes, ax64[8] = {0};
    if (read_ints(&at, 1, &nd) || nd < 0 || nd > 8 || read_ints(&at, (int)nd, c->shape) ||
        read_ints(&at, 1, &nshift) || nshift < 0 || nshift > 8 ||
        read_ints(&at, (int)nshift, c->shift) || read_ints(&at, 1, &naxes) || naxes > 8 ||
        (naxes > 0 && read_ints(&at, (int)naxes, ax64)))
        return false;
    c->ndim = (int)nd;
    c->nshift = (int)nshift;
    c->naxes = (int)naxes;
    for (int i = 0; i < naxes; i++)
        c->axes[i] = (int)ax64[i];
    c->size = 1;
    for (int i = 0; i < nd; i++)
        c->size *= c->shape[i];
    return true;
}

/* arange(size).reshape(shape) as an int64 leaf in memory. */
static inline loom_array *roll_case_input(const roll_case *c)
{
    int64_t *data = malloc((size_t)(c->size ? c->size : 1) * sizeof *data);
    for (int64_t i = 0; data && i < c->size; i++)
        data[i] = i;
    loom_array *a = data ? loom_asarray(data, LOOM_INT64, c->ndim, c->shape) : NULL;
    free(data);
    return a;
}

/* The case's function applied to a. */
static inline loom_array *roll_case_apply(const roll_case *c, loom_array *a)
{
    const int *axes = c->naxes < 0 ? NULL : c->axes;
    if (strcmp(c->func, "roll") == 0) {
        if (c->nshift == 1 && (c->naxes == 1 || c->naxes < 0))
            return loom_roll(a, c->shift[0], axes ? axes[0] : LOOM_AXIS_NONE);
        return loom_roll_axes(a, c->shift, c->nshift, axes, c->naxes);
    }
    if (strcmp(c->func, "fftshift") == 0)
        return loom_fft_fftshift(a, axes, c->naxes);
    return loom_fft_ifftshift(a, axes, c->naxes);
}

#endif
