/* The view ops. Each computes its result's (shape, strides, offset) from a's own index map
 * (a->strides and a->offset: C-contiguous and 0 when a is not a view) and hands it to
 * loom__view, so a chain of views is always one strided map straight onto its base. */
#include "views.h"

/* True if the map is a's own (extent-1 axes may have any stride: they are never stepped). */
static bool same_map(const loom_array *a, int ndim, const int64_t *shape,
                     const int64_t *strides, int64_t offset)
{
    if (ndim != a->ndim || offset != a->offset)
        return false;
    for (int i = 0; i < ndim; i++)
        if (shape[i] != a->shape[i] || (shape[i] > 1 && strides[i] != a->strides[i]))
            return false;
    return true;
}

loom_array *loom__map_view(const char *fn, const char *label, loom_array *a, int ndim,
                           const int64_t *shape, int64_t *strides, int64_t offset)
{
    /* Extent-1 axes get stride 0, so equal maps hash equally whichever call made them. */
    for (int i = 0; i < ndim; i++)
        if (shape[i] == 1)
            strides[i] = 0;
    if (a->op == LOOM_OP_VIEW && same_map(a, ndim, shape, strides, offset))
        return loom__adopt(loom_retain(a));
    return loom__view(fn, label, a, ndim, shape, strides, offset);
}

/* ---- axes ---- */

int loom__normalize_axis(const char *fn, const char *what, int axis, int ndim, int *out)
{
    if (axis < -ndim || axis >= ndim) {
        if (what)
            loom__error(LOOM_ERR_SHAPE, fn, "%s: axis %d is out of bounds for array of dimension %d",
                        what, axis, ndim);
        else
            loom__error(LOOM_ERR_SHAPE, fn, "axis %d is out of bounds for array of dimension %d",
                        axis, ndim);
        return -1;
    }
    *out = axis < 0 ? axis + ndim : axis;
    return 0;
}

loom_array *loom__along_axis(const char *fn, loom_array *a, int axis, int *ax)
{
    *ax = 0;
    if (axis == LOOM_AXIS_NONE)
        return loom__reshape(fn, "ravel", a, 1, (int64_t[]){-1});
    return loom__normalize_axis(fn, NULL, axis, a->ndim, ax) ? NULL : a;
}

int loom__normalize_axes(const char *fn, const int *axes, int naxes, int ndim,
                         const char *dup_msg, int *out, uint64_t *mask)
{
    *mask = 0;
    if (naxes < 0) {
        loom__error(LOOM_ERR_INVALID, fn, "number of axes %d is negative", naxes);
        return -1;
    }
    if (naxes > 0 && !axes) {
        loom__error(LOOM_ERR_INVALID, fn, "axes is NULL for %d axes", naxes);
        return -1;
    }
    for (int i = 0; i < naxes; i++) {
        int ax;
        if (loom__normalize_axis(fn, NULL, axes[i], ndim, &ax))
            return -1;
        if (*mask >> ax & 1) {
            loom__error(LOOM_ERR_INVALID, fn, "%s", dup_msg);
            return -1;
        }
        *mask |= (uint64_t)1 << ax;
        if (out)
            out[i] = ax; /* i < ndim here: the first i axes were distinct */
    }
    return 0;
}

/* Copies a's map without the axes in mask (all of it for mask 0); returns the new ndim. */
static int drop_axes(const loom_array *a, uint64_t mask, int64_t *shape, int64_t *strides)
{
    int nd = 0;
    for (int i = 0; i < a->ndim; i++) {
        if (mask >> i & 1)
            continue;
        shape[nd] = a->shape[i];
        strides[nd++] = a->strides[i];
    }
    return nd;
}

/* ---- reshape ---- */

/* NumPy's no-copy reshape: walk old and new axes in groups whose extents multiply to the
 * same number; a group of old axes can be re-split only if it is contiguous in itself, and
 * the new axes of the group then step through it in C order. Old extent-1 axes carry no
 * layout and are skipped. Needs a->size > 0 and equal sizes. False if a copy is needed. */
