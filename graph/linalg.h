/* graph/linalg.h — what numpy.linalg's functions share (graph/linalg*.c). Internal to graph/. */
#ifndef LOOM_GRAPH_LINALG_H
#define LOOM_GRAPH_LINALG_H

#include "internal.h"

/* NumPy's linalg dtype: float32, float64, complex64 and complex128 stay; integers and bool
 * become float64; float16 and bfloat16 are refused as NumPy refuses float16. Returns 0, or -1
 * with the error recorded under fn. */
int loom__linalg_dtype(const char *fn, loom_dtype dt, loom_dtype *out);

/* 0 when a is a stack of matrices (at least 2-D), else -1 with NumPy's LinAlgError message
 * under fn ("1-dimensional array given. Array must be at least two-dimensional"). */
int loom__linalg_at_least_2d(const char *fn, const loom_array *a);

/* A stack of square matrices (..., n, n) in its linalg dtype, or NULL with NumPy's
 * LinAlgError message. Call inside a scope: the result may be a new array. */
loom_array *loom__linalg_square_stack(const char *fn, loom_array *a);

/* np.linalg.inv of a (errors under fn); with check false a singular matrix is no error (its
 * inverse holds infinities or NaN), as cond needs. */
loom_array *loom__linalg_inv(const char *fn, loom_array *a, bool check);

#endif
