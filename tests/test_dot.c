/* DOT output (docs/runtime.md), checked against golden files in tests/data/dot/.
 *
 * The comparison ignores the 16 hex digits of kernel names (loom_ew_<hash of the source>), so a
 * change to the generated source does not break these tests; everything else must match byte
 * for byte. To rewrite the golden files after an intended change of the output, run
 *     LOOM_UPDATE_GOLDEN=1 ./build/test_dot
 * and review the diff. Where Graphviz is installed, every golden file must render with
 * `dot -Tsvg`. */
#define _POSIX_C_SOURCE 200809L
#include "check.h"
#include "inputs.h"
#include "dot.h"
#include "fuser/plan.h"
#include "internal.h"
#include "tmpdir.h"

#include <ctype.h>
#include <stdlib.h>

#define GOLDEN_DIR LOOM_TEST_DATA "/dot/"

static const char *golden_names[16];
static int ngolden;


/* loom_dump_dot's output as a malloc'd string (NULL if it failed). */
static char *dump(loom_array *const *arrays, int n)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return NULL;
    int rc = loom_dump_dot(f, arrays, n);
    fclose(f);
    if (rc != LOOM_OK) {
        fprintf(stderr, "loom_dump_dot failed: %s\n", loom_last_error());
        free(text);
        return NULL;
    }
    return text;
}

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *text = NULL;
    size_t len = 0, cap = 0, got;
    do {
        if (len + 4096 + 1 > cap) {
            cap = (len + 4096 + 1) * 2;
            char *grown = realloc(text, cap);
            if (!grown) {
                free(text);
                fclose(f);
                return NULL;
            }
            text = grown;
        }
        got = fread(text + len, 1, 4096, f);
        len += got;
    } while (got > 0);
    fclose(f);
    text[len] = '\0';
    return text;
}

/* Replaces the hash digits of every kernel name with '#'. */
static void mask_hashes(char *s)
{
    for (char *p = s; (p = strstr(p, "loom_ew_")); p += 8)
        for (int i = 8; i < 24 && isxdigit((unsigned char)p[i]); i++)
            p[i] = '#';
}

static int count(const char *text, const char *what)
{
    int c = 0;
    for (const char *p = text; p && (p = strstr(p, what)); p += strlen(what))
        c++;
    return c;
}

/* Compares the dump of arrays with tests/data/dot/<name>.dot; returns the dump (free it). */
static char *check_golden(const char *name, loom_array *const *arrays, int n)
{
    char path[1024];
    snprintf(path, sizeof path, "%s%s.dot", GOLDEN_DIR, name);
    golden_names[ngolden++] = name;
    char *got = dump(arrays, n);
    CHECK(got != NULL);
    if (!got)
        return strdup(""); /* the checks that follow fail instead of crashing */
    const char *update = getenv("LOOM_UPDATE_GOLDEN");
    if (update && strcmp(update, "1") == 0) {
        FILE *f = fopen(path, "w");
        CHECK(f != NULL);
        if (f) {
            fputs(got, f);
            fclose(f);
            printf("updated %s\n", path);
        }
        return got;
    }
    char *want = read_file(path);
    CHECK(want != NULL);
    if (want) {
        char *masked = strdup(got);
        mask_hashes(masked);
        mask_hashes(want);
        if (strcmp(masked, want) != 0)
            fprintf(stderr, "%s differs from the golden file; got:\n%s", path, got);
        CHECK_STR(masked, want);
        free(masked);
        free(want);
    }
    return got;
}

static void test_chain(void)
{
    loom_scope_begin();
    loom_array *x = test_input(1, (int64_t[]){8}, LOOM_FLOAT32);
    loom_array *y = loom_add_scalar(loom_mul_scalar(loom_sin(x), 2.0), 1.0);
    char *d = check_golden("chain", &y, 1);
    CHECK_EQ_INT(count(d, "subgraph cluster_"), 1);
    CHECK_EQ_INT(count(d, "output 0"), 1);

    /* The same graph built again (other pointers) dumps identically, hashes included. */
    loom_array *y2 = loom_add_scalar(loom_mul_scalar(loom_sin(x), 2.0), 1.0);
    char *d2 = dump(&y2, 1), *d3 = dump(&y, 1);
    CHECK_STR(d2, d);
    CHECK_STR(d3, d);
    free(d);
    free(d2);
    free(d3);
    loom_scope_end();
}

