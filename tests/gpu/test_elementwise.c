/* The elementwise GPU path end to end: fused kernels against float64 host references on fresh
 * random inputs, fused vs LOOM_FUSE=0 bit for bit, views, broadcasts, generators, odd sizes,
 * misaligned inputs, dtypes, eval_many, .npy round trips and a > 2^31-element array. */
#define _POSIX_C_SOURCE 200809L
#include "check.h"
#include "gpu_main.h"
#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <time.h>

static unsigned seed;

static double urand(void) { return rand_r(&seed) / (double)RAND_MAX; }

static float *random_floats(int64_t n, double lo, double hi)
{
    float *x = malloc((size_t)n * sizeof *x);
    for (int64_t i = 0; i < n; i++)
        x[i] = (float)(lo + (hi - lo) * urand());
    return x;
}

/* Fills the pool's free blocks with 0xFF so unwritten outputs show up as garbage. */
static void poison(size_t bytes)
{
    loom_scope_begin();
    CHECK_EQ_INT(loom_eval(loom_full(1, (int64_t[]){(int64_t)bytes}, 255, LOOM_UINT8)), LOOM_OK);
    loom_scope_end();
}

static loom_array *chain(loom_array *x)
{
    /* sin(x)*2 + cos(x)**2 - exp(-x)/(1 + x*x) */
    return loom_subtract(
        loom_add(loom_mul_scalar(loom_sin(x), 2.0), loom_power(loom_cos(x), loom_scalar(2.0))),
        loom_divide(loom_exp(loom_negative(x)), loom_add(loom_scalar(1.0), loom_multiply(x, x))));
}

static void test_chain(int64_t n)
{
    loom_scope_begin();
    float *xh = random_floats(n, -3, 3);
    loom_array *x = loom_asarray(xh, LOOM_FLOAT32, 1, &n);
    poison((size_t)n * 4);
    float *fused = malloc((size_t)n * 4 + 4), *unfused = malloc((size_t)n * 4 + 4);
    CHECK_EQ_INT(loom_get(chain(x), fused, (size_t)n * 4), LOOM_OK);
    setenv("LOOM_FUSE", "0", 1);
    poison((size_t)n * 4);
    CHECK_EQ_INT(loom_get(chain(x), unfused, (size_t)n * 4), LOOM_OK);
    unsetenv("LOOM_FUSE");
    double worst = 0;
    int64_t mismatched = 0;
    for (int64_t i = 0; i < n; i++) {
        double v = xh[i];
        double ref = sin(v) * 2 + cos(v) * cos(v) - exp(-v) / (1 + v * v);
        double err = fabs(fused[i] - ref) / fmax(1.0, fabs(ref));
        worst = err > worst || isnan(err) ? err : worst;
        mismatched += memcmp(&fused[i], &unfused[i], 4) != 0;
    }
    printf("chain n=%lld: max rel error %.3g, fused/unfused mismatches %lld\n", (long long)n, worst,
           (long long)mismatched);
    CHECK(worst < 1e-5);
    CHECK_EQ_INT(mismatched, 0);
    free(xh);
    free(fused);
    free(unfused);
    loom_scope_end();
}

