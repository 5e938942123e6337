/* The products built on matmul and on views: dot, vdot, inner, outer, tensordot, kron, trace,
 * diagonal, linalg.matrix_power and linalg.multi_dot, each as NumPy 2 composes it (tensordot's
 * transpose-reshape-dot, kron's interleaved broadcast, multi_dot's matrix-chain order), so
 * shapes, dtypes and errors come out as NumPy's. */
#include "linalg.h"
#include "products.h"
#include "reduce.h"
#include "ufunc.h"
#include "views.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- shared steps ---- */

loom_array *loom__strong(loom_array *a)
{
    if (!a)
        return NULL;
    return a->weak ? loom_astype(a, (loom_dtype)a->dtype) : loom__adopt(loom_retain(a));
}

loom_array *loom__permute(const char *fn, loom_array *a, const int *perm)
{
    if (!a)
        return NULL;
    int64_t shape[LOOM_MAXDIMS], strides[LOOM_MAXDIMS];
    for (int i = 0; i < a->ndim; i++) {
        shape[i] = a->shape[perm[i]];
        strides[i] = a->strides[perm[i]];
    }
    return loom__map_view(fn, "transpose", a, a->ndim, shape, strides, a->offset);
}

static loom_array *multiply(const char *fn, loom_array *a, loom_array *b)
{
    return loom__ew(fn, LOOM_OP_MULTIPLY, 2, (loom_array *[]){a, b}, NULL);
}

/* The product of n extents (0 if any is 0, whatever the others: no overflow). */
static int64_t extent_product(const int64_t *shape, const int *axes, int n)
{
    int64_t p = 1;
    for (int i = 0; i < n; i++)
        if (shape[axes[i]] == 0)
            return 0;
    for (int i = 0; i < n; i++)
        p *= shape[axes[i]];
    return p;
}

static bool too_many_dims(const char *fn, int ndim)
{
    if (ndim <= LOOM_MAXDIMS)
        return false;
    loom__error(LOOM_ERR_INVALID, fn, "maximum supported dimension for an ndarray is %d, found %d",
                LOOM_MAXDIMS, ndim);
    return true;
}

/* np.dot's message for the contracted extents of a (axis ia) and b (axis ib). */
static loom_array *not_aligned(const char *fn, int nda, const int64_t *sa, int ia, int ndb,
                               const int64_t *sb, int ib)
{
    char ba[512], bb[512];
    loom__error(LOOM_ERR_INVALID, fn,
                "shapes %s and %s not aligned: %lld (dim %d) != %lld (dim %d)",
                loom__fmt_shape(ba, sizeof ba, nda, sa), loom__fmt_shape(bb, sizeof bb, ndb, sb),
                (long long)sa[ia], ia, (long long)sb[ib], ib);
    return NULL;
}

/* np.tensordot once its axes are checked (normalised, distinct, equal extents): a's other axes
 * and b's other axes, in order, from one matrix product of two 2-D views (lazy copies where
 * the strides do not merge). */
static loom_array *contract(const char *fn, loom_array *a, loom_array *b, const int *axa,
                            const int *axb, int n)
{
    int pa[LOOM_MAXDIMS], pb[LOOM_MAXDIMS], na = 0, nb = 0, nout = 0;
    int64_t out[2 * LOOM_MAXDIMS];
    uint64_t ma = 0, mb = 0;
    for (int k = 0; k < n; k++) {
        ma |= (uint64_t)1 << axa[k];
        mb |= (uint64_t)1 << axb[k];
    }
    for (int i = 0; i < a->ndim; i++) {
        if (!(ma >> i & 1)) {
            pa[na++] = i;
            out[nout++] = a->shape[i];
        }
    }
    int free_a = na;
    for (int k = 0; k < n; k++) {
        pa[na++] = axa[k];
        pb[nb++] = axb[k];
    }
    for (int i = 0; i < b->ndim; i++) {
        if (!(mb >> i & 1)) {
            pb[nb++] = i;
            out[nout++] = b->shape[i];
        }
    }
    if (too_many_dims(fn, nout))
        return NULL;
    int64_t sa[2] = {extent_product(a->shape, pa, free_a), extent_product(a->shape, axa, n)};
    int64_t sb[2] = {sa[1], extent_product(b->shape, pb + n, b->ndim - n)};
    loom_array *x = loom__permute(fn, a, pa), *y = loom__permute(fn, b, pb);
    x = x ? loom__reshape(fn, "tensordot", x, 2, sa) : NULL;
    y = y ? loom__reshape(fn, "tensordot", y, 2, sb) : NULL;
    loom_array *r = x && y ? loom__matmul_any(fn, x, y) : NULL;
    return r ? loom__reshape(fn, "tensordot", r, nout, out) : NULL;
}