static void test_diamond_and_outputs(void)
{
    loom_scope_begin();
    loom_array *x = test_input(2, (int64_t[]){4, 5}, LOOM_FLOAT64);
    loom_array *s = loom_sin(x);
    loom_array *y = loom_add(loom_multiply(s, s), loom_cos(s));
    char *d = check_golden("diamond", &y, 1);
    CHECK_EQ_INT(count(d, "subgraph cluster_"), 1);
    CHECK_EQ_INT(count(d, "label=\"sin"), 0); /* record labels start with "{" */
    CHECK_EQ_INT(count(d, "{sin|"), 1);       /* the shared value is drawn once */
    CHECK_EQ_INT(count(d, "[label=\"1\"]"), 2); /* second slots of multiply and add */
    free(d);

    /* Two requested results over one domain: one kernel with two outputs. */
    loom_array *w = test_input(2, (int64_t[]){4, 5}, LOOM_FLOAT64);
    loom_array *outs[2] = {loom_add(x, w), loom_multiply(loom_sin(x), w)};
    d = check_golden("outputs", outs, 2);
    CHECK_EQ_INT(count(d, "subgraph cluster_"), 1);
    CHECK_EQ_INT(count(d, "output 0"), 1);
    CHECK_EQ_INT(count(d, "output 1"), 1);
    free(d);
    loom_scope_end();
}

static void test_views(void)
{
    loom_scope_begin();
    loom_array *m = test_input(2, (int64_t[]){3, 4}, LOOM_FLOAT32);
    loom_array *b = test_input(1, (int64_t[]){3}, LOOM_FLOAT32);
    loom_array *t = loom_flip(loom_transpose(m, NULL), (int[]){0}, 1);
    loom_array *y = loom_multiply(t, loom_expand_dims(b, 0));
    char *d = check_golden("views", &y, 1);
    CHECK(strstr(d, "{flip|float32 (4,3)|strides (-1,4) offset 3}") != NULL);
    CHECK(strstr(d, "strides (0,1)") != NULL); /* the broadcast of b */
    free(d);

    /* Record-label characters are escaped. */
    loom_array *odd = loom__view("test", "we{ir}d|<x>", m, 2, (int64_t[]){4, 3},
                                 (int64_t[]){1, 4}, 0);
    d = dump(&odd, 1);
    CHECK(d && strstr(d, "{we\\{ir\\}d\\|\\<x\\>|float32 (4,3)|") != NULL);
    free(d);
    loom_scope_end();
}

static void test_scalars_and_generators(void)
{
    loom_scope_begin();
    loom_array *x = test_input(1, (int64_t[]){4}, LOOM_INT32);
    loom_array *a = loom_add(x, loom_scalar_int(3));
    loom_array *f = loom_multiply(loom_astype(a, LOOM_FLOAT32), loom_scalar(2.5));
    loom_array *g = loom_add(f, loom_scalar_typed(0.1, LOOM_FLOAT64));
    loom_array *y = loom_multiply(g, loom_scalar_complex(1, -2));
    loom_array *z = loom_logical_and(loom_astype(x, LOOM_BOOL), loom_scalar_typed(1, LOOM_BOOL));
    loom_array *outs[2] = {y, z};
    char *d = check_golden("scalars", outs, 2);
    CHECK(strstr(d, "{scalar|int64 ()|3 weak}") != NULL);
    CHECK(strstr(d, "{scalar|float64 ()|2.5 weak}") != NULL);
    CHECK(strstr(d, "{scalar|float64 ()|0.1}") != NULL); /* typed: not weak, shortest digits */
    CHECK(strstr(d, "{scalar|complex128 ()|(1-2j) weak}") != NULL);
    CHECK(strstr(d, "{scalar|bool ()|True}") != NULL);
    CHECK(strstr(d, "{multiply|complex128 (4,)") != NULL);
    free(d);

    loom_array *r = loom_arange(0, 6, 1, LOOM_FLOAT32);
    loom_array *l = loom_linspace(-1, 1, 6, false, LOOM_FLOAT32);
    loom_array *w = loom_where(loom_less(r, loom_scalar(3)), loom_full(1, (int64_t[]){6}, 7, LOOM_FLOAT32), l);
    d = check_golden("generators", &w, 1);
    CHECK(strstr(d, "{arange|float32 (6,)|start 0 step 1}") != NULL);
    CHECK(strstr(d, "{linspace|float32 (6,)|-1 to 1 (no endpoint)}") != NULL);
    CHECK(strstr(d, "{full|float32 (6,)|7}") != NULL);
    CHECK_EQ_INT(count(d, "[label=\"2\"]"), 1); /* where's third slot */
    free(d);
    loom_scope_end();
}