static void test_views_and_broadcasts(void)
{
    loom_scope_begin();
    int64_t r = 37, c = 53;
    double *m = malloc((size_t)(r * c) * 8);
    for (int64_t i = 0; i < r * c; i++)
        m[i] = urand() * 10 - 5;
    loom_array *a = loom_asarray(m, LOOM_FLOAT64, 2, (int64_t[]){r, c});
    /* a.T + a[::-1, ::-1].T */
    loom_array *t = loom_add(loom_transpose(a, NULL), loom_transpose(loom_flip(a, NULL, 0), NULL));
    double *out = malloc((size_t)(r * c) * 8);
    CHECK_EQ_INT(loom_get(t, out, (size_t)(r * c) * 8), LOOM_OK);
    int bad = 0;
    for (int64_t i = 0; i < c; i++)
        for (int64_t j = 0; j < r; j++)
            bad += out[i * r + j] != m[j * c + i] + m[(r - 1 - j) * c + (c - 1 - i)];
    CHECK_EQ_INT(bad, 0);

    /* outer product a[:,None] * b[None,:] and a slice with a step */
    float *av = random_floats(100, -1, 1), *bv = random_floats(77, -1, 1);
    loom_array *va = loom_asarray(av, LOOM_FLOAT32, 1, (int64_t[]){100});
    loom_array *vb = loom_asarray(bv, LOOM_FLOAT32, 1, (int64_t[]){77});
    loom_array *outer = loom_multiply(loom_expand_dims(va, 1), loom_expand_dims(vb, 0));
    float *o = malloc(100 * 77 * 4);
    CHECK_EQ_INT(loom_get(outer, o, 100 * 77 * 4), LOOM_OK);
    bad = 0;
    for (int i = 0; i < 100; i++)
        for (int j = 0; j < 77; j++)
            bad += o[i * 77 + j] != av[i] * bv[j];
    CHECK_EQ_INT(bad, 0);

    /* misaligned: x[1:] + x[:-1] (offset 1 breaks 16-byte vectors) */
    loom_array *mis = loom_add(loom_slice(va, 0, 1, LOOM_NONE, 1), loom_slice(va, 0, 0, -1, 1));
    float mo[99];
    CHECK_EQ_INT(loom_get(mis, mo, sizeof mo), LOOM_OK);
    bad = 0;
    for (int i = 0; i < 99; i++)
        bad += mo[i] != av[i + 1] + av[i];
    CHECK_EQ_INT(bad, 0);
    /* strided: x[::3] * 2 */
    loom_array *st = loom_mul_scalar(loom_slice(va, 0, LOOM_NONE, LOOM_NONE, 3), 2.0);
    float so[34];
    CHECK_EQ_INT(loom_size(st), 34);
    CHECK_EQ_INT(loom_get(st, so, sizeof so), LOOM_OK);
    bad = 0;
    for (int i = 0; i < 34; i++)
        bad += so[i] != av[3 * i] * 2.0f;
    CHECK_EQ_INT(bad, 0);
    /* a computed value read through a transpose (two kernels) */
    loom_array *sq = loom_multiply(a, a);
    loom_array *sqt = loom_add(loom_transpose(sq, NULL), loom_transpose(a, NULL));
    CHECK_EQ_INT(loom_get(sqt, out, (size_t)(r * c) * 8), LOOM_OK);
    bad = 0;
    for (int64_t i = 0; i < c; i++)
        for (int64_t j = 0; j < r; j++)
            bad += out[i * r + j] != m[j * c + i] * m[j * c + i] + m[j * c + i];
    CHECK_EQ_INT(bad, 0);
    free(m);
    free(out);
    free(av);
    free(bv);
    free(o);
    loom_scope_end();
}

