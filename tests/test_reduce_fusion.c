/* Reduction fusion decisions (kernel counts) and NVRTC compiles of every generated reduction
 * kernel, for every dtype and strategy (no GPU needed: LOOM_ARCH's default sm_90). */
#include "check.h"
#include "plans.h"
#include "inputs.h"
#include "exec/exec.h"
#include "fuser/plan.h"

#include <stdlib.h>
#include <string.h>

static bool verbose;

/* Compiles every kernel of the plan; returns the step count (-1 when planning failed). */
static int compile_all(loom_array *const *arrays, int n, bool fuse)
{
    return test_compile_plan(arrays, n, fuse, verbose);
}

static int kinds(loom_array *a, loom_kernel_kind kind)
{
    loom_plan *p = test_plan(&a, 1, true);
    int c = 0;
    for (int k = 0; p && k < p->nsteps; k++)
        c += p->steps[k].kernel.kind == kind;
    loom__plan_free(p);
    return c;
}

static loom_array *softmax(loom_array *x, int axis)
{
    loom_array *e = loom_exp(loom_subtract(x, loom_amax(x, &axis, 1, true)));
    return loom_divide(e, loom_sum(e, &axis, 1, true));
}

static loom_array *layernorm(loom_array *x, loom_array *g, loom_array *b)
{
    int ax = 1;
    loom_array *mu = loom_mean(x, &ax, 1, true);
    loom_array *var = loom_var(x, &ax, 1, 0, true);
    loom_array *y = loom_divide(loom_subtract(x, mu), loom_sqrt(loom_add_scalar(var, 1e-5)));
    return loom_add(loom_multiply(y, g), b);
}

static void test_fusion_counts(void)
{
    loom_scope_begin();
    int ax1 = 1, ax0 = 0;
    loom_array *x = test_input(2, (int64_t[]){64, 8192}, LOOM_FLOAT32);
    loom_array *sm = softmax(x, 1);
    CHECK_EQ_INT(compile_all(&sm, 1, true), 1);
    CHECK_EQ_INT(kinds(sm, LOOM_KERNEL_PERSISTENT), 1);

    loom_array *a = test_input(1, (int64_t[]){1 << 20}, LOOM_FLOAT32);
    loom_array *b = test_input(1, (int64_t[]){1 << 20}, LOOM_FLOAT32);
    loom_array *dot = loom_sum(loom_multiply(a, b), NULL, 0, false);
    /* one reduction: long, so two passes of one generated reduction */
    CHECK_EQ_INT(compile_all(&dot, 1, true), 2);
    loom_array *small = test_input(1, (int64_t[]){1000}, LOOM_FLOAT32);
    loom_array *sdot = loom_sum(loom_multiply(small, small), NULL, 0, false);
    CHECK_EQ_INT(compile_all(&sdot, 1, true), 1);

    loom_array *m = test_input(2, (int64_t[]){5000, 1000}, LOOM_FLOAT32);
    loom_array *centred = loom_subtract(m, loom_mean(m, &ax1, 1, true));
    CHECK_EQ_INT(compile_all(&centred, 1, true), 1);
    loom_array *rownorm = loom_divide(centred, loom_std(m, &ax1, 1, 0, true));
    CHECK_EQ_INT(compile_all(&rownorm, 1, true), 1);

    loom_array *g = test_input(1, (int64_t[]){8192}, LOOM_FLOAT32);
    loom_array *bb = test_input(1, (int64_t[]){8192}, LOOM_FLOAT32);
    loom_array *ln = layernorm(x, g, bb);
    CHECK_EQ_INT(compile_all(&ln, 1, true), 1);

    loom_array *mse = loom_div_scalar(loom_sum(loom_square(loom_subtract(a, b)), NULL, 0, false),
                                      (double)(1 << 20));
    CHECK_EQ_INT(compile_all(&mse, 1, true), 2);

    /* Rows too long for one block: the fewest kernels, each reading memory. */
    loom_array *wide = test_input(2, (int64_t[]){4, 100000}, LOOM_FLOAT32);
    loom_array *smw = softmax(wide, 1);
    int nk = compile_all(&smw, 1, true);
    CHECK(nk >= 3 && nk <= 5);

    /* Columns, tiled; the middle axis; several axes. */
    loom_array *cols = loom_sum(x, &ax0, 1, false);
    CHECK_EQ_INT(compile_all(&cols, 1, true), 1);
    loom_array *t3 = test_input(3, (int64_t[]){6, 70, 33}, LOOM_FLOAT64);
    loom_array *mid = loom_sum(t3, &ax1, 1, true);
    CHECK_EQ_INT(compile_all(&mid, 1, true), 1);
    loom_array *two = loom_amax(t3, (int[]){0, 2}, 2, false);
    CHECK_EQ_INT(compile_all(&two, 1, true), 1);
    loom_array *tall = test_input(2, (int64_t[]){1 << 16, 8}, LOOM_FLOAT32);
    loom_array *tcol = loom_sum(tall, &ax0, 1, false);
    CHECK_EQ_INT(compile_all(&tcol, 1, true), 2);

    /* Siblings share one pass: ptp = max - min, one kernel. */
    loom_array *ptp = loom_ptp(m, &ax1, 1, false);
    CHECK_EQ_INT(compile_all(&ptp, 1, true), 1);
    /* 70 sibling reductions: a kernel takes 64, the rest start another (never a planning error). */
    loom_array *sib[70];
    for (int i = 0; i < 70; i++)
        sib[i] = loom_sum(loom_mul_scalar(m, (double)i), &ax1, 1, false);
    loom_plan *many = test_plan(sib, 70, true);
    CHECK(many && many->nsteps == 2);
    loom__plan_free(many);
    /* LOOM_FUSE=0: every op its own kernel. */
    CHECK(compile_all(&sm, 1, false) >= 5);
    loom_scope_end();
}

