/* Coordinate grids and diagonals made of generators: meshgrid, indices, ix_, tri, diag,
 * diagflat and fill_diagonal cost no memory of their own; their arange generators and masks
 * are computed inside whatever kernel reads them (docs/indexing.md). */
#include "index.h"
#include "reduce.h"
#include "select.h"
#include "ufunc.h"
#include "views.h"

#include <string.h>

static loom_array *ew2(const char *fn, loom_op op, loom_array *x, loom_array *y)
{
    return loom__ew(fn, op, 2, (loom_array *[]){x, y}, NULL);
}

/* arange(n) as int64 along axis `at` of an nd-dimensional array of extent-1 axes. */
static loom_array *arange_along(const char *fn, int64_t n, int at, int nd)
{
    int64_t shape[LOOM_MAXDIMS];
    for (int d = 0; d < nd; d++)
        shape[d] = d == at ? n : 1;
    return loom__reshape(fn, "arange", loom_arange(0, (double)n, 1, LOOM_INT64), nd, shape);
}

/* The arrays and out of a function writing n views: valid, no NULL entry; out cleared. */
static int check_list(const char *fn, loom_array *const *arrays, int n, loom_array **out)
{
    if (!out || n < 0 || (n > 0 && !arrays)) {
        loom__error(LOOM_ERR_INVALID, fn, "invalid array list (%d arrays)", n);
        return -1;
    }
    for (int i = 0; i < n; i++)
        out[i] = NULL;
    return loom__check_input_list(fn, arrays, n) ? -1 : 0;
}

int loom_meshgrid(loom_array *const *arrays, int n, const char *indexing, bool sparse,
                  loom_array **out)
{
    static const char fn[] = "loom_meshgrid";
    if (check_list(fn, arrays, n, out))
        return LOOM_ERR_INVALID;
    bool xy = !indexing || strcmp(indexing, "xy") == 0;
    if (!xy && strcmp(indexing, "ij") != 0) {
        loom__error(LOOM_ERR_INVALID, fn, "Valid values for `indexing` are 'xy' and 'ij'.");
        return LOOM_ERR_INVALID;
    }
    if (n > LOOM_MAXDIMS) {
        loom__error(LOOM_ERR_INVALID, fn, "maximum supported dimension for an ndarray is %d, found %d",
                    LOOM_MAXDIMS, n);
        return LOOM_ERR_INVALID;
    }
    int64_t full[LOOM_MAXDIMS];
    for (int i = 0; i < n; i++)
        full[i] = arrays[i]->size;
    if (xy && n > 1)
        full[0] = arrays[1]->size, full[1] = arrays[0]->size;
    loom_scope_begin();
    bool ok = true;
    for (int i = 0; i < n && ok; i++) {
        /* array i along axis i, or along the other of the first two with xy */
        int at = xy && n > 1 && i < 2 ? 1 - i : i;
        int64_t shape[LOOM_MAXDIMS];
        for (int d = 0; d < n; d++)
            shape[d] = d == at ? arrays[i]->size : 1;
        loom_array *v = loom__reshape(fn, "meshgrid", arrays[i], n, shape);
        if (v && !sparse)
            v = loom__broadcast_to(fn, v, n, full);
        out[i] = loom_keep(v);
        ok = v != NULL;
    }
    loom_scope_end();
    if (!ok) {
        for (int i = 0; i < n; i++) {
            loom_release(out[i]); /* kept for the enclosing scope or the caller: not used */
            out[i] = NULL;
        }
        return loom_last_error_code();
    }
    return LOOM_OK;
}

loom_array *loom_indices(int ndim, const int64_t *dims, loom_dtype dtype)
{
    static const char fn[] = "loom_indices";
    int64_t size;
    if (ndim < 0 || ndim + 1 > LOOM_MAXDIMS || (ndim > 0 && !dims) ||
        loom__check_shape(fn, ndim, dims, &size)) {
        if (!(ndim >= 0 && ndim + 1 <= LOOM_MAXDIMS && (ndim == 0 || dims)))
            loom__error(LOOM_ERR_INVALID, fn, "invalid dimensions (%d)", ndim);
        return NULL;
    }
    if (!loom__dtype_valid(dtype)) {
        loom__error(LOOM_ERR_INVALID, fn, "invalid dtype %d", (int)dtype);
        return NULL;
    }
    if (ndim == 0)
        return loom_zeros(1, (int64_t[]){0}, dtype);
    loom_scope_begin();
    loom_array *grids[LOOM_MAXDIMS];
    bool ok = true;
    for (int i = 0; i < ndim && ok; i++) {
        loom_array *g = arange_along(fn, dims[i], i, ndim);
        g = g ? loom__broadcast_to(fn, g, ndim, dims) : NULL;
        ok = (grids[i] = g ? loom_astype(g, dtype) : NULL) != NULL;
    }
    return loom__scope_return(ok ? loom_stack(grids, ndim, 0) : NULL);
}

