/* Complex sorts in NumPy's order (lexicographic: real part, then imaginary part; a NaN part
 * sorts after every number, real NaN after imaginary NaN): a lexsort of three real keys
 * (docs/sorting.md). */
#include "reduce.h"
#include "sort.h"
#include "ufunc.h"
#include "views.h"

int loom__complex_sort_keys(const char *fn, loom_array *a, loom_array *keys[3])
{
    loom_array *re = loom_real(a), *im = loom_imag(a);
    loom_array *re_nan = loom_isnan(re), *im_nan = loom_isnan(im);
    loom_array *zero = loom_scalar(0.0);
    /* class: 2 * isnan(real) + isnan(imag), as int8 */
    loom_array *cls = loom_add(loom_multiply(loom__cast(fn, re_nan, LOOM_INT8), loom_scalar_int(2)),
                               loom__cast(fn, im_nan, LOOM_INT8));
    keys[0] = loom_where(im_nan, zero, im);
    keys[1] = loom_where(re_nan, zero, re);
    keys[2] = cls;
    return keys[0] && keys[1] && keys[2] ? 0 : -1;
}

/* The indices sorting complex a along ax (normalised; a of ndim >= 1). */
loom_array *loom__complex_argsort(const char *fn, loom_array *a, int ax)
{
    loom_scope_begin();
    loom_array *keys[3];
    loom_array *r = loom__complex_sort_keys(fn, a, keys) ? NULL : loom__lexsort(fn, keys, 3, ax);
    return loom__scope_return(r);
}

loom_array *loom_sort_complex(loom_array *a)
{
    static const char fn[] = "loom_sort_complex";
    if (!a)
        return NULL;
    loom_dtype dt = (loom_dtype)a->dtype;
    loom_dtype out = loom__is_complex(dt) ? dt
                     : dt == LOOM_INT8 || dt == LOOM_INT16 || dt == LOOM_UINT8 || dt == LOOM_UINT16
                         ? LOOM_COMPLEX64
                         : LOOM_COMPLEX128;
    if (a->ndim == 0) {
        loom__error(LOOM_ERR_INVALID, fn, "axis -1 is out of bounds for array of dimension 0");
        return NULL;
    }
    loom_scope_begin();
    loom_array *s = loom_sort(a, -1);
    loom_array *r = s && s->dtype != (int8_t)out ? loom__cast(fn, s, out) : s;
    return loom__scope_return(r);
}
