/* Updates that scatter without a GPU: ufunc.at (at_add ... at_maximum), setitem (with a
 * boolean mask too) and put against NumPy's answers (tools/gen_scatter_cases.py ->
 * tests/data/scatter_cases.txt): dtypes, shapes, values through the CPU reference evaluator
 * (tests/graph_eval.h), errors at record time, indices out of bounds (reported on the device).
 * Plans: one sort, one scatter kernel without atomics, the status check of mode raise; NVRTC
 * compiles the scatter kernel of every op and of several dtypes. */
#define _POSIX_C_SOURCE 200809L
#include "check.h"
#include "graph_eval.h"
#include "index_cases.h"
#include "plans.h"
#include "scatter_cases.h"

#include <stdlib.h>
#include <string.h>

/* An index out of bounds: the reference evaluator meets it in a gather of mode raise. */
static void cpu_oob(const char *where, loom_array *r, loom_array *a, const char *func,
                    int64_t axis, int64_t size)
{
    (void)a, (void)func, (void)axis, (void)size;
    ge_memo m = {0};
    CHECK(ge_eval(r, &m) != NULL);
    CHECK_EQ_INT(m.oob, 1);
    if (m.oob != 1)
        fprintf(stderr, "%s: no index out of bounds met\n", where);
    ge_free(&m);
}

static void table_cases(void)
{
    CHECK_EQ_INT(run_scatter_table(LOOM_TEST_DATA "/scatter_cases.txt", ge_check_result, cpu_oob,
                                   true),
                 400);
}

static int count_steps(const loom_plan *p, loom_step_kind kind)
{
    int n = 0;
    for (int i = 0; i < p->nsteps; i++)
        n += p->steps[i].kind == kind;
    return n;
}

/* The scatter kernel of plan p (NULL: none or several). */
static const loom_kernel *scatter_kernel(const loom_plan *p)
{
    const loom_kernel *found = NULL;
    int n = 0;
    for (int i = 0; i < p->nsteps; i++) {
        const loom_step *s = &p->steps[i];
        if (s->kind == LOOM_STEP_KERNEL && strncmp(s->kernel.name, "loom_scatter", 12) == 0) {
            found = &s->kernel;
            n++;
        }
    }
    return n == 1 ? found : NULL;
}

