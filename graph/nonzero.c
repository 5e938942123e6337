/* nonzero, flatnonzero and argwhere: the flat positions of the set elements (graph/select.c),
 * unravelled into coordinates by elementwise division and remainder. The _size variants are
 * JAX's size/fill_value: a length chosen by the caller, recorded with no host read. */
#include "reduce.h"
#include "select.h"
#include "ufunc.h"

/* Coordinate k of the flat positions p in shape (C order); positions equal to the array's size
 * (padding) become fill when padded. */
static loom_array *coordinate(const loom_array *a, loom_array *p, int k, bool padded,
                              int64_t fill)
{
    int64_t stride = 1;
    for (int j = k + 1; j < a->ndim; j++)
        stride *= a->shape[j];
    loom_array *c = stride > 1 ? loom_floor_divide(p, loom_scalar_int(stride)) : p;
    if (k > 0)
        c = loom_remainder(c, loom_scalar_int(a->shape[k]));
    if (padded)
        c = loom_where(loom_equal(p, loom_scalar_int(a->size)), loom_scalar_int(fill), c);
    return c;
}

static int coordinates(const char *fn, loom_array *a, bool sized, int64_t size, int64_t fill,
                       loom_array **out, int max_out)
{
    for (int k = 0; out && k < max_out; k++)
        out[k] = NULL;
    int rc = loom__check_input_list(fn, &a, 1);
    if (rc)
        return rc;
    if (a->ndim == 0) {
        /* NumPy's words, with its hint for boolean conditions */
        loom__error(LOOM_ERR_INVALID, fn,
                    "Calling nonzero on 0d arrays is not allowed. Use "
                    "np.atleast_1d(scalar).nonzero() instead.%s",
                    a->dtype == LOOM_BOOL ? " If the context of this error is of the form "
                                            "`arr[nonzero(cond)]`, just use `arr[cond]`."
                                          : "");
        return LOOM_ERR_INVALID;
    }
    if (!out || max_out < a->ndim) {
        loom__error(LOOM_ERR_INVALID, fn, "out has room for %d arrays, the input has %d dimensions",
                    out ? max_out : 0, a->ndim);
        return LOOM_ERR_INVALID;
    }
    loom_scope_begin();
    loom_array *p = sized ? loom__mask_positions_sized(fn, a, size) : loom__mask_positions(fn, a);
    loom_array *c[LOOM_MAXDIMS];
    bool ok = p != NULL;
    for (int k = 0; ok && k < a->ndim; k++)
        ok = (c[k] = coordinate(a, p, k, sized, fill)) != NULL;
    for (int k = 0; ok && k < a->ndim; k++)
        out[k] = loom_keep(c[k]);
    int n = ok ? a->ndim : loom_last_error_code();
    loom_scope_end();
    return n;
}

int loom_nonzero(loom_array *a, loom_array **out, int max_out)
{
    return coordinates("loom_nonzero", a, false, 0, 0, out, max_out);
}

int loom_where_nonzero(loom_array *condition, loom_array **out, int max_out)
{
    return coordinates("loom_where_nonzero", condition, false, 0, 0, out, max_out);
}

int loom_nonzero_size(loom_array *a, int64_t size, int64_t fill_value, loom_array **out,
                      int max_out)
{
    return coordinates("loom_nonzero_size", a, true, size, fill_value, out, max_out);
}

loom_array *loom_flatnonzero(loom_array *a)
{
    return loom__mask_positions("loom_flatnonzero", a);
}

loom_array *loom_flatnonzero_size(loom_array *a, int64_t size, int64_t fill_value)
{
    static const char fn[] = "loom_flatnonzero_size";
    if (!a)
        return NULL;
    loom_scope_begin();
    loom_array *p = loom__mask_positions_sized(fn, a, size);
    loom_array *r = p ? loom_where(loom_equal(p, loom_scalar_int(a->size)),
                                   loom_scalar_int(fill_value), p)
                      : NULL;
    return loom__scope_return(r);
}

/* np.argwhere: (count, ndim) coordinates; a 0-d array gives (count, 0) as NumPy. */
loom_array *loom_argwhere(loom_array *a)
{
    static const char fn[] = "loom_argwhere";
    if (!a)
        return NULL;
    loom_scope_begin();
    loom_array *r = NULL;
    if (a->ndim == 0) {
        loom_array *p = loom__mask_positions(fn, a);
        r = p ? loom_empty(2, (const int64_t[]){p->size, 0}, LOOM_INT64) : NULL;
    } else {
        loom_array *c[LOOM_MAXDIMS];
        if (coordinates(fn, a, false, 0, 0, c, LOOM_MAXDIMS) > 0) /* this scope's */
            r = loom_stack(c, a->ndim, 1);
    }
    return loom__scope_return(r);
}
