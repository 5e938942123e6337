/* Random generators without a GPU: NumPy's argument checks (tests/data/random_errors.txt from
 * tools/gen_random_cases.py), shapes and dtypes, the offsets each call reserves, how random
 * nodes plan (fused into consumers, one kernel for random((1000, 1000)) * 2, seeds and offsets
 * as arguments), NVRTC compiles of every distribution and dtype, DOT, and the host Philox
 * reference against Random123's known answers. */
#define _GNU_SOURCE /* strdup, open_memstream */
#include "check.h"
#include "exec/exec.h"
#include "fuser/plan.h"
#include "philox_ref.h"
#include "plans.h"
#include "random.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const names[] = {
    "uniform",    "normal",     "exponential", "standard_gamma", "gamma",     "beta",
    "chisquare",  "f",          "standard_t",  "lognormal",      "laplace",   "logistic",
    "gumbel",     "weibull",    "pareto",      "power",          "rayleigh",  "wald",
    "triangular", "poisson",    "geometric",   "negative_binomial", "random", "standard_normal",
    "standard_exponential", "standard_cauchy", "binomial", "hypergeometric", "logseries", "zipf",
    "vonmises"};
#define NNAMES ((int)(sizeof names / sizeof names[0]))

static int compile_all(loom_array *a, bool fuse);

static bool is_discrete(const char *name)
{
    return !strcmp(name, "poisson") || !strcmp(name, "geometric") ||
           !strcmp(name, "negative_binomial") || !strcmp(name, "binomial") ||
           !strcmp(name, "hypergeometric") || !strcmp(name, "logseries") || !strcmp(name, "zipf");
}

/* Generator.<name>(a, b, c) of shape and dtype. */
static loom_array *draw(loom_rng *g, const char *name, double a, double b, double c, int ndim,
                        const int64_t *shape, loom_dtype dt)
{
#define D1(n, call)                                                                               \
    if (!strcmp(name, n))                                                                         \
        return call;
    D1("uniform", loom_rng_uniform(g, a, b, ndim, shape, dt))
    D1("normal", loom_rng_normal(g, a, b, ndim, shape, dt))
    D1("exponential", loom_rng_exponential(g, a, ndim, shape, dt))
    D1("standard_gamma", loom_rng_standard_gamma(g, a, ndim, shape, dt))
    D1("gamma", loom_rng_gamma(g, a, b, ndim, shape, dt))
    D1("beta", loom_rng_beta(g, a, b, ndim, shape, dt))
    D1("chisquare", loom_rng_chisquare(g, a, ndim, shape, dt))
    D1("f", loom_rng_f(g, a, b, ndim, shape, dt))
    D1("standard_t", loom_rng_standard_t(g, a, ndim, shape, dt))
    D1("lognormal", loom_rng_lognormal(g, a, b, ndim, shape, dt))
    D1("laplace", loom_rng_laplace(g, a, b, ndim, shape, dt))
    D1("logistic", loom_rng_logistic(g, a, b, ndim, shape, dt))
    D1("gumbel", loom_rng_gumbel(g, a, b, ndim, shape, dt))
    D1("weibull", loom_rng_weibull(g, a, ndim, shape, dt))
    D1("pareto", loom_rng_pareto(g, a, ndim, shape, dt))
    D1("power", loom_rng_power(g, a, ndim, shape, dt))
    D1("rayleigh", loom_rng_rayleigh(g, a, ndim, shape, dt))
    D1("wald", loom_rng_wald(g, a, b, ndim, shape, dt))
    D1("triangular", loom_rng_triangular(g, a, b, c, ndim, shape, dt))
    D1("poisson", loom_rng_poisson(g, a, ndim, shape, dt))
    D1("geometric", loom_rng_geometric(g, a, ndim, shape, dt))
    D1("negative_binomial", loom_rng_negative_binomial(g, a, b, ndim, shape, dt))
    D1("random", loom_rng_random(g, ndim, shape, dt))
    D1("standard_normal", loom_rng_standard_normal(g, ndim, shape, dt))
    D1("standard_exponential", loom_rng_standard_exponential(g, ndim, shape, dt))
    D1("standard_cauchy", loom_rng_standard_cauchy(g, ndim, shape, dt))
    D1("binomial", loom_rng_binomial(g, (int64_t)a, b, ndim, shape, dt))
    D1("hypergeometric", loom_rng_hypergeometric(g, (int64_t)a, (int64_t)b, (int64_t)c, ndim, shape, dt))
    D1("logseries", loom_rng_logseries(g, a, ndim, shape, dt))
    D1("zipf", loom_rng_zipf(g, a, ndim, shape, dt))
    D1("vonmises", loom_rng_vonmises(g, a, b, ndim, shape, dt))
    D1("dirichlet", loom_rng_dirichlet(g, 3, (const double[]){a, b, c}, ndim, shape, dt))
#undef D1
    return NULL;
}