static void test_two_kernels(void)
{
    loom_scope_begin();
    loom_array *m = test_input(2, (int64_t[]){16, 16}, LOOM_FLOAT32);
    loom_array *y = loom_add(loom_transpose(loom_multiply(m, m), NULL), m);
    char *d = check_golden("two_kernels", &y, 1);
    CHECK_EQ_INT(count(d, "subgraph cluster_"), 2);
    loom_fuse_options o = loom__fuse_options_default();
    loom_plan *p = loom__plan_build("test", &y, 1, &o);
    CHECK(p && p->nsteps == 2);
    for (int k = 0; p && k < p->nsteps; k++) {
        char label[128];
        snprintf(label, sizeof label, "label=\"%s (elementwise): %s\"", p->steps[k].kernel.name,
                 p->steps[k].kernel.summary);
        CHECK(d && strstr(d, label) != NULL);
    }
    loom__plan_free(p);
    free(d);
    loom_scope_end();
}

static void no_free(loom_buffer *b)
{
    (void)b;
}

static void test_materialised(void)
{
    static _Alignas(16) float storage[64];
    static loom_buffer fake = {.free_fn = no_free, .ptr = storage, .bytes = sizeof storage};
    atomic_init(&fake.refcount, 1);
    loom_scope_begin();
    loom_array *x = test_input(1, (int64_t[]){64}, LOOM_FLOAT32);
    loom_array *s = loom_sin(x);
    s->buffer = &fake; /* as if evaluated; its inputs are no longer drawn */
    loom_array *y = loom_add(loom_mul_scalar(s, 2.0), loom_cos(s));
    char *d = check_golden("materialised", &y, 1);
    CHECK(strstr(d, "{sin|float32 (64,)}\", style=\"filled,bold\"") != NULL);
    CHECK_EQ_INT(count(d, "asarray"), 0);
    CHECK_EQ_INT(count(d, "subgraph cluster_"), 1);
    free(d);
    loom_scope_end();
}

static void test_unfused(void)
{
    loom_scope_begin();
    loom_array *x = test_input(1, (int64_t[]){8}, LOOM_FLOAT32);
    loom_array *y = loom_add_scalar(loom_mul_scalar(loom_sin(x), 2.0), 1.0);
    setenv("LOOM_FUSE", "0", 1);
    char *d = check_golden("unfused", &y, 1);
    unsetenv("LOOM_FUSE");
    CHECK_EQ_INT(count(d, "subgraph cluster_"), 3); /* sin, multiply, add */
    free(d);
    loom_scope_end();
}

static const char *quoted_label(void *ctx, int k)
{
    (void)ctx;
    return k == 0 ? "say \"hi\" \\ bye" : NULL;
}

static int everything_in_0(void *ctx, const loom_array *a)
{
    (void)ctx;
    (void)a;
    return 0;
}

static void test_clustered_and_errors(void)
{
    loom_scope_begin();
    loom_array *x = test_input(1, (int64_t[]){8}, LOOM_FLOAT32);
    loom_array *y = loom_sin(x);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    CHECK_EQ_INT(loom__dump_dot_clustered(f, &y, 1, everything_in_0, quoted_label, NULL), LOOM_OK);
    fclose(f);
    CHECK(text && strstr(text, "label=\"say \\\"hi\\\" \\\\ bye\"") != NULL);
    free(text);

    /* No arrays: an empty graph. */
    text = NULL;
    f = open_memstream(&text, &len);
    CHECK_EQ_INT(loom_dump_dot(f, NULL, 0), LOOM_OK);
    fclose(f);
    CHECK(text && strstr(text, "digraph loom {") == text && count(text, "n0") == 0);
    free(text);

    loom_clear_error();
    CHECK_EQ_INT(loom_dump_dot(NULL, &y, 1), LOOM_ERR_INVALID);
    CHECK_STR(loom_last_error(), "loom_dump_dot: the output stream is NULL");
    CHECK_EQ_INT(loom_dump_dot(stdout, &y, -1), LOOM_ERR_INVALID);
    CHECK_STR(loom_last_error(), "loom_dump_dot: invalid array list (n = -1)");
    CHECK_EQ_INT(loom_dump_dot(stdout, NULL, 1), LOOM_ERR_INVALID);
    loom_array *with_null[2] = {y, NULL};
    loom_clear_error();
    CHECK_EQ_INT(loom_dump_dot(stdout, with_null, 2), LOOM_ERR_INVALID);
    CHECK_STR(loom_last_error(), "loom_dump_dot: array 1 is NULL");
    /* A NULL from a failed op keeps the error that explains it. */
    loom_array *bad = loom_add(x, test_input(1, (int64_t[]){3}, LOOM_FLOAT32));
    CHECK_EQ_INT(loom_dump_dot(stdout, &bad, 1), LOOM_ERR_INVALID);
    CHECK(strstr(loom_last_error(), "loom_add: shapes (8,) and (3,)") != NULL);

    CHECK_EQ_INT(loom_dump_dot_file("/nonexistent-dir/g.dot", &y, 1), LOOM_ERR_IO);
    CHECK(strstr(loom_last_error(), "loom_dump_dot_file: cannot open '/nonexistent-dir/g.dot'"));
    CHECK_EQ_INT(loom_dump_dot_file(NULL, &y, 1), LOOM_ERR_INVALID);
    CHECK_STR(loom_last_error(), "loom_dump_dot_file: the path is NULL");
    loom_clear_error();
    loom_scope_end();
}

