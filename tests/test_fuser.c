/* Fusion decisions, checked by counting the kernels of a plan (no GPU needed). */
#include "check.h"
#include "inputs.h"
#include "fuser/plan.h"

#include <stdlib.h>

static loom_fuse_options opts(bool fuse)
{
    loom_fuse_options o = loom__fuse_options_default();
    o.fuse = fuse;
    return o;
}

/* Kernels in the plan for arrays (fused unless told otherwise); -1 if planning failed. */
static int kernels(loom_array *const *arrays, int n, bool fuse)
{
    loom_fuse_options o = opts(fuse);
    loom_plan *p = loom__plan_build("test", arrays, n, &o);
    if (!p)
        return -1;
    int k = p->nsteps;
    loom__plan_free(p);
    return k;
}


static void test_chain(void)
{
    loom_scope_begin();
    loom_array *x = test_input(1, (int64_t[]){1000}, LOOM_FLOAT32);
    loom_array *y = x;
    for (int i = 0; i < 5; i++)
        y = loom_add_scalar(loom_mul_scalar(y, 1.0001), 0.5);
    CHECK_EQ_INT(kernels(&y, 1, true), 1);   /* 10 ops, one kernel */
    CHECK_EQ_INT(kernels(&y, 1, false), 10); /* LOOM_FUSE=0: one kernel per op */

    /* The BENCH chain: sin(x)*2 + cos(x)**2 - exp(-x)/(1 + x*x). */
    loom_array *chain = loom_subtract(
        loom_add(loom_mul_scalar(loom_sin(x), 2.0), loom_power(loom_cos(x), loom_scalar(2.0))),
        loom_divide(loom_exp(loom_negative(x)), loom_add(loom_scalar(1.0), loom_multiply(x, x))));
    CHECK(chain != NULL);
    CHECK_EQ_INT(kernels(&chain, 1, true), 1);
    loom_scope_end();
}

static void test_views_and_broadcasts(void)
{
    loom_scope_begin();
    loom_array *m = test_input(2, (int64_t[]){64, 64}, LOOM_FLOAT32);
    loom_array *t = loom_add(loom_transpose(m, NULL), m);
    CHECK_EQ_INT(kernels(&t, 1, true), 1); /* x.T + x on an input */

    loom_array *a = test_input(1, (int64_t[]){300}, LOOM_FLOAT64);
    loom_array *b = test_input(1, (int64_t[]){200}, LOOM_FLOAT64);
    loom_array *outer = loom_multiply(loom_expand_dims(a, 1), loom_expand_dims(b, 0));
    CHECK_SHAPE(outer, 2, ((int64_t[]){300, 200}));
    CHECK_EQ_INT(kernels(&outer, 1, true), 1); /* a[:,None] * b[None,:] */

    /* A computed value read through a transpose is written to memory first. */
    loom_array *ab = loom_multiply(m, m);
    loom_array *abt = loom_add(loom_transpose(ab, NULL), m);
    CHECK_EQ_INT(kernels(&abt, 1, true), 2);

    /* A requested view is copied out by one kernel. */
    loom_array *mt = loom_transpose(m, NULL);
    CHECK_EQ_INT(kernels(&mt, 1, true), 1);
    loom_scope_end();
}

static void test_eval_many(void)
{
    loom_scope_begin();
    loom_array *x = test_input(2, (int64_t[]){100, 10}, LOOM_FLOAT32);
    loom_array *y = test_input(2, (int64_t[]){100, 10}, LOOM_FLOAT32);
    loom_array *same[2] = {loom_add(x, y), loom_multiply(loom_sin(x), y)};
    CHECK_EQ_INT(kernels(same, 2, true), 1);
    loom_array *row = test_input(1, (int64_t[]){10}, LOOM_FLOAT32);
    loom_array *diff[2] = {loom_add(x, y), loom_sqrt(row)};
    CHECK_EQ_INT(kernels(diff, 2, true), 2);
    /* A result that reads another through identity joins its kernel. */
    loom_array *s = loom_sin(x);
    loom_array *dep[2] = {s, loom_cos(s)};
    CHECK_EQ_INT(kernels(dep, 2, true), 1);
    loom_scope_end();
}

