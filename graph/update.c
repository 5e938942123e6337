/* Updates that are elementwise selections, returned as new versions (arrays never change):
 * putmask, copyto with a mask, place. Each is a where() between the old value and the new
 * elements, which a gather brings into place; nothing scatters, so results are the same bits
 * every run. */
#include "index.h"
#include "reduce.h"
#include "ufunc.h"
#include "views.h"

/* NumPy's casting check of the new elements (weak scalars convert as Python values do). */
static int check_cast(const char *fn, const loom_array *v, loom_dtype to, loom_casting rule,
                      const char *rule_name)
{
    loom_dtype from = (loom_dtype)v->dtype;
    if (v->weak || loom_can_cast(from, to, rule))
        return 0;
    loom__error(LOOM_ERR_INVALID, fn,
                "Cannot cast array data from dtype('%s') to dtype('%s') according to the rule '%s'",
                loom_dtype_name(from), loom_dtype_name(to), rule_name);
    return -1;
}

/* x broadcast to dst's shape, with NumPy's copyto message naming what (an "input array", a
 * "where mask") when it does not broadcast. */
static loom_array *broadcast_into(const char *fn, const char *what, loom_array *x,
                                  const loom_array *dst)
{
    bool ok = x->ndim <= dst->ndim;
    for (int d = 0; ok && d < x->ndim; d++) {
        int64_t e = x->shape[x->ndim - 1 - d], t = dst->shape[dst->ndim - 1 - d];
        ok = e == t || e == 1;
    }
    if (!ok) {
        char b1[512], b2[512];
        loom__error(LOOM_ERR_INVALID, fn, "could not broadcast %s from shape %s into shape %s", what,
                    loom__fmt_shape(b1, sizeof b1, x->ndim, x->shape),
                    loom__fmt_shape(b2, sizeof b2, dst->ndim, dst->shape));
        return NULL;
    }
    return loom__broadcast_to(fn, x, dst->ndim, dst->shape);
}

static loom_array *where3(const char *fn, loom_array *c, loom_array *x, loom_array *y)
{
    return loom__ew(fn, LOOM_OP_WHERE, 3, (loom_array *[]){c, x, y}, NULL);
}

/* mask as a bool array of a's shape; NumPy's error under name when the sizes differ. */
static loom_array *mask_like(const char *fn, const char *name, loom_array *a, loom_array *mask)
{
    if (mask->size != a->size) {
        loom__error(LOOM_ERR_INVALID, fn, "%s: mask and data must be the same size", name);
        return NULL;
    }
    loom_array *m = loom__reshape(fn, "mask", mask, a->ndim, a->shape);
    return m ? loom__cast(fn, m, LOOM_BOOL) : NULL;
}

/* values[k % values.size] for each k of the int64 positions pos (a's shape), in a's dtype. */
static loom_array *cycled(const char *fn, loom_array *values, loom_array *pos, loom_dtype dt)
{
    loom_array *flat = loom__reshape(fn, "ravel", loom_astype(values, dt), 1, (int64_t[]){-1});
    return flat && pos ? loom__take(fn, flat, pos, 0, LOOM_MODE_WRAP, LOOM_REPORT_TAKE, 0, flat->size)
                       : NULL;
}

loom_array *loom_putmask(loom_array *a, loom_array *mask, loom_array *values)
{
    static const char fn[] = "loom_putmask";
    if (!a || !mask || !values)
        return NULL;
    loom_dtype dt = (loom_dtype)a->dtype;
    if (check_cast(fn, values, dt, LOOM_CASTING_SAFE, "safe"))
        return NULL;
    loom_scope_begin();
    loom_array *m = mask_like(fn, "putmask", a, mask);
    if (!m || values->size == 0) /* nothing to put */
        return loom__scope_return(m ? a : NULL);
    /* element n takes values[n % values.size] (by position, not by count of trues) */
    loom_array *n = loom__reshape(fn, "flat", loom_arange(0, (double)a->size, 1, LOOM_INT64),
                                  a->ndim, a->shape);
    return loom__scope_return(where3(fn, m, cycled(fn, values, n, dt), a));
}

loom_array *loom__place(const char *fn, loom_array *a, loom_array *mask, loom_array *vals)
{
    if (!a || !mask || !vals)
        return NULL;
    if (a->size == 0 || vals->size == 0)
        return a;
    loom_scope_begin();
    /* the k-th true element takes vals[k % vals.size]: k from a running count of the mask */
    loom_array *flat = loom__reshape(fn, "ravel", loom__cast(fn, mask, LOOM_INT64), 1, (int64_t[]){-1});
    loom_array *count = flat ? loom_cumsum(flat, 0) : NULL;
    loom_array *k = count ? loom__ew(fn, LOOM_OP_SUBTRACT, 2, (loom_array *[]){count, loom_scalar_int(1)}, NULL)
                          : NULL;
    k = k ? loom__reshape(fn, "place", k, a->ndim, a->shape) : NULL;
    return loom__scope_return(where3(fn, mask, cycled(fn, vals, k, (loom_dtype)a->dtype), a));
}

int loom__mask_count(const char *fn, loom_array *mask, int64_t *count)
{
    *count = 0;
    if (mask->size == 0)
        return LOOM_OK;
    loom_scope_begin();
    loom_array *c = loom_count_nonzero(mask, NULL, 0, false);
    int rc = c ? loom__read_data_dependent(fn, c, NULL, 0, count, sizeof *count) : loom_last_error_code();
    loom_scope_end();
    return rc;
}

loom_array *loom_place(loom_array *a, loom_array *mask, loom_array *vals)
{
    static const char fn[] = "loom_place";
    if (!a || !mask || !vals)
        return NULL;
    if (check_cast(fn, vals, (loom_dtype)a->dtype, LOOM_CASTING_SAFE, "safe"))
        return NULL;
    loom_scope_begin();
    loom_array *m = mask_like(fn, "place", a, mask);
    int64_t count = 0;
    /* NumPy fails for empty vals only when some element is set: read the count (docs/unique.md) */
    if (m && vals->size == 0 && (loom__mask_count(fn, m, &count) || count > 0)) {
        if (count > 0)
            loom__error(LOOM_ERR_INVALID, fn, "Cannot insert from an empty array!");
        m = NULL;
    }
    return loom__scope_return(m ? loom__place(fn, a, m, vals) : NULL);
}

loom_array *loom_copyto(loom_array *dst, loom_array *src, loom_array *where)
{
    static const char fn[] = "loom_copyto";
    if (!dst || !src)
        return NULL;
    loom_dtype dt = (loom_dtype)dst->dtype;
    if (check_cast(fn, src, dt, LOOM_CASTING_SAME_KIND, "same_kind"))
        return NULL;
    loom_scope_begin();
    loom_array *s = broadcast_into(fn, "input array", src, dst);
    s = s ? loom__cast(fn, s, dt) : NULL;
    if (!s || !where)
        return loom__scope_return(s);
    loom_array *w = broadcast_into(fn, "where mask", where, dst);
    return loom__scope_return(w ? where3(fn, loom__cast(fn, w, LOOM_BOOL), s, dst) : NULL);
}
