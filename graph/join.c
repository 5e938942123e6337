/* Joining arrays: concatenate and the routines built on it (stack, hstack, vstack, dstack,
 * column_stack, append, block). Each result is one CONCAT node, which the fuser computes
 * with one kernel writing the result once (docs/indexing.md). */
#include "index.h"
#include "reduce.h"
#include "ufunc.h"
#include "views.h"

#include <stdlib.h>

/* Sources one CONCAT node reads; more are joined in a tree of CONCAT nodes, since every
 * element of the kernel chooses its source by a chain of comparisons. */
#define MAX_SOURCES 32

/* Records CONCAT nodes joining in[0..n) (checked: the same ndim, equal extents off axis) in
 * dtype dt. Empty inputs are dropped, nested concatenations along the same axis are spliced
 * (unless splice is false: the groups of a tree), and one input left is the result itself
 * (cast). */
static loom_array *concat_checked(const char *fn, loom_array *const *in, int n, int axis,
                                  loom_dtype dt, bool splice)
{
    int64_t shape[LOOM_MAXDIMS];
    int nd = in[0]->ndim;
    for (int d = 0; d < nd; d++)
        shape[d] = in[0]->shape[d];
    shape[axis] = 0;
    int count = 0;
    for (int i = 0; i < n; i++) {
        shape[axis] += in[i]->shape[axis];
        const loom_array *a = in[i];
        bool nested = splice && a->op == LOOM_OP_CONCAT && a->ninputs &&
                      a->dtype == (int8_t)dt && a->param.join.axis == axis;
        count += a->size == 0 ? 0 : nested ? a->ninputs : 1;
    }
    int64_t size = 1;
    for (int d = 0; d < nd; d++)
        size *= shape[d];
    if (size == 0)
        return loom_empty(nd, shape, dt);
    loom_array **src = loom__malloc((size_t)count * sizeof *src);
    if (!src) {
        loom__error(LOOM_ERR_OOM, fn, "out of host memory");
        return NULL;
    }
    int m = 0;
    for (int i = 0; i < n; i++) {
        loom_array *a = in[i];
        if (a->size == 0)
            continue;
        if (splice && a->op == LOOM_OP_CONCAT && a->ninputs && a->dtype == (int8_t)dt &&
            a->param.join.axis == axis)
            for (int k = 0; k < a->ninputs; k++)
                src[m++] = a->inputs[k];
        else
            src[m++] = loom_astype(a, dt);
    }
    loom_array *r = NULL;
    if (m == 1) {
        r = loom__adopt(loom_retain(src[0]));
    } else if (m > MAX_SOURCES) {
        /* groups of MAX_SOURCES, each written once, then joined */
        int ng = (m + MAX_SOURCES - 1) / MAX_SOURCES;
        loom_array **part = loom__malloc((size_t)ng * sizeof *part);
        if (part) {
            for (int g = 0; g < ng; g++) {
                int lo = g * MAX_SOURCES, cnt = m - lo < MAX_SOURCES ? m - lo : MAX_SOURCES;
                part[g] = concat_checked(fn, src + lo, cnt, axis, dt, false);
            }
            bool ok = true;
            for (int g = 0; g < ng; g++)
                ok = ok && part[g];
            r = ok ? concat_checked(fn, part, ng, axis, dt, false) : NULL;
            free(part);
        } else {
            loom__error(LOOM_ERR_OOM, fn, "out of host memory");
        }
    } else {
        bool ok = true;
        for (int i = 0; i < m; i++)
            ok = ok && src[i];
        r = ok ? loom__node_alloc_n(fn, LOOM_OP_CONCAT, dt, nd, shape, m) : NULL;
        if (r) {
            r->device = src[0]->device;
            r->param.join.axis = axis;
            for (int i = 0; i < m; i++)
                loom__node_set_input(r, i, src[i]);
            r = loom__node_finish(r);
        }
    }
    free(src);
    return r;
}

