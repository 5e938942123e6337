/* The pointer arrays cuBLAS's batched routines take (getrfBatched...): a generated kernel
 * writes base + i * stride for each matrix of a stack on the device, so the arrays follow the
 * plan's buffers wherever they lie and the whole plan stays capturable. */
#include "emit.h"

#include <stdlib.h>

#define BLOCK 256

int loom__plan_pointers(loom_plan_builder *b, const char *fn, int ptrs, int base,
                        size_t base_offset, int64_t stride, int64_t count)
{
    loom_step *s = loom__plan_step(b, fn, LOOM_STEP_KERNEL);
    if (!s)
        return -1;
    loom_kernel *k = &s->kernel;
    loom_kargs g = {.k = k};
    loom__arg_ptr_typed(&g, ptrs, "unsigned long long", true, 0);
    loom__arg_ptr_typed(&g, base, "char", false, base_offset);
    loom__arg_i64(&g, stride);
    loom__arg_i64(&g, count);
    char *params = loom__sb_take(&g.params);
    loom_strbuf sb = {0};
    if (params) {
        loom__sb_printf(&sb, "// Loom pointer array: the address of each matrix of a stack\n");
        loom__sb_printf(&sb, "extern \"C\" __global__ void __launch_bounds__(%d) @NAME@(\n%s)\n{\n",
                        BLOCK, params);
        loom__sb_printf(&sb, "    const long long stride = (long long)gridDim.x * blockDim.x;\n");
        loom__sb_printf(&sb, "    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;"
                             " i < p3; i += stride)\n");
        loom__sb_printf(&sb, "        p0[i] = (unsigned long long)(p1 + i * p2);\n}\n");
    }
    free(params);
    k->nargs = g.nargs;
    char *src = loom__sb_take(&sb);
    if (!src || loom__kernel_name_source(k, "loom_ptrs", src)) {
        loom__error(LOOM_ERR_OOM, fn, "out of host memory while planning");
        return -1;
    }
    loom__sb_printf(&sb, "pointer array");
    if (!(k->summary = loom__sb_take(&sb))) {
        loom__error(LOOM_ERR_OOM, fn, "out of host memory while planning");
        return -1;
    }
    k->kind = LOOM_KERNEL_ELEMENTWISE;
    k->work = count;
    k->block = BLOCK;
    k->vec = 1;
    return 0;
}

int loom__plan_pointer_array(loom_plan_builder *b, const char *fn, int buffer, size_t offset,
                             int64_t stride, int64_t batch, int last_use)
{
    int step = loom__plan_next_step(b);
    int ptrs = loom__plan_scratch(b, fn, (size_t)batch * sizeof(void *), step, last_use);
    if (ptrs < 0 || loom__plan_pointers(b, fn, ptrs, buffer, offset, stride, batch))
        return -1;
    return ptrs;
}