static void test_generators_and_dtypes(void)
{
    loom_scope_begin();
    int64_t ar[1000];
    CHECK_EQ_INT(loom_get(loom_arange(0, 1000, 1, LOOM_INT64), ar, sizeof ar), LOOM_OK);
    int bad = 0;
    for (int i = 0; i < 1000; i++)
        bad += ar[i] != i;
    CHECK_EQ_INT(bad, 0);
    double ls[11];
    CHECK_EQ_INT(loom_get(loom_linspace(0, 1, 11, true, LOOM_FLOAT64), ls, sizeof ls), LOOM_OK);
    CHECK(ls[10] == 1.0 && fabs(ls[3] - 0.3) < 1e-15);
    float eye[35];
    CHECK_EQ_INT(loom_get(loom_eye(5, 7, 1, LOOM_FLOAT32), eye, sizeof eye), LOOM_OK);
    bad = 0;
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 7; j++)
            bad += eye[i * 7 + j] != (j - i == 1 ? 1.0f : 0.0f);
    CHECK_EQ_INT(bad, 0);

    /* integer floor_divide / remainder with Python semantics, and division by zero -> 0 */
    int32_t a[8] = {7, -7, 7, -7, 5, 0, INT32_MIN, 9}, b[8] = {2, 2, -2, -2, 0, 3, -1, 4};
    loom_array *ia = loom_asarray(a, LOOM_INT32, 1, (int64_t[]){8});
    loom_array *ib = loom_asarray(b, LOOM_INT32, 1, (int64_t[]){8});
    int32_t q[8], m[8];
    CHECK_EQ_INT(loom_get(loom_floor_divide(ia, ib), q, sizeof q), LOOM_OK);
    CHECK_EQ_INT(loom_get(loom_remainder(ia, ib), m, sizeof m), LOOM_OK);
    int32_t eq[8] = {3, -4, -4, 3, 0, 0, INT32_MIN, 2}, em[8] = {1, 1, -1, -1, 0, 0, 0, 1};
    CHECK(memcmp(q, eq, sizeof q) == 0);
    CHECK(memcmp(m, em, sizeof m) == 0);

    /* comparisons give bool; int8 + weak int stays int8 and wraps */
    uint8_t gt[8];
    CHECK_EQ_INT(loom_get(loom_greater(ia, ib), gt, sizeof gt), LOOM_OK);
    CHECK(gt[0] == 1 && gt[5] == 0);
    int8_t i8[4] = {120, -128, 0, 5}, r8[4];
    loom_array *x8 = loom_asarray(i8, LOOM_INT8, 1, (int64_t[]){4});
    loom_array *s8 = loom_add(x8, loom_scalar_int(10));
    CHECK_EQ_INT(loom_dtype_of(s8), LOOM_INT8);
    CHECK_EQ_INT(loom_get(s8, r8, sizeof r8), LOOM_OK);
    CHECK(r8[0] == -126 && r8[1] == -118 && r8[3] == 15);

    /* float16 and bfloat16 computed in float32, rounded once; complex64 multiply */
    loom_array *h = loom_astype(loom_linspace(-2, 2, 9, true, LOOM_FLOAT32), LOOM_FLOAT16);
    uint16_t hh[9];
    CHECK_EQ_INT(loom_get(loom_multiply(h, h), hh, sizeof hh), LOOM_OK);
    bad = 0;
    for (int i = 0; i < 9; i++) {
        double v = -2 + 0.5 * i;
        bad += loom__half_to_double(hh[i]) != v * v;
    }
    CHECK_EQ_INT(bad, 0);
    loom_array *bf = loom_astype(loom_arange(0, 8, 1, LOOM_FLOAT32), LOOM_BFLOAT16);
    uint16_t bb[8];
    CHECK_EQ_INT(loom_get(loom_add(bf, bf), bb, sizeof bb), LOOM_OK);
    bad = 0;
    for (int i = 0; i < 8; i++)
        bad += loom__bfloat16_to_double(bb[i]) != 2.0 * i;
    CHECK_EQ_INT(bad, 0);
    float cz[4] = {1, 2, 3, -1}; /* (1+2i), (3-i) */
    loom_array *z = loom_asarray(cz, LOOM_COMPLEX64, 1, (int64_t[]){2});
    float zz[4];
    CHECK_EQ_INT(loom_get(loom_multiply(z, z), zz, sizeof zz), LOOM_OK);
    CHECK(zz[0] == -3 && zz[1] == 4 && zz[2] == 8 && zz[3] == -6);

    /* 0-d item, 0-size and 1-element arrays */
    double item = 0;
    CHECK_EQ_INT(loom_item(loom_add(loom_scalar_typed(1.5, LOOM_FLOAT32), loom_scalar(2.0)), &item), LOOM_OK);
    CHECK(item == 3.5);
    loom_array *empty = loom_add_scalar(loom_zeros(2, (int64_t[]){0, 5}, LOOM_FLOAT32), 1.0);
    CHECK_EQ_INT(loom_eval(empty), LOOM_OK);
    CHECK_EQ_INT(loom_get(empty, NULL, 0), LOOM_OK);
    float one;
    CHECK_EQ_INT(loom_get(loom_sqrt(loom_full(1, (int64_t[]){1}, 9.0, LOOM_FLOAT32)), &one, 4), LOOM_OK);
    CHECK(one == 3.0f);
    loom_scope_end();
}

static void test_eval_many_and_reuse(void)
{
    loom_scope_begin();
    int64_t n = 4099;
    float *xh = random_floats(n, 0, 1);
    loom_array *x = loom_asarray(xh, LOOM_FLOAT32, 1, &n);
    loom_array *y = loom_sin(x), *zc = loom_cos(y);
    loom_array *both[2] = {y, zc};
    loom_stats_reset();
    CHECK_EQ_INT(loom_eval_many(both, 2), LOOM_OK);
    loom_stats st;
    loom_stats_get(&st);
    CHECK_EQ_INT(st.kernels_launched + st.graph_launches, 1); /* one kernel, as a graph */
    float *yo = malloc((size_t)n * 4), *zo = malloc((size_t)n * 4);
    CHECK_EQ_INT(loom_get(y, yo, (size_t)n * 4), LOOM_OK);
    CHECK_EQ_INT(loom_get(zc, zo, (size_t)n * 4), LOOM_OK);
    int bad = 0;
    for (int64_t i = 0; i < n; i++)
        bad += fabs(yo[i] - sinf(xh[i])) > 1e-6 || fabs(zo[i] - cosf(yo[i])) > 1e-6;
    CHECK_EQ_INT(bad, 0);
    /* a second evaluation of the same structure compiles nothing */
    CHECK_EQ_INT(loom_eval(loom_cos(loom_sin(x))), LOOM_OK);
    loom_stats_reset();
    CHECK_EQ_INT(loom_eval(loom_cos(loom_sin(x))), LOOM_OK);
    loom_stats_get(&st);
    CHECK_EQ_INT(st.kernels_compiled, 0); /* the plan cache skips even the kernel cache */

    /* .npy round trip */
    char path[] = "/tmp/loom_test_npy_XXXXXX";
    int fd = mkstemp(path);
    if (fd >= 0) {
        CHECK_EQ_INT(loom_save_npy(zc, path), LOOM_OK);
        loom_array *back = loom_load_npy(path);
        CHECK(back && loom_size(back) == n && loom_dtype_of(back) == LOOM_FLOAT32);
        float *bo = malloc((size_t)n * 4);
        CHECK_EQ_INT(loom_get(back, bo, (size_t)n * 4), LOOM_OK);
        CHECK(memcmp(bo, zo, (size_t)n * 4) == 0);
        free(bo);
        remove(path);
    }
    free(xh);
    free(yo);
    free(zo);
    loom_scope_end();
}