/* The checks of np.concatenate for arrays of one ndim along a normalised axis. */
static int check_joinable(const char *fn, loom_array *const *in, int n, int axis)
{
    for (int i = 1; i < n; i++) {
        if (in[i]->ndim != in[0]->ndim) {
            loom__error(LOOM_ERR_INVALID, fn,
                        "all the input arrays must have same number of dimensions, but the "
                        "array at index 0 has %d dimension(s) and the array at index %d has %d "
                        "dimension(s)",
                        in[0]->ndim, i, in[i]->ndim);
            return -1;
        }
        for (int d = 0; d < in[0]->ndim; d++) {
            if (d != axis && in[i]->shape[d] != in[0]->shape[d]) {
                loom__error(LOOM_ERR_INVALID, fn,
                            "all the input array dimensions except for the concatenation axis "
                            "must match exactly, but along dimension %d, the array at index 0 "
                            "has size %lld and the array at index %d has size %lld",
                            d, (long long)in[0]->shape[d], i, (long long)in[i]->shape[d]);
                return -1;
            }
        }
        if (in[i]->device != in[0]->device) {
            loom__error(LOOM_ERR_INVALID, fn, "arrays are on different devices (%s and %s)",
                        loom__device_label(in[0]->device), loom__device_label(in[i]->device));
            return -1;
        }
    }
    return 0;
}

/* A list of n arrays to join: valid, no NULL entry, not empty (else the error `empty`). */
static int check_list(const char *fn, loom_array *const *arrays, int n, const char *empty)
{
    if (n < 0 || (n > 0 && !arrays)) {
        loom__error(LOOM_ERR_INVALID, fn, "invalid array list (%d arrays)", n);
        return -1;
    }
    if (loom__check_input_list(fn, arrays, n))
        return -1;
    if (n == 0) {
        loom__error(LOOM_ERR_INVALID, fn, "%s", empty);
        return -1;
    }
    return 0;
}

static loom_array *concatenate(const char *fn, loom_array *const *arrays, int n, int axis)
{
    if (check_list(fn, arrays, n, "need at least one array to concatenate"))
        return NULL;
    loom_dtype dt = loom_result_type_arrays(arrays, n);
    if (dt == LOOM_NO_DTYPE)
        return NULL;
    loom_scope_begin();
    loom_array **in = loom__malloc((size_t)n * sizeof *in);
    loom_array *r = NULL;
    int ax = 0;
    if (!in) {
        loom__error(LOOM_ERR_OOM, fn, "out of host memory");
        goto done;
    }
    for (int i = 0; i < n; i++) {
        in[i] = arrays[i];
        if (axis == LOOM_AXIS_NONE) {
            in[i] = loom__reshape(fn, "ravel", arrays[i], 1, (int64_t[]){-1});
            if (!in[i])
                goto done;
        }
    }
    /* NumPy looks at the first array's ndim; a later 0-d one is an ndim mismatch */
    if (axis != LOOM_AXIS_NONE && in[0]->ndim == 0) {
        loom__error(LOOM_ERR_INVALID, fn, "zero-dimensional arrays cannot be concatenated");
        goto done;
    }
    if (axis != LOOM_AXIS_NONE && loom__normalize_axis(fn, NULL, axis, in[0]->ndim, &ax))
        goto done;
    if (check_joinable(fn, in, n, ax))
        goto done;
    r = concat_checked(fn, in, n, ax, dt, true);
done:
    free(in);
    return loom__scope_return(r);
}

loom_array *loom_concatenate(loom_array *const *arrays, int n, int axis)
{
    return concatenate("loom_concatenate", arrays, n, axis);
}

/* f applied to each of arrays[0..n), then concatenated along axis (axis_of_first: when
 * >= 0, the axis is 0 if the first result is 1-D, else this, as hstack does). */
