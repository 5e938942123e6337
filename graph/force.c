/* Forced evaluation: the safety valves of lazy recording. A program that records without ever
 * reading (a C loop `a = a + x` run a million times) would otherwise grow one graph without
 * bound: in memory, in kernel size and in compile time. Each new node carries three measures of
 * the pending graph behind it, and a computed node that passes a limit is evaluated as soon as
 * it is recorded (by exec/, through loom__eval_forced):
 *
 *  - depth: the longest chain of nodes not yet computed ending at it (depth_limit);
 *  - pending: how many nodes not yet computed it needs, counted as a tree, so a value read
 *    twice counts twice: an upper bound, cheap to keep (node_limit);
 *  - pinned: the bytes of device buffers its pending graph reads, counted the same way: memory
 *    that stays allocated while the graph waits (memory pressure, out_of_memory).
 *
 * The cut lands on the node that reaches a limit, so in a loop it falls every `limit`
 * iterations at the same place in the repeating structure, and the plan cache serves every cut
 * after the first. After a cut the node is a value (all three are 0); if the evaluation failed
 * (no GPU, out of memory) the node counts as cut all the same, so the next try comes a whole
 * limit later instead of at every node. */
#include "internal.h"

#include <stdlib.h>

#define DEFAULT_MAX_DEPTH 256
#define DEFAULT_MAX_PENDING 16384

static _Atomic int64_t max_depth, max_pending;
static _Atomic uint64_t max_pinned;
static atomic_bool limits_read;
static atomic_bool pinned_from_env;

/* A positive integer from the environment, or fallback. */
static int64_t env_limit(const char *name, int64_t fallback)
{
    const char *v = getenv(name);
    char *end;
    long long x = v && *v ? strtoll(v, &end, 10) : 0;
    return v && *v && *end == '\0' && x > 0 ? (int64_t)x : fallback;
}

static void read_limits(void)
{
    if (atomic_load_explicit(&limits_read, memory_order_acquire))
        return;
    atomic_store(&max_depth, env_limit("LOOM_MAX_DEPTH", DEFAULT_MAX_DEPTH));
    atomic_store(&max_pending, env_limit("LOOM_MAX_PENDING_NODES", DEFAULT_MAX_PENDING));
    int64_t bytes = env_limit("LOOM_MAX_PENDING_BYTES", 0);
    atomic_store(&pinned_from_env, bytes > 0);
    atomic_store(&max_pinned, bytes > 0 ? (uint64_t)bytes : UINT64_MAX);
    atomic_store_explicit(&limits_read, true, memory_order_release);
}

void loom__force_set_limits(int64_t depth, int64_t pending, uint64_t pinned_bytes)
{
    read_limits();
    atomic_store(&max_depth, depth > 0 ? depth : DEFAULT_MAX_DEPTH);
    atomic_store(&max_pending, pending > 0 ? pending : DEFAULT_MAX_PENDING);
    atomic_store(&max_pinned, pinned_bytes ? pinned_bytes : UINT64_MAX);
}

void loom__force_default_pinned_limit(uint64_t bytes)
{
    read_limits();
    if (atomic_load(&pinned_from_env))
        return;
    uint64_t cur = atomic_load(&max_pinned);
    while (bytes < cur && !atomic_compare_exchange_weak(&max_pinned, &cur, bytes)) {
    }
}

static bool computed(const loom_array *a)
{
    loom_opkind k = loom__ops[a->op].kind;
    return k == LOOM_OPK_EW || k == LOOM_OPK_REDUCE || k == LOOM_OPK_SCAN ||
           k == LOOM_OPK_LIBRARY || k == LOOM_OPK_INDEX;
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

void loom__force_measure(loom_array *n)
{
    if (loom__node_buffer(n) || loom__ops[n->op].kind == LOOM_OPK_LEAF)
        return; /* measures stay 0 */
    int64_t depth = 0;
    uint64_t pending = 1, pinned = 0;
    for (int i = 0; i < n->ninputs; i++) {
        const loom_array *in = n->inputs[i];
        bool repeat = false; /* where(c, x, x), x * x: one read */
        for (int j = 0; j < i && !repeat; j++)
            repeat = n->inputs[j] == in;
        if (repeat)
            continue;
        if (in->depth > depth)
            depth = in->depth;
        pending = sat_add(pending, (uint64_t)in->pending);
        /* Another thread's evaluation may be uploading a shared leaf right now. */
        const loom_buffer *b = loom__node_buffer(in);
        pinned = sat_add(pinned, b ? b->bytes : in->pinned);
    }
    n->depth = depth + 1;
    n->pending = pending > INT64_MAX ? INT64_MAX : (int64_t)pending;
    n->pinned = pinned;
}

loom_eval_reason loom__force_reason(const loom_array *n)
{
    if (n->buffer || !computed(n))
        return LOOM_EVAL_NUM_REASONS;
    read_limits();
    if (n->depth >= atomic_load(&max_depth))
        return LOOM_EVAL_DEPTH_LIMIT;
    if (n->pending >= atomic_load(&max_pending))
        return LOOM_EVAL_NODE_LIMIT;
    if (n->pinned >= atomic_load(&max_pinned))
        return LOOM_EVAL_MEMORY_PRESSURE;
    return LOOM_EVAL_NUM_REASONS;
}

void loom__force_reset(loom_array *n)
{
    n->depth = n->pending = 0;
    n->pinned = 0;
}

void loom__force_check(loom_array *n)
{
    loom__force_measure(n);
    loom_eval_reason why = loom__force_reason(n);
    if (why == LOOM_EVAL_NUM_REASONS)
        return;
    loom__eval_forced(n, why);
    loom__force_reset(n);
}
