/* graph/select.h — positions of set mask elements, for the ops with data-dependent shapes
 * (graph/nonzero.c, graph/unique.c, graph/setops.c, boolean indexing). */
#ifndef LOOM_GRAPH_SELECT_H
#define LOOM_GRAPH_SELECT_H

#include "internal.h"

/* The ascending flat positions (int64, 1-D) of a's nonzero elements. Their number is read back
 * at once (a forced evaluation of reason LOOM_EVAL_DATA_DEPENDENT_SHAPE, skipped for an empty
 * a). Errors under fn; NULL a gives NULL. */
loom_array *loom__mask_positions(const char *fn, loom_array *a);
/* The same, evaluating keep[0..nkeep) (at most LOOM__MAX_KEEP) with the count: values that the
 * positions' consumers read too (a sort), computed once. */
loom_array *loom__mask_positions_keep(const char *fn, loom_array *a, loom_array *const *keep,
                                      int nkeep);
/* The positions of the set elements of a's flat mask, which must all lie below n: a set
 * element at or past n fails with NumPy's IndexError for an axis of extent n ("index 3 is out
 * of bounds for axis 0 with size 3"). The count and that check are one read-back. */
loom_array *loom__mask_positions_within(const char *fn, loom_array *a, int64_t n, int axis);
/* The same recorded lazily with length size: the first min(count, size) positions, then
 * a->size in every further element. */
loom_array *loom__mask_positions_sized(const char *fn, loom_array *a, int64_t size);
/* x[mask] for a 1-D bool mask and x of mask's length along axis 0. */
loom_array *loom__compress(const char *fn, loom_array *mask, loom_array *x);
/* The start of a function writing need results to out[0..max_out): clears out, checks the
 * inputs (NULL keeps the error) and that out has room. Returns LOOM_OK or the error code. */
int loom__results_begin(const char *fn, loom_array *const *inputs, int nin, loom_array **out,
                        int max_out, int need);
/* x[at] along axis 0 for positions at known to be in bounds. */
loom_array *loom__take_at(const char *fn, loom_array *x, loom_array *at);
/* For a sorted 1-D s (size >= 1): whether each element starts a run of equal keys (the first,
 * and each unequal to the one before; NaNs equal when equal_nan). graph/unique.c. */
loom_array *loom__run_starts(loom_array *s, bool equal_nan);
/* The flattened unique values of a (np.unique(a), equal_nan=True); *index (may be NULL) gets
 * each one's first position in a. graph/unique.c. */
loom_array *loom__unique_values(const char *fn, loom_array *a, loom_array **index);

#endif