static loom_array *join_each(const char *fn, loom_array *const *arrays, int n,
                             loom_array *(*f)(const char *, loom_array *), int axis,
                             int axis_of_first)
{
    if (check_list(fn, arrays, n, "need at least one array to concatenate"))
        return NULL;
    loom_scope_begin();
    loom_array **in = loom__malloc((size_t)n * sizeof *in);
    loom_array *r = NULL;
    if (!in) {
        loom__error(LOOM_ERR_OOM, fn, "out of host memory");
        return loom__scope_return(NULL);
    }
    bool ok = true;
    for (int i = 0; i < n && ok; i++)
        ok = (in[i] = f(fn, arrays[i])) != NULL;
    if (ok) {
        if (axis_of_first >= 0)
            axis = in[0]->ndim == 1 ? 0 : axis_of_first;
        r = concatenate(fn, in, n, axis);
    }
    free(in);
    return loom__scope_return(r);
}

/* a with extent-1 axes added until it has at least nd dimensions, placed as NumPy's
 * atleast_Nd places them: 0-d -> (1,)*nd; (N,) -> (1,N) or (1,N,1); (M,N) -> (M,N,1). */
static loom_array *at_least(const char *fn, loom_array *a, int nd)
{
    if (!a)
        return NULL;
    if (a->ndim >= nd)
        return loom__adopt(loom_retain(a));
    int64_t shape[3] = {1, 1, 1};
    if (a->ndim == 1)
        shape[1] = a->shape[0];
    else if (a->ndim == 2)
        shape[0] = a->shape[0], shape[1] = a->shape[1];
    if (nd == 2 && a->ndim == 1)
        shape[0] = 1;
    return loom__reshape(fn, "atleast_nd", a, nd, shape);
}

static loom_array *at_least_1d(const char *fn, loom_array *a) { return at_least(fn, a, 1); }
static loom_array *at_least_2d(const char *fn, loom_array *a) { return at_least(fn, a, 2); }
static loom_array *at_least_3d(const char *fn, loom_array *a) { return at_least(fn, a, 3); }

loom_array *loom_atleast_1d(loom_array *a) { return at_least("loom_atleast_1d", a, 1); }
loom_array *loom_atleast_2d(loom_array *a) { return at_least("loom_atleast_2d", a, 2); }
loom_array *loom_atleast_3d(loom_array *a) { return at_least("loom_atleast_3d", a, 3); }

loom_array *loom_hstack(loom_array *const *arrays, int n)
{
    return join_each("loom_hstack", arrays, n, at_least_1d, 1, 1);
}

loom_array *loom_vstack(loom_array *const *arrays, int n)
{
    return join_each("loom_vstack", arrays, n, at_least_2d, 0, -1);
}

loom_array *loom_dstack(loom_array *const *arrays, int n)
{
    return join_each("loom_dstack", arrays, n, at_least_3d, 2, -1);
}

/* 1-D and 0-d inputs become columns; others stay as they are. */
static loom_array *as_column(const char *fn, loom_array *a)
{
    if (a->ndim >= 2)
        return loom__adopt(loom_retain(a));
    return loom__reshape(fn, "column", a, 2, (int64_t[]){a->size, 1});
}

loom_array *loom_column_stack(loom_array *const *arrays, int n)
{
    return join_each("loom_column_stack", arrays, n, as_column, 1, -1);
}

loom_array *loom_stack(loom_array *const *arrays, int n, int axis)
{
    static const char fn[] = "loom_stack";
    if (check_list(fn, arrays, n, "need at least one array to stack"))
        return NULL;
    for (int i = 1; i < n; i++) {
        bool same = arrays[i]->ndim == arrays[0]->ndim;
        for (int d = 0; same && d < arrays[0]->ndim; d++)
            same = arrays[i]->shape[d] == arrays[0]->shape[d];
        if (!same) {
            loom__error(LOOM_ERR_INVALID, fn, "all input arrays must have the same shape");
            return NULL;
        }
    }
    int ax;
    if (loom__normalize_axis(fn, NULL, axis, arrays[0]->ndim + 1, &ax))
        return NULL;
    loom_scope_begin();
    loom_array **in = loom__malloc((size_t)n * sizeof *in);
    loom_array *r = NULL;
    if (in) {
        bool ok = true;
        for (int i = 0; i < n && ok; i++)
            ok = (in[i] = loom__new_axis(fn, arrays[i], ax)) != NULL;
        r = ok ? concatenate(fn, in, n, ax) : NULL;
        free(in);
    } else {
        loom__error(LOOM_ERR_OOM, fn, "out of host memory");
    }
    return loom__scope_return(r);
}

