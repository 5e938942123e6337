/* Joining and splitting without a GPU: result dtypes, shapes and values (through the CPU
 * reference evaluator of tests/graph_eval.h) and errors of every routine against NumPy's
 * answers (tools/gen_join_cases.py -> tests/data/join_cases.txt), and how concatenation plans:
 * concatenate([a * 2, b + 1]) is one kernel, compiled by NVRTC. */
#define _POSIX_C_SOURCE 200809L
#include "check.h"
#include "graph_eval.h"
#include "index_cases.h"
#include "plans.h"

#include <stdlib.h>
#include <string.h>

static void table_cases(void)
{
    CHECK(run_table(LOOM_TEST_DATA "/join_cases.txt", run_join, ge_check_result, true) > 400);
}

static int kernels(const loom_plan *p)
{
    int n = 0;
    for (int i = 0; i < p->nsteps; i++)
        n += p->steps[i].kind == LOOM_STEP_KERNEL;
    return n;
}

/* concatenate([a * 2, b + 1]) writes its result once: one kernel reading a and b. */
static void concat_plans(void)
{
    loom_scope_begin();
    int64_t n = 1000;
    loom_array *a = make_input(0, LOOM_FLOAT32, 1, &n);
    loom_array *b = make_input(1, LOOM_FLOAT32, 1, &n);
    loom_array *parts[] = {loom_mul_scalar(a, 2.0), loom_add_scalar(b, 1.0)};
    loom_array *c = loom_concatenate(parts, 2, 0);
    CHECK_EQ_INT(loom_shape(c)[0], 2000);
    loom_plan *p = test_plan(&c, 1, true);
    CHECK(p != NULL);
    if (p) {
        /* the casts of the int64 inputs, multiply, add and the join: one kernel */
        CHECK_EQ_INT(kernels(p), 1);
        CHECK_EQ_INT(p->nsteps, 1);
        loom__plan_free(p);
    }
    p = test_plan(&c, 1, false);
    CHECK(p != NULL);
    if (p) {
        CHECK_EQ_INT(kernels(p), 5); /* two casts, multiply, add, the join */
        loom__plan_free(p);
    }
    CHECK_EQ_INT(test_compile_plan(&c, 1, true, false), 1);
    CHECK_EQ_INT(test_compile_plan(&c, 1, false, false), 5);

    /* along a middle axis, with a transposed input, a generator and a scalar-broadcast input */
    int64_t s1[] = {3, 2, 4}, s2[] = {4, 3, 3};
    double data[36];
    for (int i = 0; i < 36; i++)
        data[i] = i;
    loom_array *x = loom_asarray(data, LOOM_FLOAT64, 3, s1);
    loom_array *y = loom_transpose(loom_asarray(data, LOOM_FLOAT64, 3, s2), (int[]){1, 2, 0});
    loom_array *z = loom_arange(0, 3 * 1 * 4, 1, LOOM_FLOAT64);
    z = loom_reshape(z, 3, (int64_t[]){3, 1, 4});
    loom_array *w = loom_broadcast_to(loom_scalar(5.0), 3, (int64_t[]){3, 2, 4});
    loom_array *xs[] = {x, y, z, loom_sin(w)};
    loom_array *j = loom_concatenate(xs, 4, 1);
    CHECK_EQ_INT(loom_shape(j)[1], 8);
    CHECK_EQ_INT(test_compile_plan(&j, 1, true, false), 1);
    CHECK_EQ_INT(test_compile_plan(&j, 1, false, false), 2); /* sin, the join */

    /* a reduction of a join reads the join from memory: two kernels */
    loom_array *s = loom_sum(j, NULL, 0, false);
    CHECK_EQ_INT(test_compile_plan(&s, 1, true, false), 2);
    /* the join of joins along one axis is one node */
    loom_array *ab[] = {a, b}, *abab[2];
    abab[0] = loom_concatenate(ab, 2, 0);
    abab[1] = loom_concatenate(ab, 2, 0);
    loom_array *big = loom_concatenate(abab, 2, 0);
    p = test_plan(&big, 1, true);
    if (p) {
        CHECK_EQ_INT(kernels(p), 1);
        loom__plan_free(p);
    }
    loom_scope_end();
}

/* NULL inputs pass through; bad lists are reported. */
static void null_inputs(void)
{
    loom_scope_begin();
    loom_clear_error();
    loom_array *in[] = {NULL, NULL};
    CHECK(loom_concatenate(in, 2, 0) == NULL);
    CHECK(loom_last_error() == NULL || strstr(loom_last_error(), "is NULL") != NULL);
    CHECK(loom_concatenate(NULL, -1, 0) == NULL);
    CHECK_STR(loom_last_error(), "loom_concatenate: invalid array list (-1 arrays)");
    loom_array *out[2] = {0};
    CHECK(loom_split(NULL, 2, 0, out) != LOOM_OK);
    CHECK(loom_atleast_2d(NULL) == NULL);
    loom_scope_end();
}

int main(void)
{
    table_cases();
    concat_plans();
    null_inputs();
    return check_summary("test_join");
}
