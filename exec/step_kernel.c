/* The runner of generated-kernel steps: compile through the caches, grid, arguments. */
#include "steps.h"

int loom__kernel_step_prepare(const char *fn, const loom_step *s, loom__step_state *r)
{
    const loom_kernel *k = &s->kernel;
    if (k->work == 0)
        return LOOM_OK;
    int nh;
    const loom__header *h = loom__device_headers(&nh);
    r->kernel = loom__kernel_get_held(fn, k->name, k->source, h, nh, k->options);
    return r->kernel ? LOOM_OK : loom_last_error_code();
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