/* A repeated structure reuses its plan: new scalar values must be used, CUDA Graph replays
 * (plans of several kernels) must match direct launches. */
static void test_plan_cache_and_graphs(void)
{
    loom_scope_begin();
    int64_t r = 33, c = 65;
    float *mh = random_floats(r * c, -1, 1);
    loom_array *m = loom_asarray(mh, LOOM_FLOAT32, 2, (int64_t[]){r, c});
    float *out = malloc((size_t)(r * c) * 4);
    for (int graphs = 1; graphs >= 0; graphs--) {
        if (!graphs)
            setenv("LOOM_GRAPHS", "0", 1);
        for (int rep = 0; rep < 3; rep++) {
            double s = 1.5 + rep;
            loom_stats_reset();
            /* (m * s).T + m.T: the product is read through a transpose, so two kernels */
            loom_array *y = loom_add(loom_transpose(loom_mul_scalar(m, s), NULL), loom_transpose(m, NULL));
            CHECK_EQ_INT(loom_get(y, out, (size_t)(r * c) * 4), LOOM_OK);
            loom_stats st;
            loom_stats_get(&st);
            int bad = 0;
            for (int64_t i = 0; i < c; i++)
                for (int64_t j = 0; j < r; j++)
                    bad += out[i * r + j] != (float)(mh[j * c + i] * (float)s) + mh[j * c + i];
            CHECK_EQ_INT(bad, 0);
            CHECK_EQ_INT(st.graph_launches, graphs ? 1 : 0);
            CHECK_EQ_INT(st.kernels_launched, graphs ? 0 : 2);
            if (rep > 0)
                CHECK_EQ_INT(st.kernels_compiled + st.memory_cache_hits + st.disk_cache_hits, 0);
        }
    }
    unsetenv("LOOM_GRAPHS");
    free(mh);
    free(out);
    loom_scope_end();
}

static void test_huge(void)
{
    /* > 2^31 elements: 64-bit indexing. 2 arrays of 2 GiB. */
    loom_scope_begin();
    int64_t n = (1LL << 31) + 17;
    loom_array *x = loom_add(loom_ones(1, &n, LOOM_UINT8), loom_scalar_int(1));
    CHECK_EQ_INT(loom_eval(x), LOOM_OK);
    uint8_t tail[17], head[4];
    CHECK_EQ_INT(loom_get(loom_slice(x, 0, -17, LOOM_NONE, 1), tail, sizeof tail), LOOM_OK);
    CHECK_EQ_INT(loom_get(loom_slice(x, 0, 0, 4, 1), head, sizeof head), LOOM_OK);
    int bad = 0;
    for (int i = 0; i < 17; i++)
        bad += tail[i] != 2;
    for (int i = 0; i < 4; i++)
        bad += head[i] != 2;
    CHECK_EQ_INT(bad, 0);
    loom_scope_end();
}

int main(void)
{
    if (!gpu_test_start("gpu_test_elementwise"))
        return 77;
    const char *env = getenv("LOOM_TEST_SEED");
    seed = env ? (unsigned)atoi(env) : (unsigned)time(NULL);
    printf("seed %u (set LOOM_TEST_SEED to repeat)\n", seed);
    setvbuf(stdout, NULL, _IONBF, 0);
    test_chain(1 << 20);
    test_chain(1001); /* vector tail */
    test_chain(3);
    test_views_and_broadcasts();
    test_generators_and_dtypes();
    test_eval_many_and_reuse();
    if (!gpu_test_on_host()) /* the host device neither caches plans nor replays CUDA Graphs */
        test_plan_cache_and_graphs();
    if (!getenv("LOOM_TEST_SKIP_HUGE"))
        test_huge();
    if (loom_last_error())
        printf("last error: %s\n", loom_last_error());
    /* Hand the pools' cached blocks back, so leak checkers see only real leaks. */
    CHECK_EQ_INT(loom_mempool_free_all_blocks(), LOOM_OK);
    return check_summary("gpu_test_elementwise");
}
