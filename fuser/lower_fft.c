/* Lowering of FFT nodes to one cuFFT call (fuser/lower.h). The node transforms the last rank
 * axes of its input into a contiguous result. The input is read in place when cuFFT's advanced
 * layout can describe its view (one stride for the innermost transformed axis, the outer ones
 * whole multiples of it, one uniform stride between batch members); otherwise it is written to
 * memory first. Two cases always read a contiguous copy: zero-padding (a generated kernel
 * writes the padded input) and complex-to-real transforms (cuFFT overwrites their input).
 * A real scalar multiplying the result (the norm's scale) is folded into that copy, scaling the
 * input instead: the transform is linear, so only rounding differs. Where there is no copy, a
 * cuFFT store callback may apply it, where the decision table says it wins. */
#include "emit.h"
#include "lower.h"

#include <stdlib.h>
#include <string.h>

#define PAD_BLOCK 256

typedef struct fft_shape {
    int rank;
    int64_t need[3]; /* input lengths the transform reads along its axes */
    int64_t out[3];  /* result lengths along them */
} fft_shape;

static fft_shape shape_of(const loom_array *f)
{
    fft_shape s = {.rank = (int)f->param.fft.rank};
    for (int k = 0; k < s.rank; k++) {
        int64_t n = f->param.fft.n[k];
        bool half = k == s.rank - 1;
        s.need[k] = f->param.fft.type == LOOM_FFT_C2R && half ? n / 2 + 1 : n;
        s.out[k] = f->param.fft.type == LOOM_FFT_R2C && half ? n / 2 + 1 : n;
    }
    return s;
}

static bool padded(const loom_array *f)
{
    const loom_array *a = f->inputs[0];
    fft_shape s = shape_of(f);
    for (int k = 0; k < s.rank; k++)
        if (a->shape[a->ndim - s.rank + k] < s.need[k])
            return true;
    return false;
}

static bool needs_copy(const loom_array *f)
{
    return padded(f) || f->param.fft.type == LOOM_FFT_C2R;
}

/* The input's layout for cuFFT at element strides, or false when cuFFT cannot read it so. */
static bool describe(const loom_array *f, const int64_t *strides, loom_fft_args *l)
{
    const loom_array *a = f->inputs[0];
    int nd = a->ndim, r = (int)f->param.fft.rank;
    int64_t eff[LOOM_MAXDIMS];
    /* Size-1 axes may carry any stride: give them the contiguous one. */
    for (int i = nd - 1; i >= nd - r; i--)
        eff[i] = a->shape[i] != 1 ? strides[i] : i == nd - 1 ? 1 : eff[i + 1] * a->shape[i + 1];
    l->istride = eff[nd - 1];
    if (l->istride < 1)
        return false;
    l->inembed[0] = a->shape[nd - r];
    for (int k = 1; k < r; k++) {
        int i = nd - r + k;
        if (eff[i] < 1 || eff[i - 1] % eff[i] != 0 || eff[i - 1] / eff[i] < a->shape[i])
            return false;
        l->inembed[k] = eff[i - 1] / eff[i];
    }
    int64_t stride = -1, span = 1;
    for (int i = nd - r - 1; i >= 0; i--) {
        if (a->shape[i] == 1)
            continue;
        if (stride < 0)
            stride = strides[i];
        else if (strides[i] != stride * span)
            return false;
        span *= a->shape[i];
    }
    l->idist = stride < 0 ? eff[nd - r] * a->shape[nd - r] : stride;
    return l->idist >= 1;
}

static void contiguous_layout(const fft_shape *s, loom_fft_args *l)
{
    int64_t span = 1;
    for (int k = 0; k < s->rank; k++) {
        l->inembed[k] = s->need[k];
        span *= s->need[k];
    }
    l->istride = 1;
    l->idist = span;
}

/* Whether the input is a view cuFFT reads in place from its base. */
static bool view_in_place(const loom_array *f, loom_fft_args *l)
{
    const loom_array *a = f->inputs[0];
    return !needs_copy(f) && !loom__is_input(a) && a->op == LOOM_OP_VIEW && describe(f, a->strides, l);
}

