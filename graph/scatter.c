/* Updates that scatter, returned as new versions (arrays never change): NumPy's ufunc.at
 * (at_add, at_subtract, at_multiply, at_minimum, at_maximum, and at_set), put,
 * put_along_axis and setitem.
 *
 * Each is one SCATTER node: the flat positions written are sorted (a stable argsort, so equal
 * positions keep their order), and each element of the result folds the values at its
 * position into its old value in that order, as NumPy's loop does. No atomics: the result is
 * the same bits every run and equals NumPy's sequential accumulation (docs/indexing.md). */
#include "index.h"
#include "reduce.h"
#include "sort.h"
#include "ufunc.h"
#include "views.h"

#include <stdio.h>

static bool has_array(const loom_index_term *terms, int nterms)
{
    for (int i = 0; i < nterms; i++)
        if (terms && terms[i].kind == LOOM_INDEX_ARRAY)
            return true;
    return false;
}

/* values broadcast to shape, with the message NumPy gives for this kind of update. */
static loom_array *values_to(const char *fn, const char *message, loom_array *values, int nd,
                             const int64_t *shape)
{
    bool ok = values->ndim <= nd;
    for (int d = 0; ok && d < values->ndim; d++) {
        int64_t e = values->shape[values->ndim - 1 - d], t = shape[nd - 1 - d];
        ok = e == t || e == 1;
    }
    if (ok)
        return loom__broadcast_to(fn, values, nd, shape);
    char b1[512], b2[512];
    loom__fmt_shape(b1, sizeof b1, values->ndim, values->shape);
    loom__fmt_shape(b2, sizeof b2, nd, shape);
    if (message)
        loom__error(LOOM_ERR_INVALID, fn, "%s", message);
    else
        loom__error(LOOM_ERR_INVALID, fn, "could not broadcast input array from shape %s into shape %s",
                    b1, b2);
    return NULL;
}

/* NumPy's message when values do not broadcast to the positions of an advanced index. */
static const char *shape_mismatch(char *buf, size_t n, const loom_array *values,
                                  const loom_array *pos)
{
    char b1[512], b2[512];
    snprintf(buf, n,
             "shape mismatch: value array of shape %s could not be broadcast to indexing result "
             "of shape %s",
             loom__fmt_shape(b1, sizeof b1, values->ndim, values->shape),
             loom__fmt_shape(b2, sizeof b2, pos->ndim, pos->shape));
    return buf;
}

static loom_array *ravel(const char *fn, loom_array *x)
{
    return loom__reshape(fn, "ravel", x, 1, (int64_t[]){-1});
}

/* The SCATTER node updating a at the flat positions pos (int64, any shape) with vals (pos's
 * shape), folding with op (COPY: the last value wins) computed in dtype loop. */
static loom_array *scatter_node(const char *fn, loom_array *a, loom_array *pos, loom_array *vals,
                                loom_op op, loom_dtype loop)
{
    /* positions below 2^31 sort as int32: half the radix passes of int64 */
    loom_dtype kt = a->size <= INT32_MAX ? LOOM_INT32 : LOOM_INT64;
    loom_array *p = loom__cast(fn, ravel(fn, pos), kt);
    loom_array *v = loom__cast(fn, ravel(fn, vals), loop);
    int bits = 1;
    while (bits < 63 && ((int64_t)1 << bits) < a->size)
        bits++;
    loom_array *perm = p ? loom__argsort_small_keys(fn, p, bits) : NULL;
    loom_array *keys = perm ? loom__take(fn, p, perm, 0, LOOM_MODE_CLIP, LOOM_REPORT_TAKE, 0, p->size) : NULL;
    loom_array *sv = perm && v ? loom__take(fn, v, perm, 0, LOOM_MODE_CLIP, LOOM_REPORT_TAKE, 0, v->size) : NULL;
    if (!keys || !sv)
        return NULL;
    loom_array *n = loom__node_alloc(fn, LOOM_OP_SCATTER, (loom_dtype)a->dtype, a->ndim, a->shape);
    if (!n)
        return NULL;
    n->cdtype = (int8_t)loop;
    n->device = a->device;
    n->param.scatter.op = op;
    loom__node_set_input(n, 0, a);
    loom__node_set_input(n, 1, keys);
    loom__node_set_input(n, 2, sv);
    return loom__node_finish(n);
}