static bool reshape_strides(const loom_array *a, int ndim, const int64_t *shape,
                            int64_t *strides)
{
    int64_t od[LOOM_MAXDIMS], os[LOOM_MAXDIMS];
    int on = 0;
    for (int i = 0; i < a->ndim; i++) {
        if (a->shape[i] != 1) {
            od[on] = a->shape[i];
            os[on++] = a->strides[i];
        }
    }
    int oi = 0, oj = 1, ni = 0, nj = 1;
    while (ni < ndim && oi < on) {
        int64_t np = shape[ni], op = od[oi];
        while (np != op) {
            if (np < op)
                np *= shape[nj++];
            else
                op *= od[oj++];
        }
        for (int k = oi; k < oj - 1; k++)
            if (os[k] != od[k + 1] * os[k + 1])
                return false;
        strides[nj - 1] = os[oj - 1];
        for (int k = nj - 1; k > ni; k--)
            strides[k - 1] = strides[k] * shape[k];
        ni = nj++;
        oi = oj++;
    }
    for (int k = ni; k < ndim; k++) /* trailing extent-1 axes */
        strides[k] = 1;
    return true;
}

static loom_array *reshape_mismatch(const char *fn, const loom_array *a, int ndim,
                                    const int64_t *shape)
{
    char buf[1024];
    loom__error(LOOM_ERR_SHAPE, fn, "cannot reshape array of size %lld into shape %s",
                (long long)a->size, loom__fmt_shape(buf, sizeof buf, ndim, shape));
    return NULL;
}

loom_array *loom__reshape(const char *fn, const char *label, loom_array *a, int ndim,
                          const int64_t *shape)
{
    if (!a)
        return NULL;
    int64_t dims[LOOM_MAXDIMS], strides[LOOM_MAXDIMS], known;
    bool listed = ndim >= 0 && ndim <= LOOM_MAXDIMS && (ndim == 0 || shape);
    int unknown = -1;
    for (int i = 0; listed && i < ndim; i++) {
        dims[i] = shape[i];
        if (shape[i] != -1)
            continue;
        if (unknown >= 0) {
            loom__error(LOOM_ERR_INVALID, fn, "can only specify one unknown dimension");
            return NULL;
        }
        unknown = i;
        dims[i] = 1;
    }
    /* With the unknown extent counted as 1 this checks ndim, NULL and negative extents. */
    if (loom__check_shape(fn, ndim, listed ? dims : shape, &known))
        return NULL;
    if (unknown >= 0 ? known == 0 || a->size % known != 0 : known != a->size)
        return reshape_mismatch(fn, a, ndim, shape);
    if (unknown >= 0)
        dims[unknown] = a->size / known;

    if (a->size == 0) {
        /* Nothing is ever read: any layout will do, C-contiguous is the simplest. */
        int64_t s = 1;
        for (int i = ndim; i-- > 0;) {
            strides[i] = s;
            if (dims[i] > 1 && s <= INT64_MAX / dims[i])
                s *= dims[i];
        }
    } else if (!reshape_strides(a, ndim, dims, strides)) {
        /* A copy is C-contiguous, so its reshape is always a view. The private scope makes
         * the view the copy's only owner whether or not the caller has a scope open. */
        loom_scope_begin();
        loom_array *c = loom__copy(fn, a);
        loom_array *r = c ? loom__reshape(fn, label, c, ndim, dims) : NULL;
        loom_keep(r);
        loom_scope_end();
        return r;
    }
    return loom__map_view(fn, label, a, ndim, dims, strides, a->offset);
}

loom_array *loom_reshape(loom_array *a, int ndim, const int64_t *shape)
{
    return a ? loom__reshape("loom_reshape", "reshape", a, ndim, shape) : NULL;
}

loom_array *loom_ravel(loom_array *a)
{
    return a ? loom__reshape("loom_ravel", "ravel", a, 1, (const int64_t[]){-1}) : NULL;
}

/* ---- axis permutations ---- */

static loom_array *permute(const char *fn, const char *label, loom_array *a, const int *perm)
{
    int64_t shape[LOOM_MAXDIMS], strides[LOOM_MAXDIMS];
    for (int i = 0; i < a->ndim; i++) {
        shape[i] = a->shape[perm[i]];
        strides[i] = a->strides[perm[i]];
    }
    return loom__map_view(fn, label, a, a->ndim, shape, strides, a->offset);
}

