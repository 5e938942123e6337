/* Repeating an array: tile and repeat with one count are gathers whose indices are generator
 * expressions (fused with their consumers); repeat with a count per element and resize are
 * gathers with indices known at record time (docs/indexing.md). */
#include "index.h"
#include "reduce.h"
#include "ufunc.h"
#include "views.h"

#include <stdlib.h>

static int check_reps(const char *fn, const int64_t *reps, int n)
{
    for (int i = 0; i < n; i++)
        if (reps[i] < 0) {
            loom__error(LOOM_ERR_INVALID, fn, "negative dimensions are not allowed");
            return -1;
        }
    return 0;
}

/* a (nd dims) read at source coordinate (c / div[d]) % src[d] along each axis d of a result
 * of shape out: one gather whose flat indices are a generator expression, computed in the
 * gather's kernel, which its elementwise consumers join. */
static loom_array *index_map(const char *fn, loom_array *a, int nd, const int64_t *out,
                             const int64_t *div)
{
    int64_t size = 1;
    for (int d = 0; d < nd; d++)
        size *= out[d];
    if (size == 0 || a->size == 0)
        return loom_empty(nd, out, (loom_dtype)a->dtype);
    loom_array *flat = loom_zeros(nd, out, LOOM_INT64);
    int64_t stride = 1;
    for (int d = nd - 1; d >= 0 && flat; d--) {
        if (a->shape[d] > 1) {
            int64_t along[LOOM_MAXDIMS];
            for (int k = 0; k < nd; k++)
                along[k] = k == d ? out[d] : 1;
            /* broadcast while still a generator: a computed value that is broadcast is
             * written to memory first */
            loom_array *c = loom__reshape(fn, "index", loom_arange(0, (double)out[d], 1, LOOM_INT64),
                                          nd, along);
            c = c ? loom__broadcast_to(fn, c, nd, out) : NULL;
            if (div[d] > 1)
                c = loom__ew(fn, LOOM_OP_FLOOR_DIVIDE, 2, (loom_array *[]){c, loom_scalar_int(div[d])}, NULL);
            if (out[d] > a->shape[d] * div[d] || div[d] == 1)
                c = loom__ew(fn, LOOM_OP_REMAINDER, 2, (loom_array *[]){c, loom_scalar_int(a->shape[d])}, NULL);
            c = loom__ew(fn, LOOM_OP_MULTIPLY, 2, (loom_array *[]){c, loom_scalar_int(stride)}, NULL);
            flat = loom__ew(fn, LOOM_OP_ADD, 2, (loom_array *[]){flat, c}, NULL);
        }
        stride *= a->shape[d];
    }
    loom_array *src = loom__reshape(fn, "ravel", a, 1, (int64_t[]){-1});
    return flat && src ? loom__take(fn, src, flat, 0, LOOM_MODE_CLIP, LOOM_REPORT_TAKE, 0, a->size) : NULL;
}

loom_array *loom_tile(loom_array *a, const int64_t *reps, int nreps)
{
    static const char fn[] = "loom_tile";
    if (!a)
        return NULL;
    if (nreps < 0 || (nreps > 0 && !reps)) {
        loom__error(LOOM_ERR_INVALID, fn, "invalid reps (%d entries)", nreps);
        return NULL;
    }
    if (check_reps(fn, reps, nreps))
        return NULL;
    int d = nreps > a->ndim ? nreps : a->ndim;
    if (d > LOOM_MAXDIMS) {
        loom__error(LOOM_ERR_INVALID, fn, "maximum supported dimension for an ndarray is %d, found %d",
                    LOOM_MAXDIMS, d);
        return NULL;
    }
    int64_t src[LOOM_MAXDIMS], out[LOOM_MAXDIMS], one[LOOM_MAXDIMS];
    bool copies = false;
    for (int i = 0; i < d; i++) {
        src[i] = i < d - a->ndim ? 1 : a->shape[i - (d - a->ndim)];
        int64_t r = i < d - nreps ? 1 : reps[i - (d - nreps)];
        out[i] = r * src[i];
        one[i] = 1;
        copies |= r != 1;
    }
    loom_scope_begin();
    loom_array *v = loom__reshape(fn, "tile", a, d, src);
    return loom__scope_return(v && copies ? index_map(fn, v, d, out, one) : v);
}

static loom_array *repeat(const char *fn, loom_array *a, int64_t repeats, int axis)
{
    if (repeats < 0) {
        loom__error(LOOM_ERR_INVALID, fn, "negative dimensions are not allowed");
        return NULL;
    }
    loom_scope_begin();
    int ax;
    loom_array *src = loom__along_axis(fn, a, axis, &ax);
    if (!src || repeats == 1)
        return loom__scope_return(src);
    int64_t out[LOOM_MAXDIMS], div[LOOM_MAXDIMS];
    for (int i = 0; i < src->ndim; i++) {
        out[i] = src->shape[i] * (i == ax ? repeats : 1);
        div[i] = i == ax ? repeats : 1;
    }
    return loom__scope_return(index_map(fn, src, src->ndim, out, div));
}

loom_array *loom_repeat(loom_array *a, int64_t repeats, int axis)
{
    return a ? repeat("loom_repeat", a, repeats, axis) : NULL;
}

