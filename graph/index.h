/* graph/index.h — recording gathers, for the routines built on them (pad, repeat, resize). */
#ifndef LOOM_GRAPH_INDEX_H
#define LOOM_GRAPH_INDEX_H

#include "internal.h"

/* The TAKE node of a along axis ax (normalised; a has ndim >= 1) at the integer or bool
 * indices idx (an empty result is an EMPTY node); in mode raise, an index out of bounds is
 * reported as one for report_axis of extent report_size. Errors under fn. */
loom_array *loom__take(const char *fn, loom_array *a, loom_array *idx, int ax,
                       loom_index_mode mode, int report_axis, int64_t report_size);

#endif
