/* graph/index.h — recording gathers, for the routines built on them (pad, repeat, resize). */
#ifndef LOOM_GRAPH_INDEX_H
#define LOOM_GRAPH_INDEX_H

#include "internal.h"

/* The public functions a gather's out-of-bounds error can name (param.take.report_fn). */
enum { LOOM_REPORT_TAKE = 0, LOOM_REPORT_TAKE_ALONG_AXIS, LOOM_REPORT_GETITEM, LOOM_REPORT_CHOOSE,
       LOOM_REPORT_SEARCHSORTED };

/* The TAKE node of a along axis ax (normalised; a has ndim >= 1) at the integer or bool
 * indices idx (an empty result is an EMPTY node); in mode raise, an index out of bounds is
 * reported by the function report_fn (LOOM_REPORT_*) as one for report_axis of extent
 * report_size. Errors under fn. */
loom_array *loom__take(const char *fn, loom_array *a, loom_array *idx, int ax,
                       loom_index_mode mode, int report_fn, int report_axis,
                       int64_t report_size);

#endif
