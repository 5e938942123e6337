/* Nodes: allocation, reference counting, structure hashing, scopes and queries. */
#include "internal.h"
#include "random_state.h"
#include "ukernel.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

const loom_opinfo loom__ops[LOOM_OP_COUNT] = {
#define X(e, name, arity, kind) [LOOM_OP_##e] = {name, arity, LOOM_OPK_##kind},
#include "ops.def"
#undef X
};

/* ---- shape checks ---- */

static void too_big_error(const char *fn, int ndim, const int64_t *shape, loom_dtype dtype)
{
    char buf[512];
    loom__error(LOOM_ERR_INVALID, fn,
                "array is too big; `arr.size * arr.dtype.itemsize` is larger than the maximum "
                "possible size (shape %s%s%s)",
                loom__fmt_shape(buf, sizeof buf, ndim, shape), dtype == LOOM_NO_DTYPE ? "" : ", ",
                dtype == LOOM_NO_DTYPE ? "" : loom_dtype_name(dtype));
}

/* NumPy's limit on every array, views included: the itemsize times every nonzero extent fits
 * in int64, so no byte count or byte offset computed from a node's shape can wrap. */
static bool too_big(loom_dtype dtype, int ndim, const int64_t *shape)
{
    int64_t bytes = (int64_t)loom_dtype_size(dtype);
    for (int i = 0; i < ndim; i++) /* an overflow check, not a division: every node pays it */
        if (shape[i] > 0 && __builtin_mul_overflow(bytes, shape[i], &bytes))
            return true;
    return false;
}

int loom__check_shape(const char *fn, int ndim, const int64_t *shape, int64_t *size_out)
{
    if (ndim < 0 || ndim > LOOM_MAXDIMS) {
        loom__error(LOOM_ERR_INVALID, fn, "ndim %d is out of range (0 to %d)", ndim, LOOM_MAXDIMS);
        return -1;
    }
    if (ndim > 0 && !shape) {
        loom__error(LOOM_ERR_INVALID, fn, "shape is NULL for ndim %d", ndim);
        return -1;
    }
    int64_t size = 1;
    bool empty = false;
    for (int i = 0; i < ndim; i++) {
        if (shape[i] < 0) {
            loom__error(LOOM_ERR_INVALID, fn, "negative dimensions are not allowed (axis %d is %lld)",
                        i, (long long)shape[i]);
            return -1;
        }
        if (shape[i] == 0)
            empty = true;
    }
    /* NumPy checks the nonzero extents even of an empty array: (0, 2^40, 2^40) is too big. */
    for (int i = 0; i < ndim; i++) {
        if (shape[i] != 0 && size > INT64_MAX / shape[i]) {
            too_big_error(fn, ndim, shape, LOOM_NO_DTYPE);
            return -1;
        }
        size *= shape[i] ? shape[i] : 1;
    }
    *size_out = empty ? 0 : size;
    return 0;
}

/* ---- scopes ---- */

typedef struct scope {
    loom_array **items;
    size_t len, cap;
} scope;

static _Thread_local scope *scopes;
static _Thread_local int scope_depth, scope_cap;

static int scope_push_item(scope *s, loom_array *a)
{
    if (s->len == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 64;
        loom_array **items = loom__realloc(s->items, cap * sizeof *items);
        if (!items)
            return -1;
        s->items = items;
        s->cap = cap;
    }
    s->items[s->len++] = a;
    return 0;
}

void loom_scope_begin(void)
{
    if (scope_depth == scope_cap) {
        int cap = scope_cap ? scope_cap * 2 : 8;
        scope *grown = loom__realloc(scopes, (size_t)cap * sizeof *grown);
        if (!grown) {
            loom__error(LOOM_ERR_OOM, "loom_scope_begin", "out of host memory");
            /* Still count the scope so begin/end stay paired; arrays made inside it fail. */
            scope_depth++;
            return;
        }
        scopes = grown;
        scope_cap = cap;
    }
    if (scope_depth < scope_cap)
        scopes[scope_depth] = (scope){0};
    scope_depth++;
}

void loom_scope_end(void)
{
    if (scope_depth == 0) {
        loom__error(LOOM_ERR_INVALID, "loom_scope_end", "no scope is open");
        return;
    }
    scope_depth--;
    if (scope_depth >= scope_cap)
        return; /* the scope that loom_scope_begin could not allocate */
    scope s = scopes[scope_depth];
    for (size_t i = s.len; i-- > 0;)
        loom_release(s.items[i]);
    free(s.items);
    if (scope_depth == 0) {
        free(scopes);
        scopes = NULL;
        scope_cap = 0;
    }
}