/* ---- dot, vdot, inner, outer ---- */

/* np.dot with errors under fn: a product for a 0-d operand, else a sum over a's last axis and
 * b's second-to-last (its only one when 1-D). */
static loom_array *dot(const char *fn, loom_array *a, loom_array *b)
{
    loom_scope_begin();
    loom_array *x = loom__strong(a), *y = loom__strong(b), *r = NULL;
    if (x && y) {
        if (x->ndim == 0 || y->ndim == 0) {
            r = multiply(fn, x, y);
        } else {
            int ia = x->ndim - 1, ib = y->ndim >= 2 ? y->ndim - 2 : 0;
            if (x->shape[ia] != y->shape[ib])
                not_aligned(fn, x->ndim, x->shape, ia, y->ndim, y->shape, ib);
            else
                r = contract(fn, x, y, &ia, &ib, 1);
        }
    }
    return loom__scope_return(r);
}

loom_array *loom_dot(loom_array *a, loom_array *b)
{
    return a && b ? dot("loom_dot", a, b) : NULL;
}

loom_array *loom_vdot(loom_array *a, loom_array *b)
{
    static const char fn[] = "loom_vdot";
    if (!a || !b)
        return NULL;
    if (a->size != b->size) {
        /* NumPy's words: its vdot reshapes b to a's length. */
        loom__error(LOOM_ERR_SHAPE, fn, "cannot reshape array of size %lld into shape (%lld,)",
                    (long long)b->size, (long long)a->size);
        return NULL;
    }
    loom_scope_begin();
    const int64_t flat[1] = {-1};
    loom_array *x = loom__strong(a), *y = loom__strong(b), *r = NULL;
    x = x ? loom__reshape(fn, "ravel", x, 1, flat) : NULL;
    y = y ? loom__reshape(fn, "ravel", y, 1, flat) : NULL;
    if (x && loom__is_complex((loom_dtype)x->dtype))
        x = loom__ew(fn, LOOM_OP_CONJ, 1, &x, NULL);
    if (x && y)
        r = loom__matmul_any(fn, x, y);
    return loom__scope_return(r);
}

loom_array *loom_inner(loom_array *a, loom_array *b)
{
    static const char fn[] = "loom_inner";
    if (!a || !b)
        return NULL;
    loom_scope_begin();
    loom_array *x = loom__strong(a), *y = loom__strong(b), *r = NULL;
    if (x && y) {
        if (x->ndim == 0 || y->ndim == 0) {
            r = multiply(fn, x, y);
        } else {
            int ia = x->ndim - 1, ib = y->ndim - 1;
            if (x->shape[ia] == y->shape[ib]) {
                r = contract(fn, x, y, &ia, &ib, 1);
            } else {
                /* NumPy reports the dot of b with its last two axes swapped. */
                int64_t t[LOOM_MAXDIMS];
                memcpy(t, y->shape, (size_t)y->ndim * sizeof *t);
                int it = y->ndim >= 2 ? y->ndim - 2 : 0;
                t[it] = y->shape[ib];
                t[ib] = y->shape[it];
                not_aligned(fn, x->ndim, x->shape, ia, y->ndim, t, it);
            }
        }
    }
    return loom__scope_return(r);
}

loom_array *loom_outer(loom_array *a, loom_array *b)
{
    static const char fn[] = "loom_outer";
    if (!a || !b)
        return NULL;
    loom_scope_begin();
    const int64_t flat[1] = {-1};
    loom_array *x = loom__strong(a), *y = loom__strong(b);
    x = x ? loom__new_axis(fn, loom__reshape(fn, "ravel", x, 1, flat), 1) : NULL;
    y = y ? loom__new_axis(fn, loom__reshape(fn, "ravel", y, 1, flat), 0) : NULL;
    return loom__scope_return(x && y ? multiply(fn, x, y) : NULL);
}

/* ---- tensordot ---- */

