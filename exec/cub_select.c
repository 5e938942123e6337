/* The runner of CUB select steps (kernels/loom_cub_select.h): flatnonzero's stream compaction
 * on the plan's stream, its temporary storage from the plan. */
#include "steps.h"

#include "kernels/loom_cub_select.h"

int loom__cub_select_workspace(const char *fn, const loom_libcall *l, size_t *bytes)
{
    return loom__cuda_check((cudaError_t)loom__cub_select_temp_bytes(l->args.select.n, bytes), fn,
                            "sizing CUB's select");
}

int loom__cub_select_run(const char *fn, const loom_libcall *l, void *const *addr,
                         cudaStream_t st)
{
    const loom_select_args *a = &l->args.select;
    size_t need;
    int rc = loom__cub_select_workspace(fn, l, &need);
    if (rc)
        return rc;
    if (need > l->workspace_bytes) {
        loom__error(LOOM_ERR_CUDA, fn,
                    "internal error: CUB's select asks for %zu bytes of temporary storage, the "
                    "plan reserved %zu", need, l->workspace_bytes);
        return LOOM_ERR_CUDA;
    }
    loom_cub_select_call c = {
        .flags = loom__lib_operand(l, addr, 0), .n = a->n,
        .out = loom__lib_operand(l, addr, 1), .out_len = a->out_len,
        .selected = loom__lib_operand(l, addr, 2), .num = loom__lib_operand(l, addr, 3),
        .exact = a->exact,
        .temp = l->workspace >= 0 ? addr[l->workspace] : NULL, .temp_bytes = l->workspace_bytes,
    };
    return loom__cuda_check((cudaError_t)loom__cub_select(&c, st), fn, "CUB's select");
}
