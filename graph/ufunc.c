/* Elementwise constructors: NumPy's ufuncs with their scalar forms and aliases, round, clip and
 * where. Each call records nodes and returns; nothing runs. */
#include "ufunc.h"

#include <string.h>

/* True when a can be an input as it is: the node's shape, or a 0-d scalar leaf, which
 * kernels take as an argument (no broadcast view needed). */
static bool same_shape(const loom_array *a, int ndim, const int64_t *shape)
{
    if (a->op == LOOM_OP_SCALAR && a->ndim == 0 && !a->buffer)
        return true;
    if (a->ndim != ndim)
        return false;
    for (int i = 0; i < ndim; i++) /* a few extents: cheaper than calling memcmp */
        if (a->shape[i] != shape[i])
            return false;
    return true;
}

/* Records op over in[] (none NULL). *out is the target dtype for CAST, ignored otherwise.
 * Broadcast views it makes are owned by the current scope, or, with own_scope, by a scope of
 * its own that ends before the node is handed to the caller's: views then live exactly as
 * long as the node. That scope is opened only when some input needs a view, so an op on
 * same-shape inputs allocates nothing but its node. */
static loom_array *record(const char *fn, loom_op op, int nin, loom_array *const *in,
                          const loom_params *param, loom_dtype out, bool own_scope)
{
    int ndims[LOOM_MAX_EW_INPUTS];
    const int64_t *shapes[LOOM_MAX_EW_INPUTS];
    for (int i = 0; i < nin; i++) {
        if (in[i]->device != in[0]->device) {
            loom__error(LOOM_ERR_INVALID, fn, "arrays are on different devices (%s and %s)",
                        loom__device_label(in[0]->device), loom__device_label(in[i]->device));
            return NULL;
        }
        ndims[i] = in[i]->ndim;
        shapes[i] = in[i]->shape;
    }
    loom_dtype loop;
    if (loom__resolve_ufunc(fn, op, nin, in, &loop, &out))
        return NULL;
    int nd;
    int64_t shape[LOOM_MAXDIMS];
    if (loom__broadcast_shapes(fn, nin, ndims, shapes, &nd, shape))
        return NULL;
    bool views = false, as_is[LOOM_MAX_EW_INPUTS];
    for (int i = 0; i < nin; i++) {
        as_is[i] = same_shape(in[i], nd, shape);
        views = views || !as_is[i];
    }
    bool scoped = views && own_scope;
    if (scoped)
        loom_scope_begin();
    loom_array *n = NULL, *inputs[LOOM_MAX_EW_INPUTS];
    for (int i = 0; i < nin; i++) {
        inputs[i] = as_is[i] ? in[i] : loom__broadcast_to(fn, in[i], nd, shape);
        if (!inputs[i])
            goto done;
    }
    n = loom__node_alloc(fn, op, out, nd, shape);
    if (!n)
        goto done;
    n->cdtype = (int8_t)loop;
    n->device = in[0]->device;
    if (param)
        n->param = *param;
    for (int i = 0; i < nin; i++)
        loom__node_set_input(n, i, inputs[i]);
done:
    if (scoped)
        loom_scope_end();
    return n ? loom__node_finish(n) : NULL;
}

static bool any_null(int nin, loom_array *const *in)
{
    for (int i = 0; i < nin; i++)
        if (!in[i])
            return true;
    return false;
}

loom_array *loom__ew(const char *fn, loom_op op, int nin, loom_array *const *in,
                     const loom_params *param)
{
    if (any_null(nin, in))
        return NULL;
    return record(fn, op, nin, in, param, LOOM_NO_DTYPE, true);
}

loom_array *loom__cast(const char *fn, loom_array *a, loom_dtype dtype)
{
    if (!a)
        return NULL;
    return record(fn, LOOM_OP_CAST, 1, &a, NULL, dtype, true);
}

static loom_array *unary(const char *fn, loom_op op, loom_array *a)
{
    return loom__ew(fn, op, 1, &a, NULL);
}

/* A real 0-d scalar leaf (weak or typed), whose value the recorder may look at. */
static bool is_real_scalar(const loom_array *b)
{
    return b && b->op == LOOM_OP_SCALAR && b->ndim == 0 && !b->buffer &&
           !loom__is_complex((loom_dtype)b->dtype);
}

static bool is_fast_exponent(const loom_array *b)
{
    if (!is_real_scalar(b))
        return false;
    double e = b->param.value.re;
    return e == 2.0 || e == 0.5 || e == -1.0 || e == 1.0;
}

/* x ** s for a scalar s, as NumPy computes it (docs/semantics.md, "Rewrites"):
 * - s == 2 becomes x * x (square) when power computes in x's own dtype: the same bits as the
 *   general loop (inf, NaN, -0 and wrapping integers too) at a fraction of the cost;
 * - NumPy's float32/float64 loop with a scalar exponent computes -1, 0.5, 1 and 2 directly
 *   (1/x, sqrt(x), x, x*x of x cast to the loop dtype), which differs from pow in rounding and
 *   in sqrt's -0.0 -> -0.0 and -inf -> nan; float16 and complex loops have no such path.
 * Built in a scope of its own so the node not chosen is dropped. */
