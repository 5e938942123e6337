/* Splitting arrays: split, array_split, hsplit, vsplit, dsplit. Every part is a view (a slice
 * along the axis), so splitting costs nothing until a part is read. */
#include "reduce.h"
#include "views.h"

#include <stdlib.h>
#include <string.h>

/* Parts [bounds[i], bounds[i+1]) of a along axis for i < nparts, with Python's slice rules
 * (negative bounds count from the end, bounds clamp). */
static int parts(loom_array *a, int axis, const int64_t *bounds, int nparts, loom_array **out)
{
    for (int i = 0; i < nparts; i++)
        out[i] = NULL;
    for (int i = 0; i < nparts; i++) {
        out[i] = loom_slice(a, axis, bounds[i], bounds[i + 1], 1);
        if (!out[i]) {
            for (int k = 0; k < i; k++)
                out[k] = NULL; /* the parts made so far belong to the current scope */
            return LOOM_ERR_OOM;
        }
    }
    return LOOM_OK;
}

/* np.array_split's bounds: extras parts of n / sections + 1, the rest of n / sections. */
static int split_sections(const char *fn, loom_array *a, int64_t sections, int axis, bool equal,
                          loom_array **out)
{
    int ax;
    if (!a || !out)
        return LOOM_ERR_INVALID;
    if (loom__normalize_axis(fn, NULL, axis, a->ndim, &ax))
        return LOOM_ERR_INVALID;
    if (sections <= 0 || sections > INT32_MAX) {
        loom__error(LOOM_ERR_INVALID, fn, "number sections must be larger than 0.");
        return LOOM_ERR_INVALID;
    }
    int64_t n = a->shape[ax], each = n / sections, extras = n % sections;
    if (equal && extras) {
        loom__error(LOOM_ERR_INVALID, fn, "array split does not result in an equal division");
        return LOOM_ERR_INVALID;
    }
    int64_t *bounds = loom__malloc((size_t)(sections + 1) * sizeof *bounds);
    if (!bounds) {
        loom__error(LOOM_ERR_OOM, fn, "out of host memory");
        return LOOM_ERR_OOM;
    }
    bounds[0] = 0;
    for (int64_t i = 0; i < sections; i++)
        bounds[i + 1] = bounds[i] + each + (i < extras);
    int rc = parts(a, ax, bounds, (int)sections, out);
    free(bounds);
    return rc;
}

int loom_split(loom_array *a, int64_t sections, int axis, loom_array **out)
{
    return split_sections("loom_split", a, sections, axis, true, out);
}

int loom_array_split(loom_array *a, int64_t sections, int axis, loom_array **out)
{
    return split_sections("loom_array_split", a, sections, axis, false, out);
}

int loom_split_at(loom_array *a, const int64_t *indices, int nindices, int axis, loom_array **out)
{
    static const char fn[] = "loom_split_at";
    int ax;
    if (!a || !out)
        return LOOM_ERR_INVALID;
    if (nindices < 0 || (nindices > 0 && !indices)) {
        loom__error(LOOM_ERR_INVALID, fn, "invalid index list (%d indices)", nindices);
        return LOOM_ERR_INVALID;
    }
    if (loom__normalize_axis(fn, NULL, axis, a->ndim, &ax))
        return LOOM_ERR_INVALID;
    int64_t *bounds = loom__malloc((size_t)(nindices + 2) * sizeof *bounds);
    if (!bounds) {
        loom__error(LOOM_ERR_OOM, fn, "out of host memory");
        return LOOM_ERR_OOM;
    }
    bounds[0] = 0;
    for (int i = 0; i < nindices; i++)
        bounds[i + 1] = indices[i];
    bounds[nindices + 1] = a->shape[ax];
    int rc = parts(a, ax, bounds, nindices + 1, out);
    free(bounds);
    return rc;
}

/* hsplit, vsplit, dsplit: split along a fixed axis of arrays of at least min_ndim dims. */
static int split_along(const char *fn, const char *name, loom_array *a, int64_t sections,
                       int min_ndim, int axis, loom_array **out)
{
    if (!a || !out)
        return LOOM_ERR_INVALID;
    if (a->ndim < min_ndim) {
        loom__error(LOOM_ERR_INVALID, fn, "%s only works on arrays of %d or more dimensions",
                    name, min_ndim);
        return LOOM_ERR_INVALID;
    }
    return split_sections(fn, a, sections, axis, true, out);
}

int loom_hsplit(loom_array *a, int64_t sections, loom_array **out)
{
    int axis = a && a->ndim > 1 ? 1 : 0;
    return split_along("loom_hsplit", "hsplit", a, sections, 1, axis, out);
}

int loom_vsplit(loom_array *a, int64_t sections, loom_array **out)
{
    return split_along("loom_vsplit", "vsplit", a, sections, 2, 0, out);
}

int loom_dsplit(loom_array *a, int64_t sections, loom_array **out)
{
    return split_along("loom_dsplit", "dsplit", a, sections, 3, 2, out);
}
