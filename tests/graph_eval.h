/* A slow reference evaluator of recorded graphs on the CPU, for the node kinds the matrix
 * products and the joins record (host leaves, scalars, eye, views, copies, casts, multiply,
 * logical_and, conjugate, sum, any, matmul, concatenate, take, add, subtract, remainder,
 * floor_divide, minimum, maximum, the comparisons, logical_or, absolute, isnan, isfinite, where,
 * full, cumsum and cumprod of reals) rolls and the range generators, so tests can check the values a graph
 * stands for without a GPU. Values are complex doubles; integer results wrap to their dtype at
 * every node, bool results are 0 or 1. Float rounding is modelled only for arange and
 * linspace (ge_range_at, each element as kernels/loom_gen.cuh computes it); elsewhere tests
 * feed small integers, which every float dtype holds exactly. */
#ifndef LOOM_TEST_GRAPH_EVAL_H
#define LOOM_TEST_GRAPH_EVAL_H

#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct ge_value {
    double re, im;
} ge_value;

typedef struct ge_memo {
    const loom_array *node[1024];
    ge_value *val[1024];
    int n;
    int oob; /* a TAKE in mode raise met an index out of bounds */
} ge_memo;

static inline ge_value ge_convert(ge_value v, loom_dtype dt)
{
    if (dt == LOOM_BOOL)
        return (ge_value){v.re != 0 || v.im != 0, 0};
    if (loom__is_complex(dt))
        return v;
    double x = trunc(v.re);
    switch (dt) {
    case LOOM_INT8: return (ge_value){(int8_t)(int64_t)x, 0};
    case LOOM_INT16: return (ge_value){(int16_t)(int64_t)x, 0};
    case LOOM_INT32: return (ge_value){(int32_t)(int64_t)x, 0};
    case LOOM_INT64: return (ge_value){(double)(int64_t)x, 0};
    case LOOM_UINT8: return (ge_value){(uint8_t)(int64_t)x, 0};
    case LOOM_UINT16: return (ge_value){(uint16_t)(int64_t)x, 0};
    case LOOM_UINT32: return (ge_value){(uint32_t)(int64_t)x, 0};
    case LOOM_UINT64: return (ge_value){(double)(uint64_t)(int64_t)x, 0};
    default: return (ge_value){v.re, 0};
    }
}

/* x rounded to nearest even in a binary float format of p significand bits whose normal
 * exponents start at emin and whose largest finite value is max (beyond it: infinity). */
static inline double ge_round_format(double x, int p, int emin, double max)
{
    if (!isfinite(x) || x == 0)
        return x;
    int e;
    frexp(x, &e);
    int lead = e - 1 < emin ? emin : e - 1;
    double q = ldexp(1.0, lead - (p - 1));
    double r = rint(x / q) * q;
    return fabs(r) > max ? copysign(INFINITY, x) : r;
}

/* x rounded to the real dtype (or the part dtype of a complex one). */
static inline double ge_round(double x, loom_dtype dt)
{
    switch (dt) {
    case LOOM_FLOAT16: return ge_round_format(x, 11, -14, 65504.0);
    case LOOM_BFLOAT16: return ge_round_format(x, 8, -126, 0x1.fep127);
    case LOOM_FLOAT32: case LOOM_COMPLEX64: return (float)x;
    default: return x;
    }
}

/* The low bits of u as the integer dtype dt. */
static inline double ge_wrap(uint64_t u, loom_dtype dt)
{
    int bits = (int)loom_dtype_size(dt) * 8;
    if (bits < 64)
        u &= (1ull << bits) - 1;
    if (loom__is_unsigned(dt))
        return (double)u;
    if (bits < 64 && u >> (bits - 1))
        return (double)((int64_t)u - (int64_t)(1ull << (bits - 1)) * 2);
    return (double)(int64_t)u;
}

/* A double's whole part as NumPy's int(x) stores it (x fits the dtype), modulo 2^64. */
static inline uint64_t ge_whole(double x)
{
    x = trunc(x);
    return x >= 9223372036854775808.0 ? (uint64_t)x : (uint64_t)(int64_t)x;
}

