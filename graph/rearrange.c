/* Rearranging without computing: flipud, fliplr and rot90 are views; copy and
 * ascontiguousarray give an array with a layout of its own (a lazy copy of a view). */
#include "reduce.h"
#include "views.h"

loom_array *loom_flipud(loom_array *a)
{
    static const char fn[] = "loom_flipud";
    if (!a)
        return NULL;
    if (a->ndim < 1) {
        loom__error(LOOM_ERR_INVALID, fn, "Input must be >= 1-d.");
        return NULL;
    }
    return loom_flip(a, (int[]){0}, 1);
}

loom_array *loom_fliplr(loom_array *a)
{
    static const char fn[] = "loom_fliplr";
    if (!a)
        return NULL;
    if (a->ndim < 2) {
        loom__error(LOOM_ERR_INVALID, fn, "Input must be >= 2-d.");
        return NULL;
    }
    return loom_flip(a, (int[]){1}, 1);
}

loom_array *loom_rot90(loom_array *a, int k, int axis0, int axis1)
{
    static const char fn[] = "loom_rot90";
    if (!a)
        return NULL;
    int nd = a->ndim;
    if (axis0 == axis1 || axis0 - axis1 == nd || axis1 - axis0 == nd) {
        loom__error(LOOM_ERR_INVALID, fn, "Axes must be different.");
        return NULL;
    }
    if (axis0 >= nd || axis0 < -nd || axis1 >= nd || axis1 < -nd) {
        loom__error(LOOM_ERR_INVALID, fn, "Axes=(%d, %d) out of range for array of ndim=%d.",
                    axis0, axis1, nd);
        return NULL;
    }
    int a0 = axis0 < 0 ? axis0 + nd : axis0, a1 = axis1 < 0 ? axis1 + nd : axis1;
    k = ((k % 4) + 4) % 4;
    if (k == 0)
        return loom__adopt(loom_retain(a));
    loom_scope_begin();
    loom_array *r;
    if (k == 2) {
        r = loom_flip(a, (int[]){a0, a1}, 2);
    } else {
        int perm[LOOM_MAXDIMS];
        for (int d = 0; d < nd; d++)
            perm[d] = d == a0 ? a1 : d == a1 ? a0 : d;
        /* k = 1: transpose(flip(a, axis1)); k = 3: flip(transpose(a), axis1) */
        r = k == 1 ? loom_transpose(loom_flip(a, (int[]){a1}, 1), perm)
                   : loom_flip(loom_transpose(a, perm), (int[]){a1}, 1);
    }
    return loom__scope_return(r);
}

loom_array *loom_ascontiguousarray(loom_array *a)
{
    static const char fn[] = "loom_ascontiguousarray";
    if (!a)
        return NULL;
    if (a->ndim == 0) /* NumPy's result has at least one dimension */
        return loom__reshape(fn, "ascontiguousarray", a, 1, (int64_t[]){1});
    return a->op == LOOM_OP_VIEW ? loom__copy(fn, a) : loom__adopt(loom_retain(a));
}

loom_array *loom_array_copy(loom_array *a)
{
    static const char fn[] = "loom_array_copy";
    if (!a)
        return NULL;
    return a->op == LOOM_OP_VIEW ? loom__copy(fn, a) : loom__adopt(loom_retain(a));
}