static void test_generators_and_scalars(void)
{
    loom_scope_begin();
    loom_array *x = test_input(1, (int64_t[]){4096}, LOOM_FLOAT32);
    loom_array *y = loom_add(x, loom_ones(1, (int64_t[]){4096}, LOOM_FLOAT32));
    loom_fuse_options o = opts(true);
    loom_plan *p = loom__plan_build("test", &y, 1, &o);
    CHECK(p && p->nsteps == 1);
    int inputs = 0;
    for (int b = 0; p && b < p->nbuffers; b++)
        inputs += p->buffers[b].role == LOOM_BUF_INPUT;
    CHECK_EQ_INT(inputs, 1); /* the generator reads no memory */
    loom__plan_free(p);

    loom_array *e = loom_empty(1, (int64_t[]){10}, LOOM_FLOAT32);
    CHECK_EQ_INT(kernels(&e, 1, true), 0); /* allocated, never written */
    loom_array *r = loom_arange(0, 10, 1, LOOM_INT32);
    CHECK_EQ_INT(kernels(&r, 1, true), 1);
    loom_scope_end();
}

static void test_chain_cut_and_budgets(void)
{
    loom_scope_begin();
    loom_array *x = test_input(1, (int64_t[]){1024}, LOOM_FLOAT32);
    loom_array *y = x;
    for (int i = 0; i < 500; i++)
        y = loom_add_scalar(loom_mul_scalar(y, 1.0001), 0.5);
    loom_fuse_options o = opts(true);
    loom_plan *p = loom__plan_build("test", &y, 1, &o);
    CHECK(p != NULL);
    if (p) {
        /* 1000 ops cut every chain_depth ops; equal chunks give equal kernels. */
        CHECK_EQ_INT(p->nsteps, (1000 + o.chain_depth - 1) / o.chain_depth);
        int distinct = 0;
        for (int k = 0; k < p->nsteps; k++) {
            bool seen = false;
            for (int j = 0; j < k; j++)
                seen = seen || strcmp(p->steps[j].kernel.name, p->steps[k].kernel.name) == 0;
            distinct += !seen;
        }
        CHECK(distinct <= 2); /* the full chunk and the shorter last one */
    }
    loom__plan_free(p);

    /* A sum of 40 distinct inputs needs more than one kernel (input budget). */
    loom_array *acc = test_input(1, (int64_t[]){64}, LOOM_FLOAT32);
    for (int i = 0; i < 40; i++)
        acc = loom_add(acc, test_input(1, (int64_t[]){64}, LOOM_FLOAT32));
    int k = kernels(&acc, 1, true);
    CHECK(k >= 2);
    loom_scope_end();
}

static void test_specialised_on_structure_only(void)
{
    loom_scope_begin();
    loom_array *x1 = test_input(1, (int64_t[]){1000}, LOOM_FLOAT32);
    loom_array *x2 = test_input(1, (int64_t[]){5000}, LOOM_FLOAT32);
    loom_array *y1 = loom_mul_scalar(loom_sin(x1), 2.0);
    loom_array *y2 = loom_mul_scalar(loom_sin(x2), 3.0);
    loom_fuse_options o = opts(true);
    loom_plan *p1 = loom__plan_build("test", &y1, 1, &o);
    loom_plan *p2 = loom__plan_build("test", &y2, 1, &o);
    CHECK(p1 && p2 && p1->nsteps == 1 && p2->nsteps == 1);
    if (p1 && p2) {
        CHECK_STR(p1->steps[0].kernel.name, p2->steps[0].kernel.name);
        CHECK(strcmp(p1->steps[0].kernel.source, p2->steps[0].kernel.source) == 0);
        CHECK_EQ_INT(p1->steps[0].kernel.vec, 4); /* float32 contiguous: 16-byte vectors */
    }
    loom__plan_free(p1);
    loom__plan_free(p2);

    /* A contiguous 3-d sum collapses to one flat dimension; a transposed one does not. */
    loom_array *a = test_input(3, (int64_t[]){4, 5, 6}, LOOM_FLOAT64);
    loom_array *flat = loom_add(a, a);
    loom_array *tr = loom_add(loom_transpose(a, (int[]){0, 2, 1}), loom_ones(3, (int64_t[]){4, 6, 5}, LOOM_FLOAT64));
    p1 = loom__plan_build("test", &flat, 1, &o);
    p2 = loom__plan_build("test", &tr, 1, &o);
    CHECK(p1 && strstr(p1->steps[0].kernel.source, "rank 1,") != NULL);
    CHECK(p2 && strstr(p2->steps[0].kernel.source, "rank 3,") != NULL);
    loom__plan_free(p1);
    loom__plan_free(p2);
    loom_scope_end();
}

int main(void)
{
    test_chain();
    test_views_and_broadcasts();
    test_eval_many();
    test_generators_and_scalars();
    test_chain_cut_and_budgets();
    test_specialised_on_structure_only();
    return check_summary("test_fuser");
}