loom_array *loom_repeat_counts(loom_array *a, const int64_t *counts, int ncounts, int axis)
{
    static const char fn[] = "loom_repeat_counts";
    if (!a)
        return NULL;
    if (ncounts < 0 || (ncounts > 0 && !counts)) {
        loom__error(LOOM_ERR_INVALID, fn, "invalid counts (%d entries)", ncounts);
        return NULL;
    }
    if (ncounts == 1)
        return repeat(fn, a, counts[0], axis);
    loom_scope_begin();
    int ax;
    loom_array *r = NULL, *src = loom__along_axis(fn, a, axis, &ax);
    if (!src)
        return loom__scope_return(NULL);
    int64_t n = src->shape[ax], total = 0;
    if (ncounts != n) {
        loom__error(LOOM_ERR_INVALID, fn,
                    "operands could not be broadcast together with shape (%lld,) (%d,)",
                    (long long)n, ncounts);
        return loom__scope_return(NULL);
    }
    for (int i = 0; i < ncounts; i++) {
        if (counts[i] < 0) {
            loom__error(LOOM_ERR_INVALID, fn, "repeats may not contain negative values.");
            return loom__scope_return(NULL);
        }
        if (__builtin_add_overflow(total, counts[i], &total)) {
            loom__error(LOOM_ERR_INVALID, fn, "maximum allowed size exceeded");
            return loom__scope_return(NULL);
        }
    }
    /* the gathered positions, known now: element i of the axis, counts[i] times */
    int64_t *pos = loom__malloc((size_t)(total ? total : 1) * sizeof *pos);
    if (!pos) {
        loom__error(LOOM_ERR_OOM, fn, "out of host memory");
        return loom__scope_return(NULL);
    }
    for (int64_t i = 0, k = 0; i < ncounts; i++)
        for (int64_t c = 0; c < counts[i]; c++)
            pos[k++] = i;
    loom_array *idx = loom_asarray(pos, LOOM_INT64, 1, &total);
    free(pos);
    if (idx)
        r = loom__take(fn, src, idx, ax, LOOM_MODE_CLIP, LOOM_REPORT_TAKE, ax, n);
    return loom__scope_return(r);
}

loom_array *loom_resize(loom_array *a, int ndim, const int64_t *shape)
{
    static const char fn[] = "loom_resize";
    if (!a)
        return NULL;
    int64_t size;
    for (int i = 0; i < ndim && shape; i++)
        if (shape[i] < 0) {
            loom__error(LOOM_ERR_INVALID, fn, "all elements of `new_shape` must be non-negative");
            return NULL;
        }
    if (loom__check_shape(fn, ndim, shape, &size))
        return NULL;
    if (a->size == 0 || size == 0)
        return loom_zeros(ndim, shape, (loom_dtype)a->dtype);
    /* element i of the result is element i % a.size of a, flattened */
    loom_scope_begin();
    loom_array *flat = loom__reshape(fn, "ravel", a, 1, (int64_t[]){-1});
    loom_array *i = loom__reshape(fn, "resize", loom_arange(0, (double)size, 1, LOOM_INT64), ndim,
                                  shape);
    return loom__scope_return(flat && i ? loom__take(fn, flat, i, 0, LOOM_MODE_WRAP, LOOM_REPORT_TAKE, 0, a->size)
                                        : NULL);
}

loom_array *loom_delete(loom_array *a, const int64_t *indices, int nindices, int axis)
{
    static const char fn[] = "loom_delete";
    if (!a)
        return NULL;
    if (nindices < 0 || (nindices > 0 && !indices)) {
        loom__error(LOOM_ERR_INVALID, fn, "invalid index list (%d indices)", nindices);
        return NULL;
    }
    loom_scope_begin();
    int ax;
    loom_array *r = NULL, *src = loom__along_axis(fn, a, axis, &ax);
    if (!src)
        return loom__scope_return(NULL);
    /* the positions kept, known now: every position of the axis but the listed ones */
    int64_t n = src->shape[ax], kept = 0;
    bool *drop = loom__calloc((size_t)(n ? n : 1), sizeof *drop);
    int64_t *pos = loom__malloc((size_t)(n ? n : 1) * sizeof *pos);
    if (!drop || !pos) {
        loom__error(LOOM_ERR_OOM, fn, "out of host memory");
    } else {
        bool ok = true;
        for (int i = 0; i < nindices && ok; i++) {
            int64_t k = indices[i] < 0 ? indices[i] + n : indices[i];
            if (k < 0 || k >= n) {
                loom__error(LOOM_ERR_INVALID, fn, "index %lld is out of bounds for axis %d with size %lld",
                            (long long)indices[i], ax, (long long)n);
                ok = false;
            } else {
                drop[k] = true;
            }
        }
        for (int64_t i = 0; ok && i < n; i++)
            if (!drop[i])
                pos[kept++] = i;
        loom_array *idx = ok ? loom_asarray(pos, LOOM_INT64, 1, &kept) : NULL;
        if (idx)
            r = loom__take(fn, src, idx, ax, LOOM_MODE_CLIP, LOOM_REPORT_TAKE, ax, n);
    }
    free(drop);
    free(pos);
    return loom__scope_return(r);
}