loom_array *loom_append(loom_array *arr, loom_array *values, int axis)
{
    static const char fn[] = "loom_append";
    if (!arr || !values)
        return NULL;
    return concatenate(fn, (loom_array *[]){arr, values}, 2, axis);
}

loom_array *loom_block(loom_array *const *arrays, int nrows, int ncols)
{
    static const char fn[] = "loom_block";
    if (nrows <= 0 || ncols <= 0 || !arrays) {
        loom__error(LOOM_ERR_INVALID, fn, "a block needs at least one row and one column, not %dx%d",
                    nrows, ncols);
        return NULL;
    }
    if (loom__check_input_list(fn, arrays, nrows * ncols))
        return NULL;
    /* np.block: every block is raised to the deepest ndim (at least 2 for a nested list),
     * rows join along the last axis, then the rows along the one before it. */
    int nd = 2;
    for (int i = 0; i < nrows * ncols; i++)
        nd = arrays[i]->ndim > nd ? arrays[i]->ndim : nd;
    loom_scope_begin();
    loom_array **rows = loom__malloc((size_t)nrows * sizeof *rows);
    loom_array **cells = loom__malloc((size_t)ncols * sizeof *cells);
    loom_array *r = NULL;
    bool ok = rows && cells;
    for (int i = 0; ok && i < nrows; i++) {
        for (int j = 0; ok && j < ncols; j++) {
            loom_array *a = arrays[i * ncols + j];
            int64_t shape[LOOM_MAXDIMS];
            for (int d = 0; d < nd; d++)
                shape[d] = d < nd - a->ndim ? 1 : a->shape[d - (nd - a->ndim)];
            ok = (cells[j] = loom__reshape(fn, "block", a, nd, shape)) != NULL;
        }
        ok = ok && (rows[i] = concatenate(fn, cells, ncols, nd - 1)) != NULL;
    }
    if (!rows || !cells)
        loom__error(LOOM_ERR_OOM, fn, "out of host memory");
    if (ok)
        r = concatenate(fn, rows, nrows, nd - 2);
    free(rows);
    free(cells);
    return loom__scope_return(r);
}

/* np.insert's positions (a sequence): negative ones count from the end, then each moves past
 * the values inserted before it in sorted order (a stable sort), as NumPy computes them. Writes
 * where each of the n values lands among n + len result positions, and where each old element
 * lands; -1 with NumPy's error when a position falls outside. */