static void scatter_plans(void)
{
    loom_scope_begin();
    int64_t n = 1000, bins = 64;
    loom_array *x = loom_zeros(1, &bins, LOOM_FLOAT32);
    /* idx = (arange(n) * 7) % 64 computed, values sin(arange(n)) computed */
    loom_array *idx = loom_remainder(loom_multiply(loom_arange(0, (double)n, 1, LOOM_INT64),
                                                   loom_scalar_int(7)),
                                     loom_scalar_int(bins));
    loom_array *v = loom_sin(loom_arange(0, (double)n, 1, LOOM_FLOAT32));
    loom_index_term t[] = {{.kind = LOOM_INDEX_ARRAY, .array = idx}};
    loom_array *y = loom_at_add(x, t, 1, v);
    CHECK(y != NULL);
    CHECK_EQ_INT(loom_ndim(y), 1);
    CHECK_EQ_INT(loom_shape(y)[0], bins);
    CHECK_EQ_INT(loom_dtype_of(y), LOOM_FLOAT32);
    loom_plan *p = test_plan(&y, 1, true);
    CHECK(p != NULL);
    if (p) {
        const loom_kernel *k = scatter_kernel(p);
        CHECK(k != NULL);
        /* deterministic: no atomic operation anywhere in the plan's kernels */
        for (int i = 0; i < p->nsteps; i++)
            if (p->steps[i].kind == LOOM_STEP_KERNEL)
                CHECK(strstr(p->steps[i].kernel.source, "atomic") == NULL);
        CHECK_EQ_INT(count_steps(p, LOOM_STEP_LIBRARY), 1); /* the argsort */
        CHECK_EQ_INT(p->nchecks, 1);                          /* idx in mode raise */
        /* the 64 positions are below 2^6: the radix sort orders 6 key bits, not 32 */
        for (int i = 0; i < p->nsteps; i++)
            if (p->steps[i].kind == LOOM_STEP_LIBRARY)
                CHECK_EQ_INT(p->steps[i].lib.args.sort.bits, 6);
        loom__plan_free(p);
    }
    /* a user's argsort of the same keys orders all of them */
    loom_array *plain = loom_argsort(idx, 0);
    p = test_plan(&plain, 1, true);
    for (int i = 0; p && i < p->nsteps; i++)
        if (p->steps[i].kind == LOOM_STEP_LIBRARY)
            CHECK_EQ_INT(p->steps[i].lib.args.sort.bits, 0);
    loom__plan_free(p);
    CHECK(test_compile_plan(&y, 1, true, false) > 0);
    CHECK(test_compile_plan(&y, 1, false, false) > 0);

    /* a chain of updates a = at_add(a, idx, v): each one a scatter of its own */
    loom_array *a = x;
    for (int i = 0; i < 3; i++)
        a = loom_at_add(a, t, 1, v);
    p = test_plan(&a, 1, true);
    if (p) {
        int scatters = 0;
        for (int i = 0; i < p->nsteps; i++)
            scatters += p->steps[i].kind == LOOM_STEP_KERNEL &&
                        strncmp(p->steps[i].kernel.name, "loom_scatter", 12) == 0;
        CHECK_EQ_INT(scatters, 3);
        loom__plan_free(p);
    }

    /* put in mode wrap checks nothing; raise one status word */
    int64_t k3 = 3;
    int64_t iv[] = {5, -1, 70};
    loom_array *ind = loom_asarray(iv, LOOM_INT64, 1, &k3);
    loom_array *pw = loom_put(x, ind, loom_scalar(2.0), LOOM_MODE_WRAP);
    loom_array *pr = loom_put(x, ind, loom_scalar(2.0), LOOM_MODE_RAISE);
    p = test_plan(&pw, 1, true);
    if (p) {
        CHECK_EQ_INT(p->nchecks, 0);
        loom__plan_free(p);
    }
    p = test_plan(&pr, 1, true);
    if (p) {
        CHECK_EQ_INT(p->nchecks, 1);
        loom__plan_free(p);
    }

    /* every op compiles, on a few dtypes (the fold runs in the ufunc's loop dtype) */
    static const loom_dtype dts[] = {LOOM_FLOAT16, LOOM_INT8, LOOM_COMPLEX64, LOOM_BOOL};
    for (int d = 0; d < 4; d++) {
        loom_array *xd = loom_zeros(1, &bins, dts[d]);
        loom_array *vd = loom_astype(v, dts[d]);
        loom_array *r[] = {loom_at_add(xd, t, 1, vd), loom_at_multiply(xd, t, 1, vd),
                           dts[d] == LOOM_BOOL ? loom_at_set(xd, t, 1, vd) : loom_at_subtract(xd, t, 1, vd),
                           dts[d] == LOOM_COMPLEX64 ? loom_setitem(xd, t, 1, vd) : loom_at_minimum(xd, t, 1, vd),
                           dts[d] == LOOM_COMPLEX64 ? loom_put(xd, idx, vd, LOOM_MODE_CLIP) : loom_at_maximum(xd, t, 1, vd)};
        for (int i = 0; i < 5; i++)
            CHECK(r[i] != NULL);
        CHECK(test_compile_plan(r, 5, true, false) > 0);
    }
    loom_scope_end();
}

