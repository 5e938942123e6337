/* Plan reuse: the key that determines a plan, and rebinding a cached plan to a new graph. */
#include "strbuf.h"
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

static void put(loom_strbuf *sb, const void *p, size_t n)
{
    loom__sb_append(sb, p, n);
}

int loom__plan_key(const loom_walk *w, const loom_fuse_options *o, char **key, size_t *len)
{
    loom_strbuf sb = {0};
    sb.cap = (size_t)w->n * 48 + 64; /* most nodes need less: one allocation, no regrowth */
    sb.data = loom__malloc(sb.cap);
    sb.failed = !sb.data;
    int32_t opts[7] = {o->fuse,        o->max_ops,       o->max_inputs, o->chain_depth,
                       o->lt_epilogue, o->fft_callbacks, o->linalg_loop};
    put(&sb, opts, sizeof opts);
    const bool callbacks = loom__fft_callbacks_possible(o->fft_callbacks);
    for (int i = 0; i < w->n; i++) {
        const loom_walk_node *v = &w->v[i];
        const loom_array *a = v->node;
        bool input = loom__is_input(a);
        struct {
            uint16_t op;
            int8_t dtype, cdtype;
            uint8_t weak, requested, input, ninputs;
            int32_t ndim;
        } head = {a->op, a->dtype, a->cdtype, a->weak, v->requested, input,
                  input ? 0 : a->ninputs, a->ndim};
        put(&sb, &head, sizeof head);
        put(&sb, a->shape, (size_t)a->ndim * sizeof *a->shape);
        if (input) {
            /* Vector loads depend on the address's alignment. */
            uint8_t align = a->buffer ? (uint8_t)((uintptr_t)a->buffer->ptr % 256) : 0;
            put(&sb, &align, 1);
            continue;
        }
        for (int k = 0; k < a->ninputs; k++) {
            int32_t at = loom__walk_at(w, a->inputs[k]);
            put(&sb, &at, sizeof at);
        }
        if (a->op == LOOM_OP_VIEW) {
            put(&sb, a->strides, (size_t)a->ndim * sizeof *a->strides);
            put(&sb, &a->offset, sizeof a->offset);
        }
        if (a->op == LOOM_OP_MULTIPLY && callbacks) {
            /* a scale an FFT step may apply in a store callback, compiled into the cuFFT plan
             * (fuser/lower_fft.c): plans share it only for equal values (elsewhere the scale is
             * a kernel argument, refreshed on rebind) */
            for (int k = 0; k < 2; k++)
                if (a->inputs[k]->op == LOOM_OP_FFT && a->inputs[1 - k]->op == LOOM_OP_SCALAR)
                    put(&sb, &a->inputs[1 - k]->param.value.re, sizeof(double));
        }
        size_t plen;
        const void *param = loom__structural_params(a, &plen);
        if (param)
            put(&sb, param, plen);
        else if (a->op == LOOM_OP_LINSPACE) /* the last element's special case */
            put(&sb, &a->param.linspace.num, 2 * sizeof(int64_t));
    }
    *len = sb.len;
    *key = loom__sb_take(&sb);
    return *key ? 0 : -1;
}
