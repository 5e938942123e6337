/* isin and the set operations of NumPy's arraysetops, by its own sort-based algorithms: unique
 * inputs (graph/unique.c), one stable sort of both together, and neighbours compared. Results
 * whose length depends on data select positions (graph/select.c: a count read back). */
#include "reduce.h"
#include "select.h"
#include "ufunc.h"
#include "views.h"

static loom_array *ravel(const char *fn, loom_array *a)
{
    return a ? loom__reshape(fn, "ravel", a, 1, (const int64_t[]){-1}) : NULL;
}

static loom_array *join(loom_array *a, loom_array *b)
{
    return a && b ? loom_concatenate((loom_array *[]){a, b}, 2, 0) : NULL;
}

/* x[1:] and x[:-1] of a 1-D x of size >= 1. */
static loom_array *tail(loom_array *x)
{
    return loom_slice(x, 0, 1, x->shape[0], 1);
}

static loom_array *head(loom_array *x)
{
    return loom_slice(x, 0, 0, x->shape[0] - 1, 1);
}

/* NumPy's _in1d (kind='sort') for 1-D ar1 and ar2: whether each element of ar1 is in ar2. */
static loom_array *in1d(const char *fn, loom_array *ar1, loom_array *ar2, bool assume_unique,
                        bool invert)
{
    int64_t n1 = ar1->size;
    if (n1 == 0 || ar2->size == 0)
        return loom_full(1, (const int64_t[]){n1}, invert, LOOM_BOOL);
    loom_array *rev = NULL;
    if (!assume_unique) {
        loom_array *r[2];
        if (loom_unique(ar1, false, true, false, LOOM_AXIS_NONE, true, r, 2) != 2)
            return NULL;
        ar1 = r[0];
        rev = r[1];
        ar2 = loom__unique_values(fn, ar2, NULL);
    }
    loom_array *ar = join(ar1, ar2);
    loom_array *order = ar ? loom_argsort(ar, 0) : NULL;
    loom_array *sar = order ? loom__take_at(fn, ar, order) : NULL;
    if (!sar)
        return NULL;
    loom_array *same = invert ? loom_not_equal(tail(sar), head(sar))
                              : loom_equal(tail(sar), head(sar));
    loom_array *flag = join(same, loom_full(1, (const int64_t[]){1}, invert, LOOM_BOOL));
    loom_array *ret = flag ? loom__take_at(fn, flag, loom_argsort(order, 0)) : NULL;
    ret = ret ? loom_slice(ret, 0, 0, ar1->size, 1) : NULL;
    return rev && ret ? loom__take_at(fn, ret, rev) : ret;
}

loom_array *loom_isin(loom_array *element, loom_array *test_elements, bool assume_unique,
                      bool invert)
{
    static const char fn[] = "loom_isin";
    if (!element || !test_elements)
        return NULL;
    loom_scope_begin();
    loom_array *r = in1d(fn, ravel(fn, element), ravel(fn, test_elements), assume_unique, invert);
    r = r ? loom__reshape(fn, "reshape", r, element->ndim, element->shape) : NULL;
    return loom__scope_return(r);
}

loom_array *loom_in1d(loom_array *ar1, loom_array *ar2, bool assume_unique, bool invert)
{
    static const char fn[] = "loom_in1d";
    if (!ar1 || !ar2)
        return NULL;
    loom_scope_begin();
    return loom__scope_return(in1d(fn, ravel(fn, ar1), ravel(fn, ar2), assume_unique, invert));
}

/* ar1 and ar2 flattened, and unique (with first positions when ind1 and ind2) unless assumed. */
static bool set_inputs(const char *fn, loom_array **ar1, loom_array **ar2, bool assume_unique,
                       loom_array **ind1, loom_array **ind2)
{
    if (assume_unique) {
        *ar1 = ravel(fn, *ar1);
        *ar2 = ravel(fn, *ar2);
    } else {
        *ar1 = loom__unique_values(fn, *ar1, ind1);
        *ar2 = *ar1 ? loom__unique_values(fn, *ar2, ind2) : NULL;
    }
    return *ar1 && *ar2;
}

