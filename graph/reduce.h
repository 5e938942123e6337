/* graph/reduce.h — what the public reductions (reduce.c, stats.c, norm.c) share: axis lists,
 * accumulator dtypes and the one checked way to record a reduction. docs/reductions.md has the
 * rules. */
#ifndef LOOM_GRAPH_REDUCE_H
#define LOOM_GRAPH_REDUCE_H

#include "internal.h"

/* The reduced axes of a as a bit mask: NULL axes (naxes ignored) is every axis; otherwise
 * NumPy's axis tuple (negative allowed; out of range and repeats are errors under fn).
 * Returns 0 or -1. */
int loom__reduce_mask(const char *fn, const loom_array *a, const int *axes, int naxes,
                      uint32_t *mask);
/* The number of elements each result element reduces (1 for an empty mask). */
int64_t loom__reduce_count(const loom_array *a, uint32_t mask);

/* The dtype a sum or product of dt returns without dtype=: int64 for bool and signed
 * integers, uint64 for unsigned ones, dt otherwise. */
loom_dtype loom__sum_dtype(loom_dtype dt);
/* The dtype values of dt are accumulated in: float32 for float16 and bfloat16, dt otherwise. */
loom_dtype loom__acc_dtype(loom_dtype dt);
/* The real dtype of dt (float32 for complex64, float64 for complex128), dt otherwise. */
loom_dtype loom__real_dtype(loom_dtype dt);

/* Records a reduction of op over mask, accumulating in acc and returning out, with NumPy's
 * edge cases: an empty mask reduces nothing and gives a cast of a to out (0 for the arg
 * reductions; a float or complex SUM adds +0.0, its identity, as NumPy does); reductions without an identity (max, min and the arg family) over zero
 * elements fail under fn with NumPy's words; the NaN-aware ops on dtypes without NaN record
 * the plain ones. A NULL a gives NULL with the error untouched. */
loom_array *loom__reduction(const char *fn, loom_op op, loom_array *a, uint32_t mask,
                            bool keepdims, loom_dtype acc, loom_dtype out);
/* A sum of a over mask accumulated and returned in loom__acc_dtype(dt): the form the
 * compositions (mean, var, norms) divide or take roots of before casting to their result. */
loom_array *loom__sum_in(const char *fn, loom_array *a, uint32_t mask, bool keepdims,
                         loom_dtype dt);
/* x, the result of a reduction over mask with keepdims, without the kept axes (a view). */
loom_array *loom__unkeep(const char *fn, loom_array *x, uint32_t mask);
/* |x|^2 elementwise, in x's real dtype. */
loom_array *loom__abs2(const char *fn, loom_array *x);
/* a with NaN elements replaced by value (a itself for dtypes without NaN). */
loom_array *loom__replace_nan(const char *fn, loom_array *a, double value);

/* Reference counts in compositions: build between loom_scope_begin() and loom__scope_return(r),
 * which lets r out of the scope and closes it. */
loom_array *loom__scope_return(loom_array *r);

#endif
