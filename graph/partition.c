/* partition and argpartition: NumPy's guarantee (element kth in its sorted place, smaller
 * elements before it, larger ones after) holds for every kth at once in a fully sorted row, so
 * both are the stable sort and argsort after NumPy's checks of kth (docs/sorting.md). */
#include "reduce.h"
#include "views.h"

/* NumPy's kth checks against the extent n of the partitioned axis; an empty array takes any
 * kth, as NumPy's does. */
static int check_kth(const char *fn, const int64_t *kth, int nkth, int64_t n, int64_t size)
{
    if (nkth <= 0 || !kth) { /* NumPy reads an empty list as a float array */
        loom__error(LOOM_ERR_INVALID, fn, "Partition index must be integer");
        return -1;
    }
    for (int i = 0; i < nkth && size > 0; i++) {
        int64_t k = kth[i] < 0 ? kth[i] + n : kth[i];
        if (k < 0 || k >= n) {
            loom__error(LOOM_ERR_INVALID, fn, "kth(=%lld) out of bounds (%lld)", (long long)k,
                        (long long)n);
            return -1;
        }
    }
    return 0;
}

static loom_array *partition(const char *fn, loom_array *a, const int64_t *kth, int nkth,
                             int axis, bool arg)
{
    if (!a)
        return NULL;
    /* the partitioned axis as loom_sort/loom_argsort see it (argsort takes a 0-d a as 1-D) */
    int ndim = a->ndim == 0 && arg ? 1 : a->ndim, ax = 0;
    int64_t n = a->size;
    if (axis != LOOM_AXIS_NONE) {
        if (loom__normalize_axis(fn, NULL, axis, ndim, &ax))
            return NULL;
        n = a->ndim ? a->shape[ax] : 1;
    }
    if (check_kth(fn, kth, nkth, n, a->size))
        return NULL;
    return arg ? loom_argsort(a, axis) : loom_sort(a, axis);
}

loom_array *loom_partition(loom_array *a, const int64_t *kth, int nkth, int axis)
{
    return partition("loom_partition", a, kth, nkth, axis, false);
}

loom_array *loom_argpartition(loom_array *a, const int64_t *kth, int nkth, int axis)
{
    return partition("loom_argpartition", a, kth, nkth, axis, true);
}
