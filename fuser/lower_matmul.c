/* Lowering of MATMUL nodes to one cuBLAS strided batched GEMM (fuser/lower.h).
 *
 * cuBLAS is column-major and Loom row-major: the row-major product C = A B is the column-major
 * product C^T = B^T A^T, so B goes first. An operand whose view cuBLAS can describe (rows or
 * columns at unit stride, one uniform stride between batch members, 0 for a broadcast batch) is
 * passed as it lies, transposed or not (conjugated and transposed: op C); any other operand is
 * first written to memory by an elementwise kernel. Scalar factors of the product or of an
 * operand (s * ((t * a) @ b)) become cuBLAS's alpha. */
#include "lower.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* cuBLAS's documented workspace for Hopper (4 MiB is enough before it); one size for every
 * device keeps plans device-independent. */
#define GEMM_WORKSPACE_BYTES ((size_t)32 << 20)

/* How cuBLAS reads one operand of a gemm. */
typedef struct operand {
    int buffer;
    size_t byte_offset;
    char op;             /* 'N': rows at unit stride (row-major), 'T': columns (a transpose),
                            'C': columns, conjugated */
    int64_t ld, batch_stride;
} operand;

static bool fits_int(int64_t v)
{
    return v >= 0 && v <= INT_MAX;
}

/* Describes a rows x cols matrix (batched over the leading axes) at the given element strides,
 * or returns false when cuBLAS cannot read it in place. */
static bool describe(int ndim, const int64_t *shape, const int64_t *strides, operand *o)
{
    int64_t rows = shape[ndim - 2], cols = shape[ndim - 1];
    int64_t sr = strides[ndim - 2], sc = strides[ndim - 1];
    if ((cols == 1 || sc == 1) && (rows == 1 || sr >= cols)) {
        o->op = 'N';
        o->ld = rows == 1 ? (cols > 1 ? cols : 1) : sr;
    } else if ((rows == 1 || sr == 1) && (cols == 1 || sc >= rows)) {
        o->op = 'T';
        o->ld = cols == 1 ? (rows > 1 ? rows : 1) : sc;
    } else {
        return false;
    }
    /* Batch members one stride apart in C order over the batch axes (size-1 axes aside). */
    int64_t stride = -1, span = 1;
    for (int i = ndim - 3; i >= 0; i--) {
        if (shape[i] == 1)
            continue;
        if (stride < 0)
            stride = strides[i];
        else if (strides[i] != stride * span)
            return false;
        span *= shape[i];
    }
    o->batch_stride = stride < 0 ? 0 : stride;
    return o->batch_stride >= 0 && fits_int(o->ld);
}

/* A conjugated view that cuBLAS reads transposed is passed as op C (conjugate transpose): the
 * Hermitian transpose of a matrix costs no copy, written either way. conj(transpose(x)) reads
 * the view of x; transpose(conj(x)), when nothing else reads conj(x), reads the same view over
 * x itself (conj(x) has x's layout). Returns the view, and in *base the node holding its values
 * (a computed one is materialised); NULL when it does not apply. */
static const loom_array *conj_of_transposed(const loom_walk *w, const loom_array *a,
                                            const loom_array **base)
{
    if (loom__is_input(a) || !loom__is_complex((loom_dtype)a->dtype))
        return NULL;
    const loom_array *view = a, *c = a->inputs[0];
    if (a->op == LOOM_OP_CONJ)
        view = c, c = a; /* conj(transpose(x)) */
    else if (a->op != LOOM_OP_VIEW || loom__is_input(c) || c->op != LOOM_OP_CONJ)
        return NULL;
    operand o;
    if (loom__is_input(view) || view->op != LOOM_OP_VIEW || view->dtype != a->dtype ||
        !describe(view->ndim, view->shape, view->strides, &o) || o.op != 'T')
        return NULL;
    if (c != a) { /* transpose(conj(x)): conj(x) is read through the view only, x lies as it is */
        const loom_walk_node *cv = &w->v[loom__walk_at(w, c)];
        const loom_array *x = c->inputs[0];
        if (cv->nconsumers != 1 || cv->requested || cv->materialize ||
            (!loom__is_input(x) && x->op == LOOM_OP_VIEW))
            return NULL;
        *base = x;
        return view;
    }
    *base = view->inputs[0];
    return view;
}

