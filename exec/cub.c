/* The runner of CUB steps (kernels/loom_cub.h): plan buffers in, CUB's device algorithms on the
 * plan's stream, nothing allocated, so the step may be captured in a CUDA Graph. */
#include "steps.h"

#include "kernels/loom_cub.h"

int loom__cub_sort_run(const char *fn, const loom_libcall *l, void *const *addr, cudaStream_t st)
{
    const loom_sort_args *a = &l->args.sort;
    bool pairs = l->nbuffers == 4;
    loom_cub_sort_call c = {
        .dtype = a->dtype, .bits = a->bits, .n = a->n, .rows = a->rows,
        .keys = {loom__lib_operand(l, addr, 0), loom__lib_operand(l, addr, 1)},
        .values = {pairs ? loom__lib_operand(l, addr, 2) : NULL,
                   pairs ? loom__lib_operand(l, addr, 3) : NULL},
        .temp = addr[l->workspace], .temp_bytes = l->workspace_bytes,
    };
    size_t need;
    int rc = loom__cuda_check((cudaError_t)loom__cub_sort_temp_bytes(&c, &need), fn,
                              "sizing CUB's radix sort");
    if (rc)
        return rc;
    if (need > c.temp_bytes) {
        loom__error(LOOM_ERR_CUDA, fn,
                    "internal error: CUB's radix sort asks for %zu bytes of temporary storage, "
                    "the plan reserved %zu", need, c.temp_bytes);
        return LOOM_ERR_CUDA;
    }
    int which;
    rc = loom__cuda_check((cudaError_t)loom__cub_sort(&c, st, &which), fn, "CUB's radix sort");
    if (rc)
        return rc;
    /* The sorted data lies in buffer `which` of its pair; the plan wants it in a->out. */
    int first = pairs ? 2 : 0;
    if (first + which == a->out)
        return LOOM_OK;
    size_t bytes = (size_t)(a->n * a->rows) *
                   (pairs ? sizeof(int64_t) : loom_dtype_size((loom_dtype)a->dtype));
    return loom__cuda_check(cudaMemcpyAsync(loom__lib_operand(l, addr, a->out),
                                            loom__lib_operand(l, addr, first + which), bytes,
                                            cudaMemcpyDeviceToDevice, st),
                            fn, "copying the sorted data");
}
