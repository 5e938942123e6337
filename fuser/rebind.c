/* Plan reuse: rebinding a cached plan to a new graph (its key: fuser/plan_key.c). */
#include "walk.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A scalar's value as its dtype's bytes: integers and bool from the exact value, floats and
 * complex parts rounded from doubles (float16 and bfloat16 scalars are refused when the launch
 * is recorded). */
static void typed_value(loom_karg *a, const loom_array *node)
{
    const loom_dtype dt = (loom_dtype)node->dtype;
    const int64_t exact = node->param.value.exact;
    const double re = node->param.value.re, im = node->param.value.im;
    a->size = (int)loom_dtype_size(dt);
    memset(a->value, 0, sizeof a->value);
    if (dt == LOOM_BOOL) {
        a->value[0] = exact != 0;
    } else if (loom__is_int(dt)) {
        memcpy(a->value, &exact, (size_t)a->size); /* little-endian: the low bytes */
    } else if (dt == LOOM_FLOAT32 || dt == LOOM_COMPLEX64) {
        const float f[2] = {(float)re, (float)im};
        memcpy(a->value, f, (size_t)a->size);
    } else if (dt == LOOM_FLOAT64 || dt == LOOM_COMPLEX128) {
        const double d[2] = {re, im};
        memcpy(a->value, d, (size_t)a->size);
    }
}

void loom__karg_refill(loom_karg *a, const loom_array *node)
{
    loom_dtype dt = (loom_dtype)node->dtype;
    switch (a->src) {
    case LOOM_SRC_FIXED:
        return;
    case LOOM_SRC_VALUE:
        if (loom__is_complex(dt)) {
            double c[2] = {node->param.value.re, node->param.value.im};
            memcpy(a->value, c, 16);
            a->size = 16;
            return;
        }
        if (loom__is_float(dt))
            memcpy(a->value, &node->param.value.re, 8);
        else
            memcpy(a->value, &node->param.value.exact, 8);
        a->size = 8;
        return;
    case LOOM_SRC_PARAM_F64:
        memcpy(a->value, (const char *)&node->param + a->src_offset, 8);
        a->size = 8;
        return;
    case LOOM_SRC_PARAM_I64:
        memcpy(a->value, (const char *)&node->param + a->src_offset, 8);
        a->size = 8;
        return;
    case LOOM_SRC_VALUE_TYPED:
        typed_value(a, node);
        return;
    }
}

void loom__plan_rebind(loom_plan *p, const loom_walk *w)
{
    for (int b = 0; b < p->nbuffers; b++)
        if (p->buffers[b].walk_index >= 0)
            p->buffers[b].node = w->v[p->buffers[b].walk_index].node;
    for (int k = 0; k < p->nsteps; k++) {
        loom_step *s = &p->steps[k];
        if (s->kind == LOOM_STEP_LIBRARY && s->lib.routine == LOOM_LIB_CUBLAS_GEMM)
            loom__gemm_alpha(&s->lib.args.gemm, w);
    }
    for (int k = 0; k < p->nsteps; k++)
        for (int i = 0; p->steps[k].kind == LOOM_STEP_KERNEL && i < p->steps[k].kernel.nargs; i++) {
            loom_karg *a = &p->steps[k].kernel.args[i];
            if (a->kind == LOOM_KARG_VALUE && a->src != LOOM_SRC_FIXED)
                loom__karg_refill(a, w->v[a->src_node].node);
        }
}