/* Valid parameters for each name. */
static void valid_params(const char *name, double p[3])
{
    p[0] = 2, p[1] = 3, p[2] = 4;
    if (!strcmp(name, "geometric") || !strcmp(name, "negative_binomial"))
        p[1] = 0.5, p[0] = strcmp(name, "geometric") ? 2 : 0.5;
    if (!strcmp(name, "binomial") || !strcmp(name, "logseries"))
        p[0] = !strcmp(name, "binomial") ? 10 : 0.5, p[1] = 0.3;
}

/* "multivariate_normal <mean shape> <cov shape> <check_valid> <method>": mean zeros, cov the
 * identity (ones when 1-D). check_valid "raise" with svd or eigh reads eigenvalues from the
 * device: without one, that call must fail for that reason alone. */
static void check_mvn_case(const char *line, const char *expected)
{
    char mdims[32], cdims[32], check[16], method[16];
    if (sscanf(line, "multivariate_normal %31s %31s %15s %15s", mdims, cdims, check, method) != 4)
        return;
    int64_t ms[2] = {0, 0}, cs[2] = {0, 0};
    const int mnd = sscanf(mdims, "%" SCNd64 ",%" SCNd64, &ms[0], &ms[1]);
    const int cnd = sscanf(cdims, "%" SCNd64 ",%" SCNd64, &cs[0], &cs[1]);
    loom_scope_begin();
    loom_rng *g = loom_random_default_rng(2);
    loom_array *mean = loom_zeros(mnd, ms, LOOM_FLOAT64);
    loom_array *cov = cnd == 2 ? loom_eye(cs[0], cs[1], 0, LOOM_FLOAT64) : loom_ones(1, cs, LOOM_FLOAT64);
    loom_clear_error();
    loom_array *x = loom_rng_multivariate_normal(g, mean, cov, 1, (int64_t[]){5}, check, 1e-8,
                                                 method, LOOM_FLOAT64);
    const char *err = loom_last_error();
    const bool reads_device = !strcmp(check, "raise") && strcmp(method, "cholesky") &&
                              loom_device_count() <= 0;
    bool ok;
    if (!strcmp(expected, "ok") && reads_device)
        ok = !x && loom_last_error_code() == LOOM_ERR_NO_DEVICE;
    else if (!strcmp(expected, "ok"))
        ok = x && loom_ndim(x) == 2 && loom_shape(x)[0] == 5 && loom_shape(x)[1] == ms[0];
    else
        ok = !x && err && strstr(err, "loom_rng_multivariate_normal") && strstr(err, expected);
    CHECK(ok);
    if (!ok)
        fprintf(stderr, "case \"%s\": expected %s, got %s\n", line, expected, x ? "an array" : err);
    loom_rng_destroy(g);
    loom_scope_end();
}