/* An operand t * x (t a scalar, x of the operand's dtype and shape) that nothing else reads:
 * cuBLAS reads x and t joins alpha. Returns x and sets *factor, else returns a. */
static const loom_array *unscaled(const loom_walk *w, const loom_array *a,
                                  const loom_array **factor)
{
    *factor = NULL;
    if (loom__is_input(a) || a->op != LOOM_OP_MULTIPLY || a->cdtype != a->dtype)
        return a;
    const loom_walk_node *v = &w->v[loom__walk_at(w, a)];
    if (v->nconsumers != 1 || v->requested || v->materialize)
        return a;
    for (int k = 0; k < 2; k++) {
        const loom_array *t = a->inputs[k], *x = a->inputs[1 - k];
        if (t->op == LOOM_OP_SCALAR && x->op != LOOM_OP_SCALAR && x->dtype == a->dtype &&
            x->ndim == a->ndim) {
            *factor = t;
            return x;
        }
    }
    return a;
}

void loom__gemm_alpha(loom_gemm_args *g, const loom_walk *w)
{
    double re = 1, im = 0;
    for (int i = 0; i < g->nfactors; i++) {
        const loom_array *t = w->v[g->factor_node[i]].node;
        double r = re * t->param.value.re - im * t->param.value.im;
        im = re * t->param.value.im + im * t->param.value.re;
        re = r;
    }
    g->alpha_re = re;
    g->alpha_im = im;
}

/* The operand as a view of a value in memory: its layout and byte offset. */
static bool in_place(const loom_walk *w, const loom_array *a, operand *o)
{
    int64_t strides[LOOM_MAXDIMS];
    const loom_walk_node *v = &w->v[loom__walk_at(w, a)];
    const loom_array *base, *cv = v->materialize ? NULL : conj_of_transposed(w, a, &base);
    if (cv) {
        o->byte_offset = (size_t)cv->offset * loom_dtype_size((loom_dtype)cv->dtype);
        if (!describe(cv->ndim, cv->shape, cv->strides, o))
            return false;
        o->op = 'C';
        return true;
    }
    if (loom__is_input(a) || v->materialize) {
        loom__contiguous_strides(a->ndim, a->shape, strides);
        o->byte_offset = 0;
    } else if (a->op == LOOM_OP_VIEW) {
        for (int i = 0; i < a->ndim; i++)
            strides[i] = a->strides[i];
        o->byte_offset = (size_t)a->offset * loom_dtype_size((loom_dtype)a->dtype);
    } else {
        return false;
    }
    return describe(a->ndim, a->shape, strides, o);
}

/* Each operand is read in place when its view allows, from its base in memory; otherwise the
 * operand itself is materialised (contiguous, so then it always can be). */
static void operands_in_memory(loom_walk *w, int i)
{
    for (int k = 0; k < 2; k++) {
        const loom_array *factor, *a = unscaled(w, w->v[i].node->inputs[k], &factor);
        if (factor)
            w->v[loom__walk_at(w, w->v[i].node->inputs[k])].read_through = true;
        if (loom__is_input(a))
            continue;
        operand o;
        const loom_array *base;
        if (conj_of_transposed(w, a, &base)) {
            if (a->op == LOOM_OP_VIEW) /* transpose(conj(x)) */
                w->v[loom__walk_at(w, a->inputs[0])].read_through = true;
            if (!loom__is_input(base))
                w->v[loom__walk_at(w, base)].materialize = true;
        } else if (a->op == LOOM_OP_VIEW && describe(a->ndim, a->shape, a->strides, &o)) {
            if (!loom__is_input(a->inputs[0]))
                w->v[loom__walk_at(w, a->inputs[0])].materialize = true;
        } else {
            w->v[loom__walk_at(w, a)].materialize = true;
        }
    }
}