static void inputs_in_memory(loom_walk *w, int i)
{
    const loom_array *f = w->v[i].node, *a = f->inputs[0];
    loom_fft_args l;
    if (view_in_place(f, &l)) {
        if (!loom__is_input(a->inputs[0]))
            w->v[loom__walk_at(w, a->inputs[0])].materialize = true;
        return;
    }
    loom__contiguous_in_memory(w, a);
}

/* The element type the prologue copies as: bits (one kernel per element size), or with a scale
 * the dtype's own (complex as float2/double2). */
static const char *prologue_type(int dtype, size_t item, bool scaled)
{
    if (!scaled)
        return item == 4 ? "unsigned int" : item == 8 ? "unsigned long long" : "ulonglong2";
    switch (dtype) {
    case LOOM_FLOAT32: return "float";
    case LOOM_FLOAT64: return "double";
    case LOOM_COMPLEX64: return "float2";
    default: return "double2";
    }
}

/* A kernel copying the contiguous input (batch, m0, m1, m2) into the contiguous (batch, n0, n1,
 * n2) scratch, zeros where an index passes the input's length, times scale's value when scale
 * is not NULL. */
static int pad_kernel(const char *fn, const loom_walk *w, loom_plan_builder *b, int dst, int src,
                      int dtype, int64_t batch, const int64_t *m, const int64_t *n,
                      const loom_array *scale)
{
    loom_step *s = loom__plan_step(b, fn, LOOM_STEP_KERNEL);
    if (!s)
        return -1;
    loom_kernel *k = &s->kernel;
    size_t item = loom_dtype_size((loom_dtype)dtype);
    const char *type = prologue_type(dtype, item, scale != NULL);
    bool pair = scale && loom__is_complex((loom_dtype)dtype);
    const char *real = dtype == LOOM_FLOAT32 || dtype == LOOM_COMPLEX64 ? "float" : "double";
    loom_kargs g = {.w = w, .k = k};
    loom__arg_ptr_typed(&g, dst, type, true, 0);
    loom__arg_ptr_typed(&g, src, type, false, 0);
    loom__arg_i64(&g, batch * n[0] * n[1] * n[2]);
    for (int d = 0; d < 3; d++)
        loom__arg_i64(&g, n[d]);
    for (int d = 0; d < 3; d++)
        loom__arg_i64(&g, m[d]);
    if (scale)
        loom__arg_param(&g, scale, LOOM_SRC_VALUE, 0); /* p9 */
    char *params = loom__sb_take(&g.params);
    loom_strbuf sb = {0};
    if (params) {
        if (scale)
            loom__sb_printf(&sb, "// Loom FFT input copy, zero-padded and scaled, %s elements\n", type);
        else
            loom__sb_printf(&sb, "// Loom FFT input zero-padding, %zu-byte elements\n", item);
        loom__sb_printf(&sb, "extern \"C\" __global__ void __launch_bounds__(%d) @NAME@(\n%s)\n{\n",
                        PAD_BLOCK, params);
        loom__sb_printf(
            &sb, "    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < p2;\n"
                 "         i += (long long)gridDim.x * blockDim.x) {\n"
                 "        long long r = i, x2 = r %% p5;\n"
                 "        r /= p5;\n"
                 "        long long x1 = r %% p4;\n"
                 "        r /= p4;\n"
                 "        long long x0 = r %% p3, batch = r / p3;\n"
                 "        %s v = {};\n"
                 "        if (x0 < p6 && x1 < p7 && x2 < p8)\n"
                 "            v = p1[((batch * p6 + x0) * p7 + x1) * p8 + x2];\n",
            type);
        if (pair)
            loom__sb_printf(&sb, "        v.x *= (%s)p9;\n        v.y *= (%s)p9;\n", real, real);
        else if (scale)
            loom__sb_printf(&sb, "        v *= (%s)p9;\n", real);
        loom__sb_printf(&sb, "        p0[i] = v;\n    }\n}\n");
        free(params);
    }
    char *src_text = loom__sb_take(&sb);
    k->nargs = g.nargs;
    k->kind = LOOM_KERNEL_ELEMENTWISE;
    k->work = batch * n[0] * n[1] * n[2];
    k->block = PAD_BLOCK;
    k->vec = 1;
    const char *summary = scale ? "fft input copy with the scale" : "fft zero-padding";
    k->summary = loom__malloc(strlen(summary) + 1);
    if (!src_text || !k->summary || loom__kernel_name_source(k, "loom_fftpad", src_text)) {
        if (!k->summary)
            free(src_text); /* loom__kernel_name_source takes it only when called */
        loom__error(LOOM_ERR_OOM, fn, "out of host memory while generating a kernel");
        return -1;
    }
    memcpy(k->summary, summary, strlen(summary) + 1);
    return 0;
}