static void check_numpy_table(void)
{
    char path[512];
    snprintf(path, sizeof path, "%s/random_errors.txt", LOOM_TEST_DATA);
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    if (!f)
        return;
    loom_rng *g = loom_random_default_rng(1);
    char line[512];
    int cases = 0;
    int64_t shape[1] = {3};
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        char *bar = strstr(line, " | ");
        if (!bar)
            continue;
        *bar = '\0';
        const char *expected = bar + 3;
        char name[64], dtname[32];
        loom_array *a;
        char fn[96];
        if (!strncmp(line, "multivariate_normal ", 20)) {
            check_mvn_case(line, expected);
            continue;
        }
        if (!strncmp(line, "integers ", 9)) {
            long long low, high;
            int endpoint;
            if (sscanf(line, "integers %lld %lld %d %31s", &low, &high, &endpoint, dtname) != 4)
                continue;
            loom_clear_error();
            a = loom_rng_integers(g, low, high, endpoint, 1, shape, loom_dtype_from_name(dtname));
            snprintf(fn, sizeof fn, "loom_rng_integers");
        } else {
            double p[3];
            if (sscanf(line, "%63s %lf %lf %lf", name, &p[0], &p[1], &p[2]) != 4)
                continue;
            loom_clear_error();
            a = draw(g, name, p[0], p[1], p[2], 1, shape, is_discrete(name) ? LOOM_INT64 : LOOM_FLOAT64);
            if (!strcmp(name, "dirichlet") && !strcmp(expected, "ok"))
                CHECK(a && loom_ndim(a) == 2 && loom_shape(a)[1] == 3);
            snprintf(fn, sizeof fn, "loom_rng_%s", name);
        }
        cases++;
        const char *err = loom_last_error();
        bool ok = !strcmp(expected, "ok") ? a != NULL
                                          : !a && err && strstr(err, fn) && strstr(err, expected);
        CHECK(ok);
        if (!ok)
            fprintf(stderr, "case \"%s\": expected %s, got %s\n", line, expected, a ? "an array" : err);
        loom_release(a);
    }
    fclose(f);
    CHECK(cases > 100);
    loom_rng_destroy(g);
}

static void check_shapes_and_dtypes(void)
{
    loom_rng *g = loom_random_default_rng(7);
    const int64_t shape[3] = {2, 3, 4};
    for (int i = 0; i < NNAMES; i++) {
        double p[3];
        valid_params(names[i], p);
        const bool discrete = is_discrete(names[i]);
        const loom_dtype ok[2] = {discrete ? LOOM_INT64 : LOOM_FLOAT32,
                                  discrete ? LOOM_INT32 : LOOM_FLOAT64};
        for (int k = 0; k < 2; k++) {
            loom_array *a = draw(g, names[i], p[0], p[1], p[2], 3, shape, ok[k]);
            CHECK(a && loom_dtype_of(a) == ok[k] && a->op != LOOM_OP_VIEW &&
                  loom__ops[a->op].kind == LOOM_OPK_GEN && loom__is_random(a->op));
            CHECK_SHAPE(a, 3, shape);
            loom_release(a);
        }
        /* NumPy: "Unsupported dtype dtype('float16') for random" */
        const loom_dtype bad = discrete ? LOOM_FLOAT64 : LOOM_FLOAT16;
        char fn[96], reason[96];
        snprintf(fn, sizeof fn, "loom_rng_%s", names[i]);
        snprintf(reason, sizeof reason, "Unsupported dtype dtype('%s') for %s", loom_dtype_name(bad),
                 names[i]);
        CHECK_FAILS(draw(g, names[i], p[0], p[1], p[2], 3, shape, bad), fn, reason);
        CHECK_FAILS(draw(g, names[i], p[0], p[1], p[2], 2, (int64_t[]){2, -1}, ok[0]), fn,
                    "negative dimensions");
    }
    for (int dt = 0; dt < LOOM_NUM_DTYPES; dt++) {
        loom_clear_error();
        loom_array *a = loom_rng_integers(g, 0, 2, false, 3, shape, (loom_dtype)dt);
        const bool integral = dt == LOOM_BOOL || loom__is_int((loom_dtype)dt);
        CHECK(integral ? a && loom_dtype_of(a) == dt : !a);
        if (!integral)
            CHECK(strstr(loom_last_error(), "for integers") != NULL);
        loom_release(a);
    }
    loom_array *b = loom_rng_bytes(g, 10);
    CHECK(b && loom_dtype_of(b) == LOOM_UINT8 && loom_ndim(b) == 1 && loom_size(b) == 10);
    loom_release(b);
    /* A NULL generator passes through, leaving the error before it. */
    loom__error(LOOM_ERR_OOM, "earlier", "the first failure");
    CHECK(!loom_rng_normal(NULL, 0, -1, 3, shape, LOOM_FLOAT32));
    CHECK(!loom_rng_integers(NULL, 0, 1, false, 3, shape, LOOM_FLOAT32));
    CHECK_STR(loom_last_error(), "earlier: the first failure");
    loom_rng_destroy(NULL);
    loom_rng_destroy(g);
}

