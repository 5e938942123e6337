/* NumPy 2's matmul. Float and complex products become one MATMUL node (cuBLAS); integer and
 * bool products become a broadcast product summed over k, which the fuser folds into the
 * reduction's loads: nothing is materialised, and the sum wraps in the result dtype exactly as
 * NumPy's integer loops do (cuBLAS has no such products). */
#include "products.h"
#include "reduce.h"
#include "ufunc.h"
#include "views.h"

#include <string.h>

static const char signature[] = "(n?,k),(k,m?)->(n?,m?)";

/* "(4,newaxis,newaxis)": the batch dimensions of a, its core dimensions as NumPy's iterator
 * shows them. */
static void fmt_remapped(char *buf, size_t n, const loom_array *a)
{
    int w = snprintf(buf, n, "(");
    size_t used = w > 0 ? (size_t)w : 0;
    for (int i = 0; i < a->ndim - 2 && used < n; i++) {
        w = snprintf(buf + used, n - used, "%lld,", (long long)a->shape[i]);
        used += w > 0 ? (size_t)w : 0;
    }
    if (used < n)
        snprintf(buf + used, n - used, "newaxis,newaxis)");
}

void loom__batch_error(const char *fn, const loom_array *a, const loom_array *b)
{
    char sa[512], sb[512], ra[512], rb[512], req[64];
    fmt_remapped(ra, sizeof ra, a);
    fmt_remapped(rb, sizeof rb, b);
    loom__fmt_shape(req, sizeof req, 2,
                    (const int64_t[]){a->shape[a->ndim - 2], b->shape[b->ndim - 1]});
    loom__error(LOOM_ERR_INVALID, fn,
                "operands could not be broadcast together with remapped shapes "
                "[original->remapped]: %s->%s %s->%s  and requested shape %s",
                loom__fmt_shape(sa, sizeof sa, a->ndim, a->shape), ra,
                loom__fmt_shape(sb, sizeof sb, b->ndim, b->shape), rb, req);
}

/* a's batch shape broadcast to batch, followed by its last two extents. */
static loom_array *to_batch(const char *fn, loom_array *a, int nb, const int64_t *batch)
{
    if (!a)
        return NULL;
    int64_t shape[LOOM_MAXDIMS];
    memcpy(shape, batch, (size_t)nb * sizeof *batch);
    shape[nb] = a->shape[a->ndim - 2];
    shape[nb + 1] = a->shape[a->ndim - 1];
    return loom__broadcast_to(fn, a, nb + 2, shape);
}

/* cuBLAS's part: both operands in the result dtype with one batch shape. */
static loom_array *library_product(const char *fn, loom_array *a, loom_array *b, loom_dtype dt,
                                   int nb, const int64_t *batch)
{
    loom_array *x = to_batch(fn, loom_astype(a, dt), nb, batch);
    loom_array *y = x ? to_batch(fn, loom_astype(b, dt), nb, batch) : NULL;
    return y ? loom__matmul(fn, x, y) : NULL;
}

