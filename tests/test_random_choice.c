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

/* The case's result against NumPy's: an int64 array of NumPy's shape, or NumPy's message. */
static void check_outcome(loom_array *x, const char *fn, const char *expected, const char *line)
{
    bool ok;
    if (!strncmp(expected, "shape ", 6)) {
        int64_t shape[8];
        const int nd = parse_shape(expected + 6, shape);
        ok = x && loom_dtype_of(x) == LOOM_INT64 && loom_ndim(x) == nd &&
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
    int cases = 0;
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
        if (sscanf(line, "permutation %lld", &a) == 1) {
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

int main(void)
{
    check_numpy_table();
    check_offsets();
    check_compiles();
    return check_summary("test_random_choice");
}