/* dirichlet and multivariate_normal: shapes, dtypes, what they reserve, and their plans
 * compile. */
static void check_vectors(void)
{
    loom_scope_begin();
    loom_rng *g = loom_random_default_rng(8);
    const int64_t shape[2] = {4, 5}, out[3] = {4, 5, 3};
    const double alpha[3] = {0.5, 2, 3}, small[3] = {0.05, 0.02, 0.01};
    for (int k = 0; k < 2; k++) {
        const loom_dtype dt = k ? LOOM_FLOAT64 : LOOM_FLOAT32;
        uint64_t before = loom__rng_offset(g);
        loom_array *d = loom_rng_dirichlet(g, 3, alpha, 2, shape, dt);
        CHECK(d && loom_dtype_of(d) == dt && loom__rng_offset(g) == before + 60); /* 3 gammas */
        CHECK_SHAPE(d, 3, out);
        CHECK(compile_all(d, true) >= 1);
        before = loom__rng_offset(g);
        loom_array *s = loom_rng_dirichlet(g, 3, small, 2, shape, dt);
        CHECK(s && loom__rng_offset(g) == before + 40); /* 2 betas */
        /* NumPy's remainders, summed from the right: the one before a last zero alpha is
         * exactly 0 (no beta node), though 0.01 + 0.02 + 0.04 - 0.01 - 0.02 is 7e-18 */
        before = loom__rng_offset(g);
        CHECK(loom_rng_dirichlet(g, 4, (const double[]){0.01, 0.02, 0.04, 0}, 2, shape, dt) &&
              loom__rng_offset(g) == before + 40);
        CHECK_SHAPE(s, 3, out);
        CHECK(compile_all(s, true) >= 1);
        loom_array *mean = loom_asarray((const double[]){1, 2, 3}, LOOM_FLOAT64, 1, (int64_t[]){3});
        loom_array *cov = loom_eye(3, 3, 0, LOOM_FLOAT64);
        before = loom__rng_offset(g);
        const char *methods[3] = {NULL, "eigh", "cholesky"};
        for (int m = 0; m < 3; m++) {
            loom_array *x = loom_rng_multivariate_normal(g, mean, cov, 2, shape, "ignore", 1e-8,
                                                         methods[m], dt);
            CHECK(x && loom_dtype_of(x) == dt);
            CHECK_SHAPE(x, 3, out);
        }
        CHECK(loom__rng_offset(g) == before + 180);
    }
    CHECK_FAILS(loom_rng_dirichlet(g, 3, alpha, 2, shape, LOOM_INT32), "loom_rng_dirichlet",
                "Unsupported dtype dtype('int32') for dirichlet");
    CHECK_FAILS(loom_rng_dirichlet(g, -1, alpha, 2, shape, LOOM_FLOAT64), "loom_rng_dirichlet",
                "k >= 0");
    loom_array *none = loom_rng_dirichlet(g, 0, NULL, 2, shape, LOOM_FLOAT64);
    CHECK(none && loom_ndim(none) == 3 && loom_shape(none)[2] == 0);
    loom_array *mean = loom_zeros(1, (int64_t[]){2}, LOOM_FLOAT64);
    CHECK_FAILS(loom_rng_multivariate_normal(g, mean, loom_eye(2, 2, 0, LOOM_FLOAT64), 1,
                                             (int64_t[]){3}, NULL, 1e-8, NULL, LOOM_INT64),
                "loom_rng_multivariate_normal", "Unsupported dtype dtype('int64') for multivariate_normal");
    /* NULL inputs pass through. */
    loom__error(LOOM_ERR_OOM, "earlier", "the first failure");
    CHECK(!loom_rng_multivariate_normal(g, NULL, mean, 0, NULL, NULL, 1e-8, NULL, LOOM_FLOAT64));
    CHECK(!loom_rng_dirichlet(NULL, 3, alpha, 0, NULL, LOOM_FLOAT64));
    CHECK_STR(loom_last_error(), "earlier: the first failure");
    loom_rng_destroy(g);
    loom_scope_end();
}

