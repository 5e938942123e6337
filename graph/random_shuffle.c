/* NumPy's Generator.choice(a, ...) for an array a, permutation(x), shuffle(x) and permuted(x):
 * random indices (graph/random_choice.c, or the argsort of random keys) gathered by loom_take
 * or loom_take_along_axis. Arrays are values, so shuffle returns the shuffled array as a new
 * one (NumPy shuffles x in place) and draws the same numbers permutation would. */
#include "random.h"
#include "reduce.h"
#include "views.h"

/* a itself for an empty result: nothing to draw, and values never change. */
static loom_array *same(loom_array *a)
{
    return loom__adopt(loom_retain(a));
}

loom_array *loom_rng_choice_array(loom_rng *rng, loom_array *a, int ndim, const int64_t *shape,
                                  bool replace, const double *p, int axis)
{
    static const char fn[] = "loom_rng_choice_array";
    if (!rng || !a)
        return NULL;
    if (a->ndim == 0) /* NumPy treats an integer 0-d a as a population size: use loom_rng_choice */
        return loom__random_bad(fn, "a must be a sequence or an integer, not a 0-d array");
    int ax;
    if (loom__normalize_axis(fn, NULL, axis, a->ndim, &ax))
        return NULL;
    int64_t size;
    if (loom__check_shape(fn, ndim, shape, &size))
        return NULL;
    const int64_t pop = a->shape[ax];
    if (pop == 0 && size != 0) /* NumPy's message for an array a */
        return loom__random_bad(fn, "a cannot be empty unless no samples are taken");
    loom_scope_begin();
    loom_array *idx = loom__choice_indices(fn, rng, pop, ndim, shape, replace, p);
    return loom__scope_return(idx ? loom_take(a, idx, ax) : NULL);
}

loom_array *loom__permute_along(const char *fn, loom_rng *rng, loom_array *a, int axis,
                                bool shuffle)
{
    if (!rng || !a)
        return NULL;
    if (shuffle && a->ndim == 0)
        return loom__random_bad(fn, "len() of unsized object");
    int ax;
    if (loom__normalize_axis(fn, NULL, axis, a->ndim, &ax))
        return NULL;
    if (a->shape[ax] == 0)
        return same(a);
    loom_scope_begin();
    return loom__scope_return(loom_take(a, loom_rng_permutation(rng, a->shape[ax]), ax));
}

loom_array *loom_rng_permutation_array(loom_rng *rng, loom_array *a, int axis)
{
    return loom__permute_along("loom_rng_permutation_array", rng, a, axis, false);
}

loom_array *loom_rng_shuffle(loom_rng *rng, loom_array *a, int axis)
{
    return loom__permute_along("loom_rng_shuffle", rng, a, axis, true);
}

/* Every slice along axis shuffled on its own: the argsort along axis of a's size in random
 * 64-bit keys (LOOM_AXIS_NONE: the flattened array shuffled as a whole, the shape kept). */
loom_array *loom_rng_permuted(loom_rng *rng, loom_array *a, int axis)
{
    static const char fn[] = "loom_rng_permuted";
    if (!rng || !a)
        return NULL;
    if (a->ndim == 0 && axis == LOOM_AXIS_NONE)
        return loom__random_bad(fn, "len() of unsized object");
    int ax = 0;
    if (axis != LOOM_AXIS_NONE && loom__normalize_axis(fn, NULL, axis, a->ndim, &ax))
        return NULL;
    if (loom_size(a) == 0)
        return same(a);
    loom_scope_begin();
    loom_array *keys = loom__random_integers(fn, rng, 0, 0, a->ndim, a->shape, LOOM_UINT64);
    loom_array *x;
    if (axis == LOOM_AXIS_NONE)
        x = loom_reshape(loom_take(a, loom_argsort(keys, LOOM_AXIS_NONE), LOOM_AXIS_NONE), a->ndim,
                         a->shape);
    else
        x = loom_take_along_axis(a, loom_argsort(keys, ax), ax);
    return loom__scope_return(x);
}
