/* a[terms]: NumPy's indexing with integers, slices, newaxis, an ellipsis and integer arrays.
 * Basic terms make a view. Integer arrays (and, next to them, integers) are advanced indices:
 * their broadcast shape replaces the indexed axes where they are adjacent, and comes first
 * where a slice, an ellipsis or a newaxis separates them. The result is one gather over the
 * array's base at flat positions computed inside the gather's kernel (docs/indexing.md). */
#include "index.h"
#include "reduce.h"
#include "ufunc.h"
#include "views.h"

#include <stdio.h>
#include <string.h>

static loom_array *ew2(const char *fn, loom_op op, loom_array *x, loom_array *y)
{
    return loom__ew(fn, op, 2, (loom_array *[]){x, y}, NULL);
}

/* The axes and extents of the terms that consume one (all but newaxis and the ellipsis). */
static int count_consumed(const loom_index_term *t, int n, int *nellipsis, bool *arrays)
{
    int used = 0;
    *nellipsis = 0;
    *arrays = false;
    for (int i = 0; i < n; i++) {
        used += t[i].kind == LOOM_INDEX_INT || t[i].kind == LOOM_INDEX_SLICE ||
                t[i].kind == LOOM_INDEX_ARRAY;
        *nellipsis += t[i].kind == LOOM_INDEX_ELLIPSIS;
        *arrays |= t[i].kind == LOOM_INDEX_ARRAY;
    }
    return used;
}

/* flat = v's base position of each result element: v's offset, plus per basic axis its
 * coordinate times its stride, plus per advanced axis its normalised index times its stride;
 * an index out of bounds anywhere makes the position -1 - base size (the gather reports it). */
static loom_array *advanced(const char *fn, loom_array *v, const int *adv_axis,
                            loom_array *const *adv, int nadv, bool adjacent, int report_fn,
                            int report_axis)
{
    loom_array *base = loom__view_base(v);
    int64_t vstrides[LOOM_MAXDIMS], voffset = v->op == LOOM_OP_VIEW ? v->offset : 0;
    if (v->op == LOOM_OP_VIEW)
        for (int d = 0; d < v->ndim; d++)
            vstrides[d] = v->strides[d];
    else
        loom__contiguous_strides(v->ndim, v->shape, vstrides);
    /* the broadcast shape of the index arrays */
    int bnd = 0;
    int64_t bshape[LOOM_MAXDIMS];
    for (int k = 0; k < nadv; k++) {
        const loom_array *x = adv[k];
        int off = x->ndim > bnd ? x->ndim - bnd : 0;
        if (x->ndim > bnd) {
            for (int d = bnd - 1; d >= 0; d--)
                bshape[d + off] = bshape[d];
            for (int d = 0; d < off; d++)
                bshape[d] = 1;
            bnd = x->ndim;
        }
        for (int d = 0; d < x->ndim; d++) {
            int64_t *b = &bshape[bnd - x->ndim + d];
            if (*b == 1)
                *b = x->shape[d];
            else if (x->shape[d] != 1 && x->shape[d] != *b) {
                char msg[1024] = "shape mismatch: indexing arrays could not be broadcast together with shapes ";
                for (int j = 0; j < nadv; j++) {
                    if (adv[j]->op == LOOM_OP_SCALAR && adv[j]->weak)
                        continue; /* an integer term: NumPy lists the arrays only */
                    char s[256];
                    loom__fmt_shape(s, sizeof s, adv[j]->ndim, adv[j]->shape);
                    strncat(msg, s, sizeof msg - strlen(msg) - 2);
                    strncat(msg, " ", sizeof msg - strlen(msg) - 1);
                }
                loom__error(LOOM_ERR_INVALID, fn, "%s", msg);
                return NULL;
            }
        }
    }
    /* the result's axes: the basic axes of v in order, with the advanced group at the first
     * advanced axis when adjacent, else first */
    int nbasic = v->ndim - nadv, at = adjacent ? adv_axis[0] : 0;
    int nd = nbasic + bnd;
    if (nd > LOOM_MAXDIMS) {
        loom__error(LOOM_ERR_INVALID, fn, "maximum supported dimension for an ndarray is %d, found %d",
                    LOOM_MAXDIMS, nd);
        return NULL;
    }
    int64_t out[LOOM_MAXDIMS];
    int basic_pos[LOOM_MAXDIMS]; /* result axis of each basic axis of v */
    bool is_adv[LOOM_MAXDIMS] = {false};
    for (int k = 0; k < nadv; k++)
        is_adv[adv_axis[k]] = true;
    for (int d = 0, k = 0; d < v->ndim; d++) {
        if (is_adv[d])
            continue;
        int pos = k < at ? k : k + bnd;
        basic_pos[d] = pos;
        out[pos] = v->shape[d];
        k++;
    }
    for (int d = 0; d < bnd; d++)
        out[at + d] = bshape[d];
    loom_array *flat = loom_full(nd, out, (double)voffset, LOOM_INT64);
    loom_array *valid = NULL;
    for (int d = 0; d < v->ndim && flat; d++) {
        if (is_adv[d] || v->shape[d] == 1)
            continue;
        int64_t along[LOOM_MAXDIMS];
        for (int j = 0; j < nd; j++)
            along[j] = j == basic_pos[d] ? v->shape[d] : 1;
        loom_array *c = loom__reshape(fn, "index", loom_arange(0, (double)v->shape[d], 1, LOOM_INT64), nd, along);
        c = c ? loom__broadcast_to(fn, c, nd, out) : NULL;
        flat = ew2(fn, LOOM_OP_ADD, flat, ew2(fn, LOOM_OP_MULTIPLY, c, loom_scalar_int(vstrides[d])));
    }
    for (int k = 0; k < nadv && flat; k++) {
        /* the index array's axes go to the group's place, right-aligned in the broadcast */
        int64_t place[LOOM_MAXDIMS];
        for (int j = 0; j < nd; j++)
            place[j] = 1;
        for (int j = 0; j < adv[k]->ndim; j++)
            place[at + bnd - adv[k]->ndim + j] = adv[k]->shape[j];
        /* broadcast first: a broadcast computed value would be written to memory first */
        loom_array *x = loom__reshape(fn, "index", adv[k], nd, place);
        x = x ? loom__cast(fn, loom__broadcast_to(fn, x, nd, out), LOOM_INT64) : NULL;
        int64_t n = v->shape[adv_axis[k]];
        loom_array *neg = ew2(fn, LOOM_OP_LESS, x, loom_scalar_int(0));
        loom_array *norm = loom__ew(fn, LOOM_OP_WHERE, 3,
                                    (loom_array *[]){neg, ew2(fn, LOOM_OP_ADD, x, loom_scalar_int(n)), x}, NULL);
        loom_array *ok = ew2(fn, LOOM_OP_LOGICAL_AND, ew2(fn, LOOM_OP_GREATER_EQUAL, norm, loom_scalar_int(0)),
                             ew2(fn, LOOM_OP_LESS, norm, loom_scalar_int(n)));
        valid = valid ? ew2(fn, LOOM_OP_LOGICAL_AND, valid, ok) : ok;
        flat = ew2(fn, LOOM_OP_ADD, flat, ew2(fn, LOOM_OP_MULTIPLY, norm, loom_scalar_int(vstrides[adv_axis[k]])));
    }
    if (!flat || !valid)
        return NULL;
    flat = loom__ew(fn, LOOM_OP_WHERE, 3, (loom_array *[]){valid, flat, loom_scalar_int(-1 - base->size)}, NULL);
    loom_array *all = loom__reshape(fn, "ravel", base, 1, (int64_t[]){-1});
    return flat && all ? loom__take(fn, all, flat, 0, LOOM_MODE_RAISE, report_fn, report_axis,
                                    v->shape[adv_axis[0]])
                       : NULL;
}

