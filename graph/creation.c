/* Creation routines: host copies (HOST leaves) and generators (GEN nodes: full, empty,
 * arange, linspace, eye), functions of the flat index that the fuser inlines into their
 * consumers, so they cost no memory traffic unless materialised. docs/views.md gives the
 * formula of each generator's elements. */
#include "creation.h"
#include "ufunc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The calling thread's current device, as loom_device_set last made it (on a new thread the
 * one LOOM_DEVICE names, else CUDA's default, 0). graph/ only records it; exec/ evaluates each
 * array on its device. */
static _Thread_local int current_device;
static _Thread_local bool device_chosen;

int loom__default_device(void)
{
    if (!device_chosen) {
        current_device = loom__initial_device();
        device_chosen = true;
    }
    return current_device;
}

void loom__set_default_device(int device)
{
    current_device = device;
    device_chosen = true;
}

int64_t loom__fill_ival(double value, loom_dtype dtype)
{
    if (dtype == LOOM_BOOL)
        return value != 0; /* NaN too, as bool(nan) is True */
    /* astype's rule (docs/semantics.md), so a fill and a cast of the same value agree */
    if (isnan(value))
        return 0;
    if (dtype == LOOM_UINT64 && value >= 9223372036854775808.0)
        return value < 18446744073709551616.0 ? (int64_t)(uint64_t)value : -1;
    if (value >= 9223372036854775808.0)
        return INT64_MAX;
    if (value < -9223372036854775808.0)
        return INT64_MIN;
    return (int64_t)value;
}

/* A leaf or generator node, not yet finished: the caller sets its parameters. */
static loom_array *new_node(const char *fn, loom_op op, loom_dtype dtype, int ndim,
                            const int64_t *shape)
{
    int64_t size;
    if (!loom__dtype_valid(dtype)) {
        loom__error(LOOM_ERR_INVALID, fn, "invalid dtype %d", (int)dtype);
        return NULL;
    }
    if (loom__check_shape(fn, ndim, shape, &size))
        return NULL;
    loom_array *n = loom__node_alloc(fn, op, dtype, ndim, shape);
    if (n)
        n->device = loom__default_device();
    return n;
}

static loom_array *finish(loom_array *n) { return n ? loom__node_finish(n) : NULL; }

/* ---- host data ---- */

loom_array *loom_asarray(const void *data, loom_dtype dtype, int ndim, const int64_t *shape)
{
    static const char fn[] = "loom_asarray";
    loom_array *n = new_node(fn, LOOM_OP_HOST, dtype, ndim, shape);
    if (!n || n->size == 0)
        return finish(n);
    size_t item = loom_dtype_size(dtype);
    if (!data) {
        loom__error(LOOM_ERR_INVALID, fn, "data is NULL for %lld elements", (long long)n->size);
    } else if ((uint64_t)n->size > SIZE_MAX / item) {
        char buf[1024];
        loom__error(LOOM_ERR_INVALID, fn, "array of shape %s is too big",
                    loom__fmt_shape(buf, sizeof buf, ndim, shape));
    } else if (!(n->host_data = loom__malloc((size_t)n->size * item))) {
        loom__error(LOOM_ERR_OOM, fn, "out of host memory for %lld bytes",
                    (long long)((size_t)n->size * item));
    } else {
        memcpy(n->host_data, data, (size_t)n->size * item);
        return loom__node_finish(n);
    }
    loom_release(n);
    return NULL;
}

/* ---- constant fills ---- */

/* A whole-number fill value is read as a Python int, which NumPy 2 refuses to wrap into an
 * integer dtype (np.full(3, 300, np.uint8) raises); other values are cast like astype. */
static bool fill_fits(const char *fn, double value, loom_dtype dtype)
{
    if (!loom__is_int(dtype) || !isfinite(value) || value != trunc(value))
        return true;
    int64_t min;
    uint64_t max;
    loom__int_range(dtype, &min, &max);
    bool fits;
    if (value < 0)
        fits = value >= (double)min; /* every min is exact in a double */
    else if (value >= 9223372036854775808.0)
        fits = max > INT64_MAX && value < 18446744073709551616.0;
    else
        fits = (uint64_t)(int64_t)value <= max;
    if (fits)
        return true;
    loom__error(LOOM_ERR_INVALID, fn, "Python integer %.0f out of bounds for %s", value,
                loom_dtype_name(dtype));
    return false;
}

static loom_array *full(const char *fn, int ndim, const int64_t *shape, double value,
                        loom_dtype dtype)
{
    if (loom__dtype_valid(dtype) && !fill_fits(fn, value, dtype))
        return NULL;
    loom_array *n = new_node(fn, LOOM_OP_FULL, dtype, ndim, shape);
    if (n) {
        n->param.value.re = value;
        n->param.value.exact = loom__fill_ival(value, dtype);
    }
    return finish(n);
}

loom_array *loom_zeros(int ndim, const int64_t *shape, loom_dtype dtype)
{
    return full("loom_zeros", ndim, shape, 0.0, dtype);
}

loom_array *loom_ones(int ndim, const int64_t *shape, loom_dtype dtype)
{
    return full("loom_ones", ndim, shape, 1.0, dtype);
}

loom_array *loom_full(int ndim, const int64_t *shape, double value, loom_dtype dtype)
{
    return full("loom_full", ndim, shape, value, dtype);
}