/* Each node reserves as many blocks as it has elements, in call order; a failing call none. */
static void check_offsets(void)
{
    loom_rng *g = loom_random_default_rng(0x123456789abcdefull);
    loom_array *a = loom_rng_random(g, 2, (int64_t[]){2, 3}, LOOM_FLOAT32);
    loom_array *b = loom_rng_standard_normal(g, 1, (int64_t[]){5}, LOOM_FLOAT64);
    loom_array *bad = loom_rng_normal(g, 0, -1, 1, (int64_t[]){5}, LOOM_FLOAT64);
    loom_array *e = loom_rng_random(g, 1, (int64_t[]){0}, LOOM_FLOAT32);
    loom_array *c = loom_rng_integers(g, -3, 4, true, 0, NULL, LOOM_INT8);
    loom_array *d = loom_rng_gamma(g, 2, 1, 1, (int64_t[]){4}, LOOM_FLOAT32);
    CHECK(a && b && !bad && e && c && d);
    if (a && b && e && c && d) {
        CHECK(a->param.random.seed == 0x123456789abcdefull && a->param.random.ctr == 0);
        CHECK(b->param.random.ctr == 6 && e->param.random.ctr == 11 && c->param.random.ctr == 11);
        CHECK(d->param.random.ctr == 12 && loom__rng_offset(g) == 16);
        CHECK(c->param.randint.low == -3 && c->param.randint.range == 8);
        CHECK(a->param.random.a == 0 && a->param.random.b == 1);
    }
    loom_array *full = loom_rng_integers(g, INT64_MIN, INT64_MAX, true, 0, NULL, LOOM_INT64);
    CHECK(full && full->param.randint.range == 0); /* all 2^64 values */
    loom_release(full);
    loom_release(a);
    loom_release(b);
    loom_release(c);
    loom_release(d);
    loom_release(e);
    loom_rng_destroy(g);

    /* The legacy state: seeding restarts the stream of the current device. */
    CHECK_EQ_INT(loom_random_seed(99), LOOM_OK);
    loom_array *l1 = loom_random_rand(1, (int64_t[]){3}, LOOM_FLOAT64);
    loom_array *l2 = loom_random_randn(1, (int64_t[]){2}, LOOM_FLOAT32);
    CHECK_EQ_INT(loom_random_seed(99), LOOM_OK);
    loom_array *l3 = loom_random_uniform(0, 1, 1, (int64_t[]){3}, LOOM_FLOAT64);
    loom_array *l4 = loom_random_randint(0, 5, 1, (int64_t[]){3}, LOOM_INT64);
    loom_array *l5 = loom_random_normal(0, 2, 1, (int64_t[]){3}, LOOM_FLOAT64);
    loom_array *l6 = loom_random_random(1, (int64_t[]){3}, LOOM_FLOAT32);
    CHECK(l1 && l2 && l3 && l4 && l5 && l6);
    if (l1 && l2 && l3 && l4 && l5 && l6) {
        CHECK(l1->param.random.seed == 99 && l1->param.random.ctr == 0 && l2->param.random.ctr == 3);
        CHECK(l3->param.random.ctr == 0 && l4->param.random.ctr == 3 && l5->param.random.ctr == 6);
        CHECK(l6->param.random.ctr == 9);
    }
    CHECK_FAILS(loom_random_normal(0, -1, 1, (int64_t[]){3}, LOOM_FLOAT64), "loom_random_normal",
                "scale < 0");
    CHECK_FAILS(loom_random_randint(3, 3, 1, (int64_t[]){3}, LOOM_INT64), "loom_random_randint",
                "low >= high");
    CHECK_FAILS(loom_random_rand(1, (int64_t[]){3}, LOOM_INT32), "loom_random_rand",
                "Unsupported dtype dtype('int32') for rand");
    loom_array *ls[] = {l1, l2, l3, l4, l5, l6};
    for (int i = 0; i < 6; i++)
        loom_release(ls[i]);
}