loom_array *loom_transpose(loom_array *a, const int *axes)
{
    static const char fn[] = "loom_transpose";
    if (!a)
        return NULL;
    int perm[LOOM_MAXDIMS];
    uint64_t mask;
    if (!axes) {
        for (int i = 0; i < a->ndim; i++)
            perm[i] = a->ndim - 1 - i;
    } else if (loom__normalize_axes(fn, axes, a->ndim, a->ndim, "repeated axis in transpose",
                                    perm, &mask)) {
        return NULL;
    }
    return permute(fn, "transpose", a, perm);
}

loom_array *loom_swapaxes(loom_array *a, int axis1, int axis2)
{
    static const char fn[] = "loom_swapaxes";
    int perm[LOOM_MAXDIMS], i1, i2;
    if (!a || loom__normalize_axis(fn, "axis1", axis1, a->ndim, &i1) ||
        loom__normalize_axis(fn, "axis2", axis2, a->ndim, &i2))
        return NULL;
    for (int i = 0; i < a->ndim; i++)
        perm[i] = i;
    perm[i1] = i2;
    perm[i2] = i1;
    return permute(fn, "swapaxes", a, perm);
}

loom_array *loom_moveaxis(loom_array *a, int source, int destination)
{
    static const char fn[] = "loom_moveaxis";
    int perm[LOOM_MAXDIMS], src, dst;
    if (!a || loom__normalize_axis(fn, "source", source, a->ndim, &src) ||
        loom__normalize_axis(fn, "destination", destination, a->ndim, &dst))
        return NULL;
    /* The other axes keep their order around the moved one. */
    for (int i = 0, k = 0; i < a->ndim; i++) {
        if (i == dst) {
            perm[i] = src;
            continue;
        }
        if (k == src)
            k++;
        perm[i] = k++;
    }
    return permute(fn, "moveaxis", a, perm);
}

/* ---- adding and removing axes ---- */

loom_array *loom__new_axis(const char *fn, loom_array *a, int axis)
{
    if (!a)
        return NULL;
    if (a->ndim >= LOOM_MAXDIMS) {
        loom__error(LOOM_ERR_INVALID, fn,
                    "maximum supported dimension for an ndarray is %d, found %d", LOOM_MAXDIMS,
                    a->ndim + 1);
        return NULL;
    }
    int64_t shape[LOOM_MAXDIMS], strides[LOOM_MAXDIMS];
    for (int i = 0, k = 0; i <= a->ndim; i++) {
        bool added = i == axis;
        shape[i] = added ? 1 : a->shape[k];
        strides[i] = added ? 0 : a->strides[k++];
    }
    return loom__map_view(fn, "expand_dims", a, a->ndim + 1, shape, strides, a->offset);
}

loom_array *loom_expand_dims(loom_array *a, int axis)
{
    static const char fn[] = "loom_expand_dims";
    if (!a)
        return NULL;
    int ax = 0; /* past LOOM_MAXDIMS loom__new_axis reports that first, as NumPy does */
    if (a->ndim < LOOM_MAXDIMS && loom__normalize_axis(fn, NULL, axis, a->ndim + 1, &ax))
        return NULL;
    return loom__new_axis(fn, a, ax);
}

loom_array *loom_squeeze(loom_array *a, const int *axes, int naxes)
{
    static const char fn[] = "loom_squeeze";
    if (!a)
        return NULL;
    uint64_t mask = 0;
    if (!axes) {
        for (int i = 0; i < a->ndim; i++)
            if (a->shape[i] == 1)
                mask |= (uint64_t)1 << i;
    } else {
        if (loom__normalize_axes(fn, axes, naxes, a->ndim, "duplicate value in 'axis'", NULL,
                                 &mask))
            return NULL;
        for (int i = 0; i < a->ndim; i++) {
            if ((mask >> i & 1) && a->shape[i] != 1) {
                loom__error(LOOM_ERR_INVALID, fn, "cannot select an axis to squeeze out which "
                                                  "has size not equal to one");
                return NULL;
            }
        }
    }
    int64_t shape[LOOM_MAXDIMS], strides[LOOM_MAXDIMS];
    int nd = drop_axes(a, mask, shape, strides);
    return loom__map_view(fn, "squeeze", a, nd, shape, strides, a->offset);
}

/* ---- slicing, flipping and indexing ---- */

