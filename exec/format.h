/* NumPy's text format of arrays (numpy/_core/arrayprint.py), on host data: printing and the
 * testing helpers' reports use it. No CUDA here. */
#ifndef LOOM_EXEC_FORMAT_H
#define LOOM_EXEC_FORMAT_H

#include "../fuser/strbuf.h"
#include "../include/loom.h"

#include <stdbool.h>
#include <stdint.h>

/* NumPy's FloatingFormat: how every element of one column of floats is laid out, decided once
 * from all the values shown (fillFormat). The point is always written ("1.", "1.e+20"). */
typedef struct loom__float_format {
    loom_dtype dtype; /* the values' precision: shortest digits are unique in this dtype */
    bool exp_format;  /* scientific notation */
    bool sign_plus;   /* '+' before non-negative values (imaginary parts) */
    int precision;    /* digits after the point at most */
    int min_digits;   /* digits after the point at least (zeros appended) */
    int pad_left;     /* width of the sign and integer part */
    int pad_right;    /* width of the fraction (positional) */
    int exp_size;     /* digits of the exponent (scientific) */
} loom__float_format;

/* Decides the layout of n values (finite or not) of dtype dt, as NumPy's fillFormat. */
void loom__float_format_fill(loom__float_format *f, const double *values, int64_t n,
                             loom_dtype dt, const loom_printoptions *opt, bool sign_plus);
/* Appends one value in that layout. */
void loom__float_format_write(const loom__float_format *f, double v, loom_strbuf *sb);
/* A scalar as str(np.float32(v)) gives it: "0.1", "1.0", "1e-05", "inf"; sign_plus adds '+'
 * and trim_zero_point drops a point with no digits after it ("1" instead of "1.0"). */
void loom__float_scalar_str(double v, loom_dtype dt, bool sign_plus, bool trim_zero_point,
                            loom_strbuf *sb);

/* The value of element i of host data of dtype dt, widened exactly (complex: the real part;
 * loom__format_imag the imaginary part). */
double loom__format_real(const void *data, loom_dtype dt, int64_t i);
double loom__format_imag(const void *data, loom_dtype dt, int64_t i);

/* repr(a) / str(a) of an array of dtype dt and shape (ndim, shape) whose C-ordered elements
 * are data. Returns a malloc'd string, or NULL when memory runs out. */
char *loom__format_array(const void *data, loom_dtype dt, int ndim, const int64_t *shape,
                         bool repr, const loom_printoptions *opt);

/* The shape of the corners a summarised print shows (edgeitems at each end of each summarised
 * axis; other axes whole) into corner_shape; false when nothing is summarised. */
bool loom__format_corner_shape(int ndim, const int64_t *shape, const loom_printoptions *opt,
                               int64_t *corner_shape);
/* loom__format_array from data that holds only those corners, C-ordered in corner_shape. */
char *loom__format_array_corners(const void *data, loom_dtype dt, int ndim, const int64_t *shape,
                                 bool repr, const loom_printoptions *opt);

#endif