/* Compiles every kernel of the plan of a (fused or not); returns the number of steps. */
static int compile_all(loom_array *a, bool fuse)
{
    return test_compile_plan(&a, 1, fuse, false);
}

/* Every distribution and dtype as a materialised array, fused into a consumer, read through a
 * transposed view (strided indexing) and summed (a reduction kernel). */
static void check_compiles(void)
{
    loom_rng *g = loom_random_default_rng(3);
    const int64_t shape[2] = {33, 7};
    for (int i = 0; i < NNAMES; i++) {
        double p[3];
        valid_params(names[i], p);
        const bool discrete = is_discrete(names[i]);
        for (int k = 0; k < 2; k++) {
            const loom_dtype dt = discrete ? (k ? LOOM_INT32 : LOOM_INT64) : (k ? LOOM_FLOAT64 : LOOM_FLOAT32);
            loom_scope_begin();
            loom_array *a = draw(g, names[i], p[0], p[1], p[2], 2, shape, dt);
            CHECK_EQ_INT(compile_all(a, true), 1);
            loom_array *t = loom_add(loom_transpose(a, NULL), loom_scalar(1.0));
            CHECK_EQ_INT(compile_all(t, true), 1);
            CHECK(compile_all(loom_sum(a, NULL, 0, false), true) >= 1);
            loom_scope_end();
        }
    }
    for (int dt = 0; dt < LOOM_NUM_DTYPES; dt++) {
        if (dt != LOOM_BOOL && !loom__is_int((loom_dtype)dt))
            continue;
        loom_scope_begin();
        loom_array *a = loom_rng_integers(g, 0, 2, false, 2, shape, (loom_dtype)dt);
        CHECK_EQ_INT(compile_all(a, true), 1);
        CHECK_EQ_INT(compile_all(loom_transpose(a, NULL), true), 1);
        loom_scope_end();
    }
    loom_rng_destroy(g);
}

static int count_kernels(loom_array *const *a, int n, bool fuse)
{
    loom_plan *p = test_plan(a, n, fuse);
    int k = 0;
    for (int s = 0; p && s < p->nsteps; s++)
        k += p->steps[s].kind == LOOM_STEP_KERNEL;
    loom__plan_free(p);
    return p ? k : -1;
}

static void check_plans(void)
{
    loom_scope_begin();
    loom_rng *g = loom_random_default_rng(5);
    /* The seeds' random((1000, 1000)) * 2: one kernel that reads nothing. */
    loom_array *r = loom_mul_scalar(loom_rng_random(g, 2, (int64_t[]){1000, 1000}, LOOM_FLOAT64), 2.0);
    loom_plan *p = test_plan(&r, 1, true);
    CHECK(p && p->nsteps == 1 && p->steps[0].kind == LOOM_STEP_KERNEL);
    for (int i = 0; p && i < p->steps[0].kernel.nargs; i++)
        CHECK(p->steps[0].kernel.args[i].kind != LOOM_KARG_PTR || i == 0);
    loom__plan_free(p);

    /* x + standard_normal(x.shape): one kernel reading x, writing the result. */
    int64_t n = 1 << 20;
    float *zeros = calloc((size_t)n, sizeof *zeros);
    loom_array *x = loom_asarray(zeros, LOOM_FLOAT32, 1, &n);
    free(zeros);
    loom_array *y = loom_add(x, loom_rng_standard_normal(g, 1, &n, LOOM_FLOAT32));
    p = test_plan(&y, 1, true);
    int ptrs = 0;
    for (int i = 0; p && i < p->steps[0].kernel.nargs; i++)
        ptrs += p->steps[0].kernel.args[i].kind == LOOM_KARG_PTR;
    CHECK(p && p->nsteps == 1 && ptrs == 2 && p->steps[0].kernel.vec == 4);
    /* Seed and offset are arguments, never source: another seed and call reuse the kernel. */
    char *src = p ? strdup(p->steps[0].kernel.source) : NULL;
    loom__plan_free(p);
    loom_rng *g2 = loom_random_default_rng(0xdeadbeefcafeull);
    loom_array *y2 = loom_add(x, loom_rng_standard_normal(g2, 1, &n, LOOM_FLOAT32));
    loom_array *y3 = loom_add(x, loom_rng_standard_normal(g2, 1, &n, LOOM_FLOAT32));
    loom_plan *p2 = test_plan(&y2, 1, true), *p3 = test_plan(&y3, 1, true);
    CHECK(src && p2 && p3 && !strcmp(src, p2->steps[0].kernel.source) &&
          !strcmp(src, p3->steps[0].kernel.source));
    CHECK(src && !strstr(src, "3735928559") && !strstr(src, "deadbeef"));
    free(src);
    loom__plan_free(p2);
    loom__plan_free(p3);

    /* Two consumers of one random array in two outputs: one kernel computes both. */
    loom_array *z = loom_rng_normal(g, 1, 2, 1, &n, LOOM_FLOAT32);
    loom_array *outs[2] = {loom_exp(z), loom_negative(z)};
    CHECK_EQ_INT(count_kernels(outs, 2, true), 1);
    /* Without fusion the random node is still a generator, read by each op's kernel. */
    CHECK_EQ_INT(count_kernels(&y, 1, false), 1);
    CHECK_EQ_INT(count_kernels(outs, 2, false), 2);
    loom_rng_destroy(g);
    loom_rng_destroy(g2);
    loom_scope_end();
}

