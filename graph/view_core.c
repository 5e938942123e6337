/* The one way to make a view: a strided index map straight onto a non-view array, so chains of
 * views compose into a single (shape, strides, offset) the generated kernel reads through. */
#include "internal.h"

#include <string.h>

static bool is_identity(const loom_array *base, int ndim, const int64_t *shape,
                        const int64_t *strides, int64_t offset)
{
    if (offset != 0 || ndim != base->ndim)
        return false;
    for (int i = 0; i < ndim; i++) {
        if (shape[i] != base->shape[i])
            return false;
        if (shape[i] > 1 && strides[i] != base->strides[i])
            return false;
    }
    return true;
}

loom_array *loom__view(const char *fn, const char *label, loom_array *a, int ndim,
                       const int64_t *shape, const int64_t *strides, int64_t offset)
{
    loom_array *base = loom__view_base(a);
    if (is_identity(base, ndim, shape, strides, offset))
        return loom__adopt(loom_retain(base));
    loom_array *v = loom__node_alloc(fn, LOOM_OP_VIEW, (loom_dtype)base->dtype, ndim, shape);
    if (!v)
        return NULL;
    memcpy(v->strides, strides, (size_t)ndim * sizeof *strides);
    v->offset = offset;
    v->label = label;
    v->device = base->device;
    loom__node_set_input(v, 0, base);
    return loom__node_finish(v);
}

int loom__broadcast_shapes(const char *fn, int n, const int *ndims,
                           const int64_t *const *shapes, int *out_ndim, int64_t *out_shape)
{
    int nd = 0;
    for (int k = 0; k < n; k++) {
        if (ndims[k] < 0 || ndims[k] > LOOM_MAXDIMS) {
            loom__error(LOOM_ERR_INVALID, fn, "ndim %d is out of range (0 to %d)", ndims[k],
                        LOOM_MAXDIMS);
            return -1;
        }
        if (ndims[k] > nd)
            nd = ndims[k];
    }
    for (int i = 0; i < nd; i++)
        out_shape[i] = 1;
    for (int k = 0; k < n; k++) {
        int off = nd - ndims[k];
        for (int i = 0; i < ndims[k]; i++) {
            int64_t d = shapes[k][i], *o = &out_shape[off + i];
            if (d == *o || d == 1)
                continue;
            if (*o == 1) {
                *o = d;
                continue;
            }
            /* Name every shape, as NumPy does, so the user sees which operand disagrees. */
            char msg[1024] = "shapes", buf[512];
            size_t len = strlen(msg);
            for (int j = 0; j < n && len < sizeof msg; j++) {
                loom__fmt_shape(buf, sizeof buf, ndims[j], shapes[j]);
                int w = snprintf(msg + len, sizeof msg - len, "%s %s", j == 0 ? "" : j == n - 1 ? " and" : ",", buf);
                len += w > 0 ? (size_t)w : 0;
            }
            loom__error(LOOM_ERR_SHAPE, fn, "%s cannot be broadcast", msg);
            return -1;
        }
    }
    *out_ndim = nd;
    return 0;
}

int loom_broadcast_shapes(int n, const int *ndims, const int64_t *const *shapes, int *out_ndim,
                          int64_t *out_shape)
{
    if (n < 0 || (n > 0 && (!ndims || !shapes)) || !out_ndim || !out_shape) {
        loom__error(LOOM_ERR_INVALID, "loom_broadcast_shapes", "NULL argument");
        return LOOM_ERR_INVALID;
    }
    return loom__broadcast_shapes("loom_broadcast_shapes", n, ndims, shapes, out_ndim, out_shape)
               ? LOOM_ERR_INVALID
               : LOOM_OK;
}

loom_array *loom__broadcast_to(const char *fn, loom_array *a, int ndim, const int64_t *shape)
{
    if (!a)
        return NULL;
    int64_t size;
    if (loom__check_shape(fn, ndim, shape, &size))
        return NULL;
    int off = ndim - a->ndim;
    bool ok = off >= 0;
    int64_t strides[LOOM_MAXDIMS];
    for (int i = 0; ok && i < ndim; i++) {
        if (i < off) {
            strides[i] = 0;
            continue;
        }
        int64_t d = a->shape[i - off];
        if (d == shape[i])
            strides[i] = d == 1 ? 0 : a->strides[i - off];
        else if (d == 1)
            strides[i] = 0;
        else
            ok = false;
    }
    if (!ok) {
        char b1[512], b2[512];
        loom__error(LOOM_ERR_INVALID, fn, "cannot broadcast shape %s to %s",
                    loom__fmt_shape(b1, sizeof b1, a->ndim, a->shape),
                    loom__fmt_shape(b2, sizeof b2, ndim, shape));
        return NULL;
    }
    if (ndim == a->ndim) {
        bool same = true;
        for (int i = 0; i < ndim; i++)
            same = same && a->shape[i] == shape[i];
        if (same)
            return loom__adopt(loom_retain(a));
    }
    return loom__view(fn, "broadcast_to", a, ndim, shape, strides, a->op == LOOM_OP_VIEW ? a->offset : 0);
}

loom_array *loom_broadcast_to(loom_array *a, int ndim, const int64_t *shape)
{
    if (!a)
        return NULL;
    return loom__broadcast_to("loom_broadcast_to", a, ndim, shape);
}

int loom_broadcast_arrays(loom_array *const *arrays, int n, loom_array **out)
{
    static const char fn[] = "loom_broadcast_arrays";
    if (n < 0 || n > 64 || (n > 0 && (!arrays || !out))) {
        loom__error(LOOM_ERR_INVALID, fn, n > 64 ? "at most 64 arrays" : "NULL argument");
        return LOOM_ERR_INVALID;
    }
    int ndims[64] = {0};
    const int64_t *shapes[64] = {0};
    for (int k = 0; k < n; k++) {
        out[k] = NULL;
        if (!arrays[k])
            return LOOM_ERR_INVALID; /* a NULL input keeps the first error */
        ndims[k] = arrays[k]->ndim;
        shapes[k] = arrays[k]->shape;
    }
    int nd;
    int64_t shape[LOOM_MAXDIMS];
    if (loom__broadcast_shapes(fn, n, ndims, shapes, &nd, shape))
        return LOOM_ERR_INVALID;
    /* Built in a private scope so a failure part way drops exactly what was made. */
    loom_scope_begin();
    uint64_t mark = loom__error_mark();
    int k = 0;
    while (k < n && (out[k] = loom__broadcast_to(fn, arrays[k], nd, shape)))
        k++;
    for (int j = 0; j < n; j++)
        out[j] = k == n ? loom_keep(out[j]) : NULL;
    loom_scope_end();
    if (k == n)
        return LOOM_OK;
    if (!loom__error_since(mark))
        loom__error(LOOM_ERR_INVALID, fn, "cannot broadcast array %d", k);
    return loom_last_error_code();
}
