/* The runner of bin-count steps (kernels/loom_cub_bincount.h): loom_bincount and
 * loom_histogram's counts and weighted sums on the plan's stream, storage from the plan. */
#include "steps.h"

#include "kernels/loom_cub_bincount.h"

int loom__cub_bincount_workspace(const char *fn, const loom_libcall *l, size_t *bytes)
{
    *bytes = 0;
    if (!l->args.bincount.weighted)
        return LOOM_OK;
    return loom__cuda_check((cudaError_t)loom__cub_bincount_temp_bytes(l->args.bincount.len,
                                                                       bytes),
                            fn, "sizing CUB's segmented sum");
}

int loom__cub_bincount_run(const char *fn, const loom_libcall *l, void *const *addr,
                           cudaStream_t st)
{
    const loom_bincount_args *a = &l->args.bincount;
    size_t need;
    int rc = loom__cub_bincount_workspace(fn, l, &need);
    if (rc)
        return rc;
    if (need > l->workspace_bytes) {
        loom__error(LOOM_ERR_CUDA, fn,
                    "internal error: CUB's segmented sum asks for %zu bytes of temporary "
                    "storage, the plan reserved %zu", need, l->workspace_bytes);
        return LOOM_ERR_CUDA;
    }
    int k = 0;
    loom_cub_bincount_call c = {.n = a->n, .len = a->len};
    c.x = loom__lib_operand(l, addr, k++);
    c.weights = a->weighted ? loom__lib_operand(l, addr, k++) : NULL;
    c.out = loom__lib_operand(l, addr, k++);
    c.scratch = a->weighted ? loom__lib_operand(l, addr, k++) : NULL;
    c.temp = l->workspace >= 0 ? addr[l->workspace] : NULL;
    c.temp_bytes = l->workspace_bytes;
    return loom__cuda_check((cudaError_t)loom__cub_bincount(&c, st), fn, "counting bins");
}
