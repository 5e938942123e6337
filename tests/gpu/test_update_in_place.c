/* In-place updates on the GPU (docs/indexing.md, "Buffers"). The C loop
 * `next = at_add(a, idx, v); release(a); a = next; eval(a)` writes every version into the first
 * one's buffer (the same device address each iteration, loom_stats.updates_in_place counting
 * each) and gives NumPy's np.add.at values. Reuse never happens while another reference to the
 * old version exists: a second handle, a view, a pending node reading it, a scope; each of
 * those still reads the old values afterwards. A lazy chain of four updates evaluated once
 * puts two temporaries over their old versions. Skips (77) without a device; on the host device
 * (LOOM_TEST_DEVICE=cpu) checks the values only. */
#define _POSIX_C_SOURCE 200809L
#include "check.h"
#include "gpu_main.h"
#include "internal.h"

#include <string.h>

enum { N = 4099, K = 7 };
static const int64_t idx_values[K] = {0, 5, 5, 4098, -1, 17, 5};

static const void *address(loom_array *a)
{
    const loom_buffer *b = loom__node_buffer(a);
    return b ? b->ptr : NULL;
}

/* The host device writes every version into a buffer of its own (exec/host_run.c reuses no
 * buffer): there only the values are checked. */
static bool reuses_buffers(void)
{
    return !gpu_test_on_host();
}

static uint64_t in_place(void)
{
    loom_stats s;
    loom_stats_get(&s);
    return s.updates_in_place;
}

/* np.add.at(want, idx, 1.5) on the host (float32, exact: small multiples of 0.5). */
static void add_at(float *want)
{
    for (int k = 0; k < K; k++)
        want[idx_values[k] < 0 ? idx_values[k] + N : idx_values[k]] += 1.5f;
}

static bool equals(loom_array *a, const float *want)
{
    static float got[N];
    if (loom_get(a, got, sizeof got) != LOOM_OK)
        return false;
    return memcmp(got, want, sizeof got) == 0;
}

/* Outside any scope: the arrays are the caller's, released by hand. */
static loom_array *index_array(void)
{
    int64_t k = K;
    return loom_asarray(idx_values, LOOM_INT64, 1, &k);
}

static loom_array *start(float *host)
{
    int64_t n = N;
    for (int i = 0; i < N; i++)
        host[i] = (float)(i % 13) * 0.5f;
    loom_array *a = loom_asarray(host, LOOM_FLOAT32, 1, &n);
    CHECK_EQ_INT(loom_eval(a), LOOM_OK);
    return a;
}

static loom_array *bump(loom_array *a, loom_array *idx, loom_array *v)
{
    loom_index_term t = {.kind = LOOM_INDEX_ARRAY, .array = idx};
    return loom_at_add(a, &t, 1, v);
}

static void loop(void)
{
    static float want[N];
    loom_array *idx = index_array(), *v = loom_scalar(1.5);
    loom_array *a = start(want);
    const void *first = address(a);
    uint64_t before = in_place();
    int moved = 0;
    for (int it = 0; it < 10; it++) {
        loom_array *next = bump(a, idx, v);
        loom_release(a); /* the update is now the old version's only holder */
        a = next;
        CHECK_EQ_INT(loom_eval(a), LOOM_OK);
        moved += address(a) != first;
        add_at(want);
    }
    if (reuses_buffers()) {
        CHECK_EQ_INT(moved, 0);
        CHECK_EQ_INT(in_place() - before, 10);
    }
    CHECK(equals(a, want));
    loom_release(a);
    loom_release(idx);
    loom_release(v);
}