int loom_ix(loom_array *const *arrays, int n, loom_array **out)
{
    static const char fn[] = "loom_ix";
    if (check_list(fn, arrays, n, out))
        return LOOM_ERR_INVALID;
    for (int i = 0; i < n; i++) {
        if (arrays[i]->ndim != 1) {
            loom__error(LOOM_ERR_INVALID, fn, "Cross index must be 1 dimensional");
            return LOOM_ERR_INVALID;
        }
        loom_dtype dt = (loom_dtype)arrays[i]->dtype;
        if (!loom__is_int(dt) && !loom__is_bool(dt) && arrays[i]->size > 0) {
            loom__error(LOOM_ERR_INVALID, fn, "arrays used as indices must be of integer (or boolean) type");
            return LOOM_ERR_INVALID;
        }
    }
    if (n > LOOM_MAXDIMS) {
        loom__error(LOOM_ERR_INVALID, fn, "maximum supported dimension for an ndarray is %d, found %d",
                    LOOM_MAXDIMS, n);
        return LOOM_ERR_INVALID;
    }
    loom_scope_begin();
    loom_array *r[LOOM_MAXDIMS];
    bool ok = true;
    for (int i = 0; i < n && ok; i++) {
        /* a boolean array stands for its nonzero() positions: read back (docs/unique.md) */
        loom_array *x = loom__is_bool((loom_dtype)arrays[i]->dtype)
                            ? loom__mask_positions(fn, arrays[i])
                            : arrays[i];
        int64_t shape[LOOM_MAXDIMS];
        for (int d = 0; x && d < n; d++)
            shape[d] = d == i ? x->size : 1;
        ok = x && (r[i] = loom__reshape(fn, "ix_", x, n, shape)) != NULL;
    }
    for (int i = 0; i < n && ok; i++)
        out[i] = loom_keep(r[i]);
    int rc = ok ? LOOM_OK : loom_last_error_code();
    loom_scope_end();
    return rc;
}

loom_array *loom_tri(int64_t n, int64_t m, int64_t k, loom_dtype dtype)
{
    static const char fn[] = "loom_tri";
    if (!loom__dtype_valid(dtype)) {
        loom__error(LOOM_ERR_INVALID, fn, "invalid dtype %d", (int)dtype);
        return NULL;
    }
    m = m < 0 ? n : m;
    n = n < 0 ? 0 : n;
    loom_scope_begin();
    /* j - i <= k */
    loom_array *d = ew2(fn, LOOM_OP_SUBTRACT, arange_along(fn, m, 1, 2), arange_along(fn, n, 0, 2));
    loom_array *r = ew2(fn, LOOM_OP_LESS_EQUAL, d, loom_scalar_int(k));
    return loom__scope_return(r ? loom_astype(r, dtype) : NULL);
}

/* diag of a 1-D v: v[min(i, j)] where j - i == k, else 0, in an (n + |k|) square. */
static loom_array *diag_from(const char *fn, loom_array *v, int64_t k)
{
    int64_t n = v->shape[0] + (k < 0 ? -k : k);
    int64_t sq[2] = {n, n};
    loom_array *i = loom__broadcast_to(fn, arange_along(fn, n, 0, 2), 2, sq);
    loom_array *j = loom__broadcast_to(fn, arange_along(fn, n, 1, 2), 2, sq);
    loom_array *on = ew2(fn, LOOM_OP_EQUAL, ew2(fn, LOOM_OP_SUBTRACT, j, i), loom_scalar_int(k));
    loom_array *g = i && j ? loom__take(fn, v, k >= 0 ? i : j, 0, LOOM_MODE_CLIP, LOOM_REPORT_TAKE, 0, v->shape[0]) : NULL;
    loom_array *zero = loom_zeros(0, NULL, (loom_dtype)v->dtype);
    return loom__ew(fn, LOOM_OP_WHERE, 3, (loom_array *[]){on, g, zero}, NULL);
}