static const char *type_names[] = {"c2c", "r2c", "c2r"};

/* The steps of FFT node f writing buffer out; scale: a real scalar multiplying the result,
 * applied to the input copy or, when the transform makes none, by a store callback; or NULL.
 * nodes: what the cuFFT step computes, for DOT. */
static int lower_node(const char *fn, loom_plan_builder *b, const loom_walk *w,
                      const loom_array *f, int out, const loom_array *scale,
                      const loom_array *const *nodes, int nnodes)
{
    const loom_array *a = f->inputs[0];
    if (f->size == 0)
        return 0;
    fft_shape s = shape_of(f);
    int nd = a->ndim, r = s.rank;
    loom_fft_args l = {.type = (int8_t)f->param.fft.type, .dtype = a->dtype,
                       .inverse = f->param.fft.inverse != 0, .rank = r};
    int64_t batch = 1;
    for (int i = 0; i < nd - r; i++)
        batch *= a->shape[i];
    l.batch = batch;
    int64_t ospan = 1;
    for (int k = 0; k < r; k++) {
        l.n[k] = f->param.fft.n[k];
        l.onembed[k] = s.out[k];
        ospan *= s.out[k];
    }
    l.ostride = 1;
    l.odist = ospan;
    l.store_scale = scale && !needs_copy(f);
    l.scale = l.store_scale ? scale->param.value.re : 0.0;

    size_t item = loom_dtype_size((loom_dtype)a->dtype), in_offset = 0;
    int in_buf;
    bool strided = view_in_place(f, &l);
    if (strided) {
        in_buf = w->v[loom__walk_at(w, a->inputs[0])].buffer;
        in_offset = (size_t)a->offset * item;
    } else {
        in_buf = w->v[loom__walk_at(w, a)].buffer;
        contiguous_layout(&s, &l);
    }
    if (needs_copy(f)) {
        int64_t span = 1;
        for (int k = 0; k < r; k++)
            span *= s.need[k];
        int step = loom__plan_next_step(b);
        int tmp = loom__plan_scratch(b, fn, (size_t)(batch * span) * item, step, step + 1);
        if (tmp < 0)
            return -1;
        if (padded(f) || scale) {
            int64_t m[3] = {1, 1, 1}, n[3] = {1, 1, 1};
            for (int k = 0; k < r; k++) {
                m[3 - r + k] = a->shape[nd - r + k];
                n[3 - r + k] = s.need[k];
            }
            if (pad_kernel(fn, w, b, tmp, in_buf, a->dtype, batch, m, n, scale))
                return -1;
        } else {
            loom_step *c = loom__plan_step(b, fn, LOOM_STEP_COPY);
            if (!c)
                return -1;
            c->copy = (loom_copy){.dst = tmp, .src = in_buf, .bytes = (size_t)(batch * span) * item};
        }
        in_buf = tmp;
        in_offset = 0;
    }
    int step = loom__plan_next_step(b);
    /* The work area's size is cuFFT's to say: exec sizes this buffer when it prepares the plan. */
    int work = loom__plan_scratch(b, fn, 0, step, step);
    loom_step *st = work < 0 ? NULL : loom__plan_step(b, fn, LOOM_STEP_LIBRARY);
    if (!st)
        return -1;
    loom_libcall *c = &st->lib;
    c->routine = LOOM_LIB_CUFFT;
    c->nbuffers = 2;
    c->buffer[0] = in_buf;
    c->byte_offset[0] = in_offset;
    c->buffer[1] = out;
    c->workspace = work;
    c->args.fft = l;
    char summary[160];
    int at = snprintf(summary, sizeof summary, "fft %s %s (", type_names[l.type],
                      l.inverse ? "inverse" : "forward");
    for (int k = 0; k < r; k++)
        at += snprintf(summary + at, sizeof summary - (size_t)at, "%s%lld", k ? "," : "",
                       (long long)l.n[k]);
    snprintf(summary + at, sizeof summary - (size_t)at, ") x %lld%s%s", (long long)batch,
             strided ? ", input read in place" : "",
             l.store_scale ? ", scale in a store callback"
             : scale       ? ", scale folded into the input copy"
                           : "");
    return loom__step_describe(b, fn, step, summary, nodes, nnodes);
}

