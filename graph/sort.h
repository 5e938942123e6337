/* graph/sort.h — sorting by several keys, for the sorts built on it (lexsort, complex sorts). */
#ifndef LOOM_GRAPH_SORT_H
#define LOOM_GRAPH_SORT_H

#include "internal.h"

/* The int64 indices sorting keys[0..nkeys) stably along axis ax (normalised; keys of one shape,
 * ndim >= 1, real or bool), keys[nkeys - 1] the primary key: successive stable argsorts from
 * the least significant key. Errors under fn. */
loom_array *loom__lexsort(const char *fn, loom_array *const *keys, int nkeys, int ax);

/* The int64 indices sorting the rows of rows (n, m; m >= 1) lexicographically, the first column
 * the most significant, each column in sort's order (complex ones too): np.unique's order of
 * the slices along an axis. */
loom_array *loom__lexsort_rows(const char *fn, loom_array *rows);

/* Three real keys whose lexsort (keys[2] primary) is NumPy's order of complex a: classes
 * (no NaN part, imaginary NaN, real NaN, both NaN), then the real part, then the imaginary
 * part, NaN parts read as 0 (the class orders them). Returns 0, or -1 with the error under fn;
 * the keys belong to the current scope. */
int loom__complex_sort_keys(const char *fn, loom_array *a, loom_array *keys[3]);

/* The int64 indices sorting the 1-D integer keys stably, for keys known to lie in
 * [0, 2^key_bits): the radix sort orders only those bits (scatters' flat positions: 16 bits
 * instead of 32 for 2^16 of them). */
loom_array *loom__argsort_small_keys(const char *fn, loom_array *keys, int key_bits);

/* The int64 indices sorting complex a along ax (normalised; a of ndim >= 1) in NumPy's order. */
loom_array *loom__complex_argsort(const char *fn, loom_array *a, int ax);

#endif /* LOOM_GRAPH_SORT_H */