static void test_every_dtype(void)
{
    for (int dt = 0; dt < LOOM_NUM_DTYPES; dt++) {
        loom_scope_begin();
        loom_array *x = test_input(2, (int64_t[]){40, 300}, (loom_dtype)dt);
        int ax1 = 1, ax0 = 0;
        loom_array *r[12];
        int n = 0;
        r[n++] = loom_sum(x, &ax1, 1, false);
        r[n++] = loom_prod(x, &ax0, 1, false);
        r[n++] = loom_any(x, NULL, 0, false);
        r[n++] = loom_all(x, &ax1, 1, true);
        {
            r[n++] = loom_amax(x, &ax1, 1, false);
            r[n++] = loom_argmin(x, 0, false);
            r[n++] = loom_nanargmax(x, LOOM_AXIS_NONE, false);
        }
        if (dt != LOOM_BOOL) {
            r[n++] = loom_mean(x, &ax1, 1, false);
            r[n++] = loom_var(x, &ax0, 1, 1, false);
        }
        r[n++] = loom_nanmin(x, &ax0, 1, false);
        for (int i = 0; i < n; i++) {
            CHECK(r[i] != NULL);
            if (!r[i]) {
                fprintf(stderr, "dtype %d op %d: %s\n", dt, i, loom_last_error());
                continue;
            }
            CHECK(compile_all(&r[i], 1, true) >= 1);
        }
        loom_scope_end();
    }
}

/* Kept axes of extent 0: nothing to compute, and planning must not divide by the extent
 * (it used to die of SIGFPE for column reductions). */
static void test_empty_kept_axes(void)
{
    loom_scope_begin();
    int ax0 = 0;
    loom_array *z = loom_zeros(2, (int64_t[]){3, 0}, LOOM_FLOAT32);
    loom_array *e = test_input(3, (int64_t[]){4, 0, 6}, LOOM_INT32);
    loom_array *r[4] = {loom_sum(z, &ax0, 1, false), loom_amax(z, &ax0, 1, false),
                        loom_argmax(z, 0, false), loom_sum(e, &ax0, 1, false)};
    for (int i = 0; i < 4; i++) {
        loom_plan *p = test_plan(&r[i], 1, true);
        CHECK(p != NULL);
        for (int k = 0; p && k < p->nsteps; k++)
            CHECK_EQ_INT(p->steps[k].kernel.work, 0);
        loom__plan_free(p);
    }
    loom_scope_end();
}

int main(void)
{
    verbose = getenv("LOOM_TEST_VERBOSE") != NULL;
    test_fusion_counts();
    test_every_dtype();
    test_empty_kept_axes();
    return check_summary("test_reduce_fusion");
}