static int buffer_of(const loom_walk *w, const loom_array *a)
{
    int b = w->v[loom__walk_at(w, a)].buffer;
    const loom_array *base;
    if (b < 0 && conj_of_transposed(w, a, &base))
        return w->v[loom__walk_at(w, base)].buffer;
    if (b < 0 && a->op == LOOM_OP_VIEW)
        b = w->v[loom__walk_at(w, a->inputs[0])].buffer;
    return b;
}

/* What a GEMM step computes besides the product. */
typedef struct gemm_extras {
    bool beta_one;             /* the output buffer already holds an addend (a @ b + c) */
    const loom_array *scale;   /* a scalar factor of the product, or NULL */
    const loom_array *bias;    /* cublasLt's epilogue: a vector added to every row, or NULL */
    bool relu;                 /* ... then relu */
} gemm_extras;

/* Appends the GEMM computing MATMUL node mm (with x's extras) into plan buffer out.
 * nodes/summary: what the step computes, for DOT and logs. */
static int emit_gemm(const char *fn, loom_plan_builder *b, const loom_walk *w,
                     const loom_array *mm, int out, gemm_extras x,
                     const loom_array *const *nodes, int nnodes, const char *summary)
{
    const loom_array *factors[3] = {x.scale, NULL, NULL};
    const loom_array *a = unscaled(w, mm->inputs[0], &factors[1]);
    const loom_array *bm = unscaled(w, mm->inputs[1], &factors[2]);
    int nd = mm->ndim;
    int64_t m = mm->shape[nd - 2], n = mm->shape[nd - 1], k = a->shape[nd - 1];
    if (mm->size == 0)
        return 0; /* nothing to write */
    operand oa, ob;
    if (!in_place(w, a, &oa) || !in_place(w, bm, &ob)) {
        loom__error(LOOM_ERR_INVALID, fn, "internal error: a matmul operand is not in memory");
        return -1;
    }
    oa.buffer = buffer_of(w, a);
    ob.buffer = buffer_of(w, bm);
    int64_t batch = mm->size / (m * n);
    if (!fits_int(m) || !fits_int(n) || !fits_int(k) || !fits_int(batch)) {
        loom__error(LOOM_ERR_UNSUPPORTED, fn,
                    "matmul of (%lld,%lld) by (%lld,%lld) in %lld batches exceeds cuBLAS's 32-bit sizes",
                    (long long)m, (long long)k, (long long)k, (long long)n, (long long)batch);
        return -1;
    }
    loom_step *s = loom__plan_step(b, fn, LOOM_STEP_LIBRARY);
    if (!s)
        return -1;
    loom_libcall *l = &s->lib;
    l->routine = x.bias ? LOOM_LIB_CUBLASLT_MATMUL : LOOM_LIB_CUBLAS_GEMM;
    l->nbuffers = x.bias ? 4 : 3;
    if (x.bias)
        l->buffer[3] = w->v[loom__walk_at(w, x.bias)].buffer;
    l->buffer[0] = ob.buffer;
    l->byte_offset[0] = ob.byte_offset;
    l->buffer[1] = oa.buffer;
    l->byte_offset[1] = oa.byte_offset;
    l->buffer[2] = out;
    l->args.gemm = (loom_gemm_args){
        .dtype = mm->dtype, .op_a = ob.op, .op_b = oa.op, .beta_one = x.beta_one,
        .epilogue = !x.bias ? LOOM_EPILOGUE_NONE : x.relu ? LOOM_EPILOGUE_RELU_BIAS
                                                           : LOOM_EPILOGUE_BIAS,
        .m = n, .n = m, .k = k, .batch = batch,
        .lda = ob.ld, .ldb = oa.ld, .ldc = n > 1 ? n : 1,
        .stride_a = ob.batch_stride, .stride_b = oa.batch_stride, .stride_c = m * n,
    };
    for (int i = 0; i < 3; i++)
        if (factors[i])
            l->args.gemm.factor_node[l->args.gemm.nfactors++] = loom__walk_at(w, factors[i]);
    loom__gemm_alpha(&l->args.gemm, w);
    int step = loom__plan_next_step(b) - 1;
    l->workspace_bytes = GEMM_WORKSPACE_BYTES;
    l->workspace = loom__plan_scratch(b, fn, l->workspace_bytes, step, step);
    if (l->workspace < 0)
        return -1;
    return loom__step_describe(b, fn, step, summary, nodes, nnodes);
}