/* NumPy's checks of the axes an index consumes (used) and of its ellipses. */
static bool index_fits(const char *fn, const loom_array *a, int used, int nell)
{
    if (nell > 1) {
        loom__error(LOOM_ERR_INVALID, fn, "an index can only have a single ellipsis ('...')");
        return false;
    }
    if (used > a->ndim) {
        loom__error(LOOM_ERR_INVALID, fn,
                    "too many indices for array: array is %d-dimensional, but %d were indexed",
                    a->ndim, used);
        return false;
    }
    return true;
}

static bool is_mask(const loom_index_term *t)
{
    return t->kind == LOOM_INDEX_ARRAY && t->array && loom__is_bool((loom_dtype)t->array->dtype);
}

/* a[terms] with boolean arrays among the terms: each stands for its nonzero() coordinates, one
 * integer array per axis it covers (NumPy's definition), so its length is read back
 * (docs/unique.md). Its shape must match the axes it covers. */
static loom_array *boolean_index(const char *fn, loom_array *a, const loom_index_term *terms,
                                 int nterms, int report_fn)
{
    int used = 0, nell = 0;
    for (int i = 0; i < nterms; i++) {
        const loom_index_term *t = &terms[i];
        bool mask = is_mask(t);
        used += mask ? t->array->ndim
                     : t->kind == LOOM_INDEX_INT || t->kind == LOOM_INDEX_SLICE ||
                           t->kind == LOOM_INDEX_ARRAY;
        nell += t->kind == LOOM_INDEX_ELLIPSIS;
        if (mask && t->array->ndim == 0) {
            loom__error(LOOM_ERR_UNSUPPORTED, fn, "0-d boolean indices are not supported yet");
            return NULL;
        }
    }
    if (!index_fits(fn, a, used, nell))
        return NULL;
    if (nterms > LOOM_MAXDIMS) {
        loom__error(LOOM_ERR_INVALID, fn, "an index with boolean arrays takes at most %d terms",
                    LOOM_MAXDIMS);
        return NULL;
    }
    loom_index_term t2[2 * LOOM_MAXDIMS];
    int n2 = 0, ad = 0;
    loom_scope_begin();
    for (int i = 0; i < nterms; i++) {
        const loom_index_term *t = &terms[i];
        bool mask = is_mask(t);
        if (!mask) {
            t2[n2++] = *t;
            ad += t->kind == LOOM_INDEX_ELLIPSIS ? a->ndim - used
                                                 : t->kind != LOOM_INDEX_NEWAXIS;
            continue;
        }
        const loom_array *m = t->array;
        for (int k = 0; k < m->ndim; k++)
            if (m->shape[k] != a->shape[ad + k]) {
                loom__error(LOOM_ERR_INVALID, fn,
                            "boolean index did not match indexed array along axis %d; size of "
                            "axis is %lld but size of corresponding boolean axis is %lld",
                            ad + k, (long long)a->shape[ad + k], (long long)m->shape[k]);
                return loom__scope_return(NULL);
            }
        loom_array *coords[LOOM_MAXDIMS];
        if (loom_nonzero(t->array, coords, LOOM_MAXDIMS) < 0)
            return loom__scope_return(NULL);
        for (int k = 0; k < m->ndim; k++)
            t2[n2++] = (loom_index_term){.kind = LOOM_INDEX_ARRAY, .array = coords[k]};
        ad += m->ndim;
    }
    return loom__scope_return(loom__getitem(fn, a, t2, n2, report_fn));
}