/* a[terms] (op) values: the positions are a[terms] of a's own flat indices. */
static loom_array *update(const char *fn, int report, loom_op op, loom_array *a,
                          const loom_index_term *terms, int nterms, loom_array *values)
{
    if (!a || !values)
        return NULL;
    if (loom__check_same_device(fn, a, values))
        return NULL;
    loom_dtype loop = (loom_dtype)a->dtype, out;
    if (op != LOOM_OP_COPY && loom__resolve_ufunc(fn, op, 2, (loom_array *[]){a, values}, &loop, &out))
        return NULL;
    loom_scope_begin();
    loom_array *flat = loom__reshape(fn, "positions", loom_arange(0, (double)a->size, 1, LOOM_INT64),
                                     a->ndim, a->shape);
    loom_array *pos = flat ? loom__getitem(fn, flat, terms, nterms, report) : NULL;
    const char *message = NULL;
    char buf[1200];
    if (pos && op != LOOM_OP_COPY) {
        message = "array is not broadcastable to correct shape";
    } else if (pos && has_array(terms, nterms)) {
        message = shape_mismatch(buf, sizeof buf, values, pos);
    }
    loom_array *v = pos ? values_to(fn, message, values, pos->ndim, pos->shape) : NULL;
    if (!v || pos->size == 0)
        return loom__scope_return(v ? a : NULL);
    return loom__scope_return(scatter_node(fn, a, pos, v, op, loop));
}

/* a[mask] = values for one boolean term of a's shape, NumPy's boolean assignment: one value
 * goes to every set element (a where(), no read-back); a 1-D values of another length must
 * have one value per set element (the count is read back, docs/unique.md), the k-th set
 * element taking values[k]. */
static loom_array *mask_assign(const char *fn, loom_array *a, loom_array *mask, loom_array *values)
{
    if (!values)
        return NULL;
    if (values->ndim > 1) {
        loom__error(LOOM_ERR_INVALID, fn,
                    "NumPy boolean array indexing assignment requires a 0 or 1-dimensional "
                    "input, input has %d dimensions",
                    values->ndim);
        return NULL;
    }
    if (loom__check_same_device(fn, a, mask) || loom__check_same_device(fn, a, values))
        return NULL;
    loom_scope_begin();
    if (values->size == 1) {
        loom_array *v = loom__cast(fn, loom__reshape(fn, "value", values, 0, NULL), (loom_dtype)a->dtype);
        return loom__scope_return(loom__ew(fn, LOOM_OP_WHERE, 3, (loom_array *[]){mask, v, a}, NULL));
    }
    int64_t count = 0;
    if (loom__mask_count(fn, mask, &count))
        return loom__scope_return(NULL);
    if (count != values->size) {
        loom__error(LOOM_ERR_INVALID, fn,
                    "NumPy boolean array indexing assignment cannot assign %lld input values to "
                    "the %lld output values where the mask is true",
                    (long long)values->size, (long long)count);
        return loom__scope_return(NULL);
    }
    return loom__scope_return(loom__place(fn, a, mask, values));
}

/* NumPy's single boolean index: one bool term of exactly a's shape. Other boolean terms stand
 * for their nonzero() coordinates (loom__getitem) and assign as integer arrays do. */
static bool whole_mask(const loom_array *a, const loom_index_term *terms, int nterms)
{
    if (nterms != 1 || !terms || terms[0].kind != LOOM_INDEX_ARRAY || !terms[0].array)
        return false;
    const loom_array *m = terms[0].array;
    if (!loom__is_bool((loom_dtype)m->dtype) || m->ndim != a->ndim)
        return false;
    for (int d = 0; d < a->ndim; d++)
        if (m->shape[d] != a->shape[d])
            return false;
    return true;
}

static loom_array *setitem(const char *fn, int report, loom_array *a, const loom_index_term *terms,
                           int nterms, loom_array *values)
{
    if (a && whole_mask(a, terms, nterms))
        return mask_assign(fn, a, terms[0].array, values);
    return update(fn, report, LOOM_OP_COPY, a, terms, nterms, values);
}

loom_array *loom_setitem(loom_array *a, const loom_index_term *terms, int nterms,
                         loom_array *values)
{
    return setitem("loom_setitem", LOOM_REPORT_SETITEM, a, terms, nterms, values);
}

loom_array *loom_at_set(loom_array *a, const loom_index_term *terms, int nterms,
                        loom_array *values)
{
    return setitem("loom_at_set", LOOM_REPORT_AT_SET, a, terms, nterms, values);
}

loom_array *loom_at_add(loom_array *a, const loom_index_term *terms, int nterms,
                        loom_array *values)
{
    return update("loom_at_add", LOOM_REPORT_AT_ADD, LOOM_OP_ADD, a, terms, nterms, values);
}

