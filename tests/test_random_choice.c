/* loom_rng_permutation and loom_rng_choice without a GPU: NumPy's result shapes and errors
 * (tests/data/random_choice.txt from tools/gen_random_choice_cases.py), int64 results, the
 * blocks each call reserves, NULL passing through, and the plans' kernels compile (the
 * argsort is a library step). */
#include "check.h"
#include "plans.h"
#include "random.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* "2,3" into shape (ndim 2); "-" or "()" is 0-d. Returns ndim. */
static int parse_shape(const char *s, int64_t *shape)
{
    if (!strcmp(s, "-") || !strcmp(s, "()"))
        return 0;
    int n = 0;
    for (const char *p = s; *p && n < 8; n++) {
        char *end;
        shape[n] = strtoll(p, &end, 10);
        p = *end == ',' ? end + 1 : end;
    }
    return n;
}

/* "0.2,0.3,0.5" into p; NULL for "-". */
static double *parse_p(const char *s, int64_t *np)
{
    *np = 0;
    if (!strcmp(s, "-"))
        return NULL;
    double *p = malloc(64 * sizeof *p);
    for (const char *q = s; *q && *np < 64; (*np)++) {
        char *end;
        p[*np] = strtod(q, &end);
        q = *end == ',' ? end + 1 : end;
    }
    return p;
}

/* The case's result against NumPy's: an array of dtype and NumPy's shape, or NumPy's
 * message. */
static void check_outcome_dtype(loom_array *x, loom_dtype dtype, const char *fn,
                                const char *expected, const char *line)
{
    bool ok;
    if (!strncmp(expected, "shape ", 6)) {
        int64_t shape[8];
        const int nd = parse_shape(expected + 6, shape);
        ok = x && loom_dtype_of(x) == dtype && loom_ndim(x) == nd &&
             !memcmp(loom_shape(x), shape, (size_t)nd * sizeof *shape);
    } else {
        const char *err = loom_last_error();
        ok = !x && err && strstr(err, fn) && strstr(err, expected);
    }
    CHECK(ok);
    if (!ok)
        fprintf(stderr, "case \"%s\": expected %s, got %s\n", line, expected,
                x ? "another array" : loom_last_error());
}

/* Integer populations give int64 indices; the array cases keep a's float32. */
static void check_outcome(loom_array *x, const char *fn, const char *expected, const char *line)
{
    check_outcome_dtype(x, LOOM_INT64, fn, expected, line);
}

static void check_array_outcome(loom_array *x, const char *fn, const char *expected,
                                const char *line)
{
    check_outcome_dtype(x, LOOM_FLOAT32, fn, expected, line);
}

/* The array cases (choice_array, permutation_array, shuffle, permuted) on float32 zeros;
 * false when the line is not one. */
static bool array_case(loom_rng *g, const char *line, const char *expected)
{
    char op[32], ashape[64], axs[16], size[64], ps[256];
    int replace;
    if (sscanf(line, "%31s %63s %15s", op, ashape, axs) != 3)
        return false;
    int64_t shape[8];
    const int nd = parse_shape(ashape, shape);
    const int axis = !strcmp(axs, "none") ? LOOM_AXIS_NONE : atoi(axs);
    loom_array *a = loom_zeros(nd, shape, LOOM_FLOAT32);
    if (!strcmp(op, "choice_array") &&
        sscanf(line, "%*s %*s %*s %63s %d %255s", size, &replace, ps) == 3) {
        int64_t sshape[8], np;
        const int snd = parse_shape(size, sshape);
        double *p = parse_p(ps, &np);
        check_array_outcome(loom_rng_choice_array(g, a, snd, sshape, replace, p, axis),
                            "loom_rng_choice_array", expected, line);
        free(p);
    } else if (!strcmp(op, "permutation_array")) {
        check_array_outcome(loom_rng_permutation_array(g, a, axis), "loom_rng_permutation_array",
                            expected, line);
    } else if (!strcmp(op, "shuffle")) {
        check_array_outcome(loom_rng_shuffle(g, a, axis), "loom_rng_shuffle", expected, line);
    } else if (!strcmp(op, "permuted")) {
        check_array_outcome(loom_rng_permuted(g, a, axis), "loom_rng_permuted", expected, line);
    } else {
        return false;
    }
    return true;
}