static int lower(const char *fn, loom_plan_builder *b, const loom_walk *w, const int *roots,
                 int nroots, bool persistent)
{
    (void)nroots;
    (void)persistent;
    const loom_walk_node *v = &w->v[roots[0]];
    return emit_gemm(fn, b, w, v->node, v->buffer, (gemm_extras){0},
                     (const loom_array *const[]){v->node}, 1, "matmul");
}

/* ---- a @ b + c: cuBLAS's beta ---- */

/* The MATMUL input of a binary consumer lowered with beta or alpha (a @ b + c, s * (a @ b)),
 * and its other input (the addend, the factor). */
static const loom_array *product_of(const loom_array *y, const loom_array **other)
{
    int slot = y->inputs[0]->op == LOOM_OP_MATMUL && !loom__is_input(y->inputs[0]) ? 0 : 1;
    *other = y->inputs[1 - slot];
    return y->inputs[slot];
}

static void beta_inputs_in_memory(loom_walk *w, int i)
{
    const loom_array *c, *mm = product_of(w->v[i].node, &c);
    operands_in_memory(w, loom__walk_at(w, mm));
    if (!loom__is_input(c))
        w->v[loom__walk_at(w, c)].materialize = true;
}

/* The addend is copied into the result's buffer, then the GEMM adds the product to it. */
static int lower_beta(const char *fn, loom_plan_builder *b, const loom_walk *w, const int *roots,
                      int nroots, bool persistent)
{
    (void)nroots;
    (void)persistent;
    const loom_walk_node *v = &w->v[roots[0]];
    const loom_array *c, *mm = product_of(v->node, &c);
    if (mm->size == 0)
        return 0;
    if (loom__lower_copy_in(b, fn, w, c, v->buffer, 0))
        return -1;
    return emit_gemm(fn, b, w, mm, v->buffer, (gemm_extras){.beta_one = true},
                     (const loom_array *const[]){mm, v->node}, 2, "matmul add (beta)");
}

static const loom_lowering beta = {LOOM_PLACE_ALONE, beta_inputs_in_memory, lower_beta, NULL};

/* ---- s * (a @ b): cuBLAS's alpha ---- */

static void alpha_inputs_in_memory(loom_walk *w, int i)
{
    const loom_array *alpha;
    operands_in_memory(w, loom__walk_at(w, product_of(w->v[i].node, &alpha)));
}

static int lower_alpha(const char *fn, loom_plan_builder *b, const loom_walk *w, const int *roots,
                       int nroots, bool persistent)
{
    (void)nroots;
    (void)persistent;
    const loom_walk_node *v = &w->v[roots[0]];
    const loom_array *alpha, *mm = product_of(v->node, &alpha);
    return emit_gemm(fn, b, w, mm, v->buffer, (gemm_extras){.scale = alpha},
                     (const loom_array *const[]){mm, v->node}, 2, "matmul scale (alpha)");
}

static const loom_lowering scaled = {LOOM_PLACE_ALONE, alpha_inputs_in_memory, lower_alpha, NULL};

