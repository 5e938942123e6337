/* Lowering of SORT and ARGSORT nodes: one CUB radix sort step (kernels/loom_sort.cu) on two
 * pairs of buffers that it overwrites (CUB's DoubleBuffer form). A key or index input that a
 * kernel of this plan wrote for this sort alone is sorted where it lies, so the producer's
 * kernel writes straight into the sort's first buffer; anything else (an array in memory, a
 * value read elsewhere too) is copied first. */
#include "lower.h"

/* CUB's temporary storage for one row of n keys, an upper bound of what its onesweep radix sort
 * asks for: lookback counters of 256 digits x 8 bytes per tile of at least 2048 keys, over a
 * portion of at most 2^28 keys, plus 1 MiB for the histograms and alignment. Many rows (one
 * block per row) need almost nothing. The runner checks CUB's own query against it. */
static size_t workspace_bytes(int64_t n, int64_t rows)
{
    int64_t portion = n < (1 << 28) ? n : (1 << 28);
    return ((size_t)1 << 20) + (rows == 1 ? (size_t)portion : 0);
}

/* Whether the sort may overwrite a's buffer: a temporary that only this sort reads. */
static bool owned_by_sort(const loom_plan_builder *b, const loom_walk *w, const loom_array *a)
{
    const loom_walk_node *v = &w->v[loom__walk_at(w, a)];
    return v->buffer >= 0 && b->plan->buffers[v->buffer].role == LOOM_BUF_TEMP &&
           v->nconsumers == 1 && !v->requested;
}

/* The pair of buffers sorting src: src itself when the sort owns it (the other being `other`),
 * else a copy of src into `other` (then the first) and a scratch buffer. */
static int pair(const char *fn, loom_plan_builder *b, const loom_walk *w, const loom_array *src,
                int other, size_t bytes, int sort_step, int *first, int *second)
{
    int in = w->v[loom__walk_at(w, src)].buffer;
    if (owned_by_sort(b, w, src)) {
        *first = in;
        *second = other >= 0 ? other : loom__plan_scratch(b, fn, bytes, sort_step, sort_step);
        return *second < 0 ? -1 : 0;
    }
    int copy = loom__plan_next_step(b);
    int dst = other >= 0 ? other : loom__plan_scratch(b, fn, bytes, copy, sort_step);
    loom_step *s = dst < 0 ? NULL : loom__plan_step(b, fn, LOOM_STEP_COPY);
    if (!s)
        return -1;
    s->copy = (loom_copy){.dst = dst, .src = in, .bytes = bytes};
    *first = dst;
    *second = loom__plan_scratch(b, fn, bytes, sort_step, sort_step);
    if (*second < 0)
        return -1;
    return loom__step_describe(b, fn, copy, "copy for sort", (const loom_array *const[]){src}, 1);
}

static int lower(const char *fn, loom_plan_builder *b, const loom_walk *w, const int *roots,
                 int nroots, bool persistent)
{
    (void)nroots;
    (void)persistent;
    const loom_walk_node *v = &w->v[roots[0]];
    const loom_array *node = v->node, *keys = node->inputs[0];
    if (node->size == 0)
        return 0;
    bool arg = node->op == LOOM_OP_ARGSORT;
    int64_t n = node->shape[node->ndim - 1];
    size_t kbytes = (size_t)node->size * loom_dtype_size((loom_dtype)keys->dtype);
    size_t vbytes = (size_t)node->size * sizeof(int64_t);
    /* Copies come first: the sort step's index is known once they are counted. */
    bool kcopy = !owned_by_sort(b, w, keys), vcopy = arg && !owned_by_sort(b, w, node->inputs[1]);
    int sort_step = loom__plan_next_step(b) + kcopy + vcopy;
    int buf[4] = {-1, -1, -1, -1};
    int out;
    if (arg) {
        out = vcopy ? 2 : 3;
        if (pair(fn, b, w, keys, -1, kbytes, sort_step, &buf[0], &buf[1]) ||
            pair(fn, b, w, node->inputs[1], v->buffer, vbytes, sort_step, &buf[2], &buf[3]))
            return -1;
    } else {
        out = kcopy ? 0 : 1;
        if (pair(fn, b, w, keys, v->buffer, kbytes, sort_step, &buf[0], &buf[1]))
            return -1;
    }
    loom_libcall *l = loom__plan_library_step(b, fn, LOOM_LIB_CUB_SORT, buf, arg ? 4 : 2);
    if (!l)
        return -1;
    l->args.sort = (loom_sort_args){.dtype = keys->dtype, .out = (int8_t)out,
                                    .bits = (int8_t)node->param.sort.key_bits, .n = n,
                                    .rows = node->size / n};
    l->workspace_bytes = workspace_bytes(n, node->size / n);
    l->workspace = loom__plan_scratch(b, fn, l->workspace_bytes, sort_step, sort_step);
    if (l->workspace < 0)
        return -1;
    return loom__step_describe(b, fn, sort_step, arg ? "argsort" : "sort",
                               (const loom_array *const[]){node}, 1);
}

static void inputs_in_memory(loom_walk *w, int i)
{
    const loom_array *node = w->v[i].node;
    for (int k = 0; k < node->ninputs; k++)
        loom__contiguous_in_memory(w, node->inputs[k]);
}

const loom_lowering loom__lower_sort = {LOOM_PLACE_ALONE, inputs_in_memory, lower, NULL};
