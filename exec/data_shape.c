/* The host read behind data-dependent shapes (docs/unique.md): a result's length (or a
 * histogram's autodetected range) computed on the device and brought back while the op is
 * recorded, counted as a forced evaluation. */
#include "exec.h"

int loom__read_data_dependent(const char *fn, loom_array *a, loom_array *const *keep, int nkeep,
                              void *dst, size_t nbytes)
{
    if (!loom__node_buffer(a))
        loom__stat_forced_eval(LOOM_EVAL_DATA_DEPENDENT_SHAPE);
    loom_array *all[1 + LOOM__MAX_KEEP] = {a};
    int n = 1;
    for (int i = 0; i < nkeep && n <= LOOM__MAX_KEEP; i++)
        all[n++] = keep[i];
    int rc = n > 1 ? loom_eval_many(all, n) : loom__eval_named(fn, a);
    return rc ? rc : loom__read_back(fn, a, dst, nbytes);
}