static void check_numpy_table(void)
{
    char path[512];
    snprintf(path, sizeof path, "%s/random_choice.txt", LOOM_TEST_DATA);
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    if (!f)
        return;
    loom_rng *g = loom_random_default_rng(1);
    char line[512];
    int cases = 0, array_cases = 0;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        char *bar = strstr(line, " | ");
        if (!bar)
            continue;
        *bar = '\0';
        const char *expected = bar + 3;
        loom_scope_begin();
        loom_clear_error();
        long long a;
        char size[64], ps[256];
        int replace;
        if (array_case(g, line, expected)) {
            array_cases++;
        } else if (sscanf(line, "permutation %lld", &a) == 1) {
            check_outcome(loom_rng_permutation(g, a), "loom_rng_permutation", expected, line);
            cases++;
        } else if (sscanf(line, "choice %lld %63s %d %255s", &a, size, &replace, ps) == 4) {
            int64_t shape[8], np;
            const int nd = parse_shape(size, shape);
            double *p = parse_p(ps, &np);
            check_outcome(loom_rng_choice(g, a, nd, shape, replace, p), "loom_rng_choice", expected, line);
            free(p);
            cases++;
        }
        loom_scope_end();
    }
    fclose(f);
    CHECK(cases > 200);
    CHECK(array_cases > 300);
    loom_rng_destroy(g);
}

/* permutation(n) reserves n blocks (its keys); choice with replacement size (p NULL: the
 * integers, p given: the uniforms), without replacement a (the keys of the race). Failures
 * reserve nothing. */
static void check_offsets(void)
{
    loom_scope_begin();
    loom_rng *g = loom_random_default_rng(5);
    const double p[4] = {0.1, 0.2, 0.3, 0.4};
    CHECK(loom_rng_permutation(g, 10) && loom__rng_offset(g) == 10);
    CHECK(loom_rng_choice(g, 4, 2, (int64_t[]){2, 3}, true, NULL) && loom__rng_offset(g) == 16);
    CHECK(loom_rng_choice(g, 4, 2, (int64_t[]){2, 3}, true, p) && loom__rng_offset(g) == 22);
    CHECK(loom_rng_choice(g, 4, 1, (int64_t[]){3}, false, NULL) && loom__rng_offset(g) == 26);
    CHECK(loom_rng_choice(g, 4, 1, (int64_t[]){3}, false, p) && loom__rng_offset(g) == 30);
    CHECK(!loom_rng_choice(g, 4, 1, (int64_t[]){5}, false, p) && loom__rng_offset(g) == 30);
    CHECK(loom_rng_choice(g, 4, 1, (int64_t[]){0}, false, p) && loom__rng_offset(g) == 30);
    /* NULL passes through */
    loom__error(LOOM_ERR_OOM, "earlier", "the first failure");
    CHECK(!loom_rng_permutation(NULL, 3));
    CHECK(!loom_rng_choice(NULL, 3, 0, NULL, true, NULL));
    CHECK_STR(loom_last_error(), "earlier: the first failure");
    loom_rng_destroy(g);
    loom_scope_end();
}

/* Every path's plan compiles: the key kernels, the argsort's producers, the inverse CDF's
 * fused compare-and-count reduction; the sort itself is a library step. */
static void check_compiles(void)
{
    loom_scope_begin();
    loom_rng *g = loom_random_default_rng(6);
    const double p[5] = {0.1, 0.2, 0, 0.3, 0.4};
    loom_array *xs[5] = {
        loom_rng_permutation(g, 1000),
        loom_rng_choice(g, 5, 2, (int64_t[]){40, 3}, true, NULL),
        loom_rng_choice(g, 5, 2, (int64_t[]){40, 3}, true, p),
        loom_rng_choice(g, 1000, 1, (int64_t[]){10}, false, NULL),
        loom_rng_choice(g, 5, 1, (int64_t[]){4}, false, p),
    };
    for (int i = 0; i < 5; i++) {
        CHECK(xs[i] != NULL);
        CHECK(test_compile_plan(&xs[i], 1, true, false) >= 1);
    }
    loom_rng_destroy(g);
    loom_scope_end();
}

/* The array functions draw what their index draws do: choice_array as choice over
 * a.shape[axis], permutation_array and shuffle a.shape[axis] blocks, permuted a's size; empty
 * arrays and failures reserve nothing; NULL passes through. */
static void check_array_offsets(void)
{
    loom_scope_begin();
    loom_rng *g = loom_random_default_rng(7);
    loom_array *a = loom_zeros(2, (int64_t[]){3, 5}, LOOM_FLOAT64);
    CHECK(loom_rng_choice_array(g, a, 1, (int64_t[]){4}, true, NULL, 1) && loom__rng_offset(g) == 4);
    CHECK(loom_rng_choice_array(g, a, 1, (int64_t[]){2}, false, NULL, 1) && loom__rng_offset(g) == 9);
    CHECK(loom_rng_permutation_array(g, a, 0) && loom__rng_offset(g) == 12);
    CHECK(loom_rng_shuffle(g, a, -1) && loom__rng_offset(g) == 17);
    CHECK(loom_rng_permuted(g, a, 1) && loom__rng_offset(g) == 32);
    CHECK(loom_rng_permuted(g, a, LOOM_AXIS_NONE) && loom__rng_offset(g) == 47);
    CHECK(!loom_rng_permuted(g, a, 2) && loom__rng_offset(g) == 47);
    CHECK(!loom_rng_choice_array(g, a, 1, (int64_t[]){4}, false, NULL, 0) && loom__rng_offset(g) == 47);
    loom_array *empty = loom_zeros(2, (int64_t[]){0, 5}, LOOM_FLOAT64);
    loom_array *same = loom_rng_permuted(g, empty, 1);
    CHECK(same == empty && loom__rng_offset(g) == 47);
    loom__error(LOOM_ERR_OOM, "earlier", "the first failure");
    CHECK(!loom_rng_choice_array(NULL, a, 0, NULL, true, NULL, 0));
    CHECK(!loom_rng_choice_array(g, NULL, 0, NULL, true, NULL, 0));
    CHECK(!loom_rng_permutation_array(g, NULL, 0));
    CHECK(!loom_rng_shuffle(NULL, a, 0));
    CHECK(!loom_rng_permuted(g, NULL, 0));
    CHECK_STR(loom_last_error(), "earlier: the first failure");
    loom_rng_destroy(g);
    loom_scope_end();
}

