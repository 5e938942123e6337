/* Selections by a condition: np.compress, np.extract and np.where with one argument. The
 * selected positions have a data-dependent length, so each is the mask-positions model of
 * docs/unique.md (the count read back once, the result lazy): positions, then one gather. */
#include "index.h"
#include "reduce.h"
#include "select.h"
#include "views.h"

/* x's slices along ax at the set positions of condition (a flat mask, at most x's extent
 * there, or NumPy's IndexError for the first set position past it). */
static loom_array *select_along(const char *fn, loom_array *condition, loom_array *x, int ax)
{
    int64_t n = x->shape[ax];
    loom_array *at = loom__mask_positions_within(fn, condition, n, ax);
    return at ? loom__take(fn, x, at, ax, LOOM_MODE_CLIP, LOOM_REPORT_TAKE, ax, n) : NULL;
}

loom_array *loom_compress(loom_array *condition, loom_array *a, int axis)
{
    static const char fn[] = "loom_compress";
    if (!condition || !a)
        return NULL;
    if (condition->ndim != 1) {
        loom__error(LOOM_ERR_INVALID, fn, "condition must be a 1-d array");
        return NULL;
    }
    if (loom__check_same_device(fn, condition, a))
        return NULL;
    loom_scope_begin();
    /* a 0-d array is taken as 1-D, as NumPy does */
    loom_array *x = a->ndim == 0 ? loom__reshape(fn, "compress", a, 1, (int64_t[]){1}) : a;
    int ax = 0;
    x = x ? loom__along_axis(fn, x, axis, &ax) : NULL;
    return loom__scope_return(x ? select_along(fn, condition, x, ax) : NULL);
}

loom_array *loom_extract(loom_array *condition, loom_array *arr)
{
    static const char fn[] = "loom_extract";
    if (!condition || !arr)
        return NULL;
    if (loom__check_same_device(fn, condition, arr))
        return NULL;
    loom_scope_begin();
    int ax = 0;
    loom_array *x = loom__along_axis(fn, arr, LOOM_AXIS_NONE, &ax);
    return loom__scope_return(x ? select_along(fn, condition, x, 0) : NULL);
}