/* Element i of an ARANGE or LINSPACE node, as kernels/loom_gen.cuh computes it. */
static inline ge_value ge_range_at(const loom_array *n, int64_t i)
{
    loom_dtype dt = (loom_dtype)n->dtype;
    if (n->op == LOOM_OP_LINSPACE) {
        double y = n->param.linspace.endpoint && n->param.linspace.num > 1 && i == n->param.linspace.num - 1
                       ? n->param.linspace.stop
                       : (double)i / n->param.linspace.divisor * n->param.linspace.scale +
                             n->param.linspace.start;
        if (dt == LOOM_BOOL)
            return (ge_value){y != 0, 0};
        if (loom__is_int(dt)) /* NaN -> 0; other values within int64 or uint64 wrap */
            return (ge_value){isnan(y) ? 0 : ge_wrap(ge_whole(floor(y)), dt), 0};
        return (ge_value){ge_round(y, dt), 0};
    }
    double start = n->param.arange.start, next = n->param.arange.next;
    if (dt == LOOM_BOOL)
        return (ge_value){i == 0 ? start != 0 : next != 0, 0};
    if (loom__is_int(dt)) {
        uint64_t first = ge_whole(start), second = ge_whole(next);
        return (ge_value){ge_wrap(first + (uint64_t)i * (second - first), dt), 0};
    }
    if (i < 2)
        return (ge_value){ge_round(i == 0 ? start : next, dt), 0};
    if (dt == LOOM_FLOAT64 || dt == LOOM_COMPLEX128) {
        double first = start, second = next;
        return (ge_value){first + (double)i * (second - first), 0};
    }
    /* float32 arithmetic (float16 and bfloat16 too, rounded once at the end) */
    float first = (float)ge_round(start, dt), second = (float)ge_round(next, dt);
    float r = first + (float)i * (second - first);
    return (ge_value){ge_round(r, dt), 0};
}

/* The multi-index of flat C-order index f in shape. */
static inline void ge_unravel(int64_t f, int nd, const int64_t *shape, int64_t *idx)
{
    for (int d = nd; d-- > 0;) {
        idx[d] = shape[d] ? f % shape[d] : 0;
        f = shape[d] ? f / shape[d] : 0;
    }
}

static inline ge_value *ge_eval(loom_array *n, ge_memo *m);

/* The value of an elementwise input at flat index i of its node (0-d scalars broadcast). */
static inline ge_value ge_in(const ge_value *v, const loom_array *in, int64_t i)
{
    return in->ndim == 0 ? v[0] : v[i];
}

/* CONCAT: each element from the input its coordinate along the axis falls in. */
static inline ge_value *ge_concat(loom_array *n, ge_memo *m, ge_value *out)
{
    int ax = (int)n->param.join.axis;
    int64_t inner = 1, begin = 0;
    for (int d = ax + 1; d < n->ndim; d++)
        inner *= n->shape[d];
    for (int k = 0; k < n->ninputs; k++) {
        const loom_array *a = n->inputs[k];
        ge_value *v = ge_eval(n->inputs[k], m);
        if (!v) {
            free(out);
            return NULL;
        }
        int64_t len = a->shape[ax];
        for (int64_t i = 0; i < a->size; i++) {
            int64_t in = i % inner, q = i / inner, o = q / len, c = q % len;
            out[(o * n->shape[ax] + begin + c) * inner + in] = ge_convert(v[i], (loom_dtype)n->dtype);
        }
        begin += len;
    }
    return out;
}

/* TAKE: the source at (before, index, after), the index wrapped, clipped or checked. */
static inline ge_value *ge_take(loom_array *n, ge_memo *m, ge_value *out)
{
    const loom_array *a = n->inputs[0], *ix = n->inputs[1];
    ge_value *v = ge_eval(n->inputs[0], m), *iv = ge_eval(n->inputs[1], m);
    if (!v || !iv) {
        free(out);
        return NULL;
    }
    int ax = (int)n->param.take.axis;
    int64_t after = 1, len = a->shape[ax];
    for (int d = ax + 1; d < a->ndim; d++)
        after *= a->shape[d];
    for (int64_t i = 0; i < n->size; i++) {
        int64_t post = i % after, q = i / after, j = q % ix->size, pre = q / ix->size;
        int64_t k = (int64_t)iv[ix->ndim ? j : 0].re;
        if (n->param.take.mode == LOOM_MODE_WRAP)
            k = (k % len + len) % len;
        else if (n->param.take.mode == LOOM_MODE_CLIP)
            k = k < 0 ? 0 : k >= len ? len - 1 : k;
        else if ((k = k < 0 ? k + len : k) < 0 || k >= len)
            m->oob = 1, k = 0;
        out[i] = v[(pre * len + k) * after + post];
    }
    return out;
}

