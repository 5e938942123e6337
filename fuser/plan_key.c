/* The plan key: the bytes that determine a plan, made from a walk; and the structure check that
 * finds a graph's cached plan from its requested arrays alone, comparing the graph with a key
 * node by node without walking it. */
#include "strbuf.h"
#include "walk.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Where key bytes go: appended to sb, or compared with expect[at..len) (a match). */
typedef struct key_sink {
    loom_strbuf *sb;
    const char *expect;
    size_t at, len;
    bool differs;
} key_sink;

static void put(key_sink *k, const void *p, size_t n)
{
    if (n == 0)
        return;
    if (k->sb) {
        loom__sb_append(k->sb, p, n);
        return;
    }
    if (k->differs || n > k->len - k->at || memcmp(k->expect + k->at, p, n) != 0) {
        k->differs = true;
        return;
    }
    k->at += n;
}

static void put_options(key_sink *k, const loom_fuse_options *o)
{
    int32_t opts[7] = {o->fuse,        o->max_ops,       o->max_inputs, o->chain_depth,
                       o->lt_epilogue, o->fft_callbacks, o->linalg_loop};
    put(k, opts, sizeof opts);
}

/* Node v's part of the key; at[k] is the walk position of its input k. */
static void put_node(key_sink *k, const loom_walk_node *v, const int32_t *at, bool callbacks)
{
    const loom_array *a = v->node;
    bool input = loom__is_input(a);
    struct {
        uint16_t op;
        int8_t dtype, cdtype;
        uint8_t weak, requested, input, ninputs;
        int32_t ndim;
    } head = {a->op, a->dtype, a->cdtype, a->weak, v->requested, input,
              input ? 0 : a->ninputs, a->ndim};
    put(k, &head, sizeof head);
    put(k, a->shape, (size_t)a->ndim * sizeof *a->shape);
    if (input) {
        /* Vector loads depend on the address's alignment. */
        uint8_t align = a->buffer ? (uint8_t)((uintptr_t)a->buffer->ptr % 256) : 0;
        put(k, &align, 1);
        return;
    }
    put(k, at, (size_t)a->ninputs * sizeof *at);
    if (a->op == LOOM_OP_VIEW) {
        put(k, a->strides, (size_t)a->ndim * sizeof *a->strides);
        put(k, &a->offset, sizeof a->offset);
    }
    if (a->op == LOOM_OP_MULTIPLY && callbacks) {
        /* a scale an FFT step may apply in a store callback, compiled into the cuFFT plan
         * (fuser/lower_fft.c): plans share it only for equal values (elsewhere the scale is
         * a kernel argument, refreshed on rebind) */
        for (int i = 0; i < 2; i++)
            if (a->inputs[i]->op == LOOM_OP_FFT && a->inputs[1 - i]->op == LOOM_OP_SCALAR)
                put(k, &a->inputs[1 - i]->param.value.re, sizeof(double));
    }
    size_t plen;
    const void *param = loom__structural_params(a, &plen);
    if (param)
        put(k, param, plen);
    else if (a->op == LOOM_OP_LINSPACE) /* the last element's special case */
        put(k, &a->param.linspace.num, 2 * sizeof(int64_t));
}

/* The walk positions of node i's inputs, appended to positions. */
static void put_inputs(const loom_walk *w, int i, loom_strbuf *positions)
{
    const loom_array *a = w->v[i].node;
    for (int k = 0; !loom__is_input(a) && k < a->ninputs; k++) {
        int32_t at = loom__walk_at(w, a->inputs[k]);
        loom__sb_append(positions, &at, sizeof at);
    }
}

int loom__plan_key(const loom_walk *w, const loom_fuse_options *o, char **key, size_t *len)
{
    loom_strbuf sb = {0}, positions = {0};
    sb.cap = (size_t)w->n * 48 + 64; /* most nodes need less: one allocation, no regrowth */
    sb.data = loom__malloc(sb.cap);
    sb.failed = !sb.data;
    key_sink k = {.sb = &sb};
    put_options(&k, o);
    const bool callbacks = loom__fft_callbacks_possible(o->fft_callbacks);
    for (int i = 0; i < w->n && !positions.failed; i++) {
        positions.len = 0;
        put_inputs(w, i, &positions);
        if (!positions.failed)
            put_node(&k, &w->v[i], (const int32_t *)positions.data, callbacks);
    }
    sb.failed = sb.failed || positions.failed;
    loom__sb_free(&positions);
    *len = sb.len;
    *key = loom__sb_take(&sb);
    return *key ? 0 : -1;
}

/* ---- finding a graph's plan from its requested arrays ---- */

struct loom_plan_sig {
    char *key;
    size_t len;
    int n, nroots;
    int32_t *root_at;   /* walk position of each requested array */
    size_t *record_at;  /* n + 1 offsets: where each node's part of the key starts */
    int32_t *inputs_at; /* the walk positions of every node's inputs, node after node */
    int32_t *first_input; /* n + 1 offsets into inputs_at */
    loom_walk_node *v;  /* the nodes of the last match */
};