static loom_array *power_of_scalar(const char *fn, loom_array *a, loom_array *b)
{
    loom_scope_begin();
    loom_array *p = loom__ew(fn, LOOM_OP_POWER, 2, (loom_array *[]){a, b}, NULL), *r = p;
    double e = b->param.value.re;
    loom_dtype loop = p ? (loom_dtype)p->cdtype : LOOM_NO_DTYPE;
    bool same_shape = p && p->ndim == a->ndim && !a->weak;
    if (same_shape && e == 2.0 && p->dtype == a->dtype && loop == a->dtype) {
        r = loom__ew(fn, LOOM_OP_SQUARE, 1, &a, NULL);
    } else if (same_shape && p->dtype == loop && (loop == LOOM_FLOAT32 || loop == LOOM_FLOAT64)) {
        loom_array *x = loom_astype(a, loop);
        if (e == 1.0)
            r = x;
        else
            r = loom__ew(fn, e == 2.0 ? LOOM_OP_SQUARE : e == 0.5 ? LOOM_OP_SQRT : LOOM_OP_RECIPROCAL,
                         1, &x, NULL);
    }
    r = loom_keep(r);
    loom_scope_end();
    return r;
}

static loom_array *binary(const char *fn, loom_op op, loom_array *a, loom_array *b)
{
    if (op == LOOM_OP_POWER && a && is_fast_exponent(b))
        return power_of_scalar(fn, a, b);
    return loom__ew(fn, op, 2, (loom_array *[]){a, b}, NULL);
}

/* a op b with b a weak float (a Python float). The scalar is ours alone (no scope): the node
 * takes its own reference, so dropping ours leaves it alive exactly as long as the node. */
static loom_array *binary_scalar(const char *fn, loom_op op, loom_array *a, double b)
{
    if (!a)
        return NULL;
    loom_array *s = loom__weak_float_unscoped(fn, b);
    if (!s)
        return NULL;
    if (op == LOOM_OP_POWER && is_fast_exponent(s)) {
        loom_array *r = power_of_scalar(fn, a, s);
        loom_release(s);
        return r;
    }
    loom_array *r = record(fn, op, 2, (loom_array *[]){a, s}, NULL, LOOM_NO_DTYPE, true);
    if (r && r->inputs[1] == s)
        /* Our reference is dropped without an atomic: no other thread can see s yet (only r
         * holds it, and r is still this thread's alone). */
        atomic_store_explicit(&s->refcount, 1, memory_order_relaxed);
    else
        loom_release(s);
    return r;
}

/* ---- the ufuncs of LOOM_UNARY_UFUNCS / LOOM_BINARY_UFUNCS ---- */

/* Their ops sit in graph/ops.def in the order of the X-macro lists, from NEGATIVE and ADD. */
enum {
#define X(name) UNARY_##name,
    LOOM_UNARY_UFUNCS(X)
#undef X
    UNARY_COUNT
};
enum {
#define X(name) BINARY_##name,
    LOOM_BINARY_UFUNCS(X)
#undef X
    BINARY_COUNT
};
_Static_assert(LOOM_OP_NEGATIVE + UNARY_COUNT - 1 == LOOM_OP_ANGLE,
               "graph/ops.def's unary ufuncs must follow LOOM_UNARY_UFUNCS");
_Static_assert(LOOM_OP_ADD + BINARY_COUNT - 1 == LOOM_OP_RIGHT_SHIFT,
               "graph/ops.def's binary ufuncs must follow LOOM_BINARY_UFUNCS");