/* The array functions' plans compile: the gathers (take, take_along_axis) of the index draws
 * and the element values, fused with a consumer. */
static void check_array_compiles(void)
{
    loom_scope_begin();
    loom_rng *g = loom_random_default_rng(8);
    loom_array *a = loom_reshape(loom_arange(0, 60, 1, LOOM_FLOAT32), 3, (int64_t[]){3, 4, 5});
    const double p[4] = {0.1, 0.2, 0.3, 0.4};
    loom_array *xs[7] = {
        loom_rng_choice_array(g, a, 2, (int64_t[]){2, 2}, true, NULL, 1),
        loom_multiply(loom_rng_choice_array(g, a, 1, (int64_t[]){4}, true, p, 1), a),
        loom_rng_choice_array(g, a, 1, (int64_t[]){2}, false, p, -2),
        loom_rng_permutation_array(g, a, 2),
        loom_rng_shuffle(g, a, 0),
        loom_rng_permuted(g, a, 1),
        loom_rng_permuted(g, a, LOOM_AXIS_NONE),
    };
    for (int i = 0; i < 7; i++) {
        CHECK(xs[i] != NULL);
        if (xs[i])
            CHECK(test_compile_plan(&xs[i], 1, true, false) >= 1);
    }
    loom_rng_destroy(g);
    loom_scope_end();
}

/* The legacy module functions: shapes, dtypes and errors under their own names; the global
 * generator's draws compile. */
static void check_legacy(void)
{
    loom_scope_begin();
    CHECK_EQ_INT(loom_random_seed(12), LOOM_OK);
    loom_array *a = loom_zeros(2, (int64_t[]){6, 2}, LOOM_FLOAT32);
    loom_array *xs[5] = {
        loom_random_random_sample(2, (int64_t[]){3, 4}, LOOM_FLOAT32),
        loom_random_standard_normal(1, (int64_t[]){5}, LOOM_FLOAT64),
        loom_random_permutation(7),
        loom_random_permutation_array(a),
        loom_random_shuffle(a),
    };
    CHECK(xs[0] && loom_dtype_of(xs[0]) == LOOM_FLOAT32 && loom_size(xs[0]) == 12);
    CHECK(xs[1] && loom_dtype_of(xs[1]) == LOOM_FLOAT64 && loom_size(xs[1]) == 5);
    CHECK(xs[2] && loom_dtype_of(xs[2]) == LOOM_INT64 && loom_size(xs[2]) == 7);
    CHECK(xs[3] && loom_ndim(xs[3]) == 2 && loom_shape(xs[3])[0] == 6 && loom_shape(xs[3])[1] == 2);
    CHECK(xs[4] && loom_ndim(xs[4]) == 2 && loom_shape(xs[4])[0] == 6);
    for (int i = 0; i < 5; i++)
        if (xs[i])
            CHECK(test_compile_plan(&xs[i], 1, true, false) >= 1);
    loom_array *zero_d = loom_zeros(0, NULL, LOOM_FLOAT32);
    CHECK(!loom_random_shuffle(zero_d));
    CHECK_STR(loom_last_error(), "loom_random_shuffle: len() of unsized object");
    CHECK(!loom_random_permutation_array(zero_d));
    CHECK_STR(loom_last_error(),
              "loom_random_permutation_array: axis 0 is out of bounds for array of dimension 0");
    CHECK(!loom_random_random_sample(1, (int64_t[]){2}, LOOM_INT8));
    CHECK(strstr(loom_last_error(), "loom_random_random_sample: Unsupported dtype") != NULL);
    loom__error(LOOM_ERR_OOM, "earlier", "the first failure");
    CHECK(!loom_random_shuffle(NULL));
    CHECK_STR(loom_last_error(), "earlier: the first failure");
    loom_scope_end();
}

int main(void)
{
    check_numpy_table();
    check_offsets();
    check_compiles();
    check_array_offsets();
    check_array_compiles();
    check_legacy();
    return check_summary("test_random_choice");
}
