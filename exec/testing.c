/* np.testing.assert_allclose and assert_array_equal: the comparison (np.isclose's formula in
 * the operands' dtypes) and NumPy's report (assert_array_compare and build_err_msg). */
#include "testing.h"

#include "exec.h"
#include "format.h"

#include "../graph/internal.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Host data of one operand. */
typedef struct operand {
    const void *data;
    loom_dtype dtype;
    int ndim;
    const int64_t *shape;
    int64_t size;
} operand;

typedef struct comparison {
    bool allclose;
    double rtol, atol;
    bool equal_nan;
} comparison;

static loom_dtype real_dtype(loom_dtype dt)
{
    return dt == LOOM_COMPLEX64 ? LOOM_FLOAT32 : dt == LOOM_COMPLEX128 ? LOOM_FLOAT64 : dt;
}

/* v rounded to a float dtype, as an operation computed in that dtype rounds its result. */
static double in_dtype(double v, loom_dtype dt)
{
    switch (real_dtype(dt)) {
    case LOOM_FLOAT32: return (float)v;
    case LOOM_FLOAT16:
    case LOOM_BFLOAT16: {
        if (v == 0 || !isfinite(v))
            return v;
        int bits = dt == LOOM_FLOAT16 ? 11 : 8, min_q = dt == LOOM_FLOAT16 ? -24 : -133, e;
        frexp(v, &e);
        int q = e - bits < min_q ? min_q : e - bits;
        double r = ldexp(nearbyint(ldexp(v, -q)), q);
        return dt == LOOM_FLOAT16 && fabs(r) > 65504 ? copysign(INFINITY, v) : r;
    }
    default: return v;
    }
}

static double re_of(const operand *o, int64_t i)
{
    return loom__format_real(o->data, o->dtype, i);
}

static double im_of(const operand *o, int64_t i)
{
    return loom__is_complex(o->dtype) ? loom__format_imag(o->data, o->dtype, i) : 0;
}

/* An integer element's bits, sign-extended (signed dtypes) to 64. */
static uint64_t int_of(const operand *o, int64_t i)
{
    const char *p = (const char *)o->data + i * (int64_t)loom_dtype_size(o->dtype);
    switch (o->dtype) {
    case LOOM_BOOL: case LOOM_UINT8: return *(const uint8_t *)p;
    case LOOM_INT8: return (uint64_t)(int64_t)*(const int8_t *)p;
    case LOOM_INT16: { int16_t v; memcpy(&v, p, 2); return (uint64_t)(int64_t)v; }
    case LOOM_UINT16: { uint16_t v; memcpy(&v, p, 2); return v; }
    case LOOM_INT32: { int32_t v; memcpy(&v, p, 4); return (uint64_t)(int64_t)v; }
    case LOOM_UINT32: { uint32_t v; memcpy(&v, p, 4); return v; }
    default: { uint64_t v; memcpy(&v, p, 8); return v; }
    }
}

static bool is_signed(loom_dtype dt)
{
    return dt == LOOM_INT8 || dt == LOOM_INT16 || dt == LOOM_INT32 || dt == LOOM_INT64;
}

static bool integral(loom_dtype dt)
{
    return dt == LOOM_BOOL || loom__is_int(dt);
}

static bool is_nan_at(const operand *o, int64_t i)
{
    return !integral(o->dtype) && (isnan(re_of(o, i)) || isnan(im_of(o, i)));
}

static bool is_inf_at(const operand *o, int64_t i)
{
    return !integral(o->dtype) && (isinf(re_of(o, i)) || isinf(im_of(o, i)));
}

/* x == y in the promoted dtype (integers exactly, int64 with uint64 included). */
static bool equal_at(const operand *x, const operand *y, int64_t i)
{
    if (integral(x->dtype) && integral(y->dtype)) {
        uint64_t a = int_of(x, i), b = int_of(y, i);
        bool a_neg = is_signed(x->dtype) && (int64_t)a < 0, b_neg = is_signed(y->dtype) && (int64_t)b < 0;
        return a == b && a_neg == b_neg;
    }
    return re_of(x, i) == re_of(y, i) && im_of(x, i) == im_of(y, i);
}

/* np.isclose(x, y, rtol, atol) for one element: y becomes result_type(y, 1.0), the difference
 * is computed in result_type(x, y), each step rounded to its dtype. */
