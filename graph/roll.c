/* np.roll, np.fft.fftshift and np.fft.ifftshift as ROLL nodes: one node per rolled axis (or one
 * over the flat index), each an index map that consumers' kernels compute, never a copy. */
#include "internal.h"
#include "reduce.h"
#include "views.h"

/* Python's shift % n: in [0, n). */
static int64_t wrap(int64_t shift, int64_t n)
{
    int64_t r = shift % n;
    return r < 0 ? r + n : r;
}

/* a rolled by shift along axis (-1: the flat index) whose extent is n; a itself (a new
 * reference) when nothing moves. Rolls of a pending roll along the same axis add up. */
static loom_array *roll_one(const char *fn, loom_array *a, int64_t shift, int axis, int64_t n)
{
    if (n < 2 || wrap(shift, n) == 0)
        return loom__adopt(loom_retain(a));
    if (a->op == LOOM_OP_ROLL && !loom__node_buffer(a) && a->param.roll.axis == axis) {
        int64_t inner = a->param.roll.shift; /* in [1, n): the sum cannot overflow */
        return roll_one(fn, a->inputs[0], wrap(shift, n) + inner, axis, n);
    }
    loom_array *r = loom__node_alloc(fn, LOOM_OP_ROLL, (loom_dtype)a->dtype, a->ndim, a->shape);
    if (!r)
        return NULL;
    r->device = a->device;
    r->param.roll.axis = axis;
    r->param.roll.shift = wrap(shift, n);
    loom__node_set_input(r, 0, a);
    return loom__node_finish(r);
}

/* NumPy broadcasts shift against axis: equal lengths, or one of them 1 (the pairs are then as
 * many as the other, maybe none). */
static int check_lengths(const char *fn, int nshift, int naxes)
{
    if (nshift < 0 || naxes < 0) {
        loom__error(LOOM_ERR_INVALID, fn, "invalid number of %s %d",
                    nshift < 0 ? "shifts" : "axes", nshift < 0 ? nshift : naxes);
        return -1;
    }
    if (nshift != naxes && nshift != 1 && naxes != 1) {
        loom__error(LOOM_ERR_INVALID, fn,
                    "shape mismatch: objects cannot be broadcast to a single shape.  Mismatch is "
                    "between arg 0 with shape (%d,) and arg 1 with shape (%d,).",
                    nshift, naxes);
        return -1;
    }
    return 0;
}

static loom_array *roll(const char *fn, loom_array *a, const int64_t *shift, int nshift,
                        const int *axes, int naxes)
{
    if (!a)
        return NULL;
    if ((nshift > 0 && !shift) || (naxes > 0 && !axes)) {
        loom__error(LOOM_ERR_INVALID, fn, "%s is NULL", !shift ? "shift" : "axes");
        return NULL;
    }
    if (!axes) {
        /* axis=None: the flattened array, every shift along it */
        if (check_lengths(fn, nshift, 1))
            return NULL;
        int64_t total = 0;
        for (int k = 0; a->size > 0 && k < nshift; k++)
            total = wrap(total + wrap(shift[k], a->size), a->size);
        return roll_one(fn, a, total, a->ndim == 1 ? 0 : -1, a->size);
    }
    if (check_lengths(fn, nshift, naxes))
        return NULL;
    int64_t per_axis[LOOM_MAXDIMS] = {0};
    int count = nshift == 1 ? naxes : nshift;
    for (int k = 0; k < count; k++) {
        int ax;
        if (loom__normalize_axis(fn, NULL, axes[naxes == 1 ? 0 : k], a->ndim, &ax))
            return NULL;
        int64_t n = a->shape[ax];
        if (n > 0)
            per_axis[ax] = wrap(per_axis[ax] + wrap(shift[nshift == 1 ? 0 : k], n), n);
    }
    loom_scope_begin();
    loom_array *r = a;
    for (int ax = 0; ax < a->ndim && r; ax++)
        r = per_axis[ax] ? roll_one(fn, r, per_axis[ax], ax, a->shape[ax]) : r;
    return loom__scope_return(r);
}

loom_array *loom_roll(loom_array *a, int64_t shift, int axis)
{
    return roll("loom_roll", a, &shift, 1, axis == LOOM_AXIS_NONE ? NULL : &axis,
                axis == LOOM_AXIS_NONE ? 0 : 1);
}

loom_array *loom_roll_axes(loom_array *a, const int64_t *shifts, int nshifts, const int *axes,
                           int naxes)
{
    return roll("loom_roll_axes", a, shifts, nshifts, axes, axes ? naxes : 0);
}

/* fftshift moves element n/2 (rounded down) to the front; ifftshift undoes it. */
static loom_array *shift_half(const char *fn, loom_array *a, const int *axes, int naxes,
                              bool inverse)
{
    if (!a)
        return NULL;
    int all[LOOM_MAXDIMS];
    if (!axes && a->ndim == 0) {
        loom__error(LOOM_ERR_INVALID, fn, "a 0-d array has no axes to shift (NumPy refuses it)");
        return NULL;
    }
    if (!axes) {
        naxes = a->ndim;
        for (int k = 0; k < naxes; k++)
            all[k] = k;
        axes = all;
    }
    if (naxes < 0 || naxes > LOOM_MAXDIMS) {
        loom__error(LOOM_ERR_INVALID, fn, "invalid number of axes %d", naxes);
        return NULL;
    }
    if (naxes == 0)
        return loom__adopt(loom_retain(a));
    int64_t shifts[LOOM_MAXDIMS];
    for (int k = 0; k < naxes; k++) {
        int ax;
        if (loom__normalize_axis(fn, NULL, axes[k], a->ndim, &ax))
            return NULL;
        shifts[k] = inverse ? -(a->shape[ax] / 2) : a->shape[ax] / 2;
    }
    return roll(fn, a, shifts, naxes, axes, naxes);
}

loom_array *loom_fft_fftshift(loom_array *a, const int *axes, int naxes)
{
    return shift_half("loom_fft_fftshift", a, axes, naxes, false);
}

loom_array *loom_fft_ifftshift(loom_array *a, const int *axes, int naxes)
{
    return shift_half("loom_fft_ifftshift", a, axes, naxes, true);
}