/* ARGSORT: each row of the last axis, its positions ordered by key (stable; NaN last). */
static inline ge_value *ge_argsort(loom_array *n, ge_memo *m, ge_value *out)
{
    ge_value *k = ge_eval(n->inputs[0], m);
    if (!k) {
        free(out);
        return NULL;
    }
    int64_t len = n->ndim ? n->shape[n->ndim - 1] : 1;
    for (int64_t r = 0; len && r < n->size / len; r++) {
        ge_value *o = out + r * len;
        const ge_value *key = k + r * len;
        for (int64_t i = 0; i < len; i++) { /* insertion: stable */
            int64_t j = i;
            while (j > 0 && (isnan(key[(int64_t)o[j - 1].re].re) ? !isnan(key[i].re)
                                                                   : key[i].re < key[(int64_t)o[j - 1].re].re)) {
                o[j] = o[j - 1];
                j--;
            }
            o[j] = (ge_value){(double)i, 0};
        }
    }
    return out;
}

/* SCATTER: the old value, then the values at each position folded in their order. */
static inline ge_value *ge_scatter(loom_array *n, ge_memo *m, ge_value *out)
{
    ge_value *old = ge_eval(n->inputs[0], m), *keys = ge_eval(n->inputs[1], m),
             *vals = ge_eval(n->inputs[2], m);
    if (!old || !keys || !vals) {
        free(out);
        return NULL;
    }
    loom_dtype dt = (loom_dtype)n->dtype, cd = (loom_dtype)n->cdtype;
    for (int64_t i = 0; i < n->size; i++)
        out[i] = ge_in(old, n->inputs[0], i);
    for (int64_t j = 0; j < n->inputs[1]->size; j++) {
        ge_value *o = &out[(int64_t)keys[j].re], a = ge_convert(*o, cd), b = ge_convert(vals[j], cd);
        ge_value r = b;
        switch ((loom_op)n->param.scatter.op) {
        case LOOM_OP_ADD: r = (ge_value){a.re + b.re, a.im + b.im}; break;
        case LOOM_OP_SUBTRACT: r = (ge_value){a.re - b.re, a.im - b.im}; break;
        case LOOM_OP_MULTIPLY: r = (ge_value){a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re}; break;
        case LOOM_OP_MINIMUM: r.re = isnan(a.re) || isnan(b.re) ? NAN : a.re < b.re ? a.re : b.re; break;
        case LOOM_OP_MAXIMUM: r.re = isnan(a.re) || isnan(b.re) ? NAN : a.re > b.re ? a.re : b.re; break;
        default: break; /* COPY: the value itself */
        }
        *o = ge_convert(ge_convert(r, cd), dt);
    }
    return out;
}

