/* NumPy's repr and str of arrays: array2string's nesting, line wrapping and summarisation, the
 * per-dtype element formats (bool, integers, floats, complex) and repr's "shape=", "dtype=". */
#include "format.h"

#include "../graph/internal.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct layout {
    const void *data;
    loom_dtype dtype;
    int ndim;
    const int64_t *shape;
    int64_t strides[LOOM_MAXDIMS]; /* C order, in elements */
    const char *separator;
    bool summarise;
    int edgeitems;
    bool scalar;                   /* a 0-d array: bool prints "True", not " True" */
    bool corners;                  /* data holds only the shown corners of a summarised array */
    int int_width;                 /* integers: the widest value */
    loom__float_format re, im;     /* floats, and the two parts of complex values */
} layout;

/* The elements an axis shows: all, or edgeitems at each end when it is summarised. */
static bool axis_summarised(const layout *l, int axis)
{
    return l->summarise && 2 * (int64_t)l->edgeitems < l->shape[axis];
}

/* Where index i of an axis lies in the data: past the leading items of a summarised axis,
 * data that holds only the corners continues with the trailing ones. */
static int64_t data_index(const layout *l, int axis, int64_t i)
{
    if (l->corners && axis_summarised(l, axis) && i >= l->edgeitems)
        return i - (l->shape[axis] - 2 * (int64_t)l->edgeitems);
    return i;
}

/* Appends the flat indices of the shown elements, in order (NumPy's _leading_trailing). */
static void shown_indices(const layout *l, int axis, int64_t offset, int64_t *out, int64_t *n)
{
    if (axis == l->ndim) {
        out[(*n)++] = offset;
        return;
    }
    int64_t len = l->shape[axis];
    for (int64_t i = 0; i < len; i++) {
        if (axis_summarised(l, axis) && i == l->edgeitems)
            i = len - l->edgeitems;
        shown_indices(l, axis + 1, offset + data_index(l, axis, i) * l->strides[axis], out, n);
    }
}

static void int_text(const layout *l, int64_t i, char *buf, size_t cap)
{
    const char *p = (const char *)l->data + i * (int64_t)loom_dtype_size(l->dtype);
    switch (l->dtype) {
    case LOOM_UINT64: {
        uint64_t v;
        memcpy(&v, p, sizeof v);
        snprintf(buf, cap, "%" PRIu64, v);
        return;
    }
    case LOOM_INT64: {
        int64_t v;
        memcpy(&v, p, sizeof v);
        snprintf(buf, cap, "%" PRId64, v);
        return;
    }
    default: /* every other integer is exact in a double */
        snprintf(buf, cap, "%.0f", loom__host_to_double(p, l->dtype));
        return;
    }
}

/* Decides every element format from the shown elements (NumPy's _get_format_function). */
static bool fill_formats(layout *l, const loom_printoptions *opt, int64_t size)
{
    int64_t shown = 1;
    for (int k = 0; k < l->ndim; k++)
        shown *= axis_summarised(l, k) ? 2 * (int64_t)l->edgeitems : l->shape[k];
    (void)size;
    int64_t *idx = malloc((size_t)(shown ? shown : 1) * sizeof *idx);
    double *re = malloc((size_t)(shown ? shown : 1) * sizeof *re);
    double *im = malloc((size_t)(shown ? shown : 1) * sizeof *im);
    bool ok = idx && re && im;
    if (ok) {
        int64_t n = 0;
        shown_indices(l, 0, 0, idx, &n);
        if (loom__is_int(l->dtype)) {
            for (int64_t i = 0; i < n; i++) {
                char buf[32];
                int_text(l, idx[i], buf, sizeof buf);
                int w = (int)strlen(buf);
                l->int_width = w > l->int_width ? w : l->int_width;
            }
        } else if (l->dtype != LOOM_BOOL) {
            bool complex = loom__is_complex(l->dtype);
            for (int64_t i = 0; i < n; i++) {
                re[i] = loom__format_real(l->data, l->dtype, idx[i]);
                im[i] = complex ? loom__format_imag(l->data, l->dtype, idx[i]) : 0;
            }
            loom__float_format_fill(&l->re, re, n, l->dtype, opt, false);
            if (complex)
                loom__float_format_fill(&l->im, im, n, l->dtype, opt, true);
        }
    }
    free(idx);
    free(re);
    free(im);
    return ok;
}

static void write_element(const layout *l, int64_t i, loom_strbuf *sb)
{
    if (l->dtype == LOOM_BOOL) {
        bool v = ((const uint8_t *)l->data)[i] != 0;
        loom__sb_printf(sb, "%s", v ? (l->scalar ? "True" : " True") : "False");
    } else if (loom__is_int(l->dtype)) {
        char buf[32];
        int_text(l, i, buf, sizeof buf);
        loom__sb_printf(sb, "%*s", l->int_width, buf);
    } else if (loom__is_complex(l->dtype)) {
        loom__float_format_write(&l->re, loom__format_real(l->data, l->dtype, i), sb);
        /* The 'j' goes after the imaginary part's digits, before its right padding. */
        loom_strbuf part = {0};
        loom__float_format_write(&l->im, loom__format_imag(l->data, l->dtype, i), &part);
        size_t digits = part.len;
        while (digits && part.data[digits - 1] == ' ')
            digits--;
        loom__sb_append(sb, part.data, digits);
        loom__sb_append(sb, "j", 1);
        loom__sb_append(sb, part.data + digits, part.len - digits);
        if (part.failed)
            sb->failed = true;
        loom__sb_free(&part);
    } else {
        loom__float_format_write(&l->re, loom__format_real(l->data, l->dtype, i), sb);
    }
}

