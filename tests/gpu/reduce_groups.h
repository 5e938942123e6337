/* Host reference for reductions: which output element each input element of a C-ordered array
 * falls into, for a set of reduced axes. Walking the input in C order visits the members of a
 * group in increasing order of their index over the reduced axes (the flat index when every
 * axis is reduced), which is the position argmax and argmin report. */
#ifndef LOOM_TEST_REDUCE_GROUPS_H
#define LOOM_TEST_REDUCE_GROUPS_H

#include "reduce_host.h"

typedef struct groups {
    uint32_t mask;     /* bit i: axis i is reduced */
    int64_t nout;      /* output elements */
    int64_t nred;      /* input elements per output element */
    int64_t *of;       /* output element of each input element */
    int out_ndim;      /* the result's shape */
    int64_t out_shape[LOOM_MAXDIMS];
} groups;

/* axes NULL reduces every axis; negative axes count from the end. */
static inline void groups_make(groups *g, int ndim, const int64_t *shape, const int *axes, int naxes,
                        bool keepdims)
{
    memset(g, 0, sizeof *g);
    if (!axes)
        g->mask = ndim ? (uint32_t)((1ull << ndim) - 1) : 0;
    for (int i = 0; axes && i < naxes; i++)
        g->mask |= 1u << (axes[i] < 0 ? axes[i] + ndim : axes[i]);
    int64_t n = 1;
    g->nout = g->nred = 1;
    for (int d = 0; d < ndim; d++) {
        n *= shape[d];
        bool red = g->mask >> d & 1;
        if (red)
            g->nred *= shape[d];
        else
            g->nout *= shape[d];
        if (!red || keepdims)
            g->out_shape[g->out_ndim++] = red ? 1 : shape[d];
    }
    g->of = malloc((size_t)(n ? n : 1) * sizeof *g->of);
    int64_t idx[LOOM_MAXDIMS] = {0};
    for (int64_t i = 0; i < n; i++) {
        int64_t o = 0;
        for (int d = 0; d < ndim; d++)
            if (!(g->mask >> d & 1))
                o = o * shape[d] + idx[d];
        g->of[i] = o;
        for (int d = ndim - 1; d >= 0 && ++idx[d] == shape[d]; d--)
            idx[d] = 0;
    }
}

static inline void groups_free(groups *g) { free(g->of); }

/* Shape of a result against the groups' expectation. */
static inline bool groups_shape_ok(const groups *g, const loom_array *r)
{
    if (loom_ndim(r) != g->out_ndim)
        return false;
    for (int d = 0; d < g->out_ndim; d++)
        if (loom_shape(r)[d] != g->out_shape[d])
            return false;
    return true;
}

#endif
