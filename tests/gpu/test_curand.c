#define _POSIX_C_SOURCE 200809L
/* CuPy's RandomState on the GPU: for XORWOW, MRG32k3a and Philox4x32-10, a sequence of draws
 * (random_sample, standard_normal with an odd size, uniform, normal, lognormal, a reseed, in
 * both dtypes, and cuRAND's Poisson, compared exactly) against the same sequence of cuRAND
 * calls CuPy makes (even counts for normals, 1 mapped to 0, T(low) +
 * x * T(high - low)) on cuRAND's host generator, which cuRAND documents to give the device's
 * sequence. Loom's draws are read in another order than they were made (the last first, one
 * through a consumer, one read twice), so a draw that ran out of order, twice, or at another
 * offset fails by O(1). Uniform values agree to 4 ulp (the scaling may be fused), normals to
 * 1e-5 (float32) or 1e-12 (float64) relative: the host's and device's logarithms and sines may
 * round differently. Draws of one shape read as they are made reuse a cached plan and must
 * still continue the stream. Skips (77) without a GPU. On the host device (LOOM_TEST_DEVICE=cpu)
 * the same draws run on cuRAND's host generator: the order checks hold as on a GPU. */
#include "check.h"
#include "gpu_main.h"
#include "host_values.h"

#include <curand.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef enum { SAMPLE, UNIFORM, NORMAL, LOGNORMAL, POISSON } kind;

typedef struct call {
    kind k;
    loom_dtype dt;
    int64_t n;
    double a, b;
    bool reseed_before; /* seed(SEED2) before this call */
} call;

enum { SEED = 20261124, SEED2 = 77 };

static const call calls[] = {
    {SAMPLE, LOOM_FLOAT32, 1000, 0, 0, false},
    {NORMAL, LOOM_FLOAT64, 7, 0, 1, false}, /* standard_normal, odd: CuPy draws 8 */
    {UNIFORM, LOOM_FLOAT64, 15, -2, 3, false},
    {NORMAL, LOOM_FLOAT32, 12289, 1, 2, false},
    {LOGNORMAL, LOOM_FLOAT64, 64, 0.5, 0.25, false},
    {SAMPLE, LOOM_FLOAT64, 100003, 0, 0, false},
    {UNIFORM, LOOM_FLOAT32, 4096, 10, 11, false},
    {SAMPLE, LOOM_FLOAT32, 10, 0, 0, true},
    {LOGNORMAL, LOOM_FLOAT32, 5, 0, 1, false},
    {POISSON, LOOM_INT64, 3001, 4.5, 0, false}, /* cuRAND's own Poisson (not CuPy's) */
    {SAMPLE, LOOM_FLOAT32, 33, 0, 0, false},
};
enum { NCALLS = sizeof calls / sizeof calls[0] };

/* CuPy's call c on the host generator g, as float64 values. */
static double *reference(curandGenerator_t g, const call *c)
{
    const int64_t count = (c->k == NORMAL || c->k == LOGNORMAL) && c->n % 2 ? c->n + 1 : c->n;
    const bool f32 = c->dt == LOOM_FLOAT32;
    void *raw = malloc((size_t)count * 8);
    double *v = malloc((size_t)count * sizeof *v);
    curandStatus_t s;
    if (c->k == POISSON) {
        s = curandGeneratePoisson(g, raw, (size_t)count, c->a);
        CHECK_EQ_INT(s, CURAND_STATUS_SUCCESS);
        for (int64_t i = 0; i < count; i++)
            v[i] = ((unsigned *)raw)[i];
        free(raw);
        return v;
    }
    if (c->k == SAMPLE || c->k == UNIFORM)
        s = f32 ? curandGenerateUniform(g, raw, (size_t)count)
                : curandGenerateUniformDouble(g, raw, (size_t)count);
    else if (c->k == NORMAL)
        s = f32 ? curandGenerateNormal(g, raw, (size_t)count, (float)c->a, (float)c->b)
                : curandGenerateNormalDouble(g, raw, (size_t)count, c->a, c->b);
    else
        s = f32 ? curandGenerateLogNormal(g, raw, (size_t)count, (float)c->a, (float)c->b)
                : curandGenerateLogNormalDouble(g, raw, (size_t)count, c->a, c->b);
    CHECK_EQ_INT(s, CURAND_STATUS_SUCCESS);
    for (int64_t i = 0; i < count; i++) {
        if (f32) {
            float x = ((float *)raw)[i];
            if (c->k == SAMPLE || c->k == UNIFORM)
                x = x == 1.0f ? 0.0f : x;
            if (c->k == UNIFORM)
                x = (float)c->a + x * (float)(c->b - c->a);
            v[i] = x;
        } else {
            double x = ((double *)raw)[i];
            if (c->k == SAMPLE || c->k == UNIFORM)
                x = x == 1.0 ? 0.0 : x;
            if (c->k == UNIFORM)
                x = c->a + x * (c->b - c->a);
            v[i] = x;
        }
    }
    free(raw);
    return v;
}