static void rstrip_into(loom_strbuf *s, const loom_strbuf *line)
{
    size_t n = line->len;
    while (n && line->data[n - 1] == ' ')
        n--;
    loom__sb_append(s, line->data, n);
}

/* NumPy's _extendLine: wraps before word when the line would pass width, unless the line
 * holds nothing but its indent. */
static void extend_line(loom_strbuf *s, loom_strbuf *line, const char *word, size_t word_len,
                        int width, const char *indent)
{
    bool wrap = line->len + word_len > (size_t)(width < 0 ? 0 : width) && line->len > strlen(indent);
    if (wrap) {
        rstrip_into(s, line);
        loom__sb_append(s, "\n", 1);
        line->len = 0;
        loom__sb_append(line, indent, strlen(indent));
    }
    loom__sb_append(line, word, word_len);
}

/* NumPy's _formatArray recurser, for the sub-array at flat offset of the axes from `axis`. */
static void format_axes(const layout *l, int axis, int64_t offset, const char *hang, int width,
                        loom_strbuf *out)
{
    if (axis == l->ndim) {
        write_element(l, offset, out);
        return;
    }
    size_t hang_len = strlen(hang);
    char *next_hang = malloc(hang_len + 2);
    if (!next_hang) {
        out->failed = true;
        return;
    }
    memcpy(next_hang, hang, hang_len);
    memcpy(next_hang + hang_len, " ", 2);
    int next_width = width - 1; /* the ']' */
    int64_t len = l->shape[axis];
    bool summary = axis_summarised(l, axis);
    int64_t leading = summary ? l->edgeitems : 0, trailing = summary ? l->edgeitems : len;
    int64_t step = l->strides[axis];
    loom_strbuf s = {0};

    if (axis == l->ndim - 1) {
        int elem_width = width - 1; /* max(len(separator.rstrip()), len(']')) */
        loom_strbuf line = {0}, word = {0};
        loom__sb_append(&line, hang, hang_len);
        for (int64_t k = 0; k < len; k++) {
            if (summary && k == leading) {
                extend_line(&s, &line, "...", 3, elem_width, hang);
                loom__sb_printf(&line, "%s", l->separator);
                k = len - trailing;
            }
            bool last = k == len - 1;
            word.len = 0;
            format_axes(l, axis + 1, offset + data_index(l, axis, k) * step, next_hang,
                        next_width, &word);
            extend_line(&s, &line, word.data ? word.data : "", word.len, elem_width, hang);
            if (!last)
                loom__sb_printf(&line, "%s", l->separator);
            if (word.failed)
                s.failed = true;
        }
        loom__sb_append(&s, line.data ? line.data : "", line.len);
        if (line.failed)
            s.failed = true;
        loom__sb_free(&line);
        loom__sb_free(&word);
    } else {
        size_t sep_len = strlen(l->separator);
        while (sep_len && l->separator[sep_len - 1] == ' ')
            sep_len--;
        for (int64_t k = 0; k < len; k++) {
            if (summary && k == leading) {
                loom__sb_printf(&s, "%s...", hang);
                loom__sb_append(&s, l->separator, sep_len);
                for (int i = 0; i < l->ndim - axis - 1; i++)
                    loom__sb_append(&s, "\n", 1);
                k = len - trailing;
            }
            loom__sb_printf(&s, "%s", hang);
            format_axes(l, axis + 1, offset + data_index(l, axis, k) * step, next_hang,
                        next_width, &s);
            if (k != len - 1) {
                loom__sb_append(&s, l->separator, sep_len);
                for (int i = 0; i < l->ndim - axis - 1; i++)
                    loom__sb_append(&s, "\n", 1);
            }
        }
    }
    free(next_hang);
    loom__sb_append(out, "[", 1);
    if (s.data && s.len >= hang_len)
        loom__sb_append(out, s.data + hang_len, s.len - hang_len);
    loom__sb_append(out, "]", 1);
    if (s.failed)
        out->failed = true;
    loom__sb_free(&s);
}

/* np.array2string for a non-empty array. */
static void array2string(layout *l, const loom_printoptions *opt, int64_t size, const char *prefix,
                         int linewidth, loom_strbuf *out)
{
    if (!fill_formats(l, opt, size)) {
        out->failed = true;
        return;
    }
    char indent[16];
    snprintf(indent, sizeof indent, " %*s", (int)strlen(prefix), "");
    format_axes(l, 0, 0, indent, linewidth, out);
}

