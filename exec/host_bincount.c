/* Bin-count steps on the host device: kernels/loom_bincount.cu in plain C, on the calling
 * thread. Counts are exact, as the GPU's atomics are. A weighted count sums each bin's weights
 * (sorted by bin, stably, so in input order) one after the other from 0.0: NumPy's bincount bit
 * for bit. The GPU sums each bin with CUB's segmented reduction, whose tree order follows CUB's
 * tuning for the architecture, so the two agree to rounding (docs/host-device.md). The scratch
 * buffer gets what the GPU leaves there: the counts, then their exclusive sum. */
#include "host_library.h"

#include <string.h>

int loom__host_bincount(const char *fn, const loom_libcall *l, void *const *addr)
{
    const loom_bincount_args *a = &l->args.bincount;
    int k = 0;
    const int64_t *x = loom__lib_operand(l, addr, k++);
    const double *weights = a->weighted ? loom__lib_operand(l, addr, k++) : NULL;
    void *out = loom__lib_operand(l, addr, k++);
    int64_t *scratch = a->weighted ? loom__lib_operand(l, addr, k++) : NULL;
    int64_t *counts = a->weighted ? scratch : out;
    /* the weighted form counts one bin more: the exclusive sum's last entry is n */
    memset(counts, 0, (size_t)(a->len + a->weighted) * sizeof *counts);
    for (int64_t i = 0; i < a->n; i++) {
        if (x[i] < 0 || x[i] >= a->len) {
            loom__error(LOOM_ERR_INVALID, fn,
                        "internal error: bin %lld of a bin count is outside [0, %lld)",
                        (long long)x[i], (long long)a->len);
            return LOOM_ERR_INVALID;
        }
        counts[x[i]]++;
    }
    if (!a->weighted)
        return LOOM_OK;
    int64_t *offsets = scratch + a->len + 1;
    for (int64_t b = 0, sum = 0; b <= a->len; b++) {
        offsets[b] = sum;
        sum += counts[b];
    }
    double *sums = out;
    for (int64_t b = 0; b < a->len; b++) {
        double s = 0.0;
        for (int64_t i = offsets[b]; i < offsets[b + 1]; i++)
            s += weights[i];
        sums[b] = s;
    }
    return LOOM_OK;
}