static inline ge_value *ge_compute(loom_array *n, ge_memo *m)
{
    int64_t size = n->size, idx[LOOM_MAXDIMS];
    ge_value *out = calloc((size_t)(size ? size : 1), sizeof *out);
    if (n->op == LOOM_OP_CONCAT)
        return ge_concat(n, m, out);
    if (n->op == LOOM_OP_EMPTY)
        return out; /* unspecified: zeros here */
    if (n->op == LOOM_OP_TAKE)
        return ge_take(n, m, out);
    if (n->op == LOOM_OP_ARGSORT)
        return ge_argsort(n, m, out);
    if (n->op == LOOM_OP_SCATTER)
        return ge_scatter(n, m, out);
    ge_value *in[LOOM_MAX_EW_INPUTS] = {0};
    for (int k = 0; k < n->ninputs; k++)
        if (!(in[k] = ge_eval(n->inputs[k], m)))
            goto fail;
    loom_dtype dt = (loom_dtype)n->dtype;
    switch (n->op) {
    case LOOM_OP_HOST:
        for (int64_t i = 0; i < size; i++) {
            if (dt == LOOM_COMPLEX128)
                out[i] = (ge_value){((double *)n->host_data)[2 * i],
                                    ((double *)n->host_data)[2 * i + 1]};
            else
                out[i].re = loom__host_to_double(
                    (char *)n->host_data + (size_t)i * loom_dtype_size(dt), dt);
        }
        break;
    case LOOM_OP_SCALAR: out[0] = ge_convert((ge_value){n->param.value.re, n->param.value.im}, dt); break;
    case LOOM_OP_ARANGE:
    case LOOM_OP_LINSPACE:
        for (int64_t i = 0; i < size; i++)
            out[i] = ge_range_at(n, i);
        break;
    case LOOM_OP_EYE:
        for (int64_t i = 0; i < size; i++) {
            ge_unravel(i, 2, n->shape, idx);
            out[i].re = idx[1] - idx[0] == n->param.eye.k;
        }
        break;
    case LOOM_OP_VIEW:
        for (int64_t i = 0; i < size; i++) {
            ge_unravel(i, n->ndim, n->shape, idx);
            int64_t f = n->offset;
            for (int d = 0; d < n->ndim; d++)
                f += idx[d] * n->strides[d];
            out[i] = in[0][f];
        }
        break;
    case LOOM_OP_ROLL: /* element i reads the input at (i - shift) mod extent */
        for (int64_t i = 0; i < size; i++) {
            int64_t ax = n->param.roll.axis, sh = n->param.roll.shift, f = 0;
            if (ax < 0) {
                out[i] = in[0][(i - sh + size) % size];
                continue;
            }
            ge_unravel(i, n->ndim, n->shape, idx);
            idx[ax] = (idx[ax] - sh + n->shape[ax]) % n->shape[ax];
            for (int d = 0; d < n->ndim; d++)
                f = f * n->shape[d] + idx[d];
            out[i] = in[0][f];
        }
        break;
    case LOOM_OP_COPY:
    case LOOM_OP_CAST:
        for (int64_t i = 0; i < size; i++)
            out[i] = ge_convert(in[0][i], dt);
        break;
    case LOOM_OP_CONJ:
        for (int64_t i = 0; i < size; i++)
            out[i] = ge_convert((ge_value){in[0][i].re, -in[0][i].im}, dt);
        break;
    case LOOM_OP_FULL:
        for (int64_t i = 0; i < size; i++)
            out[i] = ge_convert((ge_value){n->param.value.re, 0}, dt);
        break;
    case LOOM_OP_ADD:
    case LOOM_OP_SUBTRACT:
    case LOOM_OP_REMAINDER:
    case LOOM_OP_FLOOR_DIVIDE:
    case LOOM_OP_MINIMUM:
    case LOOM_OP_MAXIMUM:
    case LOOM_OP_LESS:
    case LOOM_OP_LESS_EQUAL:
    case LOOM_OP_GREATER_EQUAL:
    case LOOM_OP_GREATER:
    case LOOM_OP_EQUAL:
    case LOOM_OP_LOGICAL_OR:
        for (int64_t i = 0; i < size; i++) {
            ge_value a = ge_convert(ge_in(in[0], n->inputs[0], i), (loom_dtype)n->cdtype);
            ge_value b = ge_convert(ge_in(in[1], n->inputs[1], i), (loom_dtype)n->cdtype);
            ge_value r = {0, 0};
            switch (n->op) {
            case LOOM_OP_ADD: r = (ge_value){a.re + b.re, a.im + b.im}; break;
            case LOOM_OP_SUBTRACT: r = (ge_value){a.re - b.re, a.im - b.im}; break;
            case LOOM_OP_REMAINDER: /* Python's: the sign of the divisor (integers here) */
                r.re = b.re ? a.re - b.re * floor(a.re / b.re) : 0;
                break;
            case LOOM_OP_FLOOR_DIVIDE: r.re = b.re ? floor(a.re / b.re) : 0; break;
            case LOOM_OP_MINIMUM: r.re = a.re < b.re ? a.re : b.re; break;
            case LOOM_OP_MAXIMUM: r.re = a.re > b.re ? a.re : b.re; break;
            case LOOM_OP_LESS: r.re = a.re < b.re; break;
            case LOOM_OP_LESS_EQUAL: r.re = a.re <= b.re; break;
            case LOOM_OP_GREATER_EQUAL: r.re = a.re >= b.re; break;
            case LOOM_OP_GREATER: r.re = a.re > b.re; break;
            case LOOM_OP_EQUAL: r.re = a.re == b.re && a.im == b.im; break;
            default: r.re = (a.re || a.im) || (b.re || b.im); break;
            }
            out[i] = ge_convert(r, dt);
        }
        break;
    case LOOM_OP_ABSOLUTE:
    case LOOM_OP_ISNAN:
    case LOOM_OP_ISFINITE:
        for (int64_t i = 0; i < size; i++) {
            ge_value a = ge_convert(in[0][i], (loom_dtype)n->cdtype);
            ge_value r = {0, 0};
            if (n->op == LOOM_OP_ABSOLUTE)
                r.re = hypot(a.re, a.im);
            else if (n->op == LOOM_OP_ISNAN)
                r.re = isnan(a.re) || isnan(a.im);
            else
                r.re = isfinite(a.re) && isfinite(a.im);
            out[i] = ge_convert(r, dt);
        }
        break;
    case LOOM_OP_WHERE:
        for (int64_t i = 0; i < size; i++) {
            ge_value c = ge_in(in[0], n->inputs[0], i);
            out[i] = ge_convert(c.re || c.im ? ge_in(in[1], n->inputs[1], i) : ge_in(in[2], n->inputs[2], i), dt);
        }
        break;
    case LOOM_OP_MULTIPLY:
    case LOOM_OP_LOGICAL_AND:
        for (int64_t i = 0; i < size; i++) {
            ge_value a = ge_convert(ge_in(in[0], n->inputs[0], i), (loom_dtype)n->cdtype);
            ge_value b = ge_convert(ge_in(in[1], n->inputs[1], i), (loom_dtype)n->cdtype);
            ge_value p = {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
            if (n->op == LOOM_OP_LOGICAL_AND)
                p = (ge_value){(a.re || a.im) && (b.re || b.im), 0};
            out[i] = ge_convert(p, dt);
        }
        break;
    case LOOM_OP_SUM:
    case LOOM_OP_ANY: {
        const loom_array *a = n->inputs[0];
        uint32_t mask = (uint32_t)n->param.reduce.axes;
        bool logical = n->op == LOOM_OP_ANY || n->cdtype == LOOM_BOOL;
        for (int64_t i = 0; i < a->size; i++) {
            ge_unravel(i, a->ndim, a->shape, idx);
            int64_t f = 0;
            for (int d = 0, k = 0; d < a->ndim; d++) {
                if (mask >> d & 1) {
                    if (n->param.reduce.keepdims)
                        f = f * n->shape[k++];
                    continue;
                }
                f = f * n->shape[k] + idx[d];
                k++;
            }
            ge_value v = ge_convert(in[0][i], (loom_dtype)n->cdtype);
            if (logical)
                out[f].re = out[f].re || v.re || v.im;
            else
                out[f] = ge_convert((ge_value){out[f].re + v.re, out[f].im + v.im},
                                    (loom_dtype)n->cdtype);
        }
        for (int64_t i = 0; i < size; i++)
            out[i] = ge_convert(out[i], dt);
        break;
    }
    case LOOM_OP_CUMSUM:
    case LOOM_OP_CUMPROD: { /* real sums or products along param.scan.axis */
        int ax = (int)n->param.scan.axis;
        int64_t inner = 1;
        for (int d = ax + 1; d < n->ndim; d++)
            inner *= n->shape[d];
        int64_t len = n->shape[ax];
        for (int64_t i = 0; i < size; i++) {
            int64_t c = i / inner % len;
            ge_value v = ge_convert(in[0][i], (loom_dtype)n->cdtype);
            if (c == 0) {
                out[i] = v;
                continue;
            }
            double prev = out[i - inner].re;
            double acc = n->op == LOOM_OP_CUMSUM ? prev + v.re : prev * v.re;
            out[i] = ge_convert((ge_value){acc, 0}, (loom_dtype)n->cdtype);
        }
        for (int64_t i = 0; i < size; i++)
            out[i] = ge_convert(out[i], dt);
        break;
    }
    case LOOM_OP_MATMUL: {
        const loom_array *a = n->inputs[0];
        int nd = n->ndim;
        int64_t rows = n->shape[nd - 2], cols = n->shape[nd - 1], k = a->shape[nd - 1];
        for (int64_t i = 0; i < size; i++) {
            int64_t batch = i / (rows * cols), r = i / cols % rows, c = i % cols;
            ge_value s = {0, 0};
            for (int64_t t = 0; t < k; t++) {
                ge_value x = in[0][(batch * rows + r) * k + t];
                ge_value y = in[1][(batch * k + t) * cols + c];
                s.re += x.re * y.re - x.im * y.im;
                s.im += x.re * y.im + x.im * y.re;
            }
            out[i] = ge_convert(s, dt);
        }
        break;
    }
    default:
        fprintf(stderr, "graph_eval: no reference for op %s\n", loom__ops[n->op].name);
        goto fail;
    }
    return out;
fail:
    free(out);
    return NULL;
}

static inline ge_value *ge_eval(loom_array *n, ge_memo *m)
{
    for (int i = 0; i < m->n; i++)
        if (m->node[i] == n)
            return m->val[i];
    ge_value *v = ge_compute(n, m);
    if (v && m->n < 1024) {
        m->node[m->n] = n;
        m->val[m->n++] = v;
    }
    return v;
}

static inline void ge_free(ge_memo *m)
{
    for (int i = 0; i < m->n; i++)
        free(m->val[i]);
    m->n = 0;
}

#endif