/* Gives the caller's new reference to scope `depth` (1: the outermost; 0: none, the caller
 * keeps it). A scope that could not be recorded owns nothing, so the reference is dropped and
 * the call fails rather than leak an array its caller believes owned. */
static loom_array *scope_adopt(loom_array *a, int depth)
{
    if (depth == 0)
        return a;
    if (depth > scope_cap || scope_push_item(&scopes[depth - 1], a) != 0) {
        loom_release(a);
        loom__error(LOOM_ERR_OOM, "loom_scope", "out of host memory: the scope cannot hold the array");
        return NULL;
    }
    return a;
}

loom_array *loom__adopt(loom_array *a)
{
    return a ? scope_adopt(a, scope_depth) : NULL;
}

loom_array *loom_keep(loom_array *a)
{
    if (!a)
        return NULL;
    return scope_adopt(loom_retain(a), scope_depth >= 2 ? scope_depth - 1 : 0);
}

/* ---- allocation and hashing ---- */

loom_array *loom__node_alloc(const char *fn, loom_op op, loom_dtype dtype, int ndim,
                             const int64_t *shape)
{
    int arity = loom__ops[op].arity;
    return loom__node_alloc_n(fn, op, dtype, ndim, shape, arity > 0 ? arity : 0);
}

loom_array *loom__node_alloc_n(const char *fn, loom_op op, loom_dtype dtype, int ndim,
                               const int64_t *shape, int ninputs)
{
    if (ninputs < 0 || ninputs > UINT16_MAX) {
        loom__error(LOOM_ERR_INVALID, fn, "%d inputs are too many for one node", ninputs);
        return NULL;
    }
    if (too_big(dtype, ndim, shape)) {
        too_big_error(fn, ndim, shape, dtype);
        return NULL;
    }
    loom_array *n = loom__node_memory(ndim, ninputs);
    if (!n) {
        loom__error(LOOM_ERR_OOM, fn, "out of host memory");
        return NULL;
    }
    n->inputs = (loom_array **)(n->dims + 2 * ndim);
    n->max_inputs = (uint16_t)ninputs;
    atomic_init(&n->refcount, 1);
    n->op = (uint16_t)op;
    n->dtype = (int8_t)dtype;
    n->cdtype = (int8_t)dtype;
    n->ndim = (int16_t)ndim;
    n->shape = n->dims;
    n->strides = n->dims + ndim;
    int64_t size = 1;
    for (int i = 0; i < ndim; i++) {
        n->shape[i] = shape[i];
        size = shape[i] == 0 || size == 0 ? 0 : size * shape[i];
    }
    n->size = size;
    loom__contiguous_strides(ndim, n->shape, n->strides);
    return n;
}

void loom__contiguous_strides(int ndim, const int64_t *shape, int64_t *strides)
{
    /* A 0-size array may have extents whose product overflows; its strides are never used
     * to address memory, so they saturate at 0 instead. */
    int64_t stride = 1;
    for (int i = ndim; i-- > 0;) {
        strides[i] = stride;
        int64_t d = shape[i] ? shape[i] : 1;
        if (__builtin_mul_overflow(stride, d, &stride))
            stride = 0;
    }
}

void loom__node_set_input(loom_array *n, int i, loom_array *in)
{
    n->inputs[i] = loom_retain(in);
    if (i + 1 > n->ninputs)
        n->ninputs = (uint16_t)(i + 1);
}

static inline uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    return h * 0xff51afd7ed558ccdull;
}