/* ---- relu(a @ b + bias): cublasLt's epilogue, where a measured probe says it wins ---- */

/* The addition of relu(add) (maximum(add, 0), 0 a scalar), or NULL. */
static const loom_array *relu_input(const loom_array *y)
{
    if (y->op != LOOM_OP_MAXIMUM || y->ninputs != 2)
        return NULL;
    for (int k = 0; k < 2; k++) {
        const loom_array *z = y->inputs[1 - k];
        if (z->op == LOOM_OP_SCALAR && z->param.value.re == 0 && z->param.value.im == 0 &&
            y->inputs[k]->dtype == y->dtype)
            return y->inputs[k];
    }
    return NULL;
}

/* The vector a bias is, broadcast along the rows of a 2-D product: a 1-D value, read through
 * the broadcast view that adding it makes (rows at stride 0), or NULL. */
static const loom_array *bias_vector(const loom_array *bias)
{
    if (!loom__is_input(bias) && bias->op == LOOM_OP_VIEW && bias->ndim == 2 &&
        bias->offset == 0 && bias->strides[0] == 0 && bias->strides[1] == 1)
        bias = bias->inputs[0];
    bool vector = loom__is_input(bias) || (bias->op != LOOM_OP_VIEW && bias->op != LOOM_OP_SCALAR);
    return vector && bias->ndim == 1 ? bias : NULL;
}

/* The root's product, bias and whether it ends in relu (root: the addition or its relu). */
static const loom_array *biased_product(const loom_array *root, const loom_array **bias,
                                        bool *relu)
{
    const loom_array *add = relu_input(root);
    *relu = add != NULL;
    const loom_array *mm = product_of(add ? add : root, bias);
    *bias = bias_vector(*bias);
    return mm;
}

static void lt_inputs_in_memory(loom_walk *w, int i)
{
    bool relu;
    const loom_array *bias, *mm = biased_product(w->v[i].node, &bias, &relu);
    operands_in_memory(w, loom__walk_at(w, mm));
    loom__contiguous_in_memory(w, bias);
}

static int lower_lt(const char *fn, loom_plan_builder *b, const loom_walk *w, const int *roots,
                    int nroots, bool persistent)
{
    (void)nroots;
    (void)persistent;
    const loom_walk_node *v = &w->v[roots[0]];
    bool relu;
    const loom_array *bias, *mm = biased_product(v->node, &bias, &relu);
    const loom_array *nodes[3] = {mm, relu ? relu_input(v->node) : v->node, v->node};
    return emit_gemm(fn, b, w, mm, v->buffer, (gemm_extras){.bias = bias, .relu = relu}, nodes,
                     relu ? 3 : 2, relu ? "matmul bias relu (cublasLt epilogue)"
                                        : "matmul bias (cublasLt epilogue)");
}

static const loom_lowering lt_relu = {LOOM_PLACE_ALONE, lt_inputs_in_memory, lower_lt, NULL};

/* The bias's relu, absorbed when the probe chose the relu epilogue. */
static const loom_lowering *lt_relu_epilogue(const loom_walk *w, int consumer)
{
    const loom_array *add = relu_input(w->v[consumer].node);
    return add && w->v[loom__walk_at(w, add)].nconsumers == 1 &&
                   !w->v[loom__walk_at(w, add)].requested
               ? &lt_relu
               : NULL;
}

static const loom_lowering lt_bias = {LOOM_PLACE_ALONE, lt_inputs_in_memory, lower_lt,
                                      lt_relu_epilogue};
/* The same, for an addition whose consumers are not one relu (that decision was measured
 * without relu). */
static const loom_lowering lt_bias_only = {LOOM_PLACE_ALONE, lt_inputs_in_memory, lower_lt,
                                           NULL};

