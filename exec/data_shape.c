/* The host read behind data-dependent shapes (docs/sorting.md): a result's length computed on
 * the device and brought back while the op is recorded, counted as a forced evaluation. */
#include "exec.h"

int loom__read_length(const char *fn, loom_array *count, int64_t *out)
{
    if (!loom__node_buffer(count))
        loom__stat_forced_eval(LOOM_EVAL_DATA_DEPENDENT_SHAPE);
    int rc = loom__eval_named(fn, count);
    return rc ? rc : loom__read_back(fn, count, out, sizeof *out);
}
