/* np.pad, one padded axis at a time: constant padding is a concatenation with generated
 * fills, and edge, wrap, reflect and symmetric padding are gathers whose indices (a function
 * of the position, computed inside the gather's kernel) fold the position back into the
 * array. Each padded axis is one kernel (docs/indexing.md). */
#include "index.h"
#include "reduce.h"
#include "ufunc.h"
#include "views.h"

#include <string.h>

typedef enum { PAD_CONSTANT, PAD_EDGE, PAD_WRAP, PAD_REFLECT, PAD_SYMMETRIC } pad_mode;

static loom_array *ew2(const char *fn, loom_op op, loom_array *x, loom_array *y)
{
    return loom__ew(fn, op, 2, (loom_array *[]){x, y}, NULL);
}

/* The source position of each of the n + before + after positions along an axis of extent n
 * (n > 0) in a mode that folds positions back: an int64 expression of an arange. */
static loom_array *fold(const char *fn, pad_mode mode, int64_t n, int64_t before, int64_t after)
{
    loom_array *i = loom_arange((double)-before, (double)(n + after), 1, LOOM_INT64);
    if (mode == PAD_EDGE || mode == PAD_WRAP || (mode == PAD_REFLECT && n == 1))
        return mode == PAD_REFLECT ? loom_zeros(1, (int64_t[]){n + before + after}, LOOM_INT64) : i;
    /* reflect: period 2(n - 1), symmetric: 2n; the second half runs backwards */
    int64_t period = mode == PAD_REFLECT ? 2 * (n - 1) : 2 * n;
    loom_array *m = ew2(fn, LOOM_OP_REMAINDER, i, loom_scalar_int(period));
    loom_array *back = ew2(fn, LOOM_OP_SUBTRACT,
                           loom_scalar_int(mode == PAD_REFLECT ? period : period - 1), m);
    loom_array *first = ew2(fn, LOOM_OP_LESS, m, loom_scalar_int(n));
    return loom__ew(fn, LOOM_OP_WHERE, 3, (loom_array *[]){first, m, back}, NULL);
}

static loom_array *pad_axis(const char *fn, loom_array *a, int ax, int64_t before, int64_t after,
                            pad_mode mode, double value)
{
    if (!a || (before == 0 && after == 0))
        return a;
    int64_t n = a->shape[ax];
    if (mode == PAD_CONSTANT) {
        int64_t s1[LOOM_MAXDIMS], s2[LOOM_MAXDIMS];
        memcpy(s1, a->shape, (size_t)a->ndim * sizeof *s1);
        memcpy(s2, a->shape, (size_t)a->ndim * sizeof *s2);
        s1[ax] = before;
        s2[ax] = after;
        loom_array *parts[] = {loom_full(a->ndim, s1, value, (loom_dtype)a->dtype), a,
                               loom_full(a->ndim, s2, value, (loom_dtype)a->dtype)};
        return loom_concatenate(parts, 3, ax);
    }
    loom_array *idx = fold(fn, mode, n, before, after);
    return idx ? loom__take(fn, a, idx, ax, mode == PAD_WRAP ? LOOM_MODE_WRAP : LOOM_MODE_CLIP,
                            LOOM_REPORT_TAKE, ax, n)
               : NULL;
}

loom_array *loom_pad(loom_array *a, const int64_t *pad_width, int npad, const char *mode,
                     double constant_value)
{
    static const char fn[] = "loom_pad";
    if (!a)
        return NULL;
    static const char *const names[] = {"constant", "edge", "wrap", "reflect", "symmetric", "empty"};
    int m = -1;
    const char *name = mode ? mode : "constant";
    for (int i = 0; i < 6; i++)
        if (strcmp(name, names[i]) == 0)
            m = i;
    if (m < 0) {
        bool numpy = strcmp(name, "linear_ramp") == 0 || strcmp(name, "maximum") == 0 ||
                     strcmp(name, "minimum") == 0 || strcmp(name, "mean") == 0 ||
                     strcmp(name, "median") == 0;
        loom__error(numpy ? LOOM_ERR_UNSUPPORTED : LOOM_ERR_INVALID, fn,
                    numpy ? "mode '%s' is not supported by Loom yet" : "mode '%s' is not supported",
                    name);
        return NULL;
    }
    pad_mode pm = m == 5 ? PAD_CONSTANT : (pad_mode)m; /* "empty": any fill will do */
    int nd = a->ndim;
    if (!pad_width || !(npad == 1 || npad == 2 || npad == 2 * nd)) {
        loom__error(LOOM_ERR_INVALID, fn,
                    "pad_width needs 1, 2 or 2 * ndim = %d entries, not %d", 2 * nd, npad);
        return NULL;
    }
    int64_t w[2 * LOOM_MAXDIMS];
    for (int i = 0; i < 2 * nd; i++) {
        w[i] = npad == 1 ? pad_width[0] : npad == 2 ? pad_width[i % 2] : pad_width[i];
        if (w[i] < 0) {
            loom__error(LOOM_ERR_INVALID, fn, "index can't contain negative values");
            return NULL;
        }
    }
    for (int d = 0; d < nd && pm != PAD_CONSTANT; d++)
        if (a->shape[d] == 0 && (w[2 * d] || w[2 * d + 1])) {
            loom__error(LOOM_ERR_INVALID, fn,
                        "can't extend empty axis %d using modes other than 'constant' or 'empty'",
                        d);
            return NULL;
        }
    loom_scope_begin();
    loom_array *r = a;
    for (int d = 0; d < nd && r; d++)
        r = pad_axis(fn, r, d, w[2 * d], w[2 * d + 1], pm, constant_value);
    return loom__scope_return(r);
}

loom_array *loom_pad_constant(loom_array *a, const int64_t *before_after, double value)
{
    return a ? loom_pad(a, before_after, 2 * a->ndim, "constant", value) : NULL;
}