/* add = mm + bias with bias a vector along the product's last axis, of its dtype, in memory
 * contiguously: cublasLt's bias epilogue applies when the probe measures it faster than the
 * plain GEMM and Loom's kernel after it, for this shape and for relu when add's one consumer
 * is relu(add). Returns that lowering or NULL. */
static const loom_lowering *bias_epilogue(const loom_walk *w, const loom_array *add,
                                          const loom_array *mm, const loom_array *bias)
{
    const loom_fuse_options *o = w->options;
    loom_dtype dt = (loom_dtype)mm->dtype;
    if (!o || o->lt_epilogue == 0 || (o->lt_epilogue < 0 && !o->epilogue_wins) || mm->ndim != 2 ||
        mm->size == 0 ||
        (dt != LOOM_FLOAT32 && dt != LOOM_FLOAT16 && dt != LOOM_BFLOAT16) ||
        bias->dtype != mm->dtype || !bias_vector(bias) ||
        bias_vector(bias)->shape[0] != mm->shape[1])
        return NULL;
    const loom_walk_node *av = &w->v[loom__walk_at(w, add)];
    bool relu = false;
    if (av->nconsumers == 1 && !av->requested)
        for (int i = loom__walk_at(w, add) + 1; i < w->n && !relu; i++)
            relu = relu_input(w->v[i].node) == add;
    /* the shape class the probe measures: contiguous operands, as most products read */
    const loom_array *a = mm->inputs[0];
    loom_gemm_args g = {.dtype = mm->dtype, .op_a = 'N', .op_b = 'N',
                        .epilogue = relu ? LOOM_EPILOGUE_RELU_BIAS : LOOM_EPILOGUE_BIAS,
                        .m = mm->shape[1], .n = mm->shape[0], .k = a->shape[1], .batch = 1,
                        .lda = mm->shape[1], .ldb = a->shape[1], .ldc = mm->shape[1]};
    if (o->lt_epilogue < 0 && !o->epilogue_wins(mm->device, &g))
        return NULL;
    return relu ? &lt_bias : &lt_bias_only;
}

/* The product feeds only this consumer, which computes in the product's dtype. */
static bool sole_same_dtype_input(const loom_walk *w, const loom_array *consumer,
                                  const loom_array *mm)
{
    if (mm->op != LOOM_OP_MATMUL || loom__is_input(mm))
        return false;
    const loom_walk_node *mv = &w->v[loom__walk_at(w, mm)];
    return consumer->dtype == mm->dtype && consumer->cdtype == mm->dtype &&
           mv->nconsumers == 1 && !mv->requested;
}

/* A product consumed only by an addition of an addend of its shape and dtype that lies in
 * memory contiguously (not a broadcast: cuBLAS's C cannot be one) is computed with beta = 1;
 * of a bias vector, with cublasLt's epilogue where it measures faster;
 * one consumed only by a multiplication by a scalar (a 0-d value, real or complex) is computed
 * with that scalar as alpha. */
static const loom_lowering *epilogue(const loom_walk *w, int consumer)
{
    const loom_array *y = w->v[consumer].node, *other;
    if (y->ninputs != 2)
        return NULL;
    const loom_array *mm = product_of(y, &other);
    if (y->op == LOOM_OP_MULTIPLY)
        return other->op == LOOM_OP_SCALAR && sole_same_dtype_input(w, y, mm) ? &scaled : NULL;
    if (y->op != LOOM_OP_ADD)
        return NULL;
    if (!sole_same_dtype_input(w, y, mm))
        return NULL;
    bool same = other->dtype == mm->dtype && other->ndim == mm->ndim && other->op != LOOM_OP_VIEW &&
                other->op != LOOM_OP_SCALAR &&
                memcmp(other->shape, mm->shape, (size_t)mm->ndim * sizeof *mm->shape) == 0;
    return same ? &beta : bias_epilogue(w, y, mm, other);
}

const loom_lowering loom__lower_matmul = {LOOM_PLACE_ALONE, operands_in_memory, lower, epilogue};