uint64_t loom__plan_roots_hash(loom_array *const *arrays, int n)
{
    uint64_t h = LOOM__FNV1A64_INIT ^ (uint64_t)n;
    for (int r = 0; r < n; r++) {
        h = (h ^ arrays[r]->hash) * 0x100000001b3ull;
        /* the shape too, so that sizes of one structure do not share a hash chain */
        h = loom__fnv1a64(arrays[r]->shape, (size_t)arrays[r]->ndim * sizeof(int64_t), h);
    }
    return h;
}

void loom__plan_sig_free(loom_plan_sig *s)
{
    if (!s)
        return;
    free(s->key);
    free(s->root_at);
    free(s->record_at);
    free(s->inputs_at);
    free(s->first_input);
    free(s->v);
    free(s);
}

loom_plan_sig *loom__plan_sig_new(const loom_walk *w, const loom_fuse_options *o)
{
    loom_plan_sig *s = loom__calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->n = w->n;
    s->nroots = w->nroots;
    loom_strbuf sb = {0}, positions = {0};
    s->root_at = loom__malloc(((size_t)w->nroots + 1) * sizeof *s->root_at);
    s->record_at = loom__malloc(((size_t)w->n + 1) * sizeof *s->record_at);
    s->first_input = loom__malloc(((size_t)w->n + 1) * sizeof *s->first_input);
    s->v = loom__calloc((size_t)w->n + 1, sizeof *s->v);
    if (!s->root_at || !s->record_at || !s->first_input || !s->v) {
        loom__plan_sig_free(s);
        return NULL;
    }
    for (int r = 0; r < w->nroots; r++)
        s->root_at[r] = loom__walk_at(w, w->roots[r]);
    key_sink k = {.sb = &sb};
    put_options(&k, o);
    const bool callbacks = loom__fft_callbacks_possible(o->fft_callbacks);
    for (int i = 0; i < w->n && !positions.failed; i++) {
        s->record_at[i] = sb.len;
        size_t from = positions.len;
        s->first_input[i] = (int32_t)(from / sizeof(int32_t));
        put_inputs(w, i, &positions);
        if (!positions.failed)
            put_node(&k, &w->v[i], (const int32_t *)(positions.data + from), callbacks);
    }
    s->record_at[w->n] = sb.len;
    s->first_input[w->n] = (int32_t)(positions.len / sizeof(int32_t));
    s->len = sb.len;
    s->key = loom__sb_take(&sb);
    bool failed = positions.failed;
    s->inputs_at = positions.len ? (int32_t *)loom__sb_take(&positions) : NULL;
    loom__sb_free(&positions);
    if (!s->key || failed) {
        loom__plan_sig_free(s);
        return NULL;
    }
    return s;
}

const char *loom__plan_sig_key(const loom_plan_sig *s, size_t *len)
{
    *len = s->len;
    return s->key;
}

/* Nodes take their walk position in the match numbered epoch: a node met at a second position
 * is a graph that shares a value where the key's graph has two (x * x against x * y). */
static uint32_t epoch;

static bool place(loom_plan_sig *s, int at, loom_array *a)
{
    loom_walk_node *v = &s->v[at];
    if (v->node)
        return v->node == a;
    if (a->walk_mark == epoch)
        return false;
    a->walk_mark = epoch;
    v->node = a;
    return true;
}

bool loom__plan_sig_match(loom_plan_sig *s, loom_array *const *arrays, int n,
                          const loom_fuse_options *o, loom_walk *w)
{
    if (n != s->nroots)
        return false;
    if (++epoch == 0) /* 0 is every new node's mark */
        epoch = 1;
    memset(s->v, 0, (size_t)s->n * sizeof *s->v);
    for (int r = 0; r < n; r++) {
        if (!place(s, s->root_at[r], arrays[r]))
            return false;
        s->v[s->root_at[r]].requested = true;
    }
    key_sink k = {.expect = s->key, .len = s->len};
    put_options(&k, o);
    const bool callbacks = loom__fft_callbacks_possible(o->fft_callbacks);
    /* From the last position down: every node is requested or the input of a later one, so it
     * is placed before it is compared. */
    for (int i = s->n - 1; i >= 0 && !k.differs; i--) {
        loom_array *a = s->v[i].node;
        /* a host leaf's alignment is known only once it is uploaded: leave it to the walk */
        if (!a || (a->op == LOOM_OP_HOST && !a->buffer))
            return false;
        k.at = s->record_at[i];
        k.len = s->record_at[i + 1];
        const int32_t *at = s->inputs_at ? s->inputs_at + s->first_input[i] : NULL;
        put_node(&k, &s->v[i], at, callbacks);
        if (k.at != k.len)
            return false;
        for (int j = 0; !k.differs && !loom__is_input(a) && j < a->ninputs; j++)
            k.differs = !place(s, at[j], a->inputs[j]);
    }
    if (k.differs)
        return false;
    *w = (loom_walk){.n = s->n, .v = s->v, .borrowed = true, .roots = arrays, .nroots = n};
    return true;
}