loom_array *loom_tensordot(loom_array *a, loom_array *b, const int *axes_a, const int *axes_b,
                           int naxes)
{
    static const char fn[] = "loom_tensordot";
    if (!a || !b)
        return NULL;
    if (naxes < 0 || (naxes > 0 && (!axes_a || !axes_b))) {
        loom__error(LOOM_ERR_INVALID, fn, naxes < 0 ? "number of axes %d is negative"
                                                    : "axes is NULL for %d axes",
                    naxes);
        return NULL;
    }
    /* NumPy compares the axes as given first, then their extents one pair at a time. */
    for (int i = 0; i < naxes; i++) {
        for (int j = 0; j < i; j++) {
            if (axes_a[i] == axes_a[j] || axes_b[i] == axes_b[j]) {
                loom__error(LOOM_ERR_INVALID, fn, "duplicate axes are not allowed in tensordot");
                return NULL;
            }
        }
    }
    int axa[LOOM_MAXDIMS], axb[LOOM_MAXDIMS];
    uint64_t ma = 0, mb = 0;
    for (int k = 0; k < naxes; k++) {
        if (loom__normalize_axis(fn, "axes_a", axes_a[k], a->ndim, &axa[k]) ||
            loom__normalize_axis(fn, "axes_b", axes_b[k], b->ndim, &axb[k]))
            return NULL;
        if (a->shape[axa[k]] != b->shape[axb[k]]) {
            loom__error(LOOM_ERR_INVALID, fn, "shape-mismatch for sum");
            return NULL;
        }
        /* An axis named twice (as 1 and -1, say) is a duplicate too. */
        if ((ma >> axa[k] & 1) || (mb >> axb[k] & 1)) {
            loom__error(LOOM_ERR_INVALID, fn, "duplicate axes are not allowed in tensordot");
            return NULL;
        }
        ma |= (uint64_t)1 << axa[k];
        mb |= (uint64_t)1 << axb[k];
    }
    loom_scope_begin();
    loom_array *x = loom__strong(a), *y = loom__strong(b);
    return loom__scope_return(x && y ? contract(fn, x, y, axa, axb, naxes) : NULL);
}

/* ---- kron ---- */

/* a's map with axis i of its nd-axis padding (1s in front) at axis 2i + first, and extent-1
 * axes between: (a0, 1, a1, 1, ...) for first 0, (1, a0, 1, a1, ...) for first 1. */
static loom_array *interleave(const char *fn, loom_array *a, int nd, int first)
{
    int64_t shape[LOOM_MAXDIMS], strides[LOOM_MAXDIMS];
    int pad = nd - a->ndim;
    for (int i = 0; i < nd; i++) {
        bool real = i >= pad;
        shape[2 * i + first] = real ? a->shape[i - pad] : 1;
        strides[2 * i + first] = real ? a->strides[i - pad] : 0;
        shape[2 * i + 1 - first] = 1;
        strides[2 * i + 1 - first] = 0;
    }
    return loom__map_view(fn, "kron", a, 2 * nd, shape, strides, a->offset);
}

/* NumPy's kron: a's and b's axes interleaved, one broadcast product, reshaped (a view of it). */
loom_array *loom_kron(loom_array *a, loom_array *b)
{
    static const char fn[] = "loom_kron";
    if (!a || !b)
        return NULL;
    int nd = a->ndim > b->ndim ? a->ndim : b->ndim;
    if (a->ndim && b->ndim && too_many_dims(fn, 2 * nd))
        return NULL;
    loom_scope_begin();
    loom_array *x = loom__strong(a), *y = loom__strong(b), *r = NULL;
    if (x && y && (!x->ndim || !y->ndim)) {
        r = multiply(fn, x, y);
    } else if (x && y) {
        r = multiply(fn, interleave(fn, x, nd, 0), interleave(fn, y, nd, 1));
        int64_t shape[LOOM_MAXDIMS];
        for (int i = 0; r && i < nd; i++)
            shape[i] = r->shape[2 * i] * r->shape[2 * i + 1];
        r = r ? loom__reshape(fn, "kron", r, nd, shape) : NULL;
    }
    return loom__scope_return(r);
}

/* ---- diagonal and trace ---- */

