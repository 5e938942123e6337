/* np.choose(a, choices, mode): the choices, broadcast together with a, are joined into one
 * stack (one kernel), and the result gathers element p of choice a[p] from it; modes wrap and
 * clip fold a first, mode raise checks it on the device (docs/indexing.md). */
#include "index.h"
#include "reduce.h"
#include "ufunc.h"
#include "views.h"

#include <stdlib.h>

static loom_array *ew2(const char *fn, loom_op op, loom_array *x, loom_array *y)
{
    return loom__ew(fn, op, 2, (loom_array *[]){x, y}, NULL);
}

loom_array *loom_choose(loom_array *a, loom_array *const *choices, int n, loom_index_mode mode)
{
    static const char fn[] = "loom_choose";
    if (!a)
        return NULL;
    if (n <= 0 || !choices) {
        loom__error(LOOM_ERR_INVALID, fn, "need at least one choice");
        return NULL;
    }
    if (loom__check_input_list(fn, choices, n))
        return NULL;
    if (!loom__is_int((loom_dtype)a->dtype) && !loom__is_bool((loom_dtype)a->dtype)) {
        loom__error(LOOM_ERR_INVALID, fn,
                    "Cannot cast array data from dtype('%s') to dtype('int64') according to the "
                    "rule 'safe'",
                    loom_dtype_name((loom_dtype)a->dtype));
        return NULL;
    }
    if (mode != LOOM_MODE_RAISE && mode != LOOM_MODE_WRAP && mode != LOOM_MODE_CLIP) {
        loom__error(LOOM_ERR_INVALID, fn, "clipmode must be one of 'clip', 'raise', or 'wrap' (got %d)",
                    (int)mode);
        return NULL;
    }
    int *ndims = loom__malloc((size_t)(n + 1) * sizeof *ndims);
    const int64_t **shapes = loom__malloc((size_t)(n + 1) * sizeof *shapes);
    loom_array **b = loom__malloc((size_t)n * sizeof *b);
    if (!ndims || !shapes || !b) {
        free(ndims);
        free(shapes);
        free(b);
        loom__error(LOOM_ERR_OOM, fn, "out of host memory");
        return NULL;
    }
    ndims[0] = a->ndim, shapes[0] = a->shape;
    for (int i = 0; i < n; i++)
        ndims[i + 1] = choices[i]->ndim, shapes[i + 1] = choices[i]->shape;
    int nd;
    int64_t shape[LOOM_MAXDIMS];
    loom_array *r = NULL;
    loom_scope_begin();
    if (loom__broadcast_shapes(fn, n + 1, ndims, shapes, &nd, shape) == 0) {
        loom_dtype dt = loom_result_type_arrays(choices, n);
        bool ok = dt != LOOM_NO_DTYPE;
        for (int i = 0; i < n && ok; i++)
            ok = (b[i] = loom__broadcast_to(fn, loom_astype(choices[i], dt), nd, shape)) != NULL;
        loom_array *stacked = ok ? loom_stack(b, n, 0) : NULL;
        int64_t size = 1;
        for (int d = 0; d < nd; d++)
            size *= shape[d];
        /* k: the choice of each element; flat: its position in the stack */
        loom_array *k = loom__cast(fn, loom__broadcast_to(fn, a, nd, shape), LOOM_INT64);
        loom_array *nn = loom_scalar_int(n);
        if (mode == LOOM_MODE_WRAP)
            k = ew2(fn, LOOM_OP_REMAINDER, k, nn);
        else if (mode == LOOM_MODE_CLIP)
            k = ew2(fn, LOOM_OP_MINIMUM, ew2(fn, LOOM_OP_MAXIMUM, k, loom_scalar_int(0)),
                    loom_scalar_int(n - 1));
        loom_array *p = loom__reshape(fn, "index", loom_arange(0, (double)size, 1, LOOM_INT64), nd, shape);
        loom_array *flat = ew2(fn, LOOM_OP_ADD, ew2(fn, LOOM_OP_MULTIPLY, k, loom_scalar_int(size)), p);
        if (mode == LOOM_MODE_RAISE && flat) {
            /* NumPy accepts no negative choice: such a position is made out of bounds */
            loom_array *ok_k = ew2(fn, LOOM_OP_LOGICAL_AND, ew2(fn, LOOM_OP_GREATER_EQUAL, k, loom_scalar_int(0)),
                                   ew2(fn, LOOM_OP_LESS, k, nn));
            flat = loom__ew(fn, LOOM_OP_WHERE, 3,
                            (loom_array *[]){ok_k, flat, loom_scalar_int(-1 - n * size)}, NULL);
        }
        loom_array *all = stacked ? loom__reshape(fn, "ravel", stacked, 1, (int64_t[]){-1}) : NULL;
        if (all && flat)
            r = size == 0 ? loom_empty(nd, shape, dt)
                          : loom__take(fn, all, flat, 0, LOOM_MODE_RAISE, LOOM_REPORT_CHOOSE, 0, n);
    }
    free(ndims);
    free(shapes);
    free(b);
    return loom__scope_return(r);
}
