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

/* np.linalg.inv of a (errors under fn); user names the function that reports a singular
 * matrix, and with LOOM_LU_NO_CHECK it is no error (the inverse holds infinities or NaN), as
 * cond needs. */
loom_array *loom__linalg_inv(const char *fn, loom_array *a, loom_lu_user user);

/* np.linalg.eigh(a) with UPLO 'L' (eigvalsh when vectors is false: v is not written), errors
 * under fn. Returns LOOM_OK or an error code; w and v are owned by the current scope. */
int loom__linalg_eigh(const char *fn, loom_array *a, bool vectors, loom_array **w,
                      loom_array **v);

/* NumPy's svd(a, hermitian=True) under fn: s the magnitudes of a's eigenvalues, descending;
 * with compute_uv u the eigenvectors in that order and vh (u * sign(w))^H. Call inside a
 * scope; returns 0, or -1 with the error recorded. */
int loom__linalg_svd_hermitian(const char *fn, loom_array *a, bool compute_uv, loom_array **u,
                               loom_array **s, loom_array **vh);

#endif