/* Each kind of other reference keeps the old buffer, and the old values stay readable. */
static void refused(void)
{
    static float old[N], want[N];
    int64_t lo = 3, hi = 40;
    for (int kind = 0; kind < 4; kind++) {
        loom_array *idx = index_array(), *v = loom_scalar(1.5);
        if (kind == 3)
            loom_scope_begin(); /* the scope holds a reference to a */
        loom_array *a = start(old);
        memcpy(want, old, sizeof want);
        add_at(want);
        const void *first = address(a);
        uint64_t before = in_place();
        loom_array *other = NULL;
        if (kind == 0)
            other = loom_retain(a); /* a second handle */
        else if (kind == 1)
            other = loom_slice(a, 0, lo, hi, 1); /* a view */
        else if (kind == 2)
            other = loom_mul_scalar(a, 2.0); /* a pending node reading it */
        loom_array *next = bump(a, idx, v);
        if (kind == 3)
            loom_keep(next); /* a reference of the caller's, beside the scope's */
        else
            loom_release(a);
        CHECK_EQ_INT(loom_eval(next), LOOM_OK);
        CHECK(address(next) != first);
        CHECK_EQ_INT(in_place() - before, 0);
        CHECK(equals(next, want));
        if (kind == 0)
            CHECK(equals(other, old));
        if (kind == 1 || kind == 2) {
            static float got[N];
            int64_t n = kind == 1 ? hi - lo : N;
            CHECK_EQ_INT(loom_get(other, got, (size_t)n * sizeof *got), LOOM_OK);
            int bad = 0;
            for (int64_t i = 0; i < n; i++)
                bad += got[i] != (kind == 1 ? old[lo + i] : 2.0f * old[i]);
            CHECK_EQ_INT(bad, 0);
        }
        if (kind == 3)
            loom_scope_end(); /* drops a and the scope's reference to next */
        loom_release(other);
        loom_release(next);
        loom_release(idx);
        loom_release(v);
    }
}

/* Four updates recorded lazily and evaluated once: two temporaries go over their old versions
 * in the arena (the first reads the uploaded input, the last is the output); and the output
 * itself writes over nothing it does not own. */
static void lazy_chain(void)
{
    static float want[N];
    loom_array *idx = index_array(), *v = loom_scalar(1.5);
    loom_array *a = start(want);
    loom_array *held = loom_retain(a); /* keep the start: the chain must not touch it */
    static float first[N];
    memcpy(first, want, sizeof first);
    for (int k = 0; k < 4; k++) {
        loom_array *next = bump(a, idx, v);
        loom_release(a);
        a = next;
        add_at(want);
    }
    uint64_t before = in_place();
    CHECK_EQ_INT(loom_eval(a), LOOM_OK);
    if (reuses_buffers())
        CHECK_EQ_INT(in_place() - before, 2);
    CHECK(equals(a, want));
    CHECK(equals(held, first));
    loom_release(held);
    loom_release(a);
    loom_release(idx);
    loom_release(v);
}

/* An out-of-bounds index in an update written in place is still reported after the next
 * update reuses the same bytes: its check passes to the new version. */
static void bad_index_carried(void)
{
    static float want[N];
    int64_t k = 1, bad = N + 3;
    loom_array *bad_idx = loom_asarray(&bad, LOOM_INT64, 1, &k), *idx = index_array();
    loom_array *v = loom_scalar(1.5);
    loom_array *a = start(want);
    uint64_t before = in_place();
    loom_array *a1 = bump(a, bad_idx, v);
    loom_release(a);
    CHECK_EQ_INT(loom_eval(a1), LOOM_OK);
    loom_array *a2 = bump(a1, idx, v);
    loom_release(a1);
    CHECK_EQ_INT(loom_eval(a2), LOOM_OK);
    if (reuses_buffers())
        CHECK_EQ_INT(in_place() - before, 2);
    static float got[N];
    CHECK_EQ_INT(loom_get(a2, got, sizeof got), LOOM_ERR_INVALID);
    CHECK(loom_last_error() && strstr(loom_last_error(), "index out of bounds for axis 0 with size 4099"));
    loom_release(a2);
    loom_release(bad_idx);
    loom_release(idx);
    loom_release(v);
}

static void run_all(void)
{
    loop();
    bad_index_carried();
    refused();
    lazy_chain();
}

int main(void)
{
    return gpu_test_main("gpu_test_update_in_place", run_all);
}