static bool close_at(const comparison *c, const operand *x, const operand *y, int64_t i)
{
    if (equal_at(x, y, i))
        return true;
    loom_dtype ydt = loom__is_float(y->dtype) || loom__is_complex(y->dtype) ? y->dtype : LOOM_FLOAT64;
    loom_dtype dt = loom_result_type(x->dtype, ydt);
    double yre = in_dtype(re_of(y, i), ydt), yim = in_dtype(im_of(y, i), ydt);
    double dre = in_dtype(re_of(x, i) - yre, dt), dim = in_dtype(im_of(x, i) - yim, dt);
    double diff = in_dtype(hypot(dre, dim), dt);
    double tol = in_dtype(c->atol + in_dtype(c->rtol * in_dtype(hypot(yre, yim), ydt), ydt), ydt);
    return diff <= tol && isfinite(yre) && isfinite(yim);
}

static void shape_text(loom_strbuf *sb, const operand *o)
{
    loom__sb_printf(sb, "(");
    for (int k = 0; k < o->ndim; k++)
        loom__sb_printf(sb, "%s%" PRId64, k ? ", " : "", o->shape[k]);
    loom__sb_printf(sb, o->ndim == 1 ? ",)" : ")");
}

/* build_err_msg's " ACTUAL: <repr>" line: at precision 6; a repr of more than four lines is cut
 * after three, with "...". */
static void repr_line(loom_strbuf *sb, const char *name, const operand *o)
{
    loom_printoptions opt;
    loom_get_printoptions(&opt);
    opt.precision = 6;
    char *r = loom__format_array(o->data, o->dtype, o->ndim, o->shape, true, &opt);
    if (!r) {
        sb->failed = true;
        return;
    }
    int newlines = 0;
    char *cut = NULL;
    for (char *c = strchr(r, '\n'); c; c = strchr(c + 1, '\n'))
        if (++newlines == 3)
            cut = c;
    if (newlines <= 3)
        cut = NULL; /* four lines or fewer are shown whole */
    loom__sb_printf(sb, "\n %s: ", name);
    if (cut) {
        loom__sb_append(sb, r, (size_t)(cut - r));
        loom__sb_printf(sb, "...");
    } else {
        loom__sb_printf(sb, "%s", r);
    }
    free(r);
}

/* An element as f"{value}" writes a NumPy scalar: integers exactly, floats as Python floats. */
static void element_text(loom_strbuf *sb, const operand *o, int64_t i)
{
    if (integral(o->dtype)) {
        loom_printoptions opt;
        loom_get_printoptions(&opt);
        const char *p = (const char *)o->data + i * (int64_t)loom_dtype_size(o->dtype);
        char *s = loom__format_array(p, o->dtype, 0, NULL, false, &opt);
        loom__sb_printf(sb, "%s", s ? s : "?");
        free(s);
        return;
    }
    double v[2] = {re_of(o, i), im_of(o, i)};
    loom_dtype dt = loom__is_complex(o->dtype) ? LOOM_COMPLEX128 : LOOM_FLOAT64;
    loom_printoptions opt;
    loom_get_printoptions(&opt);
    char *s = loom__format_array(v, dt, 0, NULL, false, &opt);
    loom__sb_printf(sb, "%s", s ? s : "?");
    free(s);
}

/* The bits of v, which is exactly a float16 (or bfloat16) value. */
static uint16_t narrow_bits(double v, loom_dtype dt)
{
    if (dt == LOOM_BFLOAT16) {
        float f = (float)v;
        uint32_t b;
        memcpy(&b, &f, sizeof b);
        return (uint16_t)(b >> 16);
    }
    uint16_t sign = signbit(v) ? 0x8000 : 0;
    if (isnan(v))
        return 0x7e00;
    if (isinf(v))
        return sign | 0x7c00;
    double a = fabs(v);
    if (a < 0x1p-14) /* subnormal: a multiple of 2^-24 */
        return sign | (uint16_t)ldexp(a, 24);
    int e;
    double m = frexp(a, &e); /* a = m 2^e, m in [0.5, 1) */
    return sign | (uint16_t)((e + 14) << 10) | (uint16_t)(ldexp(m, 11) - 1024);
}

/* array2string of a 0-d array of dtype dt holding v: the element as arrays print it. */
static void value_text(loom_strbuf *sb, double v, loom_dtype dt)
{
    loom_printoptions opt;
    loom_get_printoptions(&opt);
    double d = v;
    float f = (float)v;
    uint16_t h = 0;
    const void *p = &d;
    if (dt == LOOM_FLOAT32) {
        p = &f;
    } else if (dt == LOOM_FLOAT16 || dt == LOOM_BFLOAT16) {
        h = narrow_bits(v, dt);
        p = &h;
    } else {
        dt = LOOM_FLOAT64;
    }
    char *s = loom__format_array(p, dt, 1, (int64_t[]){1}, false, &opt);
    if (s && strlen(s) >= 2)
        loom__sb_append(sb, s + 1, strlen(s) - 2); /* without "[" and "]" */
    free(s);
}