loom_array *loom__diagonal(const char *fn, loom_array *a, int64_t offset, int axis1, int axis2)
{
    if (a->ndim < 2) {
        loom__error(LOOM_ERR_INVALID, fn, "diag requires an array of at least two dimensions");
        return NULL;
    }
    int i1, i2;
    if (loom__normalize_axis(fn, "axis1", axis1, a->ndim, &i1) ||
        loom__normalize_axis(fn, "axis2", axis2, a->ndim, &i2))
        return NULL;
    if (i1 == i2) {
        loom__error(LOOM_ERR_INVALID, fn, "axis1 and axis2 cannot be the same");
        return NULL;
    }
    int64_t n1 = a->shape[i1], n2 = a->shape[i2], len, start;
    /* A positive offset moves right along axis2, a negative one down along axis1; past the
     * edge the diagonal is empty (compared before negating: offset may be INT64_MIN). */
    if (offset >= 0) {
        len = offset >= n2 ? 0 : n1 < n2 - offset ? n1 : n2 - offset;
        start = len ? offset * a->strides[i2] : 0;
    } else {
        len = offset <= -n1 ? 0 : n1 + offset < n2 ? n1 + offset : n2;
        start = len ? -offset * a->strides[i1] : 0;
    }
    int64_t shape[LOOM_MAXDIMS], strides[LOOM_MAXDIMS];
    int nd = 0;
    for (int i = 0; i < a->ndim; i++) {
        if (i != i1 && i != i2) {
            shape[nd] = a->shape[i];
            strides[nd++] = a->strides[i];
        }
    }
    shape[nd] = len;
    strides[nd++] = a->strides[i1] + a->strides[i2];
    return loom__map_view(fn, "diagonal", a, nd, shape, strides, a->offset + start);
}

loom_array *loom_diagonal(loom_array *a, int64_t offset, int axis1, int axis2)
{
    return a ? loom__diagonal("loom_diagonal", a, offset, axis1, axis2) : NULL;
}

/* The sum along the diagonal, with sum's dtypes (int64 for bool and signed integers...). */
loom_array *loom_trace(loom_array *a, int64_t offset, int axis1, int axis2)
{
    static const char fn[] = "loom_trace";
    if (!a)
        return NULL;
    loom_scope_begin();
    loom_array *d = loom__diagonal(fn, a, offset, axis1, axis2);
    loom_dtype out = loom__sum_dtype((loom_dtype)a->dtype);
    loom_array *r = d ? loom__reduce(fn, LOOM_OP_SUM, d, 1u << (d->ndim - 1), false,
                                     loom__acc_dtype(out), out)
                      : NULL;
    return loom__scope_return(r);
}

/* ---- linalg.matrix_power ---- */

/* a^n by NumPy's own sequence of squarings, so results round as NumPy's do: the identity (a
 * broadcast eye) for 0, a itself for 1; a negative n is inv(a) to the power -n, as NumPy. */
loom_array *loom_linalg_matrix_power(loom_array *a, int64_t n)
{
    static const char fn[] = "loom_linalg_matrix_power";
    if (!a)
        return NULL;
    int nd = a->ndim;
    if (nd < 2) {
        loom__error(LOOM_ERR_INVALID, fn,
                    "%d-dimensional array given. Array must be at least two-dimensional", nd);
        return NULL;
    }
    if (a->shape[nd - 1] != a->shape[nd - 2]) {
        loom__error(LOOM_ERR_INVALID, fn, "Last 2 dimensions of the array must be square");
        return NULL;
    }
    loom_scope_begin();
    uint64_t k = n < 0 ? -(uint64_t)n : (uint64_t)n;
    loom_array *r = NULL;
    if (n < 0)
        a = loom__linalg_inv(fn, a, LOOM_LU_MATRIX_POWER);
    if (!a) {
        /* the inverse's error is recorded */
    } else if (k == 0) {
        loom_array *eye = loom_eye(a->shape[nd - 1], -1, 0, (loom_dtype)a->dtype);
        r = eye ? loom__broadcast_to(fn, eye, nd, a->shape) : NULL;
    } else if (k == 1) {
        r = loom__adopt(loom_retain(a));
    } else if (k == 2) {
        r = loom__matmul_any(fn, a, a);
    } else if (k == 3) {
        r = loom__matmul_any(fn, a, a);
        r = r ? loom__matmul_any(fn, r, a) : NULL;
    } else {
        /* Bit by bit from the lowest: r collects the squares z of the set bits. */
        loom_array *z = NULL;
        while (k > 0) {
            z = z ? loom__matmul_any(fn, z, z) : a;
            if (z && k % 2)
                r = r ? loom__matmul_any(fn, r, z) : z;
            if (!z || (k % 2 && !r)) {
                r = NULL;
                break;
            }
            k /= 2;
        }
    }
    return loom__scope_return(r);
}