/* A chain of n negatives of a fresh input (a new reference). */
static loom_array *long_chain(int n)
{
    loom_array *x = test_input(1, (int64_t[]){16}, LOOM_FLOAT32);
    for (int i = 0; i < n; i++) {
        loom_array *next = loom_negative(x);
        loom_release(x);
        x = next;
    }
    return x;
}

/* The walk is iterative: a 100k-node chain must not overflow the stack. The public dump also
 * plans, whose cost grows faster than the chain (a kernel every 64 ops, each sized by the
 * whole walk), so it gets a shorter one. */
static void test_long_chain(void)
{
    FILE *f = fopen("/dev/null", "w");
    CHECK(f != NULL);
    if (!f)
        return;
    loom_array *y = long_chain(100000);
    CHECK_EQ_INT(loom__dump_dot_clustered(f, &y, 1, NULL, NULL, NULL), LOOM_OK);
    loom_release(y);
    y = long_chain(20000);
    CHECK_EQ_INT(loom_dump_dot(f, &y, 1), LOOM_OK);
    loom_release(y);
    fclose(f);
}

/* LOOM_DUMP_DOT=dir writes each plan that loom_eval runs (read at the first evaluation, so
 * this test sets it before any). Without a GPU the evaluation fails after the dump. */
static void test_dump_env(void)
{
    char dir[4096], path[4200];
    CHECK(tmpdir_make(dir, sizeof dir) != NULL);
    setenv("LOOM_DUMP_DOT", dir, 1);
    loom_scope_begin();
    loom_array *x = test_input(1, (int64_t[]){8}, LOOM_FLOAT32);
    loom_array *y = loom_add_scalar(loom_mul_scalar(loom_sin(x), 2.0), 1.0);
    loom_array *z = loom_cos(x);
    char *want_y = dump(&y, 1), *want_z = dump(&z, 1);
    loom_eval(y);
    loom_eval(z);
    snprintf(path, sizeof path, "%s/plan_0.dot", dir);
    char *got = read_file(path);
    CHECK_STR(got, want_y);
    free(got);
    snprintf(path, sizeof path, "%s/plan_1.dot", dir);
    got = read_file(path);
    CHECK_STR(got, want_z);
    free(got);
    free(want_y);
    free(want_z);
    loom_scope_end();
    unsetenv("LOOM_DUMP_DOT");
    loom_clear_error();
    tmpdir_remove(dir);
}

static void test_graphviz_accepts_goldens(void)
{
    if (system("command -v dot >/dev/null 2>&1") != 0) {
        printf("dot (Graphviz) not found: golden files not rendered\n");
        return;
    }
    for (int i = 0; i < ngolden; i++) {
        char cmd[2048];
        snprintf(cmd, sizeof cmd, "dot -Tsvg '%s%s.dot' -o /dev/null", GOLDEN_DIR, golden_names[i]);
        int rc = system(cmd);
        if (rc != 0)
            fprintf(stderr, "%s failed (%d)\n", cmd, rc);
        CHECK_EQ_INT(rc, 0);
    }
}

int main(void)
{
    test_dump_env();
    test_chain();
    test_diamond_and_outputs();
    test_views();
    test_scalars_and_generators();
    test_two_kernels();
    test_materialised();
    test_unfused();
    test_clustered_and_errors();
    test_long_chain();
    test_graphviz_accepts_goldens();
    return check_summary("test_dot");
}
