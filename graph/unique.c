/* unique and NumPy 2's unique_values / unique_counts / unique_inverse / unique_all, flattened
 * (axis=None), by sorting: s = sort(x) (argsort and a gather when indices or the inverse are
 * asked for), the first element of each run of equal keys flagged, their positions selected
 * (graph/select.c: the count of uniques is read back), and every result a gather or a
 * difference of those positions. */
#include "reduce.h"
#include "select.h"
#include "ufunc.h"
#include "views.h"

typedef struct unique_want {
    bool index, inverse, counts, equal_nan;
} unique_want;

/* Whether each element of the sorted s starts a run of equal keys: the first, and every one
 * unequal to the one before (NaNs equal each other when equal_nan: sort puts them last). */
loom_array *loom__run_starts(loom_array *s, bool equal_nan)
{
    int64_t n = s->shape[0];
    loom_array *cur = loom_slice(s, 0, 1, n, 1), *prev = loom_slice(s, 0, 0, n - 1, 1);
    loom_array *d = loom_not_equal(cur, prev);
    if (equal_nan && loom__is_float((loom_dtype)s->dtype))
        d = loom_logical_and(d, loom_logical_not(loom_logical_and(loom_isnan(cur),
                                                                   loom_isnan(prev))));
    loom_array *first = loom_ones(1, (const int64_t[]){1}, LOOM_BOOL);
    return loom_concatenate((loom_array *[]){first, d}, 2, 0);
}

/* Results in NumPy's order (values, index, inverse, counts) into r; how many, or -1. */
static int unique_in_scope(const char *fn, loom_array *a, unique_want want, loom_array **r)
{
    loom_array *x = loom__reshape(fn, "ravel", a, 1, (const int64_t[]){-1});
    if (!x)
        return -1;
    int64_t n = x->size;
    int nr = 0;
    if (n == 0) {
        r[nr++] = loom_empty(1, (const int64_t[]){0}, (loom_dtype)a->dtype);
        if (want.index)
            r[nr++] = loom_empty(1, (const int64_t[]){0}, LOOM_INT64);
        if (want.inverse)
            r[nr++] = loom_empty(a->ndim, a->shape, LOOM_INT64);
        if (want.counts)
            r[nr++] = loom_empty(1, (const int64_t[]){0}, LOOM_INT64);
        return nr;
    }
    loom_array *perm = want.index || want.inverse ? loom_argsort(x, 0) : NULL;
    loom_array *s = perm ? loom__take_at(fn, x, perm) : loom_sort(x, 0);
    loom_array *starts = s ? loom__run_starts(s, want.equal_nan) : NULL;
    loom_array *sorted[2] = {s, perm};
    loom_array *pos = starts ? loom__mask_positions_keep(fn, starts, sorted, perm ? 2 : 1) : NULL;
    if (!pos)
        return -1;
    int64_t u = pos->size;
    r[nr++] = loom__take_at(fn, s, pos);
    if (want.index)
        r[nr++] = loom__take_at(fn, perm, pos);
    if (want.inverse) {
        /* the rank of each sorted element among the uniques, put back in input order */
        loom_array *rank = loom_subtract(loom_cumsum(starts, 0), loom_scalar_int(1));
        loom_array *inv = loom__take_at(fn, rank, loom_argsort(perm, 0));
        r[nr++] = inv ? loom__reshape(fn, "reshape", inv, a->ndim, a->shape) : NULL;
    }
    if (want.counts) {
        loom_array *next = loom_concatenate(
            (loom_array *[]){loom_slice(pos, 0, 1, u, 1),
                             loom_full(1, (const int64_t[]){1}, (double)n, LOOM_INT64)},
            2, 0);
        r[nr++] = loom_subtract(next, pos);
    }
    for (int i = 0; i < nr; i++)
        if (!r[i])
            return -1;
    return nr;
}

loom_array *loom__unique_values(const char *fn, loom_array *a, loom_array **index)
{
    if (!a)
        return NULL;
    if (loom__is_complex((loom_dtype)a->dtype)) {
        loom__error(LOOM_ERR_UNSUPPORTED, fn, "unique of complex arrays is not supported yet");
        return NULL;
    }
    loom_array *r[2];
    unique_want want = {.index = index != NULL, .equal_nan = true};
    if (unique_in_scope(fn, a, want, r) < 0)
        return NULL;
    if (index)
        *index = r[1];
    return r[0];
}

/* The public shape of every unique function: results kept for the caller on success. */
static int unique(const char *fn, loom_array *a, unique_want want, loom_array **out, int max_out)
{
    int rc = loom__results_begin(fn, &a, 1, out, max_out,
                                 1 + want.index + want.inverse + want.counts);
    if (rc)
        return rc;
    if (loom__is_complex((loom_dtype)a->dtype)) {
        loom__error(LOOM_ERR_UNSUPPORTED, fn, "unique of complex arrays is not supported yet");
        return LOOM_ERR_UNSUPPORTED;
    }
    loom_scope_begin();
    loom_array *r[4];
    int nr = unique_in_scope(fn, a, want, r);
    for (int i = 0; i < nr; i++)
        out[i] = loom_keep(r[i]);
    rc = nr < 0 ? loom_last_error_code() : nr;
    loom_scope_end();
    return rc ? rc : LOOM_ERR_INVALID;
}

int loom_unique(loom_array *a, bool return_index, bool return_inverse, bool return_counts,
                int axis, bool equal_nan, loom_array **out, int max_out)
{
    static const char fn[] = "loom_unique";
    if (a && axis != LOOM_AXIS_NONE) {
        int ax;
        if (loom__normalize_axis(fn, NULL, axis, a->ndim, &ax) == 0)
            loom__error(LOOM_ERR_UNSUPPORTED, fn, "unique along an axis is not supported yet");
        for (int i = 0; out && i < max_out; i++)
            out[i] = NULL;
        return loom_last_error_code();
    }
    unique_want want = {return_index, return_inverse, return_counts, equal_nan};
    return unique(fn, a, want, out, max_out);
}

loom_array *loom_unique_values(loom_array *a)
{
    loom_array *v = NULL;
    if (!a)
        return NULL;
    unique("loom_unique_values", a, (unique_want){.equal_nan = false}, &v, 1);
    return v;
}

int loom_unique_counts(loom_array *a, loom_array **out, int max_out)
{
    return unique("loom_unique_counts", a, (unique_want){.counts = true}, out, max_out);
}

int loom_unique_inverse(loom_array *a, loom_array **out, int max_out)
{
    return unique("loom_unique_inverse", a, (unique_want){.inverse = true}, out, max_out);
}

int loom_unique_all(loom_array *a, loom_array **out, int max_out)
{
    unique_want all = {.index = true, .inverse = true, .counts = true};
    return unique("loom_unique_all", a, all, out, max_out);
}