#define DEFINE_UNARY(name)                                                                        \
    loom_array *loom_##name(loom_array *a)                                                        \
    {                                                                                             \
        return unary("loom_" #name, (loom_op)(LOOM_OP_NEGATIVE + UNARY_##name), a);               \
    }
#define DEFINE_BINARY(name)                                                                       \
    loom_array *loom_##name(loom_array *a, loom_array *b)                                         \
    {                                                                                             \
        return binary("loom_" #name, (loom_op)(LOOM_OP_ADD + BINARY_##name), a, b);               \
    }                                                                                             \
    loom_array *loom_##name##_scalar(loom_array *a, double b)                                     \
    {                                                                                             \
        return binary_scalar("loom_" #name "_scalar", (loom_op)(LOOM_OP_ADD + BINARY_##name), a, \
                             b);                                                                  \
    }
LOOM_UNARY_UFUNCS(DEFINE_UNARY)
LOOM_BINARY_UFUNCS(DEFINE_BINARY)
#undef DEFINE_UNARY
#undef DEFINE_BINARY

/* ---- NumPy's aliases (errors name the alias the user called) ---- */

loom_array *loom_divide(loom_array *a, loom_array *b)
{
    return binary("loom_divide", LOOM_OP_TRUE_DIVIDE, a, b);
}
loom_array *loom_divide_scalar(loom_array *a, double b)
{
    return binary_scalar("loom_divide_scalar", LOOM_OP_TRUE_DIVIDE, a, b);
}
loom_array *loom_abs(loom_array *a) { return unary("loom_abs", LOOM_OP_ABSOLUTE, a); }
loom_array *loom_conjugate(loom_array *a) { return unary("loom_conjugate", LOOM_OP_CONJ, a); }
loom_array *loom_bitwise_not(loom_array *a) { return unary("loom_bitwise_not", LOOM_OP_INVERT, a); }
loom_array *loom_mod(loom_array *a, loom_array *b)
{
    return binary("loom_mod", LOOM_OP_REMAINDER, a, b);
}
loom_array *loom_pow(loom_array *a, loom_array *b) { return binary("loom_pow", LOOM_OP_POWER, a, b); }
loom_array *loom_sub_scalar(loom_array *a, double b)
{
    return binary_scalar("loom_sub_scalar", LOOM_OP_SUBTRACT, a, b);
}
loom_array *loom_mul_scalar(loom_array *a, double b)
{
    return binary_scalar("loom_mul_scalar", LOOM_OP_MULTIPLY, a, b);
}
loom_array *loom_div_scalar(loom_array *a, double b)
{
    return binary_scalar("loom_div_scalar", LOOM_OP_TRUE_DIVIDE, a, b);
}

/* ---- round, clip, where ---- */

loom_array *loom_round(loom_array *a, int decimals)
{
    if (!a)
        return NULL;
    if (a->dtype == LOOM_BOOL && decimals != 0) {
        /* NumPy fails too: it scales by 10**decimals in float64 and cannot cast back to bool. */
        loom__error(LOOM_ERR_INVALID, "loom_round", "a bool array can only be rounded to 0 "
                    "decimals (got %d)", decimals);
        return NULL;
    }
    loom_params param = {.round = {decimals}};
    return loom__ew("loom_round", LOOM_OP_ROUND, 1, &a, &param);
}

static bool is_weak_int(const loom_array *a)
{
    return a && a->weak && loom__is_int((loom_dtype)a->dtype);
}

/* Whether a Python-int bound lies at or beyond integer dtype dt's whole range. */
static bool bounds_nothing(const loom_array *bound, loom_dtype dt, bool upper)
{
    if (!is_weak_int(bound))
        return false;
    int64_t v = bound->param.value.exact, min;
    uint64_t max;
    loom__int_range(dt, &min, &max);
    return upper ? v >= 0 && (uint64_t)v >= max : v <= min;
}

/* np.clip: minimum(maximum(a, lo), hi) in the dtype NumPy's clip computes in, a read as an
 * array (np.asarray: never weak). As in NumPy, a Python-int bound at or beyond an integer a's
 * whole range bounds nothing and is dropped instead of failing as out of bounds. */
loom_array *loom_clip(loom_array *a, loom_array *lo, loom_array *hi)
{
    static const char fn[] = "loom_clip";
    if (!a)
        return NULL;
    if (!lo && !hi) {
        loom__error(LOOM_ERR_INVALID, fn, "lo and hi cannot both be NULL");
        return NULL;
    }
    loom_dtype dt = (loom_dtype)a->dtype;
    if (loom__is_int(dt)) {
        if (bounds_nothing(lo, dt, false))
            lo = NULL;
        if (bounds_nothing(hi, dt, true))
            hi = NULL;
    }
    loom_scope_begin();
    loom_array *r = a->weak ? record(fn, LOOM_OP_CAST, 1, &a, NULL, dt, false) : a;
    if (r && (lo || hi)) {
        /* NumPy's clip ufunc has maximum's loops and picks one for all three operands at once
         * (clip(int8, uint8, float16) is float16, where maximum then minimum gives float32). */
        loom_array *ops[3] = {r, lo ? lo : hi, hi};
        loom_dtype loop, p;
        if (loom__resolve_ufunc(fn, LOOM_OP_MAXIMUM, lo && hi ? 3 : 2, ops, &loop, &p))
            r = NULL;
        else if (p != dt)
            r = record(fn, LOOM_OP_CAST, 1, &r, NULL, p, false);
    }
    if (r && lo)
        r = record(fn, LOOM_OP_MAXIMUM, 2, (loom_array *[]){r, lo}, NULL, LOOM_NO_DTYPE, false);
    if (r && hi)
        r = record(fn, LOOM_OP_MINIMUM, 2, (loom_array *[]){r, hi}, NULL, LOOM_NO_DTYPE, false);
    r = loom_keep(r);
    loom_scope_end();
    return r;
}

loom_array *loom_where(loom_array *cond, loom_array *x, loom_array *y)
{
    return loom__ew("loom_where", LOOM_OP_WHERE, 3, (loom_array *[]){cond, x, y}, NULL);
}
