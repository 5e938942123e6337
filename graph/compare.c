/* Whole-array comparisons: isclose (elementwise, fused), allclose, array_equal and
 * array_equiv (a reduction read at the call), and select (nested wheres). */
#include "reduce.h"
#include "ufunc.h"

#include <stdlib.h>

static loom_array *ew1(const char *fn, loom_op op, loom_array *x)
{
    return loom__ew(fn, op, 1, &x, NULL);
}

static loom_array *ew2(const char *fn, loom_op op, loom_array *x, loom_array *y)
{
    return loom__ew(fn, op, 2, (loom_array *[]){x, y}, NULL);
}

/* NumPy's isclose: |x - y| <= atol + rtol |y| where y is finite, or x == y; with equal_nan
 * also where both are NaN. y is made inexact first (result_type(y, 1.0)). */
static loom_array *isclose(const char *fn, loom_array *a, loom_array *b, double rtol, double atol,
                           bool equal_nan)
{
    loom_dtype dt = loom_result_type_arrays((loom_array *[]){b, loom_scalar(1.0)}, 2);
    loom_array *y = loom__cast(fn, b, dt), *x = a;
    loom_array *tol = ew2(fn, LOOM_OP_ADD, loom_scalar(atol),
                          ew2(fn, LOOM_OP_MULTIPLY, loom_scalar(rtol), ew1(fn, LOOM_OP_ABSOLUTE, y)));
    loom_array *near = ew2(fn, LOOM_OP_LESS_EQUAL,
                           ew1(fn, LOOM_OP_ABSOLUTE, ew2(fn, LOOM_OP_SUBTRACT, x, y)), tol);
    loom_array *r = ew2(fn, LOOM_OP_LOGICAL_OR,
                        ew2(fn, LOOM_OP_LOGICAL_AND, near, ew1(fn, LOOM_OP_ISFINITE, y)),
                        ew2(fn, LOOM_OP_EQUAL, x, y));
    if (equal_nan)
        r = ew2(fn, LOOM_OP_LOGICAL_OR, r,
                ew2(fn, LOOM_OP_LOGICAL_AND, ew1(fn, LOOM_OP_ISNAN, x), ew1(fn, LOOM_OP_ISNAN, y)));
    return r;
}

loom_array *loom_isclose(loom_array *a, loom_array *b, double rtol, double atol, bool equal_nan)
{
    if (!a || !b)
        return NULL;
    loom_scope_begin();
    return loom__scope_return(isclose("loom_isclose", a, b, rtol, atol, equal_nan));
}

/* Whether every element of the bool array t is true, read now (evaluating t). */
static int all_true(loom_array *t, bool *result)
{
    double v = 0;
    int rc = loom_item(loom_all(t, NULL, 0, false), &v);
    if (rc == LOOM_OK)
        *result = v != 0;
    return rc;
}

int loom_allclose(loom_array *a, loom_array *b, double rtol, double atol, bool equal_nan,
                  bool *result)
{
    static const char fn[] = "loom_allclose";
    if (!a || !b || !result)
        return LOOM_ERR_INVALID;
    loom_scope_begin();
    loom_array *t = isclose(fn, a, b, rtol, atol, equal_nan);
    int rc = t ? all_true(t, result) : LOOM_ERR_INVALID;
    loom_scope_end();
    return rc;
}

int loom_array_equal(loom_array *a, loom_array *b, bool equal_nan, bool *result)
{
    static const char fn[] = "loom_array_equal";
    if (!a || !b || !result)
        return LOOM_ERR_INVALID;
    bool same = a->ndim == b->ndim;
    for (int d = 0; same && d < a->ndim; d++)
        same = a->shape[d] == b->shape[d];
    if (!same) {
        *result = false;
        return LOOM_OK;
    }
    loom_scope_begin();
    loom_array *t = ew2(fn, LOOM_OP_EQUAL, a, b);
    if (equal_nan && t)
        t = ew2(fn, LOOM_OP_LOGICAL_OR, t,
                ew2(fn, LOOM_OP_LOGICAL_AND, ew1(fn, LOOM_OP_ISNAN, a), ew1(fn, LOOM_OP_ISNAN, b)));
    int rc = t ? all_true(t, result) : LOOM_ERR_INVALID;
    loom_scope_end();
    return rc;
}

int loom_array_equiv(loom_array *a, loom_array *b, bool *result)
{
    static const char fn[] = "loom_array_equiv";
    if (!a || !b || !result)
        return LOOM_ERR_INVALID;
    int nd;
    int64_t shape[LOOM_MAXDIMS];
    const int64_t *shapes[] = {a->shape, b->shape};
    loom__saved_error saved;
    loom__error_save(&saved);
    bool fits = loom__broadcast_shapes(fn, 2, (int[]){a->ndim, b->ndim}, shapes, &nd, shape) == 0;
    loom__error_restore(&saved); /* shapes that do not broadcast are simply not equivalent */
    if (!fits) {
        *result = false;
        return LOOM_OK;
    }
    loom_scope_begin();
    loom_array *t = ew2(fn, LOOM_OP_EQUAL, a, b);
    int rc = t ? all_true(t, result) : LOOM_ERR_INVALID;
    loom_scope_end();
    return rc;
}

loom_array *loom_select(loom_array *const *conds, loom_array *const *choices, int n,
                        loom_array *default_value)
{
    static const char fn[] = "loom_select";
    if (n <= 0 || !conds || !choices) {
        loom__error(LOOM_ERR_INVALID, fn, "select with an empty condition list is not possible");
        return NULL;
    }
    if (loom__check_input_list(fn, conds, n) || loom__check_input_list(fn, choices, n))
        return NULL;
    for (int i = 0; i < n; i++)
        if (!loom__is_bool((loom_dtype)conds[i]->dtype)) {
            loom__error(LOOM_ERR_INVALID, fn,
                        "invalid entry %d in condlist: should be boolean ndarray", i);
            return NULL;
        }
    loom_scope_begin();
    loom_array *r = default_value ? default_value : loom_scalar_int(0);
    /* NumPy's dtype: every choice and the default promoted together */
    loom_array **all = loom__malloc((size_t)(n + 1) * sizeof *all);
    if (!all) {
        loom__error(LOOM_ERR_OOM, fn, "out of host memory");
        return loom__scope_return(NULL);
    }
    for (int i = 0; i < n; i++)
        all[i] = choices[i];
    all[n] = r;
    loom_dtype dt = loom_result_type_arrays(all, n + 1);
    free(all);
    if (dt == LOOM_NO_DTYPE)
        return loom__scope_return(NULL);
    r = loom__cast(fn, r, dt);
    for (int i = n - 1; i >= 0 && r; i--)
        r = loom__ew(fn, LOOM_OP_WHERE, 3,
                     (loom_array *[]){conds[i], loom__cast(fn, choices[i], dt), r}, NULL);
    return loom__scope_return(r);
}
