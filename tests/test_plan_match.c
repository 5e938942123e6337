/* Finding a cached plan without a walk (fuser/plan_key.c): a graph matches a plan key exactly
 * when a walk of it would give that key, its nodes in the walk's order. */
#include "check.h"
#include "fuser/plan.h"
#include "fuser/walk.h"
#include "graph/internal.h"

#include <stdlib.h>
#include <string.h>

static loom_fuse_options opts;

/* The key of arrays' graph, kept with what matches it. */
static loom_plan_sig *sig_of(loom_array *const *arrays, int n)
{
    loom_walk w;
    if (loom__walk_build("test", &w, arrays, n))
        return NULL;
    loom_plan_sig *s = loom__plan_sig_new(&w, &opts);
    loom__walk_free(&w);
    return s;
}

/* Whether arrays match s; when they do, the match's nodes must be a walk's, in its order. */
static bool matches(loom_plan_sig *s, loom_array *const *arrays, int n)
{
    loom_walk m;
    if (!loom__plan_sig_match(s, arrays, n, &opts, &m))
        return false;
    loom_walk w;
    CHECK_EQ_INT(loom__walk_build("test", &w, arrays, n), 0);
    CHECK_EQ_INT(m.n, w.n);
    for (int i = 0; i < w.n && i < m.n; i++) {
        CHECK(m.v[i].node == w.v[i].node);
        CHECK(m.v[i].requested == w.v[i].requested);
    }
    loom__walk_free(&w);
    loom__walk_free(&m);
    return true;
}

static loom_array *chain(loom_array *x, double a, double b)
{
    for (int i = 0; i < 8; i++)
        x = loom_add_scalar(loom_mul_scalar(loom_sin(x), a), b);
    return x;
}

static loom_array *ramp(int64_t n)
{
    return loom_arange(0, (double)n, 1, LOOM_FLOAT32);
}

/* The key a match compares is the plan key of the walk. */
static void test_key_is_the_plan_key(void)
{
    loom_scope_begin();
    loom_array *y = chain(ramp(10), 2, 1);
    loom_plan_sig *s = sig_of(&y, 1);
    loom_walk w;
    char *key = NULL;
    size_t len = 0, slen = 0;
    CHECK_EQ_INT(loom__walk_build("test", &w, &y, 1), 0);
    CHECK_EQ_INT(loom__plan_key(&w, &opts, &key, &len), 0);
    const char *skey = s ? loom__plan_sig_key(s, &slen) : NULL;
    CHECK(skey && key && slen == len && memcmp(skey, key, len) == 0);
    free(key);
    loom__walk_free(&w);
    loom__plan_sig_free(s);
    loom_scope_end();
}

static void test_repeats_match(void)
{
    loom_scope_begin();
    loom_array *y = chain(ramp(10), 2, 1);
    loom_plan_sig *s = sig_of(&y, 1);
    CHECK(s != NULL);
    /* new nodes, other scalar values (kernel arguments): the same plan */
    CHECK(matches(s, (loom_array *[]){chain(ramp(10), 3, -1)}, 1));
    CHECK(matches(s, &y, 1));
    CHECK(loom__plan_roots_hash(&y, 1) ==
          loom__plan_roots_hash((loom_array *[]){chain(ramp(10), 5, 5)}, 1));
    /* another size, op, dtype or length */
    CHECK(!matches(s, (loom_array *[]){chain(ramp(11), 2, 1)}, 1));
    CHECK(!matches(s, (loom_array *[]){loom_cos(chain(ramp(10), 2, 1))}, 1));
    CHECK(!matches(s, (loom_array *[]){chain(loom_arange(0, 10, 1, LOOM_FLOAT64), 2, 1)}, 1));
    CHECK(!matches(s, (loom_array *[]){loom_sin(ramp(10))}, 1));
    /* other options */
    loom_fuse_options unfused = opts;
    unfused.fuse = false;
    loom_walk m;
    CHECK(!loom__plan_sig_match(s, &y, 1, &unfused, &m));
    loom__plan_sig_free(s);
    loom_scope_end();
}

/* x * y and x * x have the same structure hashes; the match tells them apart both ways. */
static void test_sharing(void)
{
    loom_scope_begin();
    loom_array *x = loom_sin(ramp(10)), *y = loom_sin(ramp(10));
    loom_array *two = loom_multiply(x, y), *one = loom_multiply(x, x);
    loom_plan_sig *s_two = sig_of(&two, 1), *s_one = sig_of(&one, 1);
    CHECK(s_two && s_one);
    CHECK(!matches(s_two, &one, 1));
    CHECK(!matches(s_one, &two, 1));
    CHECK(matches(s_one, (loom_array *[]){loom_multiply(y, y)}, 1));
    loom_array *x2 = loom_sin(ramp(10));
    CHECK(matches(s_two, (loom_array *[]){loom_multiply(x2, y)}, 1));
    /* several requested arrays: their order and sharing count */
    loom_array *pair[2] = {two, one}, *same[2] = {two, two};
    loom_plan_sig *s_pair = sig_of(pair, 2);
    CHECK(matches(s_pair, pair, 2));
    CHECK(!matches(s_pair, (loom_array *[]){one, two}, 2));
    CHECK(!matches(s_pair, same, 2));
    CHECK(!matches(s_pair, &two, 1));
    loom_plan_sig *s_same = sig_of(same, 2);
    CHECK(matches(s_same, same, 2));
    CHECK(!matches(s_same, pair, 2));
    loom__plan_sig_free(s_two);
    loom__plan_sig_free(s_one);
    loom__plan_sig_free(s_pair);
    loom__plan_sig_free(s_same);
    loom_scope_end();
}

/* Views: their strides and offsets are part of the key. */
static void test_views(void)
{
    loom_scope_begin();
    loom_array *m = loom_reshape(ramp(12), 2, (int64_t[]){3, 4});
    loom_array *t = loom_add(loom_transpose(loom_sin(m), NULL), loom_ones(2, (int64_t[]){4, 3}, LOOM_FLOAT32));
    loom_plan_sig *s = sig_of(&t, 1);
    loom_array *m2 = loom_reshape(ramp(12), 2, (int64_t[]){3, 4});
    CHECK(matches(s, (loom_array *[]){loom_add(loom_transpose(loom_sin(m2), NULL),
                                               loom_ones(2, (int64_t[]){4, 3}, LOOM_FLOAT32))},
                  1));
    loom_array *m3 = loom_reshape(ramp(12), 2, (int64_t[]){4, 3});
    CHECK(!matches(s, (loom_array *[]){loom_add(loom_sin(m3), loom_ones(2, (int64_t[]){4, 3},
                                                                         LOOM_FLOAT32))},
                   1));
    loom__plan_sig_free(s);
    loom_scope_end();
}

/* A host leaf's alignment is known once it is uploaded: a graph holding one is walked. */
static void test_host_leaves_walk(void)
{
    float data[10] = {0};
    loom_scope_begin();
    loom_array *a = loom_asarray(data, LOOM_FLOAT32, 1, (int64_t[]){10});
    loom_array *y = chain(a, 2, 1);
    loom_plan_sig *s = sig_of(&y, 1);
    CHECK(s != NULL);
    CHECK(!matches(s, &y, 1));
    loom__plan_sig_free(s);
    loom_scope_end();
}

int main(void)
{
    opts = loom__fuse_options_default();
    test_key_is_the_plan_key();
    test_repeats_match();
    test_sharing();
    test_views();
    test_host_leaves_walk();
    return check_summary("test_plan_match");
}