/* sum_k a[..., :, k, None] * b[..., None, k, :] in dt (bool: any of logical_and). */
static loom_array *exact_product(const char *fn, loom_array *a, loom_array *b, loom_dtype dt,
                                 int nb, const int64_t *batch)
{
    /* The product has one axis more than the result; at the dimension limit the batch
     * dimensions are merged into one first (a lazy copy where their strides do not merge). */
    if (nb + 3 > LOOM_MAXDIMS) {
        int64_t total = 1;
        for (int i = 0; i < nb; i++)
            total = total && batch[i] ? total * batch[i] : 0;
        int64_t sa[3] = {total, a->shape[a->ndim - 2], a->shape[a->ndim - 1]};
        int64_t sb[3] = {total, b->shape[b->ndim - 2], b->shape[b->ndim - 1]};
        loom_array *x = to_batch(fn, a, nb, batch), *y = to_batch(fn, b, nb, batch), *r = NULL;
        x = x ? loom__reshape(fn, "matmul", x, 3, sa) : NULL;
        y = y ? loom__reshape(fn, "matmul", y, 3, sb) : NULL;
        if (x && y)
            r = exact_product(fn, x, y, dt, 1, &total);
        int64_t out[LOOM_MAXDIMS];
        memcpy(out, batch, (size_t)nb * sizeof *batch);
        out[nb] = sa[1];
        out[nb + 1] = sb[2];
        return r ? loom__reshape(fn, "matmul", r, nb + 2, out) : NULL;
    }
    bool logical = dt == LOOM_BOOL;
    loom_array *x = loom__new_axis(fn, loom_astype(a, dt), a->ndim);
    loom_array *y = loom__new_axis(fn, loom_astype(b, dt), b->ndim - 2);
    loom_array *p = y ? loom__ew(fn, logical ? LOOM_OP_LOGICAL_AND : LOOM_OP_MULTIPLY, 2,
                                 (loom_array *[]){x, y}, NULL)
                      : NULL;
    if (!p)
        return NULL;
    return loom__reduce(fn, logical ? LOOM_OP_ANY : LOOM_OP_SUM, p, 1u << (p->ndim - 2), false,
                        dt, dt);
}

loom_array *loom__matmul_any(const char *fn, loom_array *a, loom_array *b)
{
    loom_array *in[2] = {a, b};
    for (int i = 0; i < 2; i++) {
        if (in[i]->ndim == 0) {
            loom__error(LOOM_ERR_INVALID, fn,
                        "matmul: Input operand %d does not have enough dimensions (has 0, "
                        "gufunc core with signature %s requires 1)",
                        i, signature);
            return NULL;
        }
    }
    if (a->device != b->device) {
        loom__error(LOOM_ERR_INVALID, fn, "arrays are on different devices (%s and %s)",
                    loom__device_label(a->device), loom__device_label(b->device));
        return NULL;
    }
    int64_t ka = a->shape[a->ndim - 1], kb = b->shape[b->ndim == 1 ? 0 : b->ndim - 2];
    if (ka != kb) {
        loom__error(LOOM_ERR_INVALID, fn,
                    "matmul: Input operand 1 has a mismatch in its core dimension 0, with "
                    "gufunc signature %s (size %lld is different from %lld)",
                    signature, (long long)kb, (long long)ka);
        return NULL;
    }
    int ndims[2] = {a->ndim > 2 ? a->ndim - 2 : 0, b->ndim > 2 ? b->ndim - 2 : 0}, nb;
    const int64_t *shapes[2] = {a->shape, b->shape};
    int64_t batch[LOOM_MAXDIMS];
    if (loom__broadcast_shapes(fn, 2, ndims, shapes, &nb, batch)) {
        loom__batch_error(fn, a, b);
        return NULL;
    }
    loom_dtype loop, dt;
    if (loom__resolve_ufunc(fn, LOOM_OP_MULTIPLY, 2, in, &loop, &dt))
        return NULL;

    loom_scope_begin();
    /* 1-D operands are matrices of one row (a) or one column (b), as in NumPy. */
    loom_array *x = a->ndim == 1 ? loom__new_axis(fn, a, 0) : a;
    loom_array *y = b->ndim == 1 ? loom__new_axis(fn, b, 1) : b;
    loom_array *r = NULL;
    if (x && y)
        r = loom__is_float(dt) || loom__is_complex(dt) ? library_product(fn, x, y, dt, nb, batch)
                                                       : exact_product(fn, x, y, dt, nb, batch);
    if (r && (a->ndim == 1 || b->ndim == 1)) {
        int64_t shape[LOOM_MAXDIMS];
        int nd = nb;
        memcpy(shape, batch, (size_t)nb * sizeof *batch);
        if (a->ndim > 1)
            shape[nd++] = a->shape[a->ndim - 2];
        if (b->ndim > 1)
            shape[nd++] = b->shape[b->ndim - 1];
        r = loom__reshape(fn, "matmul", r, nd, shape);
    }
    return loom__scope_return(r);
}

loom_array *loom_matmul(loom_array *a, loom_array *b)
{
    return a && b ? loom__matmul_any("loom_matmul", a, b) : NULL;
}
