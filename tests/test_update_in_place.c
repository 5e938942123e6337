/* In-place updates without a GPU: the plan decisions of docs/indexing.md, "Buffers". A lazy
 * chain of scatters (a = at_add(a, ...) recorded several times, evaluated once) puts each new
 * version's temporary over its old version's bytes in the arena, and never when the old
 * version has another reader (a second update of it, a consumer, a view, a request); the
 * generated kernels are unchanged (they compile). Values, the reuse of a held array's buffer at
 * evaluation and its counter: gpu_test_update_in_place. */
#define _POSIX_C_SOURCE 200809L
#include "plans.h"

static const loom_plan_buffer *buffer_of(const loom_plan *p, const loom_array *node)
{
    for (int i = 0; i < p->nbuffers; i++)
        if (p->buffers[i].node == node)
            return &p->buffers[i];
    return NULL;
}

/* a[idx] += 1 as a new version (idx: 0, 2, 2). */
static loom_array *bump(loom_array *a)
{
    int64_t three = 3, iv[] = {0, 2, 2};
    loom_index_term t = {.kind = LOOM_INDEX_ARRAY, .array = loom_asarray(iv, LOOM_INT64, 1, &three)};
    return loom_at_add(a, &t, 1, loom_scalar(1.0));
}

/* A chain of four updates: the three temporaries follow each other through the same bytes. */
static void chain(void)
{
    loom_scope_begin();
    int64_t n = 1000;
    loom_array *v[5];
    v[0] = loom_sin(loom_arange(0, (double)n, 1, LOOM_FLOAT32));
    for (int k = 1; k < 5; k++)
        v[k] = bump(v[k - 1]);
    loom_plan *p = test_plan(&v[4], 1, true);
    CHECK(p != NULL);
    if (p) {
        CHECK_EQ_INT(p->temps_in_place, 2); /* v[2] over v[1], v[3] over v[2] */
        const loom_plan_buffer *b1 = buffer_of(p, v[1]), *b2 = buffer_of(p, v[2]),
                               *b3 = buffer_of(p, v[3]), *b4 = buffer_of(p, v[4]);
        CHECK(b1 && b2 && b3 && b4);
        if (b1 && b2 && b3 && b4) {
            CHECK(b1->role == LOOM_BUF_TEMP && b2->role == LOOM_BUF_TEMP && b3->role == LOOM_BUF_TEMP);
            CHECK(b4->role == LOOM_BUF_OUTPUT);
            CHECK_EQ_INT(b2->arena_offset, b1->arena_offset);
            CHECK_EQ_INT(b3->arena_offset, b2->arena_offset);
        }
        loom__plan_free(p);
    }
    CHECK(test_compile_plan(&v[4], 1, true, false) > 0);
    loom_scope_end();
}

/* The old version has another reader: it keeps its bytes. */
static void refused(void)
{
    loom_scope_begin();
    int64_t n = 1000, two[] = {10, 100};
    loom_array *a = bump(loom_sin(loom_arange(0, (double)n, 1, LOOM_FLOAT32)));
    /* two updates of one old version */
    loom_array *b = bump(a), *c = bump(a);
    loom_array *both = loom_add(bump(b), bump(c));
    /* a consumer of the old version besides the update */
    loom_array *d = loom_add(bump(a), loom_cos(a));
    /* a view of the old version */
    loom_array *e = loom_add(bump(a), loom_reshape(loom_transpose(loom_reshape(a, 2, two), NULL),
                                                   1, &n));
    loom_array *cases[] = {both, d, e};
    for (int k = 0; k < 3; k++) {
        loom_plan *p = test_plan(&cases[k], 1, true);
        CHECK(p != NULL);
        if (p) {
            /* both: b and c are each the last update of their chain, read by the add: each
             * bump(b), bump(c) may still go over b and c, never a over anything */
            const loom_plan_buffer *ba = buffer_of(p, a);
            CHECK(ba != NULL && ba->role == LOOM_BUF_TEMP);
            for (int i = 0; ba && i < p->nbuffers; i++) {
                const loom_plan_buffer *o = &p->buffers[i];
                bool overlap = o != ba && o->role == LOOM_BUF_TEMP && o->last_use >= ba->producer &&
                               ba->last_use >= o->producer && o->arena_offset == ba->arena_offset;
                CHECK(!overlap);
            }
            CHECK(k != 0 || p->temps_in_place == 2);
            CHECK(k == 0 || p->temps_in_place == 0);
            loom__plan_free(p);
        }
    }
    /* a requested old version is an output of its own */
    loom_array *f[] = {a, bump(a)};
    loom_plan *p = test_plan(f, 2, true);
    CHECK(p && p->temps_in_place == 0);
    loom__plan_free(p);
    loom_scope_end();
}

int main(void)
{
    chain();
    refused();
    return check_summary("test_update_in_place");
}
