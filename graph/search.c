/* searchsorted and digitize: a SEARCHSORTED node holds, for each element of v, the position of
 * NumPy's binary search in the 1-D sorted array (NaN ordered last, as sort orders it). It is an
 * index op (fuser/lower_index.c): the kernel computes v inline, reads the sorted array from
 * memory, and an elementwise consumer fuses with it (docs/sorting.md). */
#include "reduce.h"
#include "index.h"
#include "ufunc.h"
#include "views.h"

#include <math.h>
#include <stdlib.h>

/* NumPy's "object too deep / of too small depth for desired array" for a non-1-D array. */
static int check_1d(const char *fn, const loom_array *a)
{
    if (a->ndim == 1)
        return 0;
    loom__error(LOOM_ERR_INVALID, fn, "object %s for desired array",
                a->ndim == 0 ? "of too small depth" : "too deep");
    return -1;
}

static int same_device(const char *fn, const loom_array *a, const loom_array *b)
{
    if (a->device == b->device)
        return 0;
    loom__error(LOOM_ERR_INVALID, fn, "arrays are on different devices (%s and %s)", loom__device_label(a->device),
                loom__device_label(b->device));
    return -1;
}

static loom_array *cast_to(const char *fn, loom_array *a, loom_dtype dt)
{
    return a->dtype == (int8_t)dt ? a : loom__cast(fn, a, dt);
}

/* The node: sorted (1-D) and v of one dtype; int64 positions of v's shape. */
static loom_array *search_node(const char *fn, loom_array *sorted, loom_array *v, bool right)
{
    if (v->size == 0)
        return loom_empty(v->ndim, v->shape, LOOM_INT64);
    if (sorted->size == 0) /* every position is 0 */
        return loom_zeros(v->ndim, v->shape, LOOM_INT64);
    loom_array *n = loom__node_alloc(fn, LOOM_OP_SEARCHSORTED, LOOM_INT64, v->ndim, v->shape);
    if (!n)
        return NULL;
    n->device = v->device;
    n->param.search.right = right;
    loom__node_set_input(n, 0, sorted);
    loom__node_set_input(n, 1, v);
    return loom__node_finish(n);
}

/* a (1-D) and v compared in their common dtype (np.result_type, weak scalars included). */
static loom_array *search(const char *fn, loom_array *a, loom_array *v, bool right)
{
    if (check_1d(fn, a) || same_device(fn, a, v))
        return NULL;
    loom_dtype dt = loom_result_type_arrays((loom_array *const[]){a, v}, 2);
    if (dt == LOOM_NO_DTYPE)
        return NULL;
    loom_scope_begin();
    loom_array *sa = cast_to(fn, a, dt), *sv = sa ? cast_to(fn, v, dt) : NULL;
    return loom__scope_return(sv ? search_node(fn, sa, sv, right) : NULL);
}

loom_array *loom_searchsorted(loom_array *sorted, loom_array *v, bool right)
{
    static const char fn[] = "loom_searchsorted";
    if (!sorted || !v)
        return NULL;
    return search(fn, sorted, v, right);
}

loom_array *loom_searchsorted_sorter(loom_array *a, loom_array *v, bool right,
                                     loom_array *sorter)
{
    static const char fn[] = "loom_searchsorted";
    if (!a || !v)
        return NULL;
    if (!sorter)
        return search(fn, a, v, right);
    if (check_1d(fn, a) || same_device(fn, a, sorter))
        return NULL;
    if (!loom__is_int((loom_dtype)sorter->dtype)) {
        loom__error(LOOM_ERR_INVALID, fn, "sorter must only contain integers");
        return NULL;
    }
    if (sorter->ndim != 1 || sorter->size != a->size) {
        loom__error(LOOM_ERR_INVALID, fn, "sorter.size must equal a.size");
        return NULL;
    }
    /* a[sorter], written once by a gather; a sorter entry out of range fails when the result
     * is read (NumPy: "Sorter index out of range."). */
    loom_scope_begin();
    loom_array *sorted = a->size ? loom__take(fn, a, sorter, 0, LOOM_MODE_RAISE,
                                              LOOM_REPORT_SEARCHSORTED, 0, a->size)
                                 : a;
    return loom__scope_return(sorted ? search(fn, sorted, v, right) : NULL);
}

/* NumPy's _monotonicity of bins (on the values as float64): 1 increasing (or
 * all equal), -1 decreasing, 0 neither. */
static int monotonicity(const double *b, int64_t n)
{
    if (n == 0)
        return 1;
    double last = b[0];
    int64_t i = 1;
    while (i < n && b[i] == last)
        i++;
    if (i == n)
        return 1;
    double next = b[i];
    bool up = last < next;
    for (i++; i < n; i++) {
        last = next;
        next = b[i];
        if (up ? last > next : last < next)
            return 0;
    }
    return up ? 1 : -1;
}

/* bins' monotonicity, read on the host (the bins' values decide which search to record). */
static int bins_monotonicity(const char *fn, loom_array *bins, int *mono)
{
    int64_t n = bins->size;
    if (n == 0) {
        *mono = 1;
        return 0;
    }
    double *vals = loom__malloc((size_t)n * sizeof *vals);
    if (!vals) {
        loom__error(LOOM_ERR_OOM, fn, "out of host memory reading the bins");
        return -1;
    }
    loom_scope_begin();
    loom_array *f64 = cast_to(fn, bins, LOOM_FLOAT64);
    int rc = f64 ? loom_get(f64, vals, (size_t)n * sizeof *vals) : -1;
    loom_scope_end();
    if (rc == 0)
        *mono = monotonicity(vals, n);
    free(vals);
    return rc ? -1 : 0;
}

loom_array *loom_digitize(loom_array *x, loom_array *bins, bool right)
{
    static const char fn[] = "loom_digitize";
    if (!x || !bins)
        return NULL;
    if (loom__is_complex((loom_dtype)x->dtype)) {
        loom__error(LOOM_ERR_INVALID, fn, "x may not be complex");
        return NULL;
    }
    if (loom__is_complex((loom_dtype)bins->dtype)) {
        loom__error(LOOM_ERR_INVALID, fn,
                    "Cannot cast array data from dtype('%s') to dtype('float64') according to "
                    "the rule 'safe'",
                    loom_dtype_name((loom_dtype)bins->dtype));
        return NULL;
    }
    if (check_1d(fn, bins) || same_device(fn, x, bins))
        return NULL;
    int mono = 0;
    if (bins_monotonicity(fn, bins, &mono))
        return NULL;
    if (mono == 0) {
        loom__error(LOOM_ERR_INVALID, fn, "bins must be monotonically increasing or decreasing");
        return NULL;
    }
    /* NumPy swaps the side: digitize's right=False counts the bins <= x */
    if (mono == 1)
        return search(fn, bins, x, !right);
    loom_scope_begin();
    loom_array *rev = loom_flip(bins, NULL, 0);
    loom_array *pos = rev ? search(fn, rev, x, !right) : NULL;
    loom_array *r = pos ? loom_subtract(loom_scalar_int(bins->size), pos) : NULL;
    return loom__scope_return(r);
}