static int lower(const char *fn, loom_plan_builder *b, const loom_walk *w, const int *roots,
                 int nroots, bool persistent)
{
    (void)nroots;
    (void)persistent;
    const loom_walk_node *v = &w->v[roots[0]];
    return lower_node(fn, b, w, v->node, v->buffer, NULL, (const loom_array *const[]){v->node}, 1);
}

/* ---- s * fft(x): the scale folded into the input copy ---- */

/* The FFT node y multiplies by a real scalar, *scale set to that scalar; NULL otherwise. */
static const loom_array *scaled_fft(const loom_array *y, const loom_array **scale)
{
    *scale = NULL;
    if (y->op != LOOM_OP_MULTIPLY || y->ninputs != 2)
        return NULL;
    for (int k = 0; k < 2; k++) {
        const loom_array *f = y->inputs[k], *s = y->inputs[1 - k];
        if (f->op == LOOM_OP_FFT && !loom__is_input(f) && s->op == LOOM_OP_SCALAR &&
            loom__is_float((loom_dtype)s->dtype)) {
            *scale = s;
            return f;
        }
    }
    return NULL;
}

static void scaled_inputs_in_memory(loom_walk *w, int i)
{
    const loom_array *scale;
    inputs_in_memory(w, loom__walk_at(w, scaled_fft(w->v[i].node, &scale)));
}

static int lower_scaled(const char *fn, loom_plan_builder *b, const loom_walk *w,
                        const int *roots, int nroots, bool persistent)
{
    (void)nroots;
    (void)persistent;
    const loom_walk_node *v = &w->v[roots[0]];
    const loom_array *scale, *f = scaled_fft(v->node, &scale);
    return lower_node(fn, b, w, f, v->buffer, scale, (const loom_array *const[]){f, v->node}, 2);
}

static const loom_lowering scaled = {LOOM_PLACE_ALONE, scaled_inputs_in_memory, lower_scaled,
                                     NULL};

/* Whether a store callback applies the scale of f's result: no input copy to fold it into,
 * a complex result, and the decision table says it beats a kernel after the transform. */
static bool callback_wins(const loom_walk *w, const loom_array *f)
{
    const loom_array *a = f->inputs[0];
    int64_t batch = 1;
    for (int i = 0; i < a->ndim - (int)f->param.fft.rank; i++)
        batch *= a->shape[i];
    return f->param.fft.type != LOOM_FFT_C2R &&
           loom__fft_callback_wins(w->options ? w->options->fft_callbacks : 0,
                                   (int)f->param.fft.type, a->dtype, batch);
}

/* The FFT's one consumer multiplies it by a real scalar in its own dtype, and the transform
 * copies its input anyway (zero-padding, complex-to-real): the scale is applied in that copy;
 * or it makes none and a store callback wins. */
static const loom_lowering *epilogue(const loom_walk *w, int consumer)
{
    const loom_array *y = w->v[consumer].node, *scale, *f = scaled_fft(y, &scale);
    if (!f)
        return NULL;
    const loom_walk_node *fv = &w->v[loom__walk_at(w, f)];
    bool sole = fv->nconsumers == 1 && !fv->requested;
    bool foldable = needs_copy(f) || callback_wins(w, f);
    return sole && y->dtype == f->dtype && y->cdtype == f->dtype && foldable ? &scaled : NULL;
}

const loom_lowering loom__lower_fft = {LOOM_PLACE_ALONE, inputs_in_memory, lower, epilogue};