/* The report's lines about the largest differences among the mismatches (none for bool). */
static void differences(loom_strbuf *sb, const operand *x, const operand *y, const bool *bad)
{
    loom_dtype dt = loom_result_type(x->dtype, y->dtype);
    if (dt == LOOM_BOOL)
        return; /* NumPy's bool subtract raises, and the lines are left out */
    if (x->ndim == 0 && loom__is_int(x->dtype) && !is_signed(x->dtype))
        return; /* so does its np.minimum(..., out=) on the 0-d difference of an unsigned x */
    bool found_abs = false, found_rel = false;
    double max_rel = 0;
    if (loom__is_int(dt)) {
        int bits = (int)loom_dtype_size(dt) * 8;
        uint64_t mask = bits == 64 ? UINT64_MAX : ((uint64_t)1 << bits) - 1;
        int64_t smax = INT64_MIN;
        uint64_t umax = 0;
        for (int64_t i = 0; i < x->size; i++) {
            if (!bad[i])
                continue;
            uint64_t d = (int_of(x, i) - int_of(y, i)) & mask, e;
            if (is_signed(dt)) {
                int64_t s = bits == 64 ? (int64_t)d : (int64_t)(d << (64 - bits)) >> (64 - bits);
                int64_t a = s < 0 ? (int64_t)((0 - (uint64_t)s) & mask) : s;
                if (bits < 64 && a >= (int64_t)1 << (bits - 1))
                    a -= (int64_t)1 << bits; /* abs(MIN) wraps to MIN */
                smax = found_abs && smax > a ? smax : a;
                e = (uint64_t)a;
            } else {
                uint64_t back = (int_of(y, i) - int_of(x, i)) & mask;
                e = d < back ? d : back;
                umax = found_abs && umax > e ? umax : e;
            }
            found_abs = true;
            double yv = fabs(re_of(y, i));
            if (yv != 0) {
                double rel = (is_signed(dt) ? (double)(int64_t)e : (double)e) / yv;
                max_rel = found_rel && !(rel > max_rel) && !isnan(rel) ? max_rel : rel;
                found_rel = true;
            }
        }
        if (is_signed(dt))
            loom__sb_printf(sb, "\nMax absolute difference among violations: %" PRId64, smax);
        else
            loom__sb_printf(sb, "\nMax absolute difference among violations: %" PRIu64, umax);
        loom__sb_printf(sb, "\nMax relative difference among violations: ");
        value_text(sb, found_rel ? max_rel : INFINITY, LOOM_FLOAT64);
        return;
    }
    loom_dtype rdt = real_dtype(dt);
    double max_abs = 0;
    for (int64_t i = 0; i < x->size; i++) {
        if (!bad[i])
            continue;
        double dre = in_dtype(re_of(x, i) - re_of(y, i), dt);
        double dim = in_dtype(im_of(x, i) - im_of(y, i), dt);
        double err = in_dtype(hypot(dre, dim), rdt);
        /* np.max propagates NaN. */
        max_abs = !found_abs || isnan(err) || (err > max_abs && !isnan(max_abs)) ? err : max_abs;
        found_abs = true;
        if (re_of(y, i) != 0 || im_of(y, i) != 0) {
            double yabs = in_dtype(hypot(re_of(y, i), im_of(y, i)), real_dtype(y->dtype));
            double rel = in_dtype(err / yabs, rdt);
            max_rel = !found_rel || isnan(rel) || (rel > max_rel && !isnan(max_rel)) ? rel : max_rel;
            found_rel = true;
        }
    }
    loom__sb_printf(sb, "\nMax absolute difference among violations: ");
    value_text(sb, max_abs, rdt);
    loom__sb_printf(sb, "\nMax relative difference among violations: ");
    value_text(sb, found_rel ? max_rel : INFINITY, found_rel ? rdt : LOOM_FLOAT64);
}