loom_array *loom_at_subtract(loom_array *a, const loom_index_term *terms, int nterms,
                             loom_array *values)
{
    return update("loom_at_subtract", LOOM_REPORT_AT_SUBTRACT, LOOM_OP_SUBTRACT, a, terms, nterms,
                  values);
}

loom_array *loom_at_multiply(loom_array *a, const loom_index_term *terms, int nterms,
                             loom_array *values)
{
    return update("loom_at_multiply", LOOM_REPORT_AT_MULTIPLY, LOOM_OP_MULTIPLY, a, terms, nterms,
                  values);
}

loom_array *loom_at_minimum(loom_array *a, const loom_index_term *terms, int nterms,
                            loom_array *values)
{
    return update("loom_at_minimum", LOOM_REPORT_AT_MINIMUM, LOOM_OP_MINIMUM, a, terms, nterms,
                  values);
}

loom_array *loom_at_maximum(loom_array *a, const loom_index_term *terms, int nterms,
                            loom_array *values)
{
    return update("loom_at_maximum", LOOM_REPORT_AT_MAXIMUM, LOOM_OP_MAXIMUM, a, terms, nterms,
                  values);
}

loom_array *loom_put(loom_array *a, loom_array *indices, loom_array *values, loom_index_mode mode)
{
    static const char fn[] = "loom_put";
    if (!a || !indices || !values)
        return NULL;
    if (mode != LOOM_MODE_RAISE && mode != LOOM_MODE_WRAP && mode != LOOM_MODE_CLIP) {
        loom__error(LOOM_ERR_INVALID, fn, "clipmode must be one of 'clip', 'raise', or 'wrap' (got %d)",
                    (int)mode);
        return NULL;
    }
    loom_dtype it = (loom_dtype)indices->dtype;
    if (loom__is_complex(it)) {
        loom__error(LOOM_ERR_INVALID, fn, "indices must be real, not %s", loom_dtype_name(it));
        return NULL;
    }
    if (loom__check_same_device(fn, a, indices) || loom__check_same_device(fn, a, values))
        return NULL;
    if (indices->size == 0 || values->size == 0) /* NumPy: nothing to put */
        return a;
    if (a->size == 0) {
        loom__error(LOOM_ERR_INVALID, fn, "cannot replace elements of an empty array");
        return NULL;
    }
    loom_scope_begin();
    /* flat positions by take's rules; the values repeat when shorter than the indices */
    loom_array *all = loom_arange(0, (double)a->size, 1, LOOM_INT64);
    /* NumPy truncates float indices (an unsafe cast to intp) */
    loom_array *ind = loom__is_float(it) ? loom__cast(fn, indices, LOOM_INT64) : indices;
    loom_array *pos = loom__take(fn, all, ravel(fn, ind), 0, mode, LOOM_REPORT_PUT, 0, a->size);
    loom_array *k = loom_arange(0, (double)indices->size, 1, LOOM_INT64);
    loom_array *vf = ravel(fn, values);
    loom_array *v = vf ? loom__take(fn, vf, k, 0, LOOM_MODE_WRAP, LOOM_REPORT_TAKE, 0, vf->size) : NULL;
    return loom__scope_return(pos && v ? scatter_node(fn, a, pos, v, LOOM_OP_COPY, (loom_dtype)a->dtype)
                                       : NULL);
}

loom_array *loom_put_along_axis(loom_array *a, loom_array *indices, loom_array *values, int axis)
{
    static const char fn[] = "loom_put_along_axis";
    if (!a || !indices || !values)
        return NULL;
    if (loom__check_same_device(fn, a, indices) || loom__check_same_device(fn, a, values))
        return NULL;
    loom_scope_begin();
    /* the flat positions take_along_axis would read, values broadcast to their shape */
    loom_array *flat = loom__reshape(fn, "positions", loom_arange(0, (double)a->size, 1, LOOM_INT64),
                                     a->ndim, a->shape);
    loom_array *pos = flat ? loom__take_along_axis(fn, flat, indices, axis, LOOM_REPORT_PUT_ALONG_AXIS)
                           : NULL;
    char buf[1200];
    loom_array *v = pos ? values_to(fn, shape_mismatch(buf, sizeof buf, values, pos), values,
                                    pos->ndim, pos->shape)
                        : NULL;
    if (!v || pos->size == 0)
        return loom__scope_return(v ? a : NULL);
    return loom__scope_return(scatter_node(fn, a, pos, v, LOOM_OP_COPY, (loom_dtype)a->dtype));
}
