/* graph/views.h — axis normalisation, reshape and copies, shared by the view ops and by any
 * op that takes axes or needs a contiguous array. */
#ifndef LOOM_GRAPH_VIEWS_H
#define LOOM_GRAPH_VIEWS_H

#include "internal.h"

/* Maps axis (negative counts from the end) into 0..ndim-1. Errors under fn read
 * "[what: ]axis 5 is out of bounds for array of dimension 2", as NumPy's AxisError.
 * Returns 0 or -1. */
int loom__normalize_axis(const char *fn, const char *what, int axis, int ndim, int *out);
/* What an axis argument works along: a flattened (*ax = 0) for LOOM_AXIS_NONE, else a itself
 * with the axis normalised into *ax. NULL with the error under fn. */
loom_array *loom__along_axis(const char *fn, loom_array *a, int axis, int *ax);
/* Normalises naxes axes into out (may be NULL) and a bit mask (bit i for axis i); an axis
 * given twice fails with "fn: dup_msg". Returns 0 or -1. */
int loom__normalize_axes(const char *fn, const int *axes, int naxes, int ndim,
                         const char *dup_msg, int *out, uint64_t *mask);
/* A view of a with the map (shape, strides, offset) onto loom__view_base(a), computed from a's
 * own map, in canonical form: extent-1 axes get stride 0 (strides is updated), and a itself
 * comes back when the map is a's (the base when it is the base's). */
loom_array *loom__map_view(const char *fn, const char *label, loom_array *a, int ndim,
                           const int64_t *shape, int64_t *strides, int64_t offset);
/* a with a new extent-1 axis at position axis (0..ndim, already normalised): a view. */
loom_array *loom__new_axis(const char *fn, loom_array *a, int axis);
/* A lazy C-contiguous copy of a (a COPY node, never a view). */
loom_array *loom__copy(const char *fn, loom_array *a);
/* loom_reshape with errors under fn and label for the view it makes. */
loom_array *loom__reshape(const char *fn, const char *label, loom_array *a, int ndim,
                          const int64_t *shape);

#endif /* LOOM_GRAPH_VIEWS_H */