/* " [i, j]" of flat index i. */
static void index_text(loom_strbuf *sb, const operand *o, int64_t flat)
{
    int64_t idx[LOOM_MAXDIMS];
    for (int k = o->ndim - 1; k >= 0; k--) {
        idx[k] = o->shape[k] ? flat % o->shape[k] : 0;
        flat = o->shape[k] ? flat / o->shape[k] : 0;
    }
    loom__sb_printf(sb, "\n [");
    for (int k = 0; k < o->ndim; k++)
        loom__sb_printf(sb, "%s%" PRId64, k ? ", " : "", idx[k]);
    loom__sb_printf(sb, "]");
}

/* The mismatch report's remarks; false when every element passed. */
static bool mismatches(loom_strbuf *sb, const comparison *c, const operand *x, const operand *y,
                       const bool *flagged, bool *bad)
{
    int64_t n_bad = 0;
    for (int64_t i = 0; i < x->size; i++) {
        bad[i] = !flagged[i] && !(c->allclose ? close_at(c, x, y, i) : equal_at(x, y, i));
        n_bad += bad[i];
    }
    if (!n_bad)
        return false;
    loom__sb_printf(sb, "\nMismatched elements: %" PRId64 " / %" PRId64 " (%.3g%%)", n_bad, x->size,
                    100.0 * (double)n_bad / (double)x->size);
    if (x->ndim > 0) {
        loom__sb_printf(sb, "\n%s", n_bad == 1  ? "Mismatch at index:"
                                    : n_bad <= 5 ? "Mismatch at indices:"
                                                 : "First 5 mismatches are at indices:");
        int shown = 0;
        for (int64_t i = 0; i < x->size && shown < 5; i++) {
            if (!bad[i])
                continue;
            index_text(sb, x, i);
            loom__sb_printf(sb, ": ");
            element_text(sb, x, i);
            loom__sb_printf(sb, " (ACTUAL), ");
            element_text(sb, y, i);
            loom__sb_printf(sb, " (DESIRED)");
            shown++;
        }
    }
    differences(sb, x, y, bad);
    return true;
}

/* The elements of o where mask is set, as a new 1-d operand (for "inf values mismatch"). */
static void *masked(const operand *o, const bool *mask, operand *out, int64_t *len)
{
    size_t es = loom_dtype_size(o->dtype);
    char *data = malloc((size_t)o->size * es + 1);
    *len = 0;
    for (int64_t i = 0; data && i < o->size; i++)
        if (mask[i])
            memcpy(data + (*len)++ * (int64_t)es, (const char *)o->data + i * (int64_t)es, es);
    *out = (operand){.data = data, .dtype = o->dtype, .ndim = 1, .shape = len, .size = *len};
    return data;
}

/* Where NaN (or infinity) stands in one operand but not the other: NumPy's location check. */
static bool location_mismatch(const operand *x, const operand *y, bool (*test)(const operand *, int64_t),
                              const bool *skip)
{
    for (int64_t i = 0; i < x->size; i++)
        if (!(skip && skip[i]) && test(x, i) != test(y, i))
            return true;
    return false;
}

/* The report NumPy raises, or NULL when the arrays pass; *failed set when memory ran out. */
static char *compare_host(const comparison *c, const operand *x, const operand *y, bool *failed)
{
    loom_strbuf sb = {0};
    if (c->allclose)
        loom__sb_printf(&sb, "Not equal to tolerance rtol=%g, atol=%g\n", c->rtol, c->atol);
    else
        loom__sb_printf(&sb, "Arrays are not equal\n");
    bool same_shape = x->ndim == y->ndim;
    for (int k = 0; same_shape && k < x->ndim; k++)
        same_shape = x->shape[k] == y->shape[k];
    bool *flagged = calloc((size_t)x->size + 1, 2 * sizeof(bool));
    bool *bad = flagged ? flagged + x->size + 1 : NULL;
    bool fail = true;
    if (!flagged) {
        *failed = true;
    } else if (!same_shape) {
        loom__sb_printf(&sb, "\n(shapes ");
        shape_text(&sb, x);
        loom__sb_printf(&sb, ", ");
        shape_text(&sb, y);
        loom__sb_printf(&sb, " mismatch)");
    } else if (c->equal_nan && location_mismatch(x, y, is_nan_at, NULL)) {
        loom__sb_printf(&sb, "\nnan location mismatch:");
    } else {
        for (int64_t i = 0; c->equal_nan && i < x->size; i++)
            flagged[i] = is_nan_at(x, i);
        bool inf_fail = location_mismatch(x, y, is_inf_at, flagged);
        bool inf_values = false;
        bool *infs = bad; /* scratch until the comparison */
        for (int64_t i = 0; i < x->size; i++) {
            infs[i] = !flagged[i] && is_inf_at(x, i);
            inf_values |= infs[i] && !equal_at(x, y, i);
        }
        if (inf_fail) {
            loom__sb_printf(&sb, "\ninf location mismatch:");
        } else if (inf_values) {
            loom__sb_printf(&sb, "\ninf values mismatch:");
            operand xm, ym;
            int64_t xn, yn;
            void *xd = masked(x, infs, &xm, &xn), *yd = masked(y, infs, &ym, &yn);
            if (xd && yd) {
                repr_line(&sb, "ACTUAL", &xm);
                repr_line(&sb, "DESIRED", &ym);
            } else {
                *failed = true;
            }
            free(xd);
            free(yd);
            free(flagged);
            char *text = loom__sb_take(&sb);
            *failed |= !text;
            return text;
        } else {
            for (int64_t i = 0; i < x->size; i++)
                flagged[i] |= infs[i];
            fail = mismatches(&sb, c, x, y, flagged, bad);
        }
    }
    free(flagged);
    if (!fail || *failed) {
        loom__sb_free(&sb);
        return NULL;
    }
    repr_line(&sb, "ACTUAL", x);
    repr_line(&sb, "DESIRED", y);
    char *text = loom__sb_take(&sb);
    *failed |= !text;
    return text;
}

