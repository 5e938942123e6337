/* graph/ufunc.h — recording elementwise nodes, for graph/ code outside graph/ufunc.c. */
#ifndef LOOM_GRAPH_UFUNC_H
#define LOOM_GRAPH_UFUNC_H

#include "internal.h"

/* Records the elementwise op over in[0..nin): dtypes from loom__resolve_ufunc, shape the
 * broadcast of the inputs, every input broadcast to it (the LOOM_OPK_EW invariant). param
 * (may be NULL) is copied into the node. A NULL input gives NULL with the error untouched;
 * other failures are reported under fn. Returns a new reference (handed to the current scope);
 * nothing else it makes outlives the call. */
loom_array *loom__ew(const char *fn, loom_op op, int nin, loom_array *const *in,
                     const loom_params *param);

/* Records a CAST of a to dtype (np.ndarray.astype, casting="unsafe"), as loom__ew does. */
loom_array *loom__cast(const char *fn, loom_array *a, loom_dtype dtype);

/* np.iinfo(dt).min and .max for an integer or bool dtype (graph/promote.c). */
void loom__int_range(loom_dtype dt, int64_t *min, uint64_t *max);

#endif
