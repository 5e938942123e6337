/* 0-d scalar leaves: weak (Python-like) and typed. */
#include "creation.h"

static loom_array *scalar_node(const char *fn, loom_dtype dt, bool weak, double re, double im,
                               int64_t ival)
{
    loom_array *n = loom__node_alloc(fn, LOOM_OP_SCALAR, dt, 0, NULL);
    if (!n)
        return NULL;
    n->weak = weak;
    n->device = loom__default_device();
    n->param.value.re = re;
    n->param.value.im = im;
    n->param.value.exact = ival;
    return loom__node_finish_unscoped(n);
}

static loom_array *make_scalar(const char *fn, loom_dtype dt, bool weak, double re, double im,
                               int64_t ival)
{
    return loom__adopt(scalar_node(fn, dt, weak, re, im, ival));
}

loom_array *loom__weak_float_unscoped(const char *fn, double value)
{
    return scalar_node(fn, LOOM_FLOAT64, true, value, 0.0, 0);
}

loom_array *loom_scalar(double value)
{
    return make_scalar("loom_scalar", LOOM_FLOAT64, true, value, 0.0, 0);
}

loom_array *loom_scalar_int(int64_t value)
{
    return make_scalar("loom_scalar_int", LOOM_INT64, true, (double)value, 0.0, value);
}

loom_array *loom_scalar_complex(double real, double imag)
{
    return make_scalar("loom_scalar_complex", LOOM_COMPLEX128, true, real, imag, 0);
}

loom_array *loom_scalar_typed(double value, loom_dtype dtype)
{
    if (!loom__dtype_valid(dtype)) {
        loom__error(LOOM_ERR_INVALID, "loom_scalar_typed", "invalid dtype %d", (int)dtype);
        return NULL;
    }
    return make_scalar("loom_scalar_typed", dtype, false, value, 0.0,
                       loom__fill_ival(value, dtype));
}