loom_array *loom_diag(loom_array *v, int64_t k)
{
    static const char fn[] = "loom_diag";
    if (!v)
        return NULL;
    if (v->ndim == 2)
        return loom_diagonal(v, (int)k, 0, 1);
    if (v->ndim != 1) {
        loom__error(LOOM_ERR_INVALID, fn, "Input must be 1- or 2-d.");
        return NULL;
    }
    if (v->shape[0] == 0 && k == 0)
        return loom_zeros(2, (int64_t[]){0, 0}, (loom_dtype)v->dtype);
    loom_scope_begin();
    return loom__scope_return(diag_from(fn, v, k));
}

loom_array *loom_diagflat(loom_array *v, int64_t k)
{
    static const char fn[] = "loom_diagflat";
    if (!v)
        return NULL;
    loom_scope_begin();
    loom_array *flat = loom__reshape(fn, "ravel", v, 1, (int64_t[]){-1});
    if (flat && flat->size == 0 && k == 0)
        return loom__scope_return(loom_zeros(2, (int64_t[]){0, 0}, (loom_dtype)v->dtype));
    return loom__scope_return(flat ? diag_from(fn, flat, k) : NULL);
}

loom_array *loom_fill_diagonal(loom_array *a, double value, bool wrap)
{
    static const char fn[] = "loom_fill_diagonal";
    if (!a)
        return NULL;
    if (a->ndim < 2) {
        loom__error(LOOM_ERR_INVALID, fn, "array must be at least 2-d");
        return NULL;
    }
    /* NumPy's flat positions: every step-th from 0, up to end */
    int64_t step = 1, end = a->size;
    if (a->ndim == 2) {
        step = a->shape[1] + 1;
        if (!wrap && a->shape[1] * a->shape[1] < end)
            end = a->shape[1] * a->shape[1];
    } else {
        for (int d = 1; d < a->ndim; d++)
            if (a->shape[d] != a->shape[0]) {
                loom__error(LOOM_ERR_INVALID, fn, "All dimensions of input must be of equal length");
                return NULL;
            }
        for (int64_t d = 0, p = 1; d < a->ndim - 1; d++)
            step += (p *= a->shape[d]);
    }
    loom_scope_begin();
    loom_array *f = loom__reshape(fn, "flat", loom_arange(0, (double)a->size, 1, LOOM_INT64),
                                  a->ndim, a->shape);
    loom_array *on = loom__ew(
        fn, LOOM_OP_LOGICAL_AND, 2,
        (loom_array *[]){ew2(fn, LOOM_OP_EQUAL, ew2(fn, LOOM_OP_REMAINDER, f, loom_scalar_int(step)),
                             loom_scalar_int(0)),
                         ew2(fn, LOOM_OP_LESS, f, loom_scalar_int(end))},
        NULL);
    loom_array *fill = loom_full(0, NULL, value, (loom_dtype)a->dtype);
    return loom__scope_return(loom__ew(fn, LOOM_OP_WHERE, 3, (loom_array *[]){on, fill, a}, NULL));
}

loom_array *loom_vander(loom_array *x, int64_t n, bool increasing)
{
    static const char fn[] = "loom_vander";
    if (!x)
        return NULL;
    if (x->ndim != 1) {
        loom__error(LOOM_ERR_INVALID, fn, "x must be a one-dimensional array or sequence.");
        return NULL;
    }
    if (n < 0)
        n = x->shape[0];
    /* NumPy's multiply.accumulate over [1, x, x, ...]: a cumulative product along the rows */
    int64_t m = x->shape[0];
    loom_scope_begin();
    loom_array *r;
    if (n == 0 || m == 0) {
        r = loom_zeros(2, (int64_t[]){m, n}, (loom_dtype)x->dtype);
    } else {
        loom_array *col = loom__reshape(fn, "vander", x, 2, (int64_t[]){m, 1});
        loom_array *parts[] = {loom_ones(2, (int64_t[]){m, 1}, (loom_dtype)x->dtype),
                               col ? loom__broadcast_to(fn, col, 2, (int64_t[]){m, n - 1}) : NULL};
        loom_array *row = n == 1 ? parts[0] : parts[1] ? loom_concatenate(parts, 2, 1) : NULL;
        r = row ? loom_cumprod(row, 1) : NULL;
        if (r && !increasing)
            r = loom_flip(r, (int[]){1}, 1);
    }
    return loom__scope_return(r);
}