static int insert_positions(const char *fn, const int64_t *positions, int n, int64_t len, int ax,
                            int64_t *at, int64_t *old_at)
{
    int64_t total = len + n;
    int *order = loom__malloc((size_t)(n ? n : 1) * sizeof *order);
    unsigned char *taken = loom__calloc((size_t)(total ? total : 1), 1);
    if (!order || !taken) {
        free(order);
        free(taken);
        loom__error(LOOM_ERR_OOM, fn, "out of host memory");
        return -1;
    }
    for (int i = 0; i < n; i++) {
        at[i] = positions[i] < 0 ? positions[i] + len : positions[i];
        order[i] = i;
    }
    for (int i = 1; i < n; i++) /* stable insertion sort of order by at */
        for (int j = i; j > 0 && at[order[j - 1]] > at[order[j]]; j--) {
            int t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    for (int i = 0; i < n; i++)
        at[order[i]] += i;
    int rc = 0;
    for (int i = 0; i < n && rc == 0; i++) {
        if (at[i] < -total || at[i] >= total) {
            loom__error(LOOM_ERR_INVALID, fn, "index %lld is out of bounds for axis %d with size %lld",
                        (long long)at[i], ax, (long long)total);
            rc = -1;
        } else {
            at[i] = at[i] < 0 ? at[i] + total : at[i];
            taken[at[i]] = 1;
        }
    }
    int64_t k = 0;
    for (int64_t p = 0; rc == 0 && p < total; p++)
        if (!taken[p] && k < len)
            old_at[k++] = p;
    if (rc == 0 && k != len) {
        loom__error(LOOM_ERR_INVALID, fn, "insert positions collide: %lld old elements for %lld places",
                    (long long)len, (long long)k);
        rc = -1;
    }
    free(order);
    free(taken);
    return rc;
}

loom_array *loom_insert(loom_array *a, const int64_t *positions, int n, loom_array *values, int axis)
{
    static const char fn[] = "loom_insert";
    if (!a || !values)
        return NULL;
    if (n < 0 || (n > 0 && !positions)) {
        loom__error(LOOM_ERR_INVALID, fn, "invalid position list (%d positions)", n);
        return NULL;
    }
    loom_scope_begin();
    int ax;
    loom_array *r = NULL, *src = loom__along_axis(fn, a, axis, &ax);
    if (!src || n == 0)
        return loom__scope_return(src);
    int64_t len = src->shape[ax], total = len + n;
    int64_t *at = loom__malloc((size_t)n * sizeof *at), *old_at = loom__malloc((size_t)(len ? len : 1) * sizeof *old_at);
    int64_t *from = loom__malloc((size_t)total * sizeof *from);
    bool *is_new = loom__malloc((size_t)total * sizeof *is_new);
    if (!at || !old_at || !from || !is_new) {
        loom__error(LOOM_ERR_OOM, fn, "out of host memory");
    } else if (insert_positions(fn, positions, n, len, ax, at, old_at) == 0) {
        /* result position p along the axis: value from[p] of the values or of a */
        for (int i = 0; i < n; i++)
            from[at[i]] = i, is_new[at[i]] = true;
        for (int64_t i = 0; i < len; i++)
            from[old_at[i]] = i, is_new[old_at[i]] = false;
        /* values as NumPy's array(values, ndmin=a.ndim, dtype=a.dtype), broadcast to the
         * inserted block */
        int64_t vshape[LOOM_MAXDIMS], block[LOOM_MAXDIMS], along[LOOM_MAXDIMS];
        int nd = src->ndim;
        bool fits = values->ndim <= nd;
        for (int d = 0; d < nd; d++) {
            vshape[d] = d < nd - values->ndim ? 1 : values->shape[d - (nd - values->ndim)];
            block[d] = d == ax ? n : src->shape[d];
            along[d] = d == ax ? total : 1;
            fits = fits && (vshape[d] == block[d] || vshape[d] == 1);
        }
        if (!fits) {
            char b1[512], b2[512];
            loom__error(LOOM_ERR_INVALID, fn,
                        "shape mismatch: value array of shape %s could not be broadcast to indexing "
                        "result of shape %s",
                        loom__fmt_shape(b1, sizeof b1, values->ndim, values->shape),
                        loom__fmt_shape(b2, sizeof b2, nd, block));
        } else {
            loom_array *v = loom__reshape(fn, "insert", loom_astype(values, (loom_dtype)src->dtype), nd, vshape);
            v = v ? loom__broadcast_to(fn, v, nd, block) : NULL;
            loom_array *fi = loom_asarray(from, LOOM_INT64, 1, &total);
            loom_array *mask = loom_asarray(is_new, LOOM_BOOL, 1, &total);
            mask = mask ? loom__reshape(fn, "insert", mask, nd, along) : NULL;
            loom_array *gv = v && fi ? loom__take(fn, v, fi, ax, LOOM_MODE_CLIP, LOOM_REPORT_TAKE, ax, n) : NULL;
            loom_array *ga = fi ? loom__take(fn, src, fi, ax, LOOM_MODE_CLIP, LOOM_REPORT_TAKE, ax, len ? len : 1) : NULL;
            if (len == 0)
                ga = gv; /* no old element is ever chosen */
            r = mask && gv && ga ? loom__ew(fn, LOOM_OP_WHERE, 3, (loom_array *[]){mask, gv, ga}, NULL) : NULL;
        }
    }
    free(at);
    free(old_at);
    free(from);
    free(is_new);
    return loom__scope_return(r);
}