static void scatter_errors(void)
{
    loom_scope_begin();
    int64_t s[] = {2, 3};
    loom_array *a = loom_zeros(2, s, LOOM_FLOAT64);
    bool mv[] = {true, false, true, false, true, true};
    loom_array *mask = loom_asarray(mv, LOOM_BOOL, 2, s);
    loom_index_term m[] = {{.kind = LOOM_INDEX_ARRAY, .array = mask}};
    /* several values through a mask read the mask's count back (no device here: the read
     * fails cleanly); more than one dimension of values is NumPy's TypeError at the call */
    int64_t four = 4, two_two[] = {2, 2};
    loom_array *four_vals = loom_arange(0, 4, 1, LOOM_FLOAT64);
    if (loom_device_count() <= 0) {
        CHECK(loom_setitem(a, m, 1, loom_reshape(four_vals, 1, &four)) == NULL);
        CHECK_EQ_INT(loom_last_error_code(), LOOM_ERR_NO_DEVICE);
    }
    CHECK(loom_setitem(a, m, 1, loom_reshape(four_vals, 2, two_two)) == NULL);
    CHECK_STR(loom_last_error(), "loom_setitem: NumPy boolean array indexing assignment requires a "
                                 "0 or 1-dimensional input, input has 2 dimensions");
    /* a mask of fewer dimensions stands for its nonzero() coordinates: a read-back too */
    int64_t two = 2;
    bool mv1[] = {true, false};
    loom_index_term m1[] = {{.kind = LOOM_INDEX_ARRAY, .array = loom_asarray(mv1, LOOM_BOOL, 1, &two)}};
    if (loom_device_count() <= 0) {
        CHECK(loom_setitem(a, m1, 1, loom_scalar(1.0)) == NULL);
        CHECK_EQ_INT(loom_last_error_code(), LOOM_ERR_NO_DEVICE);
    }
    /* put: modes, index dtypes, NULL inputs, empty arrays */
    CHECK(loom_put(a, loom_scalar_int(0), loom_scalar(1.0), (loom_index_mode)7) == NULL);
    CHECK_STR(loom_last_error(), "loom_put: clipmode must be one of 'clip', 'raise', or 'wrap' (got 7)");
    CHECK(loom_put(a, loom_scalar_complex(0.0, 1.0), loom_scalar(1.0), LOOM_MODE_RAISE) == NULL);
    CHECK_STR(loom_last_error(), "loom_put: indices must be real, not complex128");
    /* np.put(a, [1.7, -0.5], 5) truncates the indices: a.flat[1] = a.flat[0] = 5 */
    double fi[] = {1.7, -0.5};
    int64_t two_i = 2;
    loom_array *pf = loom_put(a, loom_asarray(fi, LOOM_FLOAT64, 1, &two_i), loom_scalar(5.0), LOOM_MODE_RAISE);
    ge_memo gm = {0};
    ge_value *pv = pf ? ge_eval(pf, &gm) : NULL;
    CHECK(pv != NULL);
    if (pv)
        CHECK(pv[0].re == 5 && pv[1].re == 5 && pv[2].re == 0);
    CHECK_EQ_INT(gm.oob, 0);
    ge_free(&gm);
    CHECK(loom_put(NULL, loom_scalar_int(0), loom_scalar(1.0), LOOM_MODE_RAISE) == NULL);
    CHECK(loom_at_add(a, m, 1, NULL) == NULL);
    int64_t zero = 0;
    loom_array *none = loom_zeros(1, &zero, LOOM_INT64);
    CHECK(loom_put(a, none, loom_scalar(1.0), LOOM_MODE_RAISE) == a);
    loom_array *empty = loom_zeros(1, &zero, LOOM_FLOAT32);
    CHECK(loom_put(empty, loom_scalar_int(0), loom_scalar(1.0), LOOM_MODE_RAISE) == NULL);
    CHECK_STR(loom_last_error(), "loom_put: cannot replace elements of an empty array");
    /* ufunc.at errors name the function: integers out of range, too many indices */
    loom_index_term big[] = {{.kind = LOOM_INDEX_INT, .start = 5}};
    CHECK(loom_at_maximum(a, big, 1, loom_scalar(1.0)) == NULL);
    CHECK_STR(loom_last_error(), "loom_at_maximum: index 5 is out of bounds for axis 0 with size 2");
    loom_index_term three[] = {{.kind = LOOM_INDEX_INT}, {.kind = LOOM_INDEX_INT}, {.kind = LOOM_INDEX_INT}};
    CHECK(loom_at_set(a, three, 3, loom_scalar(1.0)) == NULL);
    CHECK_STR(loom_last_error(),
              "loom_at_set: too many indices for array: array is 2-dimensional, but 3 were indexed");
    /* an update with nothing to write is the array itself; the input is never changed */
    loom_index_term nothing[] = {{.kind = LOOM_INDEX_ARRAY, .array = none}};
    CHECK(loom_at_add(a, nothing, 1, loom_scalar(1.0)) == a);
    loom_scope_end();
}

int main(void)
{
    table_cases();
    scatter_plans();
    scatter_errors();
    return check_summary("test_scatter");
}
