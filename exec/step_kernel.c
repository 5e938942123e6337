/* The runner of generated-kernel steps: compile through the caches, grid, arguments. */
#include "steps.h"

/* Dynamic shared memory above the default 48 KiB must be allowed, per kernel and device,
 * before a launch (or a CUDA Graph holding it). The kernel is allowed all the device has, so
 * that plans launching it with different sizes never undo one another; a size above that is
 * refused here, with the limit, rather than as CUDA's bare "invalid argument" at the launch. */
static int opt_in_shared_memory(const char *fn, const loom_step *s, const loom__kernel *kernel)
{
    const loom_kernel *k = &s->kernel;
    if (k->shared_mem == 0) /* every generated kernel */
        return LOOM_OK;
    const loom__device_props *props = loom__device_props_get(fn, s->device);
    if (!props)
        return loom_last_error_code();
    if (k->shared_mem <= props->smem_per_block)
        return LOOM_OK;
    int prev, rc;
    if ((rc = loom__device_push(fn, s->device, &prev)) != 0)
        return rc;
    struct cudaFuncAttributes attr;
    rc = loom__cuda_check(cudaFuncGetAttributes(&attr, kernel->handle), fn, "cudaFuncGetAttributes");
    const size_t most = props->smem_per_block_optin - (rc ? 0 : attr.sharedSizeBytes);
    if (!rc && k->shared_mem > most) {
        loom__error(LOOM_ERR_INVALID, fn,
                    "kernel %s asks for %u bytes of dynamic shared memory: device %d (%s) allows "
                    "at most %zu per block (%zu, less %zu of static shared memory)",
                    k->name, k->shared_mem, s->device, props->name, most,
                    props->smem_per_block_optin, (size_t)attr.sharedSizeBytes);
        rc = LOOM_ERR_INVALID;
    } else if (!rc && (size_t)attr.maxDynamicSharedSizeBytes < most) {
        rc = loom__cuda_check(cudaKernelSetAttributeForDevice((cudaKernel_t)kernel->handle,
                                                              cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                              (int)most, s->device),
                              fn, "cudaKernelSetAttributeForDevice(MaxDynamicSharedMemorySize)");
    }
    loom__device_pop(prev);
    return rc;
}

int loom__kernel_step_prepare(const char *fn, const loom_step *s, loom__step_state *r)
{
    const loom_kernel *k = &s->kernel;
    if (k->work == 0)
        return LOOM_OK;
    int nh;
    const loom__header *h = loom__device_headers(&nh);
    r->kernel = loom__kernel_get_held(fn, k->name, k->source, h, nh, k->options);
    if (!r->kernel)
        return loom_last_error_code();
    return opt_in_shared_memory(fn, s, r->kernel);
}

dim3 loom__kernel_grid(const loom_kernel *k, const loom__device_props *props)
{
    if (k->grid[0])
        return (dim3){k->grid[0], k->grid[1], k->grid[2]};
    /* work may be near INT64_MAX (a generator of 2^62 bools): round up without adding */
    int64_t blocks = k->work / k->block + (k->work % k->block != 0);
    int64_t cap = (int64_t)props->sm_count * (props->max_threads_per_sm / k->block) * 4;
    if (blocks > cap)
        blocks = cap;
    return (dim3){blocks < 1 ? 1u : (unsigned)blocks, 1, 1};
}

dim3 loom__kernel_block(const loom_kernel *k)
{
    return (dim3){(unsigned)k->block, k->block_y ? k->block_y : 1, k->block_z ? k->block_z : 1};
}

int loom__kernel_args(const char *fn, const loom_kernel *k, void *const *addr, void **ptrs,
                      void **argv)
{
    for (int i = 0; i < k->nargs; i++) {
        const loom_karg *a = &k->args[i];
        if (a->kind == LOOM_KARG_VALUE) {
            argv[i] = (void *)a->value;
            continue;
        }
        ptrs[i] = (char *)addr[a->buffer] + a->byte_offset;
        if (a->align > 1 && (uintptr_t)ptrs[i] % (uintptr_t)a->align) {
            loom__error(LOOM_ERR_INVALID, fn, "internal error: kernel %s argument %d is not %d-byte aligned",
                        k->name, i, a->align);
            return LOOM_ERR_INVALID;
        }
        argv[i] = &ptrs[i];
    }
    return LOOM_OK;
}