const void *loom__structural_params(const loom_array *a, size_t *len)
{
    if (a->op == LOOM_OP_RAWKERNEL) {
        /* not the kernel's address */
        *len = offsetof(loom_params, multi.raw.kernel) - offsetof(loom_params, multi);
        return &a->param.multi;
    }
    if (a->op == LOOM_OP_UREDUCE) {
        *len = 3 * sizeof(int64_t); /* axes, keepdims and key, not the call's address */
        return &a->param.ureduce;
    }
    switch (loom__ops[a->op].kind) {
    case LOOM_OPK_REDUCE:
        *len = sizeof a->param.reduce;
        return &a->param.reduce;
    case LOOM_OPK_SCAN:
        *len = sizeof a->param.scan;
        return &a->param.scan;
    case LOOM_OPK_MULTI:
        *len = sizeof a->param.multi;
        return &a->param.multi;
    case LOOM_OPK_RESULT:
        *len = sizeof a->param.result;
        return &a->param.result;
    case LOOM_OPK_INDEX:
        if (a->op == LOOM_OP_SEARCHSORTED) {
            *len = sizeof a->param.search;
            return &a->param.search;
        }
        if (a->op == LOOM_OP_SCATTER) {
            *len = sizeof a->param.scatter;
            return &a->param.scatter;
        }
        *len = a->op == LOOM_OP_TAKE ? sizeof a->param.take : sizeof a->param.join;
        return a->op == LOOM_OP_TAKE ? (const void *)&a->param.take : &a->param.join;
    default:
        break;
    }
    if (a->op == LOOM_OP_SORT || a->op == LOOM_OP_ARGSORT) {
        *len = sizeof a->param.sort;
        return &a->param.sort;
    }
    if (a->op == LOOM_OP_CHOLESKY) {
        *len = sizeof a->param.cholesky;
        return &a->param.cholesky;
    }
    if (a->op == LOOM_OP_FFT) {
        *len = sizeof a->param.fft;
        return &a->param.fft;
    }
    if (a->op == LOOM_OP_LU_SOLVE) {
        *len = sizeof a->param.lu_solve;
        return &a->param.lu_solve;
    }
    if (a->op == LOOM_OP_ROLL) {
        *len = sizeof a->param.roll.axis; /* the shift is a kernel argument */
        return &a->param.roll.axis;
    }
    if (a->op == LOOM_OP_ROUND) {
        *len = sizeof a->param.round;
        return &a->param.round;
    }
    if (a->op == LOOM_OP_UKERNEL) {
        *len = 2 * sizeof(int64_t); /* key and output, not the call's address */
        return &a->param.ukernel;
    }
    *len = 0;
    return NULL;
}

loom_array *loom__node_finish(loom_array *n)
{
    return loom__adopt(loom__node_finish_unscoped(n));
}

loom_array *loom__node_finish_unscoped(loom_array *n)
{
    uint64_t h = mix(0xcbf29ce484222325ull, n->op);
    h = mix(h, (uint64_t)(uint8_t)n->dtype | (uint64_t)(uint8_t)n->cdtype << 8 |
                   (uint64_t)n->weak << 16 | (uint64_t)n->ndim << 24);
    for (int i = 0; i < n->ninputs; i++)
        h = mix(h, n->inputs[i]->hash);
    if (n->op == LOOM_OP_VIEW) {
        /* The view pattern, not its sizes: which axes broadcast, flip or are unit-stride. */
        for (int i = 0; i < n->ndim; i++) {
            int64_t s = n->strides[i];
            h = mix(h, s == 0 ? 1 : s == 1 ? 2 : s < 0 ? 3 : 4);
        }
    }
    size_t len;
    const int64_t *param = loom__structural_params(n, &len);
    for (size_t i = 0; param && i < len / sizeof *param; i++)
        h = mix(h, (uint64_t)param[i]);
    n->hash = h;
    loom__force_check(n);
    return n;
}

/* ---- reference counting ---- */

loom_array *loom_retain(loom_array *a)
{
    if (a)
        atomic_fetch_add_explicit(&a->refcount, 1, memory_order_relaxed);
    return a;
}

void loom__buffer_release(loom_buffer *b)
{
    if (b && atomic_fetch_sub_explicit(&b->refcount, 1, memory_order_acq_rel) == 1)
        b->free_fn(b);
}

void loom__buffers_release(loom_buffer **buffers, int n)
{
    for (int i = 0; buffers && i < n; i++) {
        loom__buffer_release(buffers[i]);
        buffers[i] = NULL;
    }
}

/* Frees a node whose count reached zero; inputs whose count also reaches zero are freed by
 * the same loop (an explicit stack, so a million-op chain cannot overflow the C stack). */
void loom_release(loom_array *a)
{
    if (!a || atomic_fetch_sub_explicit(&a->refcount, 1, memory_order_acq_rel) != 1)
        return;
    loom_array *local[64];
    loom_array **stack = local;
    size_t len = 0, cap = 64;
    stack[len++] = a;
    while (len) {
        loom_array *n = stack[--len];
        for (int i = 0; i < n->ninputs; i++) {
            loom_array *in = n->inputs[i];
            if (!in || atomic_fetch_sub_explicit(&in->refcount, 1, memory_order_acq_rel) != 1)
                continue;
            if (len == cap) {
                loom_array **grown = loom__malloc(cap * 2 * sizeof *grown);
                if (!grown) {
                    loom_release(in); /* recursion as a last resort when memory is gone */
                    continue;
                }
                memcpy(grown, stack, len * sizeof *grown);
                if (stack != local)
                    free(stack);
                stack = grown;
                cap *= 2;
            }
            stack[len++] = in;
        }
        loom__buffer_release(n->buffer);
        free(n->host_data);
        if (n->op == LOOM_OP_UKERNEL)
            loom__ucall_release(n->param.ukernel.call);
        if (n->op == LOOM_OP_UREDUCE)
            loom__ucall_release(n->param.ureduce.call);
        if (n->op == LOOM_OP_RAWKERNEL)
            loom__raw_kernel_release(n->param.multi.raw.kernel);
        if (n->op == LOOM_OP_CURAND)
            loom__random_state_release(n->param.multi.curand.state);
        loom__node_memory_free(n, n->ndim, n->max_inputs);
    }
    if (stack != local)
        free(stack);
}

