/* unique and NumPy 2's unique_values / unique_counts / unique_inverse / unique_all, flattened
 * (axis=None), by sorting: s = sort(x) (argsort and a gather when indices or the inverse are
 * asked for), the first element of each run of equal keys flagged, their positions selected
 * (graph/select.c: the count of uniques is read back), and every result a gather or a
 * difference of those positions. Along an axis the same over the slices as rows, lexsorted. */
#include "reduce.h"
#include "select.h"
#include "sort.h"
#include "ufunc.h"
#include "views.h"

#include <string.h>

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
    loom_dtype dt = (loom_dtype)s->dtype;
    if (equal_nan && (loom__is_float(dt) || loom__is_complex(dt)))
        d = loom_logical_and(d, loom_logical_not(loom_logical_and(loom_isnan(cur),
                                                                   loom_isnan(prev))));
    loom_array *first = loom_ones(1, (const int64_t[]){1}, LOOM_BOOL);
    return loom_concatenate((loom_array *[]){first, d}, 2, 0);
}

/* After the values in r[0]: index, inverse (of ndim/shape) and counts as asked, for the runs of
 * n sorted keys that perm sorted, starting where starts is set, at positions pos. Returns the
 * number of results, or -1. */
static int run_results(const char *fn, loom_array *perm, loom_array *starts, loom_array *pos,
                       unique_want want, int ndim, const int64_t *shape, loom_array **r)
{
    int64_t n = starts->size, u = pos->size;
    int nr = 1;
    if (want.index)
        r[nr++] = loom__take_at(fn, perm, pos);
    if (want.inverse) {
        /* the rank of each sorted element among the uniques, put back in input order */
        loom_array *rank = loom_subtract(loom_cumsum(starts, 0), loom_scalar_int(1));
        loom_array *inv = loom__take_at(fn, rank, loom_argsort(perm, 0));
        r[nr++] = inv ? loom__reshape(fn, "reshape", inv, ndim, shape) : NULL;
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

/* The results of no element: values of shape vshape, empty index and counts, inverse of
 * ndim/shape. */
static int empty_results(loom_dtype dt, const int64_t *vshape, int vndim, unique_want want,
                         int ndim, const int64_t *shape, loom_array **r)
{
    int nr = 0;
    r[nr++] = loom_empty(vndim, vshape, dt);
    if (want.index)
        r[nr++] = loom_empty(1, (const int64_t[]){0}, LOOM_INT64);
    if (want.inverse)
        r[nr++] = loom_empty(ndim, shape, LOOM_INT64);
    if (want.counts)
        r[nr++] = loom_empty(1, (const int64_t[]){0}, LOOM_INT64);
    for (int i = 0; i < nr; i++)
        if (!r[i])
            return -1;
    return nr;
}

/* Results in NumPy's order (values, index, inverse, counts) into r; how many, or -1. */
static int unique_in_scope(const char *fn, loom_array *a, unique_want want, loom_array **r)
{
    loom_array *x = loom__reshape(fn, "ravel", a, 1, (const int64_t[]){-1});
    if (!x)
        return -1;
    if (x->size == 0)
        return empty_results((loom_dtype)a->dtype, (const int64_t[]){0}, 1, want, a->ndim,
                             a->shape, r);
    loom_array *perm = want.index || want.inverse ? loom_argsort(x, 0) : NULL;
    loom_array *s = perm ? loom__take_at(fn, x, perm) : loom_sort(x, 0);
    loom_array *starts = s ? loom__run_starts(s, want.equal_nan) : NULL;
    loom_array *sorted[2] = {s, perm};
    loom_array *pos = starts ? loom__mask_positions_keep(fn, starts, sorted, perm ? 2 : 1) : NULL;
    if (!pos)
        return -1;
    r[0] = loom__take_at(fn, s, pos);
    bool values_only = !want.index && !want.inverse && !want.counts;
    if (r[0] && values_only && want.equal_nan && loom__is_complex((loom_dtype)x->dtype)) {
        /* NumPy's values-only unique is a hash table that keeps the first NaN of the input for
         * the NaN run; the sort puts another first (1+nanj before nan+1j) */
        loom_array *first = loom__take_at(fn, x, loom_argmax(loom_isnan(x), LOOM_AXIS_NONE, false));
        r[0] = loom_where(loom_isnan(r[0]), first, r[0]);
    }
    return run_results(fn, perm, starts, pos, want, a->ndim, a->shape, r);
}

/* np.unique(a, axis=ax) for a of ndim >= 2: the slices along ax as rows (n, m), sorted
 * lexicographically as NumPy sorts them (a structured row of m fields: each field ordered as
 * sort orders the dtype, NaN last and equal to NaN) by a lexsort of the columns, and a row
 * starting a run when any field differs from the row before under != (so a row holding a NaN
 * is never equal to another, and equal_nan does not apply, as in NumPy). */
static int unique_axis_in_scope(const char *fn, loom_array *a, int ax, unique_want want,
                                loom_array **r)
{
    int64_t n = a->shape[ax], m = n ? a->size / n : 0;
    int64_t vshape[LOOM_MAXDIMS];
    memcpy(vshape, a->shape, (size_t)a->ndim * sizeof *vshape);
    if (n == 0)
        return empty_results((loom_dtype)a->dtype, vshape, a->ndim, want, 1,
                             (const int64_t[]){0}, r);
    loom_array *rows = loom__reshape(fn, "reshape", loom_moveaxis(a, ax, 0), 2,
                                     (const int64_t[]){n, m});
    if (!rows)
        return -1;
    if (m == 0) { /* every row is empty, so all are equal: one unique */
        vshape[ax] = 1;
        r[0] = loom_empty(a->ndim, vshape, (loom_dtype)a->dtype);
        loom_array *starts = loom_concatenate(
            (loom_array *[]){loom_ones(1, (const int64_t[]){1}, LOOM_BOOL),
                             loom_zeros(1, (const int64_t[]){n - 1}, LOOM_BOOL)}, 2, 0);
        loom_array *perm = loom_arange(0, (double)n, 1, LOOM_INT64);
        loom_array *pos = loom_zeros(1, (const int64_t[]){1}, LOOM_INT64);
        return r[0] && starts ? run_results(fn, perm, starts, pos, want, 1, &n, r) : -1;
    }
    loom_array *perm = loom__lexsort_rows(fn, rows);
    loom_array *s = perm ? loom__take_at(fn, rows, perm) : NULL;
    loom_array *starts = NULL;
    if (s) {
        loom_array *differ = loom_not_equal(loom_slice(s, 0, 1, n, 1), loom_slice(s, 0, 0, n - 1, 1));
        starts = loom_concatenate((loom_array *[]){loom_ones(1, (const int64_t[]){1}, LOOM_BOOL),
                                                   loom_any(differ, (const int[]){1}, 1, false)},
                                  2, 0);
    }
    loom_array *sorted[2] = {s, perm};
    loom_array *pos = starts ? loom__mask_positions_keep(fn, starts, sorted, 2) : NULL;
    if (!pos)
        return -1;
    vshape[ax] = pos->size;
    loom_array *v = loom__take_at(fn, s, pos);
    int64_t moved[LOOM_MAXDIMS];
    moved[0] = pos->size;
    for (int d = 0, k = 1; d < a->ndim; d++)
        if (d != ax)
            moved[k++] = a->shape[d];
    v = v ? loom__reshape(fn, "reshape", v, a->ndim, moved) : NULL;
    r[0] = v ? loom_moveaxis(v, 0, ax) : NULL;
    return r[0] ? run_results(fn, perm, starts, pos, want, 1, &n, r) : -1;
}

loom_array *loom__unique_values(const char *fn, loom_array *a, loom_array **index)
{
    if (!a)
        return NULL;
    loom_array *r[2];
    unique_want want = {.index = index != NULL, .equal_nan = true};
    if (unique_in_scope(fn, a, want, r) < 0)
        return NULL;
    if (index)
        *index = r[1];
    return r[0];
}

/* The public shape of every unique function: results kept for the caller on success. ax is
 * the axis, or -1 for the flattened array. */
static int unique(const char *fn, loom_array *a, int ax, unique_want want, loom_array **out,
                  int max_out)
{
    int rc = loom__results_begin(fn, &a, 1, out, max_out,
                                 1 + want.index + want.inverse + want.counts);
    if (rc)
        return rc;
    loom_scope_begin();
    loom_array *r[4];
    int nr = ax < 0 ? unique_in_scope(fn, a, want, r) : unique_axis_in_scope(fn, a, ax, want, r);
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
    int ax = -1;
    if (a && axis != LOOM_AXIS_NONE && loom__normalize_axis(fn, NULL, axis, a->ndim, &ax)) {
        for (int i = 0; out && i < max_out; i++)
            out[i] = NULL;
        return loom_last_error_code();
    }
    if (a && a->ndim == 1) /* NumPy: a 1-D array along its axis is the flattened case */
        ax = -1;
    unique_want want = {return_index, return_inverse, return_counts, equal_nan};
    return unique(fn, a, ax, want, out, max_out);
}

loom_array *loom_unique_values(loom_array *a)
{
    loom_array *v = NULL;
    if (!a)
        return NULL;
    unique("loom_unique_values", a, -1, (unique_want){.equal_nan = false}, &v, 1);
    return v;
}

int loom_unique_counts(loom_array *a, loom_array **out, int max_out)
{
    return unique("loom_unique_counts", a, -1, (unique_want){.counts = true}, out, max_out);
}

int loom_unique_inverse(loom_array *a, loom_array **out, int max_out)
{
    return unique("loom_unique_inverse", a, -1, (unique_want){.inverse = true}, out, max_out);
}

int loom_unique_all(loom_array *a, loom_array **out, int max_out)
{
    unique_want all = {.index = true, .inverse = true, .counts = true};
    return unique("loom_unique_all", a, -1, all, out, max_out);
}