/* str() of a 0-d array: NumPy prints the scalar. */
static void scalar_str(const layout *l, loom_strbuf *out)
{
    loom_dtype dt = l->dtype;
    if (dt == LOOM_BOOL) {
        loom__sb_printf(out, "%s", ((const uint8_t *)l->data)[0] ? "True" : "False");
    } else if (loom__is_int(dt)) {
        char buf[32];
        int_text(l, 0, buf, sizeof buf);
        loom__sb_printf(out, "%s", buf);
    } else if (loom__is_complex(dt)) {
        double re = loom__format_real(l->data, dt, 0), im = loom__format_imag(l->data, dt, 0);
        if (re == 0 && !signbit(re)) {
            loom__float_scalar_str(im, dt, false, true, out);
            loom__sb_append(out, "j", 1);
        } else {
            loom__sb_append(out, "(", 1);
            loom__float_scalar_str(re, dt, false, true, out);
            loom__float_scalar_str(im, dt, true, true, out);
            loom__sb_append(out, "j)", 2);
        }
    } else {
        loom__float_scalar_str(loom__format_real(l->data, dt, 0), dt, false, false, out);
    }
}

static bool dtype_implied(loom_dtype dt)
{
    return dt == LOOM_BOOL || dt == LOOM_INT64 || dt == LOOM_FLOAT64 || dt == LOOM_COMPLEX128;
}

bool loom__format_corner_shape(int ndim, const int64_t *shape, const loom_printoptions *opt,
                               int64_t *corner_shape)
{
    int64_t size = 1;
    for (int k = 0; k < ndim; k++)
        size *= shape[k];
    bool any = false;
    for (int k = 0; k < ndim; k++) {
        bool cut = size > opt->threshold && 2 * (int64_t)opt->edgeitems < shape[k];
        corner_shape[k] = cut ? 2 * (int64_t)opt->edgeitems : shape[k];
        any |= cut;
    }
    return any;
}

static char *format_array(const void *data, loom_dtype dt, int ndim, const int64_t *shape,
                          bool repr, const loom_printoptions *opt, bool corners)
{
    layout l = {.data = data, .dtype = dt, .ndim = ndim, .shape = shape, .scalar = ndim == 0,
                .corners = corners, .separator = repr ? ", " : " "};
    int64_t size = 1, data_shape[LOOM_MAXDIMS];
    for (int k = 0; k < ndim; k++)
        size *= shape[k];
    l.summarise = size > opt->threshold;
    l.edgeitems = opt->edgeitems;
    if (corners)
        loom__format_corner_shape(ndim, shape, opt, data_shape);
    int64_t stride = 1;
    for (int k = ndim - 1; k >= 0; k--) {
        l.strides[k] = stride;
        stride *= corners ? data_shape[k] : shape[k];
    }
    loom_strbuf out = {0};
    if (!repr) {
        if (ndim == 0)
            scalar_str(&l, &out);
        else if (size == 0)
            loom__sb_printf(&out, "[]");
        else
            array2string(&l, opt, size, "", opt->linewidth, &out);
        return loom__sb_take(&out);
    }

    const char *prefix = "array(";
    loom__sb_printf(&out, "%s", prefix);
    if (size == 0)
        loom__sb_printf(&out, "[]");
    else
        array2string(&l, opt, size, prefix, opt->linewidth - 1 /* the ')' */, &out);

    loom_strbuf extras = {0};
    if ((size == 0 && !(ndim == 1 && shape[0] == 0)) || size > opt->threshold) {
        loom__sb_printf(&extras, "shape=(");
        for (int k = 0; k < ndim; k++)
            loom__sb_printf(&extras, "%s%" PRId64, k ? ", " : "", shape[k]);
        loom__sb_printf(&extras, ndim == 1 ? ",)" : ")");
    }
    if (!dtype_implied(dt) || size == 0)
        loom__sb_printf(&extras, "%sdtype=%s", extras.len ? ", " : "", loom_dtype_name(dt));
    if (!extras.len) {
        loom__sb_printf(&out, ")");
        loom__sb_free(&extras);
        return loom__sb_take(&out);
    }
    loom__sb_printf(&out, ",");
    const char *last_line = out.data ? strrchr(out.data, '\n') : NULL;
    size_t last_len = out.len - (last_line ? (size_t)(last_line - out.data) + 1 : 0);
    if (last_len + extras.len + 1 /* ')' */ + 1 > (size_t)opt->linewidth)
        loom__sb_printf(&out, "\n%*s", (int)strlen(prefix), "");
    else
        loom__sb_printf(&out, " ");
    loom__sb_append(&out, extras.data, extras.len);
    loom__sb_printf(&out, ")");
    if (extras.failed)
        out.failed = true;
    loom__sb_free(&extras);
    return loom__sb_take(&out);
}

char *loom__format_array(const void *data, loom_dtype dt, int ndim, const int64_t *shape,
                         bool repr, const loom_printoptions *opt)
{
    return format_array(data, dt, ndim, shape, repr, opt, false);
}

char *loom__format_array_corners(const void *data, loom_dtype dt, int ndim, const int64_t *shape,
                                 bool repr, const loom_printoptions *opt)
{
    return format_array(data, dt, ndim, shape, repr, opt, true);
}