int loom__testing_compare(const char *fn, bool allclose, double rtol, double atol, bool equal_nan,
                          const void *x_data, loom_dtype x_dtype, int x_ndim, const int64_t *x_shape,
                          const void *y_data, loom_dtype y_dtype, int y_ndim, const int64_t *y_shape)
{
    operand x = {x_data, x_dtype, x_ndim, x_shape, 1}, y = {y_data, y_dtype, y_ndim, y_shape, 1};
    for (int k = 0; k < x_ndim; k++)
        x.size *= x_shape[k];
    for (int k = 0; k < y_ndim; k++)
        y.size *= y_shape[k];
    comparison c = {allclose, rtol, atol, equal_nan};
    bool failed = false;
    char *report = compare_host(&c, &x, &y, &failed);
    if (failed) {
        free(report);
        loom__error(LOOM_ERR_OOM, fn, "out of host memory for the report");
        return LOOM_ERR_OOM;
    }
    if (!report)
        return LOOM_OK;
    loom__error(LOOM_ERR_ASSERT, fn, "%s", report);
    free(report);
    return LOOM_ERR_ASSERT;
}

static int compare_arrays(const char *fn, bool allclose, loom_array *actual, loom_array *desired,
                          double rtol, double atol, bool equal_nan)
{
    loom_array *both[2] = {actual, desired};
    if (loom__check_array_list(fn, both, 2))
        return LOOM_ERR_INVALID;
    if (allclose && !(rtol >= 0 && atol >= 0 && isfinite(rtol) && isfinite(atol))) {
        loom__error(LOOM_ERR_INVALID, fn, "rtol and atol must be finite and >= 0 (got %g and %g)",
                    rtol, atol);
        return LOOM_ERR_INVALID;
    }
    void *host[2] = {NULL, NULL};
    int rc = LOOM_OK;
    for (int i = 0; i < 2 && rc == LOOM_OK; i++) {
        size_t bytes = (size_t)loom_size(both[i]) * loom_dtype_size(loom_dtype_of(both[i]));
        host[i] = malloc(bytes ? bytes : 1);
        if (!host[i]) {
            loom__error(LOOM_ERR_OOM, fn, "out of host memory for %zu bytes", bytes);
            rc = LOOM_ERR_OOM;
        } else if (bytes) {
            rc = loom__read_back(fn, both[i], host[i], bytes);
        }
    }
    if (rc == LOOM_OK)
        rc = loom__testing_compare(fn, allclose, rtol, atol, equal_nan, host[0],
                                   loom_dtype_of(actual), loom_ndim(actual), loom_shape(actual),
                                   host[1], loom_dtype_of(desired), loom_ndim(desired),
                                   loom_shape(desired));
    free(host[0]);
    free(host[1]);
    return rc;
}

int loom_testing_assert_allclose(loom_array *actual, loom_array *desired, double rtol, double atol,
                                 bool equal_nan)
{
    return compare_arrays("loom_testing_assert_allclose", true, actual, desired, rtol, atol, equal_nan);
}

int loom_testing_assert_array_equal(loom_array *actual, loom_array *desired)
{
    return compare_arrays("loom_testing_assert_array_equal", false, actual, desired, 0, 0, true);
}
