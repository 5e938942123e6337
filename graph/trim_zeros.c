/* np.trim_zeros: a's smallest box (along every axis, or one) holding all its nonzero elements,
 * leading and/or trailing zeros cut. The box depends on the values, so it is the
 * data-dependent-shape model of docs/unique.md: for each trimmed axis, whether each index holds
 * a nonzero element (an `any` over the other axes), all read back at once; the result is a
 * view (slices). */
#include "reduce.h"
#include "ufunc.h"
#include "views.h"

#include <stdlib.h>
#include <string.h>

static loom_array *trim_zeros(const char *fn, loom_array *a, const char *trim, int axis)
{
    if (!a)
        return NULL;
    const char *t = trim ? trim : "fb";
    if (t[strspn(t, "fbFB")]) {
        loom__error(LOOM_ERR_INVALID, fn, "unexpected character(s) in `trim`: '%s'", t);
        return NULL;
    }
    bool front = strpbrk(t, "fF") != NULL, back = strpbrk(t, "bB") != NULL;
    int nd = a->ndim, first = 0, last = nd;
    if (axis != LOOM_AXIS_NONE) {
        if (loom__normalize_axis(fn, "axis", axis, nd, &first))
            return NULL;
        last = first + 1;
    }
    if (nd == 0)
        return loom__adopt(loom_retain(a)); /* NumPy returns a 0-d array as it is */
    loom_scope_begin();
    if (a->size == 0) { /* no nonzero element: every trimmed axis empties, as NumPy */
        loom_array *r = a;
        for (int d = first; r && d < last; d++)
            r = loom_slice(r, d, 0, 0, 1);
        return loom__scope_return(r);
    }
    /* per trimmed axis: which of its indices hold a nonzero element, end to end */
    loom_array *nz = loom__cast(fn, a, LOOM_BOOL), *parts[LOOM_MAXDIMS];
    int64_t total = 0;
    for (int d = first; nz && d < last; d++) {
        int others[LOOM_MAXDIMS], k = 0;
        for (int j = 0; j < nd; j++)
            if (j != d)
                others[k++] = j;
        parts[d - first] = k ? loom_any(nz, others, k, false) : nz;
        total += a->shape[d];
    }
    loom_array *flags = nz ? loom_concatenate(parts, last - first, 0) : NULL;
    bool *host = loom__malloc((size_t)total);
    if (!flags || !host || loom__read_data_dependent(fn, flags, NULL, 0, host, (size_t)total)) {
        if (flags && !host)
            loom__error(LOOM_ERR_OOM, fn, "out of host memory");
        free(host);
        return loom__scope_return(NULL);
    }
    loom_array *r = a;
    const bool *f = host;
    for (int d = first; r && d < last; d++) {
        int64_t n = a->shape[d], lo = 0, hi = n;
        while (front && lo < n && !f[lo])
            lo++;
        while (back && hi > 0 && !f[hi - 1])
            hi--;
        if (hi < lo) /* all zero: empty either way */
            hi = lo;
        r = loom_slice(r, d, lo, hi, 1);
        f += n;
    }
    free(host);
    return loom__scope_return(r);
}

loom_array *loom_trim_zeros(loom_array *a, const char *trim)
{
    return trim_zeros("loom_trim_zeros", a, trim, LOOM_AXIS_NONE);
}

loom_array *loom_trim_zeros_axis(loom_array *a, const char *trim, int axis)
{
    return trim_zeros("loom_trim_zeros_axis", a, trim, axis);
}