loom_array *loom_empty(int ndim, const int64_t *shape, loom_dtype dtype)
{
    return finish(new_node("loom_empty", LOOM_OP_EMPTY, dtype, ndim, shape));
}

loom_array *loom_zeros_like(const loom_array *a)
{
    return a ? full("loom_zeros_like", a->ndim, a->shape, 0.0, (loom_dtype)a->dtype) : NULL;
}

loom_array *loom_ones_like(const loom_array *a)
{
    return a ? full("loom_ones_like", a->ndim, a->shape, 1.0, (loom_dtype)a->dtype) : NULL;
}

loom_array *loom_full_like(const loom_array *a, double value)
{
    return a ? full("loom_full_like", a->ndim, a->shape, value, (loom_dtype)a->dtype) : NULL;
}

loom_array *loom_empty_like(const loom_array *a)
{
    if (!a)
        return NULL;
    return finish(new_node("loom_empty_like", LOOM_OP_EMPTY, (loom_dtype)a->dtype, a->ndim,
                           a->shape));
}

/* ---- ranges ---- */

/* An element arange sets from a double: NumPy truncates it to a Python int, which must fit an
 * integer dtype. */
static bool range_value_fits(const char *fn, double value, loom_dtype dtype)
{
    if (!loom__is_int(dtype))
        return true;
    double whole = trunc(value);
    bool uint64 = dtype == LOOM_UINT64 && whole >= 0;
    if (fabs(whole) >= 9223372036854775808.0 && !(uint64 && whole < 18446744073709551616.0)) {
        loom__error(LOOM_ERR_INVALID, fn, "Python int too large to convert to C long");
        return false;
    }
    return fill_fits(fn, whole, dtype);
}

loom_array *loom_arange(double start, double stop, double step, loom_dtype dtype)
{
    static const char fn[] = "loom_arange";
    if (step == 0) {
        loom__error(LOOM_ERR_INVALID, fn, "step cannot be zero");
        return NULL;
    }
    /* NumPy's length: ceil((stop - start) / step), where a quotient that underflowed to 0
     * still counts one element if it is positive. */
    double delta = stop - start, len = delta / step;
    int64_t n;
    if (len == 0 && delta != 0) {
        n = signbit(len) ? 0 : 1;
    } else if (isnan(len)) {
        loom__error(LOOM_ERR_INVALID, fn, "cannot compute length");
        return NULL;
    } else if (fabs(ceil(len)) >= 9223372036854775808.0) {
        loom__error(LOOM_ERR_INVALID, fn, "maximum allowed size exceeded");
        return NULL;
    } else {
        n = len > 0 ? (int64_t)ceil(len) : 0;
    }
    if (dtype == LOOM_BOOL && n > 2) {
        loom__error(LOOM_ERR_INVALID, fn, "arange() is only supported for booleans when the "
                                          "result has at most length 2");
        return NULL;
    }
    /* NumPy stores T(start) and T(start + step) as Python ints into an integer dtype: each
     * element it sets must fit. */
    const double next = start + step;
    if (loom__dtype_valid(dtype) && ((n > 0 && !range_value_fits(fn, start, dtype)) ||
                                     (n > 1 && !range_value_fits(fn, next, dtype))))
        return NULL;
    loom_array *a = new_node(fn, LOOM_OP_ARANGE, dtype, 1, &n);
    if (a) {
        a->param.arange.start = start;
        a->param.arange.step = step;
        a->param.arange.next = next;
    }
    return finish(a);
}

loom_array *loom_linspace(double start, double stop, int64_t num, bool endpoint, loom_dtype dtype)
{
    static const char fn[] = "loom_linspace";
    if (num < 0) {
        loom__error(LOOM_ERR_INVALID, fn, "number of samples, %lld, must be non-negative",
                    (long long)num);
        return NULL;
    }
    int64_t div = endpoint ? num - 1 : num;
    loom_array *a = new_node(fn, LOOM_OP_LINSPACE, dtype, 1, &num);
    if (a) {
        const double delta = stop - start, step = div > 0 ? delta / (double)div : NAN;
        a->param.linspace.start = start;
        /* NumPy's step (retstep): undefined, NaN, when there is no interval to divide. */
        a->param.linspace.step = step;
        a->param.linspace.stop = stop;
        a->param.linspace.num = num;
        a->param.linspace.endpoint = endpoint;
        /* NumPy multiplies i by the step; by the whole delta when there is no interval (so
         * linspace(a, b, 1) is [a]); and divides i by div first when the step underflows. */
        bool underflow = div > 0 && step == 0;
        a->param.linspace.scale = div > 0 && !underflow ? step : delta;
        a->param.linspace.divisor = underflow ? (double)div : 1.0;
    }
    return finish(a);
}

/* ---- matrices ---- */

static loom_array *eye(const char *fn, int64_t n, int64_t m, int64_t k, loom_dtype dtype)
{
    int64_t shape[2] = {n, m < 0 ? n : m};
    loom_array *a = new_node(fn, LOOM_OP_EYE, dtype, 2, shape);
    if (a)
        a->param.eye.k = k;
    return finish(a);
}

loom_array *loom_eye(int64_t n, int64_t m, int64_t k, loom_dtype dtype)
{
    return eye("loom_eye", n, m, k, dtype);
}

loom_array *loom_identity(int64_t n, loom_dtype dtype)
{
    return eye("loom_identity", n, n, 0, dtype);
}