static int intersect_in_scope(const char *fn, loom_array *ar1, loom_array *ar2,
                              bool assume_unique, bool return_indices, loom_array **r)
{
    loom_array *ind1 = NULL, *ind2 = NULL;
    bool want_ind = return_indices && !assume_unique;
    if (!set_inputs(fn, &ar1, &ar2, assume_unique, want_ind ? &ind1 : NULL,
                    want_ind ? &ind2 : NULL))
        return -1;
    loom_array *aux = join(ar1, ar2);
    if (!aux)
        return -1;
    int nr = return_indices ? 3 : 1;
    if (ar1->size == 0 || ar2->size == 0) {
        r[0] = loom_empty(1, (const int64_t[]){0}, (loom_dtype)aux->dtype);
        for (int i = 1; i < nr; i++)
            r[i] = loom_empty(1, (const int64_t[]){0}, LOOM_INT64);
        return nr;
    }
    loom_array *order = return_indices ? loom_argsort(aux, 0) : NULL;
    aux = return_indices ? (order ? loom__take_at(fn, aux, order) : NULL) : loom_sort(aux, 0);
    loom_array *sorted[2] = {aux, order};
    loom_array *pos = aux ? loom__mask_positions_keep(fn, loom_equal(tail(aux), head(aux)), sorted,
                                                      order ? 2 : 1)
                          : NULL;
    if (!pos)
        return -1;
    r[0] = loom__take_at(fn, head(aux), pos);
    if (return_indices) {
        r[1] = loom__take_at(fn, head(order), pos);
        r[2] = loom_subtract(loom__take_at(fn, tail(order), pos), loom_scalar_int(ar1->size));
        if (!assume_unique && r[1] && r[2]) {
            r[1] = loom__take_at(fn, ind1, r[1]);
            r[2] = loom__take_at(fn, ind2, r[2]);
        }
    }
    for (int i = 0; i < nr; i++)
        if (!r[i])
            return -1;
    return nr;
}

int loom_intersect1d(loom_array *ar1, loom_array *ar2, bool assume_unique, bool return_indices,
                     loom_array **out, int max_out)
{
    static const char fn[] = "loom_intersect1d";
    int rc = loom__results_begin(fn, (loom_array *[]){ar1, ar2}, 2, out, max_out,
                                 return_indices ? 3 : 1);
    if (rc)
        return rc;
    loom_scope_begin();
    loom_array *r[3];
    int nr = intersect_in_scope(fn, ar1, ar2, assume_unique, return_indices, r);
    for (int i = 0; i < nr; i++)
        out[i] = loom_keep(r[i]);
    rc = nr > 0 ? nr : loom_last_error_code();
    loom_scope_end();
    return rc ? rc : LOOM_ERR_INVALID;
}

loom_array *loom_union1d(loom_array *ar1, loom_array *ar2)
{
    static const char fn[] = "loom_union1d";
    if (!ar1 || !ar2)
        return NULL;
    loom_scope_begin();
    return loom__scope_return(loom__unique_values(fn, join(ravel(fn, ar1), ravel(fn, ar2)), NULL));
}

loom_array *loom_setdiff1d(loom_array *ar1, loom_array *ar2, bool assume_unique)
{
    static const char fn[] = "loom_setdiff1d";
    if (!ar1 || !ar2)
        return NULL;
    loom_scope_begin();
    loom_array *r = NULL;
    if (set_inputs(fn, &ar1, &ar2, assume_unique, NULL, NULL)) {
        loom_array *keep = in1d(fn, ar1, ar2, true, true);
        r = keep ? loom__compress(fn, keep, ar1) : NULL;
    }
    return loom__scope_return(r);
}

loom_array *loom_setxor1d(loom_array *ar1, loom_array *ar2, bool assume_unique)
{
    static const char fn[] = "loom_setxor1d";
    if (!ar1 || !ar2)
        return NULL;
    loom_scope_begin();
    loom_array *r = NULL;
    if (set_inputs(fn, &ar1, &ar2, assume_unique, NULL, NULL)) {
        loom_array *aux = join(ar1, ar2);
        if (aux && aux->size == 0) {
            r = aux;
        } else if (aux && (aux = loom_sort(aux, 0))) {
            loom_array *edge = loom_ones(1, (const int64_t[]){1}, LOOM_BOOL);
            loom_array *flag = loom_concatenate(
                (loom_array *[]){edge, loom_not_equal(tail(aux), head(aux)), edge}, 3, 0);
            loom_array *alone = flag ? loom_logical_and(tail(flag), head(flag)) : NULL;
            r = alone ? loom__compress(fn, alone, aux) : NULL;
        }
    }
    return loom__scope_return(r);
}