void loom__node_set_buffer(loom_array *n, loom_buffer *buf)
{
    loom__buffer_release(n->buffer);
    if (loom__ops[n->op].kind != LOOM_OPK_LEAF) /* a leaf's are 0, and it may be shared */
        loom__force_reset(n);
    __atomic_store_n(&n->buffer, buf, __ATOMIC_RELEASE); /* see loom__node_buffer */
    if (n->op == LOOM_OP_VIEW) {
        /* A materialised view is a contiguous copy of what it mapped: later views start here. */
        n->op = LOOM_OP_COPY;
        n->offset = 0;
        loom__contiguous_strides(n->ndim, n->shape, n->strides);
    }
    for (int i = 0; i < n->ninputs; i++) {
        loom_release(n->inputs[i]);
        n->inputs[i] = NULL;
    }
    n->ninputs = 0;
    free(n->host_data);
    n->host_data = NULL;
}

loom_array *loom__view_base(loom_array *a)
{
    while (a && a->op == LOOM_OP_VIEW && !a->buffer)
        a = a->inputs[0];
    return a;
}

/* ---- argument checks ---- */

/* The index of the first NULL entry, n when there is none, or -1 (error recorded) for a list
 * that is not one. */
static int first_null(const char *fn, loom_array *const *arrays, int n)
{
    if (n < 0 || (n > 0 && !arrays)) {
        loom__error(LOOM_ERR_INVALID, fn, "invalid array list (n = %d)", n);
        return -1;
    }
    int i = 0;
    while (i < n && arrays[i])
        i++;
    return i;
}

int loom__check_array_list(const char *fn, loom_array *const *arrays, int n)
{
    int i = first_null(fn, arrays, n);
    if (i < 0)
        return LOOM_ERR_INVALID;
    if (i == n)
        return LOOM_OK;
    /* Always this call's own message: the error already set may be one the caller handled
     * long ago. It is quoted, as it is normally the failure that produced the NULL. */
    const char *last = loom_last_error();
    char *before = last ? loom__malloc(strlen(last) + 1) : NULL;
    if (before) {
        strcpy(before, last);
        loom__error(LOOM_ERR_INVALID, fn, "array %d is NULL (the last error before: %s)", i, before);
    } else {
        loom__error(LOOM_ERR_INVALID, fn, "array %d is NULL", i);
    }
    free(before);
    return LOOM_ERR_INVALID;
}

int loom__check_input_list(const char *fn, loom_array *const *arrays, int n)
{
    int i = first_null(fn, arrays, n);
    if (i < 0)
        return LOOM_ERR_INVALID;
    if (i == n)
        return LOOM_OK;
    /* a NULL from a failed op: its error says what went wrong first */
    if (!loom_last_error())
        loom__error(LOOM_ERR_INVALID, fn, "array %d is NULL", i);
    return LOOM_ERR_INVALID;
}

int loom__check_same_device(const char *fn, const loom_array *a, const loom_array *b)
{
    if (a->device == b->device)
        return LOOM_OK;
    loom__error(LOOM_ERR_INVALID, fn, "arrays are on different devices (%s and %s)",
                loom__device_label(a->device), loom__device_label(b->device));
    return LOOM_ERR_INVALID;
}

/* ---- queries ---- */

int loom_ndim(const loom_array *a) { return a ? a->ndim : -1; }
const int64_t *loom_shape(const loom_array *a) { return a ? a->shape : NULL; }
int64_t loom_size(const loom_array *a) { return a ? a->size : -1; }
loom_dtype loom_dtype_of(const loom_array *a) { return a ? (loom_dtype)a->dtype : LOOM_NO_DTYPE; }
const int64_t *loom_strides(const loom_array *a) { return a ? a->strides : NULL; }
int64_t loom_offset(const loom_array *a) { return a ? a->offset : 0; }
bool loom_is_view(const loom_array *a) { return a && a->op == LOOM_OP_VIEW; }
bool loom_is_weak(const loom_array *a) { return a && a->weak; }
