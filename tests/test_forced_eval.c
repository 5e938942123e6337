/* Forced evaluation (graph/force.c): where recording cuts a pending graph, why, and what it
 * counts and logs. Without a GPU the forced evaluations fail; the decisions, counts and log lines
 * are the same either way (a failed cut counts as a cut), and the thread's last error is left
 * alone. With a GPU the same program evaluates for real, so this test runs on both.
 * LOOM_LOG is read once: this test sets it before any Loom call, in its own process. */
#define _POSIX_C_SOURCE 200809L
#include "check.h"
#include "exec/exec.h"
#include "inputs.h"
#include "capture_stderr.h"
#include "tmpdir.h"

#include <stdlib.h>

static uint64_t forced(loom_eval_reason r)
{
    loom_stats s;
    loom_stats_get(&s);
    return s.forced_evals_by_reason[r];
}

/* a = a + x a hundred times with a depth limit of 16: a cut every 16 adds, at the same place
 * of the loop each time (zeros, then 15 adds: depth 16; then 16 adds over the cut). */
static void test_depth_limit(void)
{
    loom__force_set_limits(16, 0, 0);
    loom_stats_reset();
    loom_clear_error();
    loom_scope_begin();
    loom_array *x = test_input(1, (int64_t[]){4}, LOOM_FLOAT32);
    loom_array *a = loom_zeros(1, (int64_t[]){4}, LOOM_FLOAT32);
    CHECK_EQ_INT(a->depth, 1);
    int cuts_at[8], ncuts = 0;
    for (int i = 1; i <= 100; i++) {
        uint64_t before = forced(LOOM_EVAL_DEPTH_LIMIT);
        a = loom_add(a, x);
        if (forced(LOOM_EVAL_DEPTH_LIMIT) != before && ncuts < 8)
            cuts_at[ncuts++] = i;
    }
    CHECK_EQ_INT(ncuts, 6);
    for (int k = 0; k < ncuts; k++)
        CHECK_EQ_INT(cuts_at[k], 15 + 16 * k);
    CHECK_EQ_INT(a->depth, 100 - 95);
    CHECK_EQ_INT(forced(LOOM_EVAL_NODE_LIMIT) + forced(LOOM_EVAL_MEMORY_PRESSURE), 0);
    CHECK(loom_last_error() == NULL); /* a failed forced evaluation is not the caller's error */
    loom_scope_end();
}

/* A balanced tree of sums over 64 leaves: depth 6, but 63 pending nodes at the root. */
static void test_node_limit(void)
{
    loom__force_set_limits(1000, 15, 0);
    loom_stats_reset();
    loom_scope_begin();
    loom_array *level[64];
    for (int i = 0; i < 64; i++)
        level[i] = test_input(1, (int64_t[]){3}, LOOM_FLOAT64);
    for (int n = 64; n > 1; n /= 2)
        for (int i = 0; i < n / 2; i++)
            level[i] = loom_add(level[2 * i], level[2 * i + 1]);
    /* Nodes of 1, 3, 7 pending; the 4 of 15 are cut; then 1 and 3 over the cuts. */
    CHECK_EQ_INT(forced(LOOM_EVAL_NODE_LIMIT), 4);
    CHECK_EQ_INT(level[0]->pending, 3);
    CHECK_EQ_INT(level[0]->depth, 2);
    /* A value read twice is counted once per distinct input of a node, twice across nodes. */
    loom_array *x = loom_add(level[0], level[0]);
    CHECK_EQ_INT(x->pending, 4);
    loom_array *y = loom_add(x, loom_negative(x));
    CHECK_EQ_INT(y->pending, 4 + 5 + 1);
    loom_scope_end();
}

static void fake_free(loom_buffer *b)
{
    free(b);
}

/* A device buffer that exists only for the bookkeeping (never read: the checks below ask for
 * the decision, never evaluate). */
static void give_fake_buffer(loom_array *a, size_t bytes)
{
    loom_buffer *b = calloc(1, sizeof *b);
    atomic_init(&b->refcount, 1);
    b->free_fn = fake_free;
    b->bytes = bytes;
    loom__node_set_buffer(a, b);
}

/* Pending graphs that read device buffers pin them: their bytes add up along the graph. */
static void test_memory_pressure(void)
{
    loom__force_set_limits(0, 0, 0);
    loom_scope_begin();
    const size_t gib = (size_t)1 << 30;
    loom_array *a = test_input(1, (int64_t[]){2}, LOOM_FLOAT32);
    loom_array *b = test_input(1, (int64_t[]){2}, LOOM_FLOAT32);
    give_fake_buffer(a, gib);
    give_fake_buffer(b, 2 * gib);
    loom_array *y = loom_sin(loom_add(a, b));
    loom_array *z = loom_multiply(y, a);
    CHECK_EQ_INT(y->pinned, 3 * gib);
    CHECK_EQ_INT(z->pinned, 4 * gib);
    CHECK_EQ_INT(loom__force_reason(z), LOOM_EVAL_NUM_REASONS);
    loom__force_set_limits(0, 0, 4 * gib);
    CHECK_EQ_INT(loom__force_reason(y), LOOM_EVAL_NUM_REASONS);
    CHECK_EQ_INT(loom__force_reason(z), LOOM_EVAL_MEMORY_PRESSURE);
    /* Views and generators are never cut themselves; their computed consumers are. */
    loom_array *t = loom_transpose(loom_reshape(z, 2, (int64_t[]){1, 2}), NULL);
    CHECK_EQ_INT(loom__force_reason(t), LOOM_EVAL_NUM_REASONS);
    CHECK_EQ_INT(t->pinned, 4 * gib);
    /* Buffers themselves are values, not pending work. */
    CHECK_EQ_INT(loom__force_reason(a), LOOM_EVAL_NUM_REASONS);
    CHECK_EQ_INT(a->pinned + a->depth + a->pending, 0);
    /* The device's default never raises a lower limit. */
    loom__force_default_pinned_limit(8 * gib);
    CHECK_EQ_INT(loom__force_reason(z), LOOM_EVAL_MEMORY_PRESSURE);
    loom__force_set_limits(0, 0, 0);
    loom_scope_end();
}

int main(void)
{
    char dir[4096];
    if (!tmpdir_make(dir, sizeof dir)) {
        perror("mkdtemp");
        return 1;
    }
    setenv("LOOM_LOG", "1", 1);
    setenv("LOOM_CACHE_DIR", dir, 1);
    stderr_capture capture;
    capture_begin(&capture, dir);

    test_depth_limit();
    test_node_limit();
    test_memory_pressure();

    static char text[1 << 20];
    capture_end(&capture, text, sizeof text);
    CHECK(strstr(text, "loom: forced eval (depth_limit)\n") != NULL);
    CHECK(strstr(text, "loom: forced eval (node_limit)\n") != NULL);
    if (loom_device_count() == 0)
        CHECK(strstr(text, "loom: forced eval (depth_limit) failed, the array stays pending: "
                           "loom_eval: no NVIDIA driver/GPU found") != NULL);
    if (check_failures)
        fprintf(stderr, "captured log:\n%.4000s\n", text);
    loom__exec_clear_memory_caches();
    tmpdir_remove(dir);
    return check_summary("test_forced_eval");
}
