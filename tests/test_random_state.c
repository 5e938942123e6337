/* CuPy's RandomState on cuRAND without a GPU: argument errors, result shapes and dtypes, and
 * the plans: each draw is one cuRAND library step, not captured in a CUDA Graph, that runs
 * after the state's earlier draws (the third draw's plan generates the first two first, in
 * order), seeding only where a seed preceded the draw; random_sample's and uniform's
 * elementwise parts compile. */
#define _POSIX_C_SOURCE 200809L
#include "check.h"
#include "plans.h"
#include "random_state.h"

#include <string.h>

static void check_errors(void)
{
    loom_scope_begin();
    loom_clear_error();
    CHECK(!loom_random_RandomState(1, (loom_curand_method)7));
    CHECK_STR(loom_last_error(), "loom_random_RandomState: unknown cuRAND method 7");
    loom_random_state *rs = loom_random_RandomState(1, LOOM_CURAND_XORWOW);
    CHECK(rs != NULL);
    const int64_t shape[1] = {4};
    CHECK(!loom_random_state_random_sample(rs, 1, shape, LOOM_INT32));
    CHECK_STR(loom_last_error(),
              "loom_random_state_random_sample: cupy.random only supports float32 and float64");
    CHECK(!loom_random_state_standard_normal(rs, 1, shape, LOOM_FLOAT16));
    CHECK(strstr(loom_last_error(), "loom_random_state_standard_normal: cupy.random only") != NULL);
    CHECK(!loom_random_state_normal(rs, 0, -1, 1, shape, LOOM_FLOAT32));
    CHECK_STR(loom_last_error(), "loom_random_state_normal: scale < 0");
    CHECK(!loom_random_state_lognormal(rs, 0, -0.5, 1, shape, LOOM_FLOAT64));
    CHECK_STR(loom_last_error(), "loom_random_state_lognormal: sigma < 0");
    CHECK(!loom_random_state_poisson(rs, -1, 1, shape, LOOM_INT64));
    CHECK_STR(loom_last_error(), "loom_random_state_poisson: lam < 0 or lam is NaN");
    CHECK(!loom_random_state_poisson(rs, 0x1p32, 1, shape, LOOM_INT64));
    CHECK(strstr(loom_last_error(), "loom_random_state_poisson: lam value too large") != NULL);
    CHECK(!loom_random_state_poisson(rs, 3, 1, shape, LOOM_FLOAT64));
    CHECK_STR(loom_last_error(),
              "loom_random_state_poisson: Unsupported dtype dtype('float64') for poisson");
    CHECK(!loom_random_state_uniform(rs, 0, 1, 1, (int64_t[]){-2}, LOOM_FLOAT32));
    CHECK(strstr(loom_last_error(), "loom_random_state_uniform") != NULL);
    /* failures record nothing: the next draw is still the state's first, which seeds */
    loom_array *x = loom_random_state_random_sample(rs, 1, shape, LOOM_FLOAT32);
    CHECK(x && rs->last && rs->last->param.multi.curand.reseed == 1 && rs->last->ninputs == 0);
    /* NULL passes through */
    loom__error(LOOM_ERR_OOM, "earlier", "the first failure");
    CHECK(!loom_random_state_random_sample(NULL, 1, shape, LOOM_FLOAT32));
    CHECK(!loom_random_state_normal(NULL, 0, 1, 1, shape, LOOM_FLOAT32));
    CHECK_STR(loom_last_error(), "earlier: the first failure");
    CHECK_EQ_INT(loom_random_state_seed(NULL, 3), LOOM_ERR_INVALID);
    loom_random_state_destroy(NULL);
    loom_random_state_destroy(rs);
    loom_scope_end();
}

static bool has_shape(loom_array *x, loom_dtype dt, int ndim, const int64_t *shape)
{
    return x && loom_dtype_of(x) == dt && loom_ndim(x) == ndim &&
           (ndim == 0 || !memcmp(loom_shape(x), shape, (size_t)ndim * sizeof *shape));
}

/* Shapes and dtypes; an odd normal draw generates one value more (CuPy's even count); empty
 * draws generate nothing. */
static void check_shapes(void)
{
    loom_scope_begin();
    loom_random_state *rs = loom_random_RandomState(5, LOOM_CURAND_PHILOX4_32_10);
    const int64_t s23[2] = {2, 3}, s35[2] = {3, 5}, s0[2] = {4, 0};
    CHECK(has_shape(loom_random_state_random_sample(rs, 2, s23, LOOM_FLOAT32), LOOM_FLOAT32, 2, s23));
    CHECK(rs->last->param.multi.curand.count == 6);
    CHECK(has_shape(loom_random_state_uniform(rs, -1, 3, 2, s35, LOOM_FLOAT64), LOOM_FLOAT64, 2, s35));
    CHECK(rs->last->param.multi.curand.count == 15);
    CHECK(has_shape(loom_random_state_normal(rs, 1, 2, 2, s35, LOOM_FLOAT32), LOOM_FLOAT32, 2, s35));
    CHECK(rs->last->param.multi.curand.count == 16 && rs->last->param.multi.curand.a == 1 &&
          rs->last->param.multi.curand.b == 2);
    CHECK(has_shape(loom_random_state_lognormal(rs, 0, 0.5, 0, NULL, LOOM_FLOAT64), LOOM_FLOAT64, 0, NULL));
    CHECK(rs->last->param.multi.curand.count == 2 &&
          rs->last->param.multi.curand.dist == LOOM_CURAND_DIST_LOGNORMAL);
    CHECK(has_shape(loom_random_state_poisson(rs, 3.5, 2, s35, LOOM_INT32), LOOM_INT32, 2, s35));
    CHECK(rs->last->param.multi.curand.count == 15 && rs->last->param.multi.curand.a == 3.5 &&
          rs->last->param.multi.curand.dtype == LOOM_UINT32);
    CHECK(has_shape(loom_random_state_poisson(rs, 1, 0, NULL, LOOM_INT64), LOOM_INT64, 0, NULL));
    loom_array *before = rs->last;
    CHECK(has_shape(loom_random_state_poisson(rs, 0, 2, s23, LOOM_INT64), LOOM_INT64, 2, s23));
    CHECK(rs->last == before);
    CHECK(has_shape(loom_random_state_standard_normal(rs, 2, s0, LOOM_FLOAT32), LOOM_FLOAT32, 2, s0));
    CHECK(rs->last == before);
    loom_random_state_destroy(rs);
    loom_scope_end();
}

