/* graph/index.h — recording gathers, for the routines built on them (pad, repeat, resize). */
#ifndef LOOM_GRAPH_INDEX_H
#define LOOM_GRAPH_INDEX_H

#include "internal.h"

/* The public functions a gather's out-of-bounds error can name (param.take.report_fn). */
enum {
    LOOM_REPORT_TAKE = 0, LOOM_REPORT_TAKE_ALONG_AXIS, LOOM_REPORT_GETITEM, LOOM_REPORT_CHOOSE,
    LOOM_REPORT_SEARCHSORTED, LOOM_REPORT_PUT, LOOM_REPORT_SETITEM, LOOM_REPORT_AT_SET,
    LOOM_REPORT_AT_ADD, LOOM_REPORT_AT_SUBTRACT, LOOM_REPORT_AT_MULTIPLY, LOOM_REPORT_AT_MINIMUM,
    LOOM_REPORT_AT_MAXIMUM, LOOM_REPORT_PUT_ALONG_AXIS, LOOM_REPORT_COUNT
};

/* The TAKE node of a along axis ax (normalised; a has ndim >= 1) at the integer or bool
 * indices idx (an empty result is an EMPTY node); in mode raise, an index out of bounds is
 * reported by the function report_fn (LOOM_REPORT_*) as one for report_axis of extent
 * report_size. Errors under fn. */
loom_array *loom__take(const char *fn, loom_array *a, loom_array *idx, int ax,
                       loom_index_mode mode, int report_fn, int report_axis,
                       int64_t report_size);

/* a[terms] (loom_getitem's rules) with errors under fn; an array index out of bounds is
 * reported by the function report_fn. */
loom_array *loom__getitem(const char *fn, loom_array *a, const loom_index_term *terms,
                          int nterms, int report_fn);

/* np.take_along_axis with errors under fn; an index out of bounds is reported by report_fn. */
loom_array *loom__take_along_axis(const char *fn, loom_array *a, loom_array *indices, int axis,
                                  int report_fn);

/* np.place(a, mask, vals) without its checks: the k-th set element of mask (bool, a's shape)
 * takes vals[k % vals.size] cast to a's dtype; a itself when a or vals is empty. */
loom_array *loom__place(const char *fn, loom_array *a, loom_array *mask, loom_array *vals);

/* The number of set elements of mask, read back now (a forced evaluation of reason
 * LOOM_EVAL_DATA_DEPENDENT_SHAPE; none for an empty mask). LOOM_OK or the error code. */
int loom__mask_count(const char *fn, loom_array *mask, int64_t *count);

#endif