/* Python's slice bound rules for an axis of extent n: negative counts from the end, then
 * clamps to [0, n] (to [-1, n - 1] when stepping backwards); `none` stands for a missing one. */
static int64_t slice_bound(int64_t v, int64_t n, int64_t step, int64_t none)
{
    if (v == LOOM_NONE)
        return none;
    if (v < 0) {
        v += n;
        if (v < 0)
            v = step < 0 ? -1 : 0;
    } else if (v >= n) {
        v = step < 0 ? n - 1 : n;
    }
    return v;
}

/* Applies start:stop:step (step != 0) to axis of the map (shape, strides, offset). */
static void slice_axis(int64_t *shape, int64_t *strides, int64_t *offset, int axis,
                       int64_t start, int64_t stop, int64_t step)
{
    int64_t n = shape[axis];
    start = slice_bound(start, n, step, step < 0 ? n - 1 : 0);
    stop = slice_bound(stop, n, step, step < 0 ? -1 : n);
    int64_t len;
    if (step < 0)
        len = stop < start ? (start - stop - 1) / -step + 1 : 0;
    else
        len = start < stop ? (stop - start - 1) / step + 1 : 0;
    *offset += start * strides[axis];
    shape[axis] = len;
    /* With fewer than two elements the step is never taken (and might overflow). */
    if (len > 1)
        strides[axis] *= step;
}

loom_array *loom_slice(loom_array *a, int axis, int64_t start, int64_t stop, int64_t step)
{
    static const char fn[] = "loom_slice";
    int ax;
    if (!a || loom__normalize_axis(fn, NULL, axis, a->ndim, &ax))
        return NULL;
    /* LOOM_NONE is INT64_MIN, a step NumPy would take (as -(2^63 - 1)); which one the
     * caller meant cannot be told, so neither is guessed. */
    if (step == LOOM_NONE) {
        loom__error(LOOM_ERR_INVALID, fn,
                    "slice step LOOM_NONE (INT64_MIN) is ambiguous: pass 1 for the default step, "
                    "or -INT64_MAX to walk backwards by the largest step");
        return NULL;
    }
    if (step == 0) {
        loom__error(LOOM_ERR_INVALID, fn, "slice step cannot be zero");
        return NULL;
    }
    int64_t shape[LOOM_MAXDIMS], strides[LOOM_MAXDIMS], offset = a->offset;
    int nd = drop_axes(a, 0, shape, strides);
    slice_axis(shape, strides, &offset, ax, start, stop, step);
    return loom__map_view(fn, "slice", a, nd, shape, strides, offset);
}

loom_array *loom_flip(loom_array *a, const int *axes, int naxes)
{
    static const char fn[] = "loom_flip";
    if (!a)
        return NULL;
    uint64_t mask = ((uint64_t)1 << a->ndim) - 1;
    if (axes && loom__normalize_axes(fn, axes, naxes, a->ndim, "repeated axis", NULL, &mask))
        return NULL;
    int64_t shape[LOOM_MAXDIMS], strides[LOOM_MAXDIMS], offset = a->offset;
    int nd = drop_axes(a, 0, shape, strides);
    for (int i = 0; i < nd; i++)
        if (mask >> i & 1)
            slice_axis(shape, strides, &offset, i, LOOM_NONE, LOOM_NONE, -1);
    return loom__map_view(fn, "flip", a, nd, shape, strides, offset);
}

loom_array *loom_index(loom_array *a, int axis, int64_t index)
{
    static const char fn[] = "loom_index";
    int ax;
    if (!a || loom__normalize_axis(fn, NULL, axis, a->ndim, &ax))
        return NULL;
    int64_t n = a->shape[ax];
    if (index < -n || index >= n) {
        loom__error(LOOM_ERR_INVALID, fn, "index %lld is out of bounds for axis %d with size %lld",
                    (long long)index, ax, (long long)n);
        return NULL;
    }
    int64_t shape[LOOM_MAXDIMS], strides[LOOM_MAXDIMS];
    int64_t offset = a->offset + (index < 0 ? index + n : index) * a->strides[ax];
    int nd = drop_axes(a, (uint64_t)1 << ax, shape, strides);
    return loom__map_view(fn, "index", a, nd, shape, strides, offset);
}