/* The library steps of x's plan, in order, with their arguments. */
static int curand_steps(loom_array *x, loom_curand_args *out, int max, int *captured)
{
    loom_plan *p = test_plan(&x, 1, true);
    int n = 0;
    *captured = 0;
    for (int k = 0; p && k < p->nsteps; k++) {
        const loom_step *s = &p->steps[k];
        if (s->kind != LOOM_STEP_LIBRARY || s->lib.routine != LOOM_LIB_CURAND)
            continue;
        *captured += loom__lib_info(s->lib.routine)->capturable;
        if (n < max)
            out[n] = s->lib.args.curand;
        n++;
    }
    if (p)
        loom__plan_free(p);
    return n;
}

/* Draws run in the order made: the third draw's plan generates draws 1 and 2 first (seeding
 * before the first only); a seed makes the next draw seed; two states never share steps. */
static void check_plans(void)
{
    loom_scope_begin();
    loom_random_state *rs = loom_random_RandomState(42, LOOM_CURAND_XORWOW);
    loom_random_state *other = loom_random_RandomState(43, LOOM_CURAND_MRG32K3A);
    const int64_t n[1] = {1000};
    loom_random_state_random_sample(rs, 1, n, LOOM_FLOAT32);
    loom_random_state_standard_normal(other, 1, n, LOOM_FLOAT64);
    loom_random_state_normal(rs, 3, 2, 1, (int64_t[]){7}, LOOM_FLOAT64);
    loom_array *third = loom_random_state_lognormal(rs, 0, 1, 1, n, LOOM_FLOAT32);
    loom_curand_args a[5];
    int captured;
    CHECK_EQ_INT(curand_steps(third, a, 5, &captured), 3);
    CHECK_EQ_INT(captured, 0);
    CHECK(a[0].state == rs && a[0].reseed && a[0].seed == 42 && a[0].dist == LOOM_CURAND_DIST_UNIFORM &&
          a[0].dtype == LOOM_FLOAT32 && a[0].count == 1000);
    CHECK(a[1].state == rs && !a[1].reseed && a[1].dist == LOOM_CURAND_DIST_NORMAL &&
          a[1].dtype == LOOM_FLOAT64 && a[1].count == 8 && a[1].a == 3 && a[1].b == 2);
    CHECK(a[2].state == rs && !a[2].reseed && a[2].dist == LOOM_CURAND_DIST_LOGNORMAL &&
          a[2].count == 1000);

    CHECK_EQ_INT(loom_random_state_seed(rs, 7), LOOM_OK);
    loom_array *after = loom_random_state_random_sample(rs, 1, n, LOOM_FLOAT64);
    loom_array *next = loom_random_state_random_sample(rs, 1, n, LOOM_FLOAT64);
    CHECK_EQ_INT(curand_steps(next, a, 5, &captured), 5);
    CHECK(a[3].reseed && a[3].seed == 7 && !a[4].reseed);
    (void)after;

    /* random_sample's 1 -> 0 and uniform's scaling are kernels after the step; they compile */
    loom_array *u = loom_random_state_uniform(rs, -2, 5, 2, (int64_t[]){30, 40}, LOOM_FLOAT32);
    CHECK(test_compile_plan(&u, 1, true, false) >= 7);
    loom_random_state_destroy(rs);
    loom_random_state_destroy(other);
    loom_scope_end();
}

/* DOT names a draw's seeding, distribution, parameters and count. */
static void check_dot(void)
{
    loom_scope_begin();
    loom_random_state *rs = loom_random_RandomState(9, LOOM_CURAND_XORWOW);
    loom_random_state_random_sample(rs, 1, (int64_t[]){4}, LOOM_FLOAT32);
    loom_array *z = loom_random_state_normal(rs, 1.5, 2, 1, (int64_t[]){3}, LOOM_FLOAT64);
    char text[8192] = {0};
    FILE *f = fmemopen(text, sizeof text - 1, "w");
    CHECK(f && loom_dump_dot(f, &z, 1) == LOOM_OK);
    if (f)
        fclose(f);
    CHECK(strstr(text, "seed 9") && strstr(text, "uniform(0, 0) x 4"));
    CHECK(strstr(text, "after the previous draw") && strstr(text, "normal(1.5, 2) x 4"));
    if (!strstr(text, "normal(1.5, 2) x 4"))
        fprintf(stderr, "%s\n", text);
    loom_random_state_destroy(rs);
    loom_scope_end();
}

int main(void)
{
    check_errors();
    check_shapes();
    check_plans();
    check_dot();
    return check_summary("test_random_state");
}