static loom_array *draw(loom_random_state *rs, const call *c)
{
    const int64_t shape[1] = {c->n};
    switch (c->k) {
    case SAMPLE:
        return loom_random_state_random_sample(rs, 1, shape, c->dt);
    case UNIFORM:
        return loom_random_state_uniform(rs, c->a, c->b, 1, shape, c->dt);
    case NORMAL:
        return c->a == 0 && c->b == 1 ? loom_random_state_standard_normal(rs, 1, shape, c->dt)
                                      : loom_random_state_normal(rs, c->a, c->b, 1, shape, c->dt);
    case LOGNORMAL:
        return loom_random_state_lognormal(rs, c->a, c->b, 1, shape, c->dt);
    default:
        return loom_random_state_poisson(rs, c->a, 1, shape, c->dt);
    }
}

/* Loom's values against the reference (times factor), within the call's tolerance. */
static void compare(const char *method, int i, const call *c, const double *got,
                    const double *want, double factor)
{
    const bool uniform = c->k == SAMPLE || c->k == UNIFORM;
    const double eps = c->dt == LOOM_FLOAT32 ? 0x1p-23 : 0x1p-52;
    const double rel = c->k == POISSON ? 0
                       : uniform       ? 4 * eps
                       : c->dt == LOOM_FLOAT32 ? 1e-5 : 1e-12;
    int64_t bad = 0, first = -1;
    for (int64_t k = 0; k < c->n; k++) {
        const double w = want[k] * factor;
        if (!(fabs(got[k] - w) <= rel * fmax(1.0, fabs(w)))) {
            if (first < 0)
                first = k;
            bad++;
        }
    }
    CHECK(bad == 0);
    if (bad)
        fprintf(stderr, "%s call %d: %lld of %lld differ, first at %lld: %.17g vs %.17g\n", method,
                i, (long long)bad, (long long)c->n, (long long)first, got[first], want[first] * factor);
}

static void check_method(loom_curand_method m, curandRngType_t type, const char *name)
{
    loom_scope_begin();
    curandGenerator_t g;
    CHECK_EQ_INT(curandCreateGeneratorHost(&g, type), CURAND_STATUS_SUCCESS);
    curandSetPseudoRandomGeneratorSeed(g, SEED);
    curandSetGeneratorOffset(g, 0);
    loom_random_state *rs = loom_random_RandomState(SEED, m);
    double *want[NCALLS];
    loom_array *x[NCALLS];
    for (int i = 0; i < NCALLS; i++) {
        if (calls[i].reseed_before) {
            curandSetPseudoRandomGeneratorSeed(g, SEED2);
            curandSetGeneratorOffset(g, 0);
            CHECK_EQ_INT(loom_random_state_seed(rs, SEED2), LOOM_OK);
        }
        want[i] = reference(g, &calls[i]);
        x[i] = draw(rs, &calls[i]);
        CHECK(x[i] != NULL);
    }
    curandDestroyGenerator(g);
    loom_random_state_destroy(rs); /* the draws stay valid */

    /* draw 2 first (it runs 0 and 1 before it), 1 through a consumer, then the rest backwards */
    double *v = host_values(x[2], calls[2].n);
    compare(name, 2, &calls[2], v, want[2], 1);
    free(v);
    v = host_values(loom_multiply(x[1], loom_scalar(2.0)), calls[1].n);
    compare(name, 1, &calls[1], v, want[1], 2);
    free(v);
    for (int i = NCALLS - 1; i >= 0; i--) {
        if (i == 1 || i == 2)
            continue;
        v = host_values(x[i], calls[i].n);
        compare(name, i, &calls[i], v, want[i], 1);
        free(v);
    }
    v = host_values(x[0], calls[0].n); /* read again: the same values */
    compare(name, 0, &calls[0], v, want[0], 1);
    free(v);
    for (int i = 0; i < NCALLS; i++)
        free(want[i]);
    loom_scope_end();
}

/* Draws of one shape read as they are made: every one after the first reuses the cached plan
 * (the same key: the previous draw is in memory), which must still generate the next numbers
 * of the stream, not repeat the first draw's. */
static void check_cached_plans(void)
{
    loom_scope_begin();
    curandGenerator_t g;
    CHECK_EQ_INT(curandCreateGeneratorHost(&g, CURAND_RNG_PSEUDO_XORWOW), CURAND_STATUS_SUCCESS);
    curandSetPseudoRandomGeneratorSeed(g, SEED);
    curandSetGeneratorOffset(g, 0);
    loom_random_state *rs = loom_random_RandomState(SEED, LOOM_CURAND_XORWOW);
    const call c = {NORMAL, LOOM_FLOAT32, 256, 0, 1, false};
    for (int i = 0; i < 6; i++) {
        double *want = reference(g, &c);
        double *got = host_values(draw(rs, &c), c.n);
        compare("XORWOW, draws read as made", i, &c, got, want, 1);
        free(want);
        free(got);
    }
    curandDestroyGenerator(g);
    loom_random_state_destroy(rs);
    loom_scope_end();
}

int main(void)
{
    if (!gpu_test_start("gpu_test_curand"))
        return 77;
    check_method(LOOM_CURAND_XORWOW, CURAND_RNG_PSEUDO_XORWOW, "XORWOW");
    check_method(LOOM_CURAND_MRG32K3A, CURAND_RNG_PSEUDO_MRG32K3A, "MRG32k3a");
    check_method(LOOM_CURAND_PHILOX4_32_10, CURAND_RNG_PSEUDO_PHILOX4_32_10, "Philox4x32-10");
    check_cached_plans();
    return gpu_test_finish("gpu_test_curand");
}