loom_array *loom__getitem(const char *fn, loom_array *a, const loom_index_term *terms,
                          int nterms, int report_fn)
{
    if (!a)
        return NULL;
    if (nterms < 0 || (nterms > 0 && !terms)) {
        loom__error(LOOM_ERR_INVALID, fn, "invalid index terms (%d)", nterms);
        return NULL;
    }
    int nell;
    bool arrays;
    int used = count_consumed(terms, nterms, &nell, &arrays);
    if (!index_fits(fn, a, used, nell))
        return NULL;
    for (int i = 0; i < nterms; i++) {
        const loom_index_term *t = &terms[i];
        if (t->kind == LOOM_INDEX_ARRAY) {
            if (!t->array)
                return NULL;
            if (loom__is_bool((loom_dtype)t->array->dtype))
                return boolean_index(fn, a, terms, nterms, report_fn);
            if (!loom__is_int((loom_dtype)t->array->dtype)) {
                loom__error(LOOM_ERR_INVALID, fn,
                            "arrays used as indices must be of integer (or boolean) type");
                return NULL;
            }
        } else if (t->kind == LOOM_INDEX_SLICE && (t->step == 0 || t->step == LOOM_NONE)) {
            loom__error(LOOM_ERR_INVALID, fn, t->step ? "slice step LOOM_NONE is ambiguous: pass 1"
                                                      : "slice step cannot be zero");
            return NULL;
        } else if ((int)t->kind < 0 || t->kind > LOOM_INDEX_ARRAY) {
            loom__error(LOOM_ERR_INVALID, fn, "invalid index term kind %d", (int)t->kind);
            return NULL;
        }
    }
    loom_scope_begin();
    loom_array *v = a;
    /* d: the axis of v a term applies to; ad: the axis of a it consumes */
    int d = 0, ad = 0, nadv = 0, adv_axis[LOOM_MAXDIMS], first_adv = 0, last_adv_term = -2;
    loom_array *adv[LOOM_MAXDIMS];
    bool adjacent = true;
    for (int i = 0; i < nterms && v; i++) {
        const loom_index_term *t = &terms[i];
        switch (t->kind) {
        case LOOM_INDEX_ELLIPSIS:
            d += a->ndim - used; /* the full slices it stands for */
            ad += a->ndim - used;
            break;
        case LOOM_INDEX_NEWAXIS:
            v = loom__new_axis(fn, v, d++);
            break;
        case LOOM_INDEX_SLICE:
            v = loom_slice(v, d++, t->start, t->stop, t->step);
            ad++;
            break;
        case LOOM_INDEX_INT:
        case LOOM_INDEX_ARRAY:
            if (t->kind == LOOM_INDEX_INT) {
                int64_t n = v->shape[d], k = t->start;
                if (k < -n || k >= n) {
                    loom__error(LOOM_ERR_INVALID, fn,
                                "index %lld is out of bounds for axis %d with size %lld",
                                (long long)k, ad, (long long)n);
                    v = NULL;
                    break;
                }
                if (!arrays) { /* a basic index: the axis goes */
                    v = loom_index(v, d, k);
                    ad++;
                    break;
                }
            }
            /* advanced: with arrays present, integers are 0-d index arrays (NumPy) */
            if (last_adv_term >= 0 && last_adv_term != i - 1)
                adjacent = false;
            if (nadv == 0)
                first_adv = ad;
            last_adv_term = i;
            adv_axis[nadv] = d++;
            adv[nadv++] = t->kind == LOOM_INDEX_ARRAY ? t->array : loom_scalar_int(t->start);
            ad++;
            break;
        }
    }
    if (!v || nadv == 0)
        return loom__scope_return(v);
    return loom__scope_return(advanced(fn, v, adv_axis, adv, nadv, adjacent, report_fn, first_adv));
}

loom_array *loom_getitem(loom_array *a, const loom_index_term *terms, int nterms)
{
    return loom__getitem("loom_getitem", a, terms, nterms, LOOM_REPORT_GETITEM);
}