static int count_substrings(const char *s, const char *sub)
{
    int n = 0;
    for (const char *p = s ? strstr(s, sub) : NULL; p; p = strstr(p + 1, sub))
        n++;
    return n;
}

static void check_dot(void)
{
    loom_scope_begin();
    loom_rng *g = loom_random_default_rng(42);
    loom_array *skip = loom_rng_random(g, 1, (int64_t[]){5}, LOOM_FLOAT32);
    (void)skip;
    loom_array *a = loom_add(loom_rng_normal(g, 1.5, 2, 1, (int64_t[]){4}, LOOM_FLOAT32),
                             loom_rng_integers(g, -2, 9, false, 1, (int64_t[]){4}, LOOM_INT32));
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    CHECK_EQ_INT(loom_dump_dot(f, &a, 1), LOOM_OK);
    fclose(f);
    CHECK(buf && strstr(buf, "normal") && strstr(buf, "seed 42 offset 5") && strstr(buf, "1.5, 2"));
    CHECK(buf && strstr(buf, "integers") && strstr(buf, "seed 42 offset 9") && strstr(buf, "low -2 range 11"));
    free(buf);
    /* dirichlet's stick-breaking: each beta node (offsets 13 and 15) and its complement over the
     * same blocks */
    loom_array *d = loom_rng_dirichlet(g, 3, (const double[]){0.05, 0.02, 0.08}, 1, (int64_t[]){2}, LOOM_FLOAT64);
    f = open_memstream(&buf, &len);
    CHECK_EQ_INT(loom_dump_dot(f, &d, 1), LOOM_OK);
    fclose(f);
    CHECK_EQ_INT(count_substrings(buf, "seed 42 offset 13"), 2);
    CHECK_EQ_INT(count_substrings(buf, "seed 42 offset 15"), 2);
    CHECK_EQ_INT(count_substrings(buf, "1 - beta (same words)"), 2);
    CHECK(loom__rng_offset(g) == 17);
    free(buf);
    loom_rng_destroy(g);
    loom_scope_end();
}

static void check_philox_reference(void)
{
    for (int i = 0; i < 3; i++) {
        uint32_t out[4];
        philox_ref(philox_kat[i].ctr, philox_kat[i].key, out);
        for (int w = 0; w < 4; w++)
            CHECK(out[w] == philox_kat[i].out[w]);
    }
}

int main(void)
{
    check_philox_reference();
    check_numpy_table();
    check_shapes_and_dtypes();
    check_offsets();
    check_plans();
    check_dot();
    check_vectors();
    check_compiles();
    return check_summary("test_random");
}