/* ---- linalg.multi_dot ---- */

double loom__multi_dot_order(int n, const int64_t *p, int *split)
{
    double *m = loom__calloc((size_t)n * (size_t)n, sizeof *m);
    if (!m)
        return -1.0;
    for (int len = 1; len < n; len++) {
        for (int i = 0; i + len < n; i++) {
            int j = i + len;
            m[i * n + j] = INFINITY;
            for (int k = i; k < j; k++) {
                double q = m[i * n + k] + m[(k + 1) * n + j] +
                           (double)p[i] * (double)p[k + 1] * (double)p[j + 1];
                if (q < m[i * n + j]) {
                    m[i * n + j] = q;
                    split[i * n + j] = k;
                }
            }
        }
    }
    double cost = n > 1 ? m[n - 1] : 0.0;
    free(m);
    return cost;
}

static loom_array *chain(const char *fn, loom_array *const *mats, const int *split, int n, int i,
                         int j)
{
    if (i == j)
        return mats[i];
    int k = split[i * n + j];
    loom_array *l = chain(fn, mats, split, n, i, k);
    loom_array *r = l ? chain(fn, mats, split, n, k + 1, j) : NULL;
    return r ? loom__matmul_any(fn, l, r) : NULL;
}

loom_array *loom_linalg_multi_dot(loom_array *const *arrays, int n)
{
    static const char fn[] = "loom_linalg_multi_dot";
    if (loom__check_input_list(fn, arrays, n))
        return NULL;
    if (n < 2) {
        loom__error(LOOM_ERR_INVALID, fn, "Expecting at least two arrays.");
        return NULL;
    }
    if (n == 2)
        return dot(fn, arrays[0], arrays[1]);
    for (int i = 0; i < n; i++) {
        int nd = arrays[i]->ndim;
        if ((i == 0 || i == n - 1) && nd == 1)
            nd = 2;
        if (nd != 2) {
            loom__error(LOOM_ERR_INVALID, fn,
                        "%d-dimensional array given. Array must be two-dimensional", nd);
            return NULL;
        }
    }
    bool first_1d = arrays[0]->ndim == 1, last_1d = arrays[n - 1]->ndim == 1;
    loom_scope_begin();
    loom_array **mats = loom__malloc((size_t)n * sizeof *mats);
    int64_t *p = loom__malloc(((size_t)n + 1) * sizeof *p);
    int *split = loom__malloc((size_t)n * (size_t)n * sizeof *split);
    loom_array *r = NULL;
    bool ok = mats && p && split;
    if (!ok)
        loom__error(LOOM_ERR_OOM, fn, "out of host memory");
    /* NumPy's atleast_2d: a first 1-D operand is one row, a last one (transposed) a column. */
    for (int i = 0; ok && i < n; i++) {
        mats[i] = loom__strong(arrays[i]);
        if (mats[i] && i == 0 && first_1d)
            mats[i] = loom__new_axis(fn, mats[i], 0);
        else if (mats[i] && i == n - 1 && last_1d)
            mats[i] = loom__new_axis(fn, mats[i], 1);
        ok = mats[i] != NULL;
    }
    /* Checked before the order is chosen, so the first pair that does not align is named. */
    for (int i = 0; ok && i + 1 < n; i++) {
        const loom_array *x = mats[i], *y = mats[i + 1];
        if (x->shape[1] != y->shape[0]) {
            not_aligned(fn, 2, x->shape, 1, 2, y->shape, 0);
            ok = false;
        }
    }
    if (ok) {
        for (int i = 0; i < n; i++)
            p[i] = mats[i]->shape[0];
        p[n] = mats[n - 1]->shape[1];
        if (loom__multi_dot_order(n, p, split) < 0)
            loom__error(LOOM_ERR_OOM, fn, "out of host memory");
        else
            r = chain(fn, mats, split, n, 0, n - 1);
    }
    if (r && (first_1d || last_1d)) {
        const int64_t flat[1] = {-1};
        r = loom__reshape(fn, "multi_dot", r, first_1d && last_1d ? 0 : 1, flat);
    }
    free(mats);
    free(p);
    free(split);
    return loom__scope_return(r);
}
