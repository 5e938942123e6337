#define _POSIX_C_SOURCE 200809L
/* User elementwise kernels without a GPU: the parameter language against NumPy's dtype names
 * (tests/data/ukernel_dtypes.txt, tools/gen_ukernel_cases.py), every CuPy error, result dtypes
 * and shapes, fusion decisions counted from plans, and NVRTC compiles of the generated source. */
#include "check.h"
#include "ukernel_cases.h"
#include "inputs.h"
#include "plans.h"
#include "fuser/walk.h"
#include "graph/ukernel.h"

#include <stdlib.h>
#include <string.h>

static const char create_fn[] = "loom_elementwise_kernel_create";
static const char call_fn[] = "loom_elementwise_kernel_call";

#define BRANCH_BODY "if (x - 2 > y) z = x * y; else z = x + y;"

static int count_kernels(const loom_plan *p)
{
    int n = 0;
    for (int i = 0; p && i < p->nsteps; i++)
        n += p->steps[i].kind == LOOM_STEP_KERNEL && p->steps[i].kernel.work > 0;
    return n;
}

/* create() must fail with fn and reason in the message. */
static void create_fails(const char *in, const char *out, const char *op, const char *name,
                         const char *reason)
{
    loom_clear_error();
    loom_elementwise_kernel *k = loom_elementwise_kernel_create(in, out, op, name, NULL, NULL);
    const char *e = loom_last_error();
    CHECK(!k);
    if (k || !e || !strstr(e, create_fn) || !strstr(e, reason))
        fprintf(stderr, "  create(\"%s\", \"%s\", \"%s\") gave \"%s\", expected \"%s\"\n", in, out,
                name, e ? e : "(none)", reason);
    loom_elementwise_kernel_destroy(k);
}

/* Every type name of the NumPy table means NumPy's dtype, or is refused as not understood. */
static void test_dtype_names(void)
{
    char path[512];
    snprintf(path, sizeof path, "%s/ukernel_dtypes.txt", LOOM_TEST_DATA);
    FILE *f = fopen(path, "r");
    CHECK(f);
    if (!f)
        return;
    char line[256], name[64], dt[64];
    int cases = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || sscanf(line, "%63s %63s", name, dt) != 2)
            continue;
        char params[128];
        snprintf(params, sizeof params, "%s x", name);
        loom_clear_error();
        loom_elementwise_kernel *k = loom_elementwise_kernel_create(params, "T z", "z = x", "k", NULL, NULL);
        if (strcmp(dt, "-") == 0) {
            CHECK(!k && strstr(loom_last_error(), "not understood"));
        } else {
            CHECK(k && k->params[0].dtype == loom_dtype_from_name(dt));
            if (!k)
                fprintf(stderr, "  %s: %s\n", name, loom_last_error());
        }
        loom_elementwise_kernel_destroy(k);
        cases++;
    }
    fclose(f);
    CHECK(cases > 50);
}

static void test_parse(void)
{
    loom_elementwise_kernel *k = loom_elementwise_kernel_create(
        " float32 x, T y ,raw U w", "T z, float64 q", "z = y; q = w[0] + x;", "kern", NULL, NULL);
    CHECK(k);
    if (k) {
        CHECK_EQ_INT(k->nin, 3);
        CHECK_EQ_INT(k->nout, 2);
        CHECK_STR(k->params[0].name, "x");
        CHECK_EQ_INT(k->params[0].dtype, LOOM_FLOAT32);
        CHECK_EQ_INT(k->params[1].dtype, LOOM_NO_DTYPE);
        CHECK_EQ_INT(k->params[1].placeholder, 'T');
        CHECK(k->params[2].raw && k->params[2].placeholder == 'U');
        CHECK_EQ_INT(k->params[4].dtype, LOOM_FLOAT64);
        CHECK(k->boundary); /* a raw parameter */
    }
    loom_elementwise_kernel_destroy(k);
    /* the index in the body makes a boundary; in a comment, a string or a longer name it does not */
    k = loom_elementwise_kernel_create("T x", "T z", "z = x + (T)i;", "k", NULL, NULL);
    CHECK(k && k->boundary);
    loom_elementwise_kernel_destroy(k);
    k = loom_elementwise_kernel_create("T x", "T z", "z = x; // i\n/* _ind */ const char *s = \"i\"; (void)s; int ii = 1e5; (void)ii;", "k", NULL, NULL);
    CHECK(k && !k->boundary);
    loom_elementwise_kernel_destroy(k);
    k = loom_elementwise_kernel_create("T x", "T z", "z = x;", "k", NULL, "-DSCALE=2");
    CHECK(k && k->boundary); /* options */
    loom_elementwise_kernel_destroy(k);
    k = loom_elementwise_kernel_create("T x", "T z", "z = x;", "k", NULL, "  ");
    CHECK(k && !k->boundary);
    loom_elementwise_kernel_destroy(k);
    /* CuPy's keyword _non_const is accepted */
    k = loom_elementwise_kernel_create("_non_const T x", "T z", "z = x;", "k", NULL, NULL);
    CHECK(k);
    loom_elementwise_kernel_destroy(k);

    create_fails("float32", "float32 z", "z = 1", "k", "Syntax error: float32");
    create_fails("float32 x,", "float32 z", "z = 1", "k", "Syntax error: ");
    create_fails("const float32 x", "float32 z", "z = x", "k", "Unknown keyword \"const\"");
    create_fails("floot32 x", "float32 z", "z = x", "k", "data type 'floot32' not understood");
    create_fails("float32 i", "float32 z", "z = i", "k", "Can not use 'i' as a parameter name");
    create_fails("float32 x", "float32 z", "z = x", "my kernel", "Invalid kernel name: \"my kernel\"");
    create_fails("float32 x", "float32 z", "z = x", "1k", "Invalid kernel name");
    create_fails("float32 x", "float32 z", "z = x", NULL, "Invalid kernel name");
    create_fails("float32 x, float32 x", "float32 z", "z = x", "k", "duplicate parameter name \"x\"");
    create_fails("float32 x", "float32 x", "x = x", "k", "duplicate parameter name \"x\"");
    create_fails("float32 x", "", "x", "k", "no output parameter");
    create_fails("float32 x", "raw float32 z", "z[i] = x", "k", "raw output parameter \"z\"");
    create_fails("float32 x", "float32 z", NULL, "k", "operation is NULL");
    create_fails("float32 x-y", "float32 z", "z = 1", "k", "not a C identifier");
    create_fails("3 x", "float32 z", "z = 1", "k", "not a letter");
    create_fails("float32 _ind", "float32 z", "z = 1", "k", "reserved");
    loom_elementwise_kernel_destroy(NULL);
}

static void test_call_errors(void)
{
    loom_scope_begin();
    loom_elementwise_kernel *k = loom_elementwise_kernel_create("float32 x, float32 y", "float32 z", BRANCH_BODY, "my_kernel", NULL, NULL);
    loom_elementwise_kernel *g = loom_elementwise_kernel_create("T x, T y", "T z", "z = (x - y) * (x - y);", "squared_diff", NULL, NULL);
    loom_elementwise_kernel *two = loom_elementwise_kernel_create("T x", "T a, T b", "a = x; b = -x;", "pair", NULL, NULL);
    loom_elementwise_kernel *u = loom_elementwise_kernel_create("T x", "U z", "z = x;", "out_only", NULL, NULL);
    loom_elementwise_kernel *r = loom_elementwise_kernel_create("raw T x", "T z", "z = x[0];", "rawonly", NULL, NULL);
    loom_array *f32 = test_input(2, (int64_t[]){2, 3}, LOOM_FLOAT32);
    loom_array *f64 = test_input(2, (int64_t[]){2, 3}, LOOM_FLOAT64);
    loom_array *row = test_input(1, (int64_t[]){4}, LOOM_FLOAT32);
    loom_array *ok[2] = {f32, f32};

    CHECK_FAILS(loom_elementwise_kernel_call(k, ok, 1), call_fn,
                "Wrong number of arguments for 'my_kernel'. It must be either 2 or 3 (with outputs), but given 1.");
    CHECK_FAILS(loom_elementwise_kernel_call(k, (loom_array *[]){f32, f64}, 2), call_fn,
                "Type is mismatched. y float64 float32");
    CHECK_FAILS(loom_elementwise_kernel_call(g, (loom_array *[]){f32, f64}, 2), call_fn,
                "Type is mismatched. y float64 float32 T");
    CHECK_FAILS(loom_elementwise_kernel_call(k, (loom_array *[]){f32, f32, f64}, 3), call_fn,
                "Type is mismatched. z float64 float32");
    CHECK_FAILS(loom_elementwise_kernel_call(k, (loom_array *[]){f32, f32, row}, 3), call_fn,
                "Out shape is mismatched");
    CHECK_FAILS(loom_elementwise_kernel_call(k, (loom_array *[]){f32, row}, 2), call_fn,
                "shapes (2,3) and (4,) cannot be broadcast");
    CHECK_FAILS(loom_elementwise_kernel_call(g, (loom_array *[]){loom_scalar(1.0), loom_scalar(2.0)}, 2), call_fn,
                "Loop size is undecided.");
    CHECK_FAILS(loom_elementwise_kernel_call(r, (loom_array *[]){f32}, 1), call_fn, "Loop size is undecided.");
    loom_elementwise_kernel *rw = loom_elementwise_kernel_create("T x, raw T w", "T z", "z = x + w[0];", "raw_first", NULL, NULL);
    CHECK_FAILS(loom_elementwise_kernel_call(rw, (loom_array *[]){f32, loom_scalar(1.0)}, 2), call_fn,
                "raw parameter \"w\" needs an array, not a scalar");
    CHECK_FAILS(loom_elementwise_kernel_call(rw, (loom_array *[]){f32, loom_scalar_typed(1.0, LOOM_FLOAT32)}, 2), call_fn,
                "raw parameter \"w\" needs an array, not a scalar");
    loom_elementwise_kernel_destroy(rw);
    CHECK_FAILS(loom_elementwise_kernel_call(u, (loom_array *[]){f32}, 1), call_fn,
                "Cannot determine the type of placeholder U");
    CHECK_FAILS(loom_elementwise_kernel_call(two, (loom_array *[]){f32}, 1), call_fn,
                "has 2 outputs: call it with loom_elementwise_kernel_call_many");
    CHECK_FAILS(loom_elementwise_kernel_call(NULL, ok, 2), call_fn, "kernel is NULL");
    CHECK_FAILS(loom_elementwise_kernel_call(k, (loom_array *[]){f32, f32, loom_scalar(1.0)}, 3), call_fn,
                "Output arguments must be arrays");
    /* NULL inputs pass through with the error before them */
    loom__error(LOOM_ERR_INVALID, "earlier", "the first failure");
    CHECK(!loom_elementwise_kernel_call(k, (loom_array *[]){f32, NULL}, 2));
    CHECK(strstr(loom_last_error(), "the first failure"));
    loom_array *outs[2] = {f32, f32};
    CHECK(loom_elementwise_kernel_call_many(two, (loom_array *[]){f32}, 1, outs, 1) == LOOM_ERR_INVALID);
    CHECK(!outs[0] && strstr(loom_last_error(), "has 2 outputs, not 1"));
    loom_elementwise_kernel_destroy(k);
    loom_elementwise_kernel_destroy(g);
    loom_elementwise_kernel_destroy(two);
    loom_elementwise_kernel_destroy(u);
    loom_elementwise_kernel_destroy(r);
    loom_scope_end();
}

/* Placeholders take the arrays' dtypes, explicit types stay, scalars adapt; shapes broadcast. */
static void test_types_and_shapes(void)
{
    loom_scope_begin();
    loom_elementwise_kernel *g = loom_elementwise_kernel_create("T x, T y", "T z", "z = (x - y) * (x - y);", "squared_diff", NULL, NULL);
    for (int dt = 0; dt < LOOM_NUM_DTYPES; dt++) {
        loom_array *a = test_input(2, (int64_t[]){3, 1}, (loom_dtype)dt);
        loom_array *b = test_input(1, (int64_t[]){4}, (loom_dtype)dt);
        loom_array *z = loom_elementwise_kernel_call(g, (loom_array *[]){a, b}, 2);
        CHECK(z && loom_dtype_of(z) == dt);
        CHECK_SHAPE(z, 2, ((int64_t[]){3, 4}));
    }
    /* a weak scalar takes the placeholder bound by the array */
    loom_array *i8 = test_input(1, (int64_t[]){5}, LOOM_INT8);
    loom_array *z = loom_elementwise_kernel_call(g, (loom_array *[]){i8, loom_scalar(2.5)}, 2);
    CHECK(z && loom_dtype_of(z) == LOOM_INT8);
    /* outputs fix a placeholder that only they have */
    loom_elementwise_kernel *u = loom_elementwise_kernel_create("T x", "U z", "z = x;", "to_u", NULL, NULL);
    loom_array *f64 = test_input(1, (int64_t[]){5}, LOOM_FLOAT64);
    z = loom_elementwise_kernel_call(u, (loom_array *[]){i8, f64}, 2);
    CHECK(z && loom_dtype_of(z) == LOOM_FLOAT64 && z != f64);
    /* several outputs of their own dtypes */
    loom_elementwise_kernel *two = loom_elementwise_kernel_create("T x", "T a, bool b", "a = x; b = x > 0;", "pair", NULL, NULL);
    loom_array *outs[2];
    CHECK(loom_elementwise_kernel_call_many(two, (loom_array *[]){f64}, 1, outs, 2) == LOOM_OK);
    CHECK(outs[0] && outs[1] && loom_dtype_of(outs[0]) == LOOM_FLOAT64 && loom_dtype_of(outs[1]) == LOOM_BOOL);
    /* the kernel outlives its handle: nodes keep it */
    loom_elementwise_kernel_destroy(g);
    loom_elementwise_kernel_destroy(u);
    loom_elementwise_kernel_destroy(two);
    loom_scope_end();
}

/* y = my_ewk(a, b); s = sum(y * y, axis=1) is one kernel, which NVRTC compiles; unfused, the
 * user kernel is a kernel of its own. */
static void test_fusion(void)
{
    loom_scope_begin();
    loom_elementwise_kernel *k = loom_elementwise_kernel_create("float32 x, float32 y", "float32 z", BRANCH_BODY, "my_kernel", NULL, NULL);
    loom_array *a = test_input(2, (int64_t[]){64, 1024}, LOOM_FLOAT32);
    loom_array *b = test_input(2, (int64_t[]){64, 1024}, LOOM_FLOAT32);
    loom_array *y = loom_elementwise_kernel_call(k, (loom_array *[]){a, b}, 2);
    loom_array *s = loom_sum(loom_multiply(y, y), (int[]){1}, 1, false);
    loom_plan *p = test_plan(&s, 1, true);
    CHECK_EQ_INT(count_kernels(p), 1);
    CHECK(p && p->steps[0].kernel.summary && strstr(p->steps[0].kernel.summary, "my_kernel"));
    CHECK(p && strstr(p->steps[0].kernel.source, "user kernel \"my_kernel\""));
    loom__plan_free(p);
    CHECK_EQ_INT(test_compile_plan(&s, 1, true, false), 1);
    CHECK(test_compile_plan(&s, 1, false, false) >= 3); /* kernel, multiply, sum */

    /* producers and consumers of the elementwise kernel: one kernel */
    loom_array *e = loom_exp(loom_elementwise_kernel_call(k, (loom_array *[]){loom_sin(a), b}, 2));
    CHECK_EQ_INT(test_compile_plan(&e, 1, true, false), 1);

    /* a raw argument splits: the user kernel ends its kernel */
    loom_elementwise_kernel *r = loom_elementwise_kernel_create("T x, raw T w", "T z", "z = x + w[(i + 1) % w.size()];", "shift_add", NULL, NULL);
    loom_array *w = test_input(1, (int64_t[]){1024}, LOOM_FLOAT32);
    loom_array *yr = loom_elementwise_kernel_call(r, (loom_array *[]){loom_sin(a), loom_cos(w)}, 2);
    loom_array *sr = loom_sum(loom_multiply(yr, yr), (int[]){1}, 1, false);
    loom_plan *pr = test_plan(&sr, 1, true);
    CHECK_EQ_INT(count_kernels(pr), 3); /* cos(w) into memory, sin + shift_add, the sum */
    loom__plan_free(pr);
    CHECK_EQ_INT(test_compile_plan(&sr, 1, true, false), 3);
    /* the same array raw and element by element */
    loom_array *ww = loom_elementwise_kernel_call(r, (loom_array *[]){w, w}, 2);
    CHECK(test_compile_plan(&ww, 1, true, false) == 1);

    /* the element index in the body also splits */
    loom_elementwise_kernel *ix = loom_elementwise_kernel_create("T x", "T z", "z = x * (T)(_ind.size() - i);", "ramp", NULL, NULL);
    loom_array *yi = loom_elementwise_kernel_call(ix, (loom_array *[]){a}, 1);
    loom_array *si = loom_sum(yi, (int[]){1}, 1, false);
    CHECK_EQ_INT(test_compile_plan(&si, 1, true, false), 2);

    /* both outputs of a call evaluated together: one kernel */
    loom_elementwise_kernel *two = loom_elementwise_kernel_create("T x, T y", "T lo, T hi", "lo = min(x, y); hi = max(x, y);", "minmax", NULL, NULL);
    loom_array *outs[2];
    CHECK(loom_elementwise_kernel_call_many(two, (loom_array *[]){a, b}, 2, outs, 2) == LOOM_OK);
    CHECK_EQ_INT(test_compile_plan(outs, 2, true, false), 1);

    /* options pass through to NVRTC, and only the user's code is compiled with them: sin(a)
     * is a kernel of its own, then scaled, then the add */
    loom_elementwise_kernel *o = loom_elementwise_kernel_create("T x", "T z", "z = x * SCALE;", "scaled", NULL, "-DSCALE=3");
    loom_array *yo = loom_add(loom_elementwise_kernel_call(o, (loom_array *[]){loom_sin(a)}, 1), b);
    loom_plan *po = test_plan(&yo, 1, true);
    CHECK(po && count_kernels(po) == 3);
    for (int i = 0; po && i < po->nsteps; i++) {
        const loom_kernel *kk = &po->steps[i].kernel;
        bool user = strstr(kk->source, "user kernel") != NULL;
        CHECK(user == (kk->options && strcmp(kk->options, "-DSCALE=3") == 0));
        CHECK(!user || !strstr(kk->source, "loom_sin"));
    }
    loom__plan_free(po);
    CHECK_EQ_INT(test_compile_plan(&yo, 1, true, false), 3);

    /* the same kernel twice in one fused kernel is defined once */
    loom_array *twice = loom_elementwise_kernel_call(k, (loom_array *[]){y, b}, 2);
    loom_plan *pt = test_plan(&twice, 1, true);
    CHECK(pt && count_kernels(pt) == 1);
    if (pt) {
        const char *src = pt->steps[0].kernel.source, *first = strstr(src, "namespace loom_uk_");
        CHECK(first && !strstr(first + 1, "namespace loom_uk_"));
    }
    loom__plan_free(pt);
    CHECK_EQ_INT(test_compile_plan(&twice, 1, true, false), 1);

    loom_elementwise_kernel_destroy(k);
    loom_elementwise_kernel_destroy(r);
    loom_elementwise_kernel_destroy(ix);
    loom_elementwise_kernel_destroy(two);
    loom_elementwise_kernel_destroy(o);
    loom_scope_end();
}

/* The type-generic kernel compiles for every dtype, fused with a consumer, and with a preamble. */
static void test_compiles_every_dtype(void)
{
    loom_scope_begin();
    loom_elementwise_kernel *g = loom_elementwise_kernel_create(
        "T x, T y", "T z", "z = sq(x, y);", "squared_diff",
        "template <class V> __device__ V sq(V a, V b) { return (V)((a - b) * (a - b)); }", NULL);
    for (int dt = 0; dt < LOOM_NUM_DTYPES; dt++) {
        if (loom__is_complex((loom_dtype)dt))
            continue; /* Loom's complex types have no C++ operators (docs/custom-kernels.md) */
        loom_array *a = test_input(1, (int64_t[]){1000}, (loom_dtype)dt);
        loom_array *z = loom_elementwise_kernel_call(g, (loom_array *[]){a, a}, 2);
        loom_array *s = loom_sum(z, NULL, 0, false);
        CHECK_EQ_INT(test_compile_plan(&s, 1, true, false), 1);
    }
    loom_elementwise_kernel_destroy(g);
    /* complex parameters have Loom's functions, not C++ operators */
    loom_elementwise_kernel *c = loom_elementwise_kernel_create("T x, T y", "T z", "z = loom_multiply(x, loom_add(x, y));",
                                                                "complex_fma", NULL, NULL);
    for (int dt = LOOM_COMPLEX64; dt <= LOOM_COMPLEX128; dt++) {
        loom_array *a = test_input(1, (int64_t[]){1000}, (loom_dtype)dt);
        loom_array *z = loom_elementwise_kernel_call(c, (loom_array *[]){a, a}, 2);
        CHECK(z && loom_dtype_of(z) == dt);
        CHECK_EQ_INT(test_compile_plan(&z, 1, true, false), 1);
    }
    loom_elementwise_kernel_destroy(c);
    loom_scope_end();
}

/* A body NVRTC refuses: LOOM_ERR_COMPILE with NVRTC's log, and the generated source (the
 * user's body in it) with the log written to the file the message names. */
static void test_compile_error(void)
{
    loom_scope_begin();
    loom_elementwise_kernel *k = loom_elementwise_kernel_create("T x", "T z", "z = x +* undefined_name;", "broken", NULL, NULL);
    loom_array *a = test_input(1, (int64_t[]){100}, LOOM_FLOAT32);
    loom_array *y = loom_elementwise_kernel_call(k, &a, 1);
    loom_plan *p = test_plan(&y, 1, true);
    CHECK(p && count_kernels(p) == 1);
    if (p) {
        int nh;
        const loom__header *h = loom__device_headers(&nh);
        void *cubin = NULL;
        size_t size = 0;
        const loom_kernel *kern = &p->steps[0].kernel;
        int rc = loom__compile_to_cubin("loom_eval", kern->name, kern->source, h, nh, "sm_90",
                                        kern->options, &cubin, &size);
        CHECK_EQ_INT(rc, LOOM_ERR_COMPILE);
        const char *e = loom_last_error();
        CHECK(strstr(e, "loom_eval: NVRTC failed to compile kernel") && strstr(e, "undefined_name"));
        const char *at = strstr(e, "source and full log in ");
        CHECK(at);
        if (at) {
            char path[600];
            CHECK(sscanf(at + strlen("source and full log in "), "%599[^)]", path) == 1);
            FILE *f = fopen(path, "r");
            CHECK(f);
            if (f) {
                char text[16384];
                size_t n = fread(text, 1, sizeof text - 1, f);
                text[n] = '\0';
                fclose(f);
                CHECK(strstr(text, "z = x +* undefined_name;") && strstr(text, "NVRTC's log:"));
                remove(path);
            }
        }
        free(cubin);
    }
    loom__plan_free(p);
    loom_elementwise_kernel_destroy(k);
    loom_scope_end();
}

/* Reduction kernels: CuPy's errors and Loom's limits at creation, result shapes and dtypes,
 * and fusion: the map with producers, the post-map with consumers, siblings in one kernel. */
static void test_reduction_kernels(void)
{
    static const char rfn[] = "loom_reduction_kernel_create";
    loom_scope_begin();
    loom_clear_error();
    CHECK(!loom_reduction_kernel_create("T x", "T y, T z", "x", "a + b", NULL, "0", "r", NULL, NULL, NULL));
    CHECK(strstr(loom_last_error(), "kernel \"r\" has 2 outputs: post_map_expr must assign them"));
    CHECK(!loom_reduction_kernel_create("T x", "T a, T b, T c, T d, T e", "x", "a + b", "a = b", "0", "r", NULL,
                                        NULL, NULL));
    CHECK(strstr(loom_last_error(), "kernel \"r\" has 5 outputs: reduction kernels have at most 4"));
    CHECK(!loom_reduction_kernel_create("raw T x", "T y", "x[0]", "a + b", NULL, "0", "r", NULL, NULL, NULL));
    CHECK(strstr(loom_last_error(), "reduction kernels take no raw parameters"));
    CHECK(!loom_reduction_kernel_create("T x", "T y", "x", "a + b", NULL, "0", "r", " ", NULL, NULL));
    CHECK(strstr(loom_last_error(), "reduce_type ' ' is empty"));
    CHECK(!loom_reduction_kernel_create("T x", "T y", NULL, "a + b", NULL, "0", "r", NULL, NULL, NULL));
    CHECK(strstr(loom_last_error(), "map_expr and reduce_expr are required"));
    CHECK(!loom_reduction_kernel_create("floot x", "T y", "x", "a + b", NULL, "0", "r", NULL, NULL, NULL));
    CHECK(strstr(loom_last_error(), rfn) && strstr(loom_last_error(), "data type 'floot' not understood"));
    loom_reduction_kernel_destroy(NULL);

    loom_reduction_kernel *l2 = loom_reduction_kernel_create("T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0",
                                                             "l2norm", NULL, NULL, NULL);
    loom_reduction_kernel *dsum = loom_reduction_kernel_create("T x", "float64 y", "x", "a + b", NULL, "0",
                                                               "dsum", "double", NULL, NULL);
    CHECK(l2 && dsum);
    loom_array *a = test_input(2, (int64_t[]){64, 1024}, LOOM_FLOAT32);
    loom_array *r = loom_reduction_kernel_call(l2, &a, 1, (int[]){1}, 1, false);
    CHECK(r && loom_dtype_of(r) == LOOM_FLOAT32);
    CHECK_SHAPE(r, 1, ((int64_t[]){64}));
    CHECK_SHAPE(loom_reduction_kernel_call(l2, &a, 1, (int[]){-1}, 1, true), 2, ((int64_t[]){64, 1}));
    CHECK_SHAPE(loom_reduction_kernel_call(l2, &a, 1, NULL, 0, false), 0, ((int64_t[]){0}));
    CHECK_SHAPE(loom_reduction_kernel_call(l2, &a, 1, (int[]){0}, 0, false), 2, ((int64_t[]){64, 1024}));
    loom_array *d = loom_reduction_kernel_call(dsum, &a, 1, (int[]){0}, 1, false);
    CHECK(d && loom_dtype_of(d) == LOOM_FLOAT64);
    CHECK_FAILS(loom_reduction_kernel_call(l2, &a, 1, (int[]){2}, 1, false), "loom_reduction_kernel_call",
                "out of bounds");
    CHECK_FAILS(loom_reduction_kernel_call(dsum, (loom_array *[]){a, a}, 2, NULL, 0, false), "loom_reduction_kernel_call",
                "Type is mismatched. y float32 float64");
    CHECK_FAILS(loom_reduction_kernel_call(l2, &a, 3, NULL, 0, false), "loom_reduction_kernel_call",
                "Wrong number of arguments for 'l2norm'. It must be either 1 or 2 (with outputs), but given 3.");

    /* one kernel: producers into the map, consumers after the post-map */
    loom_array *f = loom_mul_scalar(loom_reduction_kernel_call(l2, (loom_array *[]){loom_sin(a)}, 1, (int[]){1}, 1, true), 2.0);
    loom_plan *p = test_plan(&f, 1, true);
    CHECK(p && count_kernels(p) == 1);
    CHECK(p && strstr(p->steps[0].kernel.summary, "l2norm"));
    loom__plan_free(p);
    CHECK_EQ_INT(test_compile_plan(&f, 1, true, false), 1);
    CHECK(test_compile_plan(&f, 1, false, false) >= 4);
    /* a sibling built-in reduction over the same rows joins it */
    loom_array *both[2] = {r, loom_sum(a, (int[]){1}, 1, false)};
    CHECK_EQ_INT(test_compile_plan(both, 2, true, false), 1);
    /* empty reduced axes give the identity; every real dtype compiles */
    loom_array *e = test_input(2, (int64_t[]){3, 0}, LOOM_FLOAT32);
    loom_array *re = loom_reduction_kernel_call(l2, &e, 1, (int[]){1}, 1, false);
    CHECK_SHAPE(re, 1, ((int64_t[]){3}));
    CHECK(test_compile_plan(&re, 1, true, false) >= 1);
    for (int dt = 0; dt < LOOM_NUM_DTYPES; dt++) {
        if (loom__is_complex((loom_dtype)dt) || dt == LOOM_BOOL)
            continue;
        loom_array *x = test_input(2, (int64_t[]){8, 300}, (loom_dtype)dt);
        loom_array *s = loom_reduction_kernel_call(dsum, &x, 1, (int[]){1}, 1, false);
        CHECK_EQ_INT(test_compile_plan(&s, 1, true, false), 1);
    }
    /* the kernel object may go before its arrays */
    loom_reduction_kernel_destroy(l2);
    loom_reduction_kernel_destroy(dsum);
    CHECK_EQ_INT(test_compile_plan(&f, 1, true, false), 1);
    loom_scope_end();
}

/* A reduction kernel without an identity: the first element seeds each partial result
 * (loom_maybe accumulators), in every geometry (rows, columns, several passes) and dtype; a
 * reduction of no elements is NumPy's error, at the call. */
static void test_reduction_without_identity(void)
{
    static const char cfn[] = "loom_reduction_kernel_call";
    loom_scope_begin();
    loom_clear_error();
    loom_reduction_kernel *mx = loom_reduction_kernel_create("T x", "T y", "x", "a > b ? a : b", NULL, NULL,
                                                             "my_max", NULL, NULL, NULL);
    loom_reduction_kernel *mx0 = loom_reduction_kernel_create("T x", "T y", "x", "a > b ? a : b", NULL, "0",
                                                              "my_max", NULL, NULL, NULL);
    CHECK(mx && mx0);
    loom_array *a = test_input(2, (int64_t[]){64, 1024}, LOOM_FLOAT32);
    /* an identity changes the code: the two kernels never share a namespace or a plan */
    loom_array *pair[2] = {loom_reduction_kernel_call(mx, &a, 1, (int[]){1}, 1, false),
                           loom_reduction_kernel_call(mx0, &a, 1, (int[]){1}, 1, false)};
    loom_plan *p = test_plan(pair, 2, true);
    CHECK(p && count_kernels(p) == 1 && strstr(p->steps[0].kernel.source, "reduce_maybe") &&
          strstr(p->steps[0].kernel.source, "identity()"));
    loom__plan_free(p);
    CHECK_EQ_INT(test_compile_plan(pair, 2, true, false), 1);
    /* columns, every axis of a large array (several passes), a sibling sum, a consumer */
    loom_array *big = test_input(1, (int64_t[]){1 << 22}, LOOM_FLOAT32);
    loom_array *col = loom_reduction_kernel_call(mx, &a, 1, (int[]){0}, 1, false);
    loom_array *all = loom_reduction_kernel_call(mx, &big, 1, NULL, 0, false);
    CHECK_SHAPE(col, 1, ((int64_t[]){1024}));
    CHECK_SHAPE(all, 0, ((int64_t[]){0}));
    CHECK_EQ_INT(test_compile_plan(&col, 1, true, false), 1);
    CHECK(test_compile_plan(&all, 1, true, false) >= 2); /* partial results, then their combine */
    loom_array *joined[2] = {loom_mul_scalar(pair[0], 2.0), loom_sum(a, (int[]){1}, 1, false)};
    CHECK_EQ_INT(test_compile_plan(joined, 2, true, false), 1);
    for (int dt = 0; dt < LOOM_NUM_DTYPES; dt++) {
        if (loom__is_complex((loom_dtype)dt))
            continue;
        loom_array *x = test_input(2, (int64_t[]){8, 300}, (loom_dtype)dt);
        loom_array *s = loom_reduction_kernel_call(mx, &x, 1, (int[]){1}, 1, false);
        CHECK(s && loom_dtype_of(s) == dt);
        CHECK_EQ_INT(test_compile_plan(&s, 1, true, false), 1);
    }
    /* no elements to reduce: NumPy's error; empty outputs and no reduced axis are fine */
    loom_array *e = test_input(2, (int64_t[]){0, 3}, LOOM_FLOAT32);
    CHECK_FAILS(loom_reduction_kernel_call(mx, &e, 1, (int[]){0}, 1, false), cfn,
                "zero-size array to reduction operation my_max which has no identity");
    CHECK_FAILS(loom_reduction_kernel_call(mx, &e, 1, NULL, 0, true), cfn,
                "zero-size array to reduction operation my_max which has no identity");
    CHECK_SHAPE(loom_reduction_kernel_call(mx, &e, 1, (int[]){1}, 1, false), 1, ((int64_t[]){0}));
    CHECK_SHAPE(loom_reduction_kernel_call(mx, &e, 1, (int[]){0}, 0, false), 2, ((int64_t[]){0, 3}));
    CHECK_SHAPE(loom_reduction_kernel_call(mx0, &e, 1, (int[]){0}, 1, false), 1, ((int64_t[]){3}));
    loom_reduction_kernel_destroy(mx);
    loom_reduction_kernel_destroy(mx0);
    loom_clear_error();
    loom_scope_end();
}

/* The raw kernel steps of the plan of arrays. */
static int raw_steps(loom_array *const *arrays, int n)
{
    loom_plan *p = test_plan(arrays, n, true);
    int raw = 0;
    for (int i = 0; p && i < p->nsteps; i++)
        raw += p->steps[i].kind == LOOM_STEP_KERNEL && p->steps[i].kernel.kind == LOOM_KERNEL_RAW;
    loom__plan_free(p);
    return raw;
}

/* CuPy's argmax-and-max in one pass (cupy#1924): a struct reduce type of the preamble, _J, two
 * outputs. Such kernels are launches of their own (one raw kernel step of a generated
 * source), which NVRTC compiles; their errors are CuPy's and NumPy's. */
static void test_reduction_kernels_of_their_own(void)
{
    static const char mfn[] = "loom_reduction_kernel_call_many";
    loom_scope_begin();
    loom_clear_error();
    loom_reduction_kernel *am = loom_reduction_kernel_create("T x", "int32 y, T z", "min_max_st(x, _J)", "my_argmax(a, b)",
                                                             "y = a.index, z = a.value", NULL, "argmax_max",
                                                             "min_max_st", MIN_MAX_PREAMBLE, NULL);
    /* one output, a sum with an identity, a weak scalar, and _J alone */
    loom_reduction_kernel *wsum = loom_reduction_kernel_create("T x, T s", "T y, T z", "x * s", "a + b",
                                                               "y = a, z = a * 2", "0", "scaled_sums", NULL, NULL, NULL);
    loom_reduction_kernel *jsum = loom_reduction_kernel_create("T x", "int64 y", "_J", "a + b", NULL, "0", "index_sum",
                                                               "long long", NULL, NULL);
    CHECK(am && wsum && jsum);
    loom_array *x = test_input(2, (int64_t[]){300, 1037}, LOOM_FLOAT32);
    loom_array *outs[2] = {NULL, NULL};
    CHECK_EQ_INT(loom_reduction_kernel_call_many(am, &x, 1, (int[]){1}, 1, false, outs, 2), LOOM_OK);
    CHECK(outs[0] && outs[1] && loom_dtype_of(outs[0]) == LOOM_INT32 && loom_dtype_of(outs[1]) == LOOM_FLOAT32);
    CHECK_SHAPE(outs[0], 1, ((int64_t[]){300}));
    CHECK_SHAPE(outs[1], 1, ((int64_t[]){300}));
    CHECK_EQ_INT(raw_steps(outs, 2), 1); /* both outputs come from one launch */
    loom_plan *p = test_plan(outs, 2, true);
    const loom_kernel *launch = p && p->nsteps ? &p->steps[p->nsteps - 1].kernel : NULL;
    CHECK(launch && launch->kind == LOOM_KERNEL_RAW && strcmp(launch->name, "loom_ur_argmax_max") == 0 &&
          strstr(launch->summary, "argmax_max")); /* logs and DOT name the user's kernel */
    loom__plan_free(p);
    CHECK(test_compile_plan(outs, 2, true, false) >= 1);
    loom_array *cols[2] = {NULL, NULL};
    CHECK_EQ_INT(loom_reduction_kernel_call_many(am, (loom_array *[]){loom_sin(x)}, 1, (int[]){0}, 1, true, cols, 2),
                 LOOM_OK);
    CHECK_SHAPE(cols[1], 2, ((int64_t[]){1, 1037}));
    CHECK(test_compile_plan(cols, 2, true, false) >= 2); /* sin(x) transposed into memory, then the launch */
    loom_array *w[2] = {NULL, NULL};
    CHECK_EQ_INT(loom_reduction_kernel_call_many(wsum, (loom_array *[]){x, loom_scalar(0.5)}, 2, NULL, 0, false, w, 2),
                 LOOM_OK);
    CHECK_SHAPE(w[0], 0, ((int64_t[]){0}));
    CHECK(test_compile_plan(w, 2, true, false) >= 1);
    loom_array *j = loom_reduction_kernel_call(jsum, &x, 1, (int[]){1}, 1, false);
    CHECK(j && loom_dtype_of(j) == LOOM_INT64);
    CHECK(test_compile_plan(&j, 1, true, false) >= 1);
    for (int dt = 0; dt < LOOM_NUM_DTYPES; dt++) { /* every real dtype compiles */
        if (loom__is_complex((loom_dtype)dt))
            continue;
        loom_array *o[2] = {NULL, NULL};
        CHECK_EQ_INT(loom_reduction_kernel_call_many(am, (loom_array *[]){test_input(2, (int64_t[]){4, 70}, (loom_dtype)dt)},
                                                     1, (int[]){1}, 1, false, o, 2),
                     LOOM_OK);
        CHECK(test_compile_plan(o, 2, true, false) >= 1);
    }
    /* call_many of a fused one-output kernel is loom_reduction_kernel_call */
    loom_reduction_kernel *l2 = loom_reduction_kernel_create("T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0", "l2norm",
                                                             NULL, NULL, NULL);
    loom_array *n1 = NULL;
    CHECK_EQ_INT(loom_reduction_kernel_call_many(l2, &x, 1, (int[]){1}, 1, true, &n1, 1), LOOM_OK);
    CHECK_SHAPE(n1, 2, ((int64_t[]){300, 1}));
    CHECK_EQ_INT(raw_steps(&n1, 1), 0);
    CHECK_EQ_INT(test_compile_plan(&n1, 1, true, false), 1);
    loom_reduction_kernel_destroy(l2);
    /* errors */
    CHECK_EQ_INT(loom_reduction_kernel_call_many(NULL, &x, 1, NULL, 0, false, outs, 2), LOOM_ERR_INVALID);
    CHECK(strstr(loom_last_error(), "loom_reduction_kernel_call_many: kernel is NULL") && !outs[0] && !outs[1]);
    CHECK_FAILS(loom_reduction_kernel_call(am, &x, 1, NULL, 0, false), "loom_reduction_kernel_call",
                "kernel \"argmax_max\" has 2 outputs: call it with loom_reduction_kernel_call_many");
    loom_array *one = NULL;
    CHECK_EQ_INT(loom_reduction_kernel_call_many(am, &x, 1, NULL, 0, false, &one, 1), LOOM_ERR_INVALID);
    CHECK(strstr(loom_last_error(), mfn) && strstr(loom_last_error(), "has 2 outputs, not 1"));
    loom_array *e = test_input(2, (int64_t[]){0, 3}, LOOM_FLOAT32);
    CHECK_EQ_INT(loom_reduction_kernel_call_many(am, &e, 1, (int[]){0}, 1, false, outs, 2), LOOM_ERR_INVALID);
    CHECK(strstr(loom_last_error(), "zero-size array to reduction operation argmax_max which has no identity") &&
          !outs[0] && !outs[1]);
    CHECK_EQ_INT(loom_reduction_kernel_call_many(am, &e, 1, (int[]){1}, 1, false, outs, 2), LOOM_OK);
    CHECK_SHAPE(outs[0], 1, ((int64_t[]){0}));
    CHECK_EQ_INT(loom_reduction_kernel_call_many(am, (loom_array *[]){test_input(1, (int64_t[]){5}, LOOM_COMPLEX64)}, 1,
                                                 NULL, 0, false, outs, 2),
                 LOOM_ERR_UNSUPPORTED);
    CHECK(strstr(loom_last_error(), mfn) && strstr(loom_last_error(), "complex values are not supported"));
    CHECK_EQ_INT(loom_reduction_kernel_call_many(am, &x, 1, (int[]){2}, 1, false, outs, 2), LOOM_ERR_SHAPE);
    CHECK(strstr(loom_last_error(), mfn) && strstr(loom_last_error(), "out of bounds"));
    loom_reduction_kernel_destroy(am);
    loom_reduction_kernel_destroy(wsum);
    loom_reduction_kernel_destroy(jsum);
    loom_clear_error();
    loom_scope_end();
}

/* CuPy's loop_prep and after_loop: the kernel is a launch of its own (one raw kernel step of a
 * generated source, its inputs in memory), which NVRTC compiles for every real dtype, with raw
 * parameters, the index, weak scalars and several outputs; without them it fuses as before. */
static void test_loop_prep(void)
{
    static const char xfn[] = "loom_elementwise_kernel_create_ex";
    loom_scope_begin();
    loom_clear_error();
    loom_elementwise_kernel *scaled = loom_elementwise_kernel_create_ex("T x, T s", "T y", "y = x * scale + s;", "scaled",
                                                                        NULL, NULL, "const T scale = (T)3;", "");
    loom_elementwise_kernel *wsum = loom_elementwise_kernel_create_ex(
        "raw T w, T x", "T y, T z", "y = x + total; z = (T)i + (T)_ind.size();", "plus_total", NULL, NULL,
        "T total = 0; for (long long k = 0; k < w.size(); k++) total += w[k];", "(void)total;");
    loom_elementwise_kernel *plain = loom_elementwise_kernel_create_ex("T x", "T y", "y = x * 3;", "plain", NULL, NULL,
                                                                       NULL, "");
    CHECK(scaled && wsum && plain);
    CHECK(!loom_elementwise_kernel_create_ex("T x", "T i", "i = x;", "bad", NULL, NULL, "int k = 0;", NULL) &&
          strstr(loom_last_error(), xfn) && strstr(loom_last_error(), "Can not use 'i' as a parameter name"));
    const int64_t shape[2] = {64, 1000};
    loom_array *a = test_input(2, shape, LOOM_FLOAT32);
    loom_array *y = loom_elementwise_kernel_call(scaled, (loom_array *[]){loom_sin(a), loom_scalar(0.5)}, 2);
    CHECK(y && loom_dtype_of(y) == LOOM_FLOAT32);
    CHECK_SHAPE(y, 2, shape);
    loom_array *e = loom_exp(y);
    CHECK_EQ_INT(raw_steps(&e, 1), 1);
    loom_plan *p = test_plan(&e, 1, true);
    CHECK(p && count_kernels(p) == 3); /* sin, the launch, exp: not fused */
    loom__plan_free(p);
    CHECK(test_compile_plan(&e, 1, true, false) >= 3);
    loom_array *pz[2] = {NULL, NULL};
    CHECK_EQ_INT(loom_elementwise_kernel_call_many(wsum, (loom_array *[]){test_input(1, (int64_t[]){37}, LOOM_FLOAT32),
                                                                          test_input(1, (int64_t[]){1000}, LOOM_FLOAT32)},
                                                   2, pz, 2),
                 LOOM_OK);
    CHECK_SHAPE(pz[1], 1, ((int64_t[]){1000}));
    CHECK_EQ_INT(raw_steps(pz, 2), 1);
    CHECK(test_compile_plan(pz, 2, true, false) >= 1);
    for (int dt = 0; dt < LOOM_NUM_DTYPES; dt++) {
        if (loom__is_complex((loom_dtype)dt))
            continue;
        loom_array *x = test_input(2, (int64_t[]){3, 70}, (loom_dtype)dt);
        loom_array *o[2] = {loom_elementwise_kernel_call(scaled, (loom_array *[]){x, loom_scalar_int(1)}, 2), NULL};
        CHECK(o[0] && loom_dtype_of(o[0]) == dt);
        CHECK_EQ_INT(loom_elementwise_kernel_call_many(wsum, (loom_array *[]){x, x}, 2, o, 2), LOOM_OK);
        CHECK(test_compile_plan(o, 2, true, false) >= 1);
    }
    loom_array *yp = loom_elementwise_kernel_call(plain, &a, 1); /* no loop_prep: fused as before */
    loom_array *ep = loom_exp(yp);
    CHECK_EQ_INT(raw_steps(&ep, 1), 0);
    CHECK_EQ_INT(test_compile_plan(&ep, 1, true, false), 1);
    CHECK_FAILS(loom_elementwise_kernel_call(scaled, (loom_array *[]){test_input(1, (int64_t[]){5}, LOOM_COMPLEX64),
                                                                      loom_scalar(1)}, 2),
                "loom_elementwise_kernel_call", "complex values are not supported by a kernel with loop_prep");
    loom_elementwise_kernel_destroy(scaled);
    loom_elementwise_kernel_destroy(wsum);
    loom_elementwise_kernel_destroy(plain);
    loom_clear_error();
    loom_scope_end();
}

/* DOT: the user kernel's node is labelled with its name, inside the fused kernel's cluster. */
static void test_dot(void)
{
    loom_scope_begin();
    loom_elementwise_kernel *k = loom_elementwise_kernel_create("float32 x, float32 y", "float32 z", BRANCH_BODY, "my_kernel", NULL, NULL);
    loom_array *a = test_input(2, (int64_t[]){8, 16}, LOOM_FLOAT32);
    loom_array *y = loom_elementwise_kernel_call(k, (loom_array *[]){a, a}, 2);
    loom_array *s = loom_sum(loom_multiply(y, y), (int[]){1}, 1, false);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    CHECK(f && loom_dump_dot(f, &s, 1) == LOOM_OK);
    if (f)
        fclose(f);
    const char *cluster = buf ? strstr(buf, "subgraph cluster") : NULL;
    CHECK(cluster && strstr(cluster, "my_kernel multiply sum"));
    CHECK(cluster && strstr(cluster, "label=\"{my_kernel|float32 (8,16)}\""));
    if (!cluster || !strstr(cluster, "{my_kernel|"))
        fprintf(stderr, "%s\n", buf ? buf : "");
    free(buf);
    loom_elementwise_kernel_destroy(k);
    loom_scope_end();
}

#define COPY_SOURCE                                                                               \
    "extern \"C\" __global__ void elementwise_copy(const float *x, float *y, long long n)\n"       \
    "{\n"                                                                                         \
    "    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;\n"          \
    "         i += (long long)gridDim.x * blockDim.x)\n"                                          \
    "        y[i] = x[i];\n"                                                                      \
    "}\n"

/* Raw kernels: errors, a launch as one kernel step of the user's source with the user's launch
 * configuration, its inputs computed first and its output read by a consumer; NVRTC compiles
 * the user's source with its options. */
static void test_raw_kernels(void)
{
    static const char rfn[] = "loom_raw_kernel_call";
    loom_scope_begin();
    loom_clear_error();
    CHECK(!loom_raw_kernel_create(NULL, "k", NULL) && strstr(loom_last_error(), "source is NULL"));
    CHECK(!loom_raw_kernel_create(COPY_SOURCE, "not a name", NULL) &&
          strstr(loom_last_error(), "loom_raw_kernel_create: Invalid kernel name"));
    loom_raw_kernel *k = loom_raw_kernel_create(COPY_SOURCE, "elementwise_copy", NULL);
    loom_raw_module *mod = loom_raw_module_create(COPY_SOURCE "extern \"C\" __global__ void scale(float *y, float s, long long n)\n"
                                                  "{ long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; if (i < n) y[i] *= s * SCALE; }\n",
                                                  "-DSCALE=2");
    loom_raw_kernel *scale = loom_raw_module_get_function(mod, "scale");
    loom_raw_module_destroy(mod); /* its kernels keep what they need */
    CHECK(k && scale);
    const int64_t n = 1 << 22;
    loom_array *a = test_input(1, &n, LOOM_FLOAT32);
    loom_array *x = loom_sin(a);
    loom_array *args[3] = {x, loom_empty(1, &n, LOOM_FLOAT32), loom_scalar_int(n)};
    loom_array *y = NULL;
    const unsigned grid[3] = {1024, 1, 1}, block[3] = {256, 1, 1};
    CHECK(loom_raw_kernel_call(k, grid, (unsigned[]){0, 1, 1}, 0, args, 3, (int[]){1}, 1, &y) == LOOM_ERR_INVALID);
    CHECK(strstr(loom_last_error(), rfn) && strstr(loom_last_error(), "must be positive") && !y);
    CHECK(loom_raw_kernel_call(k, grid, (unsigned[]){64, 32, 1}, 0, args, 3, (int[]){1}, 1, &y) == LOOM_ERR_INVALID);
    CHECK(strstr(loom_last_error(), "2048 threads is more than CUDA's 1024"));
    CHECK(loom_raw_kernel_call(k, grid, block, 0, args, 3, (int[]){3}, 1, &y) == LOOM_ERR_INVALID);
    CHECK(strstr(loom_last_error(), "output 0 is argument 3, not one of the 3 arguments"));
    CHECK(loom_raw_kernel_call(k, grid, block, 0, args, 3, (int[]){1, 1}, 2, (loom_array *[2]){0}) == LOOM_ERR_INVALID);
    CHECK(strstr(loom_last_error(), "argument 1 is listed twice as an output"));
    CHECK(loom_raw_kernel_call(k, grid, block, 0, args, 3, (int[]){2}, 1, &y) == LOOM_ERR_INVALID);
    CHECK(strstr(loom_last_error(), "output 0 (argument 2) is a scalar, not an array"));
    CHECK(loom_raw_kernel_call(k, grid, block, 0, (loom_array *[]){x, args[1], loom_scalar_typed(1, LOOM_FLOAT16)}, 3,
                               (int[]){1}, 1, &y) != LOOM_OK);
    CHECK(strstr(loom_last_error(), "float16 scalars are not passed to raw kernels"));
    CHECK(loom_raw_kernel_call(NULL, grid, block, 0, args, 3, (int[]){1}, 1, &y) == LOOM_ERR_INVALID);
    CHECK(strstr(loom_last_error(), "kernel is NULL"));

    CHECK(loom_raw_kernel_call(k, grid, block, 0, args, 3, (int[]){1}, 1, &y) == LOOM_OK);
    CHECK(y && loom_dtype_of(y) == LOOM_FLOAT32 && loom_size(y) == n);
    /* sin(a) into memory, the launch, then scale(y * 1, 3) writing a copy of its input */
    loom_array *z = NULL;
    CHECK(loom_raw_kernel_call(scale, (unsigned[]){(unsigned)(n / 256), 1, 1}, block, 0,
                               (loom_array *[]){y, loom_scalar_typed(3, LOOM_FLOAT32), loom_scalar_int(n)}, 3,
                               (int[]){0}, 1, &z) == LOOM_OK);
    loom_array *out = loom_add(z, a);
    loom_plan *p = test_plan(&out, 1, true);
    CHECK(p && count_kernels(p) == 4); /* sin, elementwise_copy, scale, add */
    int raw = 0, copies = 0;
    for (int i = 0; p && i < p->nsteps; i++) {
        const loom_step *st = &p->steps[i];
        copies += st->kind == LOOM_STEP_COPY;
        if (st->kind != LOOM_STEP_KERNEL || st->kernel.kind != LOOM_KERNEL_RAW)
            continue;
        raw++;
        const loom_kernel *kk = &st->kernel;
        CHECK(kk->nargs == 3 && kk->args[0].kind == LOOM_KARG_PTR && kk->args[2].kind == LOOM_KARG_VALUE);
        CHECK(kk->args[2].size == 8 && memcmp(kk->args[2].value, &n, 8) == 0);
        if (strcmp(kk->name, "scale") == 0) {
            float three = 3;
            CHECK(kk->args[1].size == 4 && memcmp(kk->args[1].value, &three, 4) == 0);
            CHECK(kk->options && strcmp(kk->options, "-DSCALE=2") == 0);
            CHECK(kk->grid[0] == n / 256 && kk->block == 256);
        }
    }
    CHECK_EQ_INT(raw, 2);
    CHECK_EQ_INT(copies, 1); /* scale's output starts as y; elementwise_copy's as loom_empty */
    loom__plan_free(p);
    CHECK_EQ_INT(test_compile_plan(&out, 1, true, false), 5); /* steps: 4 kernels, 1 copy */
    loom_raw_kernel_destroy(k);
    loom_raw_kernel_destroy(scale);
    loom_scope_end();
}

/* CuPy's name_expressions: a module's templated kernels are named by C++ expressions, which
 * get_function accepts only when the module lists them; NVRTC instantiates them (the plan's
 * kernel step compiles under the expression's name). */
static void test_raw_name_expressions(void)
{
    static const char mfn[] = "loom_raw_module_create_ex";
    static const char gfn[] = "loom_raw_module_get_function";
    static const char src[] = "template <typename T, int N>\n"
                              "__global__ void scale_by(T *y, long long n)\n"
                              "{ long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; if (i < n) y[i] *= N; }\n";
    loom_scope_begin();
    loom_clear_error();
    CHECK(!loom_raw_module_create_ex(src, NULL, NULL, 1));
    CHECK_STR(loom_last_error(), "loom_raw_module_create_ex: 1 name expressions from a NULL list");
    CHECK(!loom_raw_module_create_ex(src, NULL, (const char *[]){"scale_by<float, 2>", ""}, 2));
    CHECK_STR(loom_last_error(),
              "loom_raw_module_create_ex: name expression 1 (\"\") is empty or longer than 63 characters");
    CHECK(!loom_raw_module_create_ex(NULL, NULL, NULL, 0) && strstr(loom_last_error(), mfn));
    const char *names[] = {"scale_by<float, 2>", "scale_by<int, 3>"};
    loom_raw_module *mod = loom_raw_module_create_ex(src, NULL, names, 2);
    CHECK(mod != NULL);
    CHECK(!loom_raw_module_get_function(mod, "scale_by<double, 2>"));
    CHECK_STR(loom_last_error(),
              "loom_raw_module_get_function: \"scale_by<double, 2>\" is neither an extern \"C\" kernel name "
              "nor one of the module's 2 name expressions (loom_raw_module_create_ex)");
    loom_raw_module *plain = loom_raw_module_create(src, NULL);
    CHECK(!loom_raw_module_get_function(plain, "scale_by<float, 2>") && strstr(loom_last_error(), gfn) &&
          strstr(loom_last_error(), "module's 0 name expressions"));
    loom_raw_module_destroy(plain);
    loom_raw_kernel *kf = loom_raw_module_get_function(mod, "scale_by<float, 2>");
    loom_raw_kernel *ki = loom_raw_module_get_function(mod, "scale_by<int, 3>");
    loom_raw_module_destroy(mod);
    CHECK(kf && ki);
    const int64_t n = 1000;
    const unsigned grid[3] = {4, 1, 1}, block[3] = {256, 1, 1};
    loom_array *yf = NULL, *yi = NULL;
    CHECK(loom_raw_kernel_call(kf, grid, block, 0,
                               (loom_array *[]){loom_sin(test_input(1, &n, LOOM_FLOAT32)), loom_scalar_int(n)}, 2,
                               (int[]){0}, 1, &yf) == LOOM_OK);
    CHECK(loom_raw_kernel_call(ki, grid, block, 0, (loom_array *[]){loom_arange(0, (double)n, 1, LOOM_INT32), loom_scalar_int(n)},
                               2, (int[]){0}, 1, &yi) == LOOM_OK);
    /* shared memory beyond what any device has is refused when recorded */
    loom_array *big = NULL;
    CHECK(loom_raw_kernel_call(kf, grid, block, (size_t)1 << 32, (loom_array *[]){yf, loom_scalar_int(n)}, 2,
                               (int[]){0}, 1, &big) == LOOM_ERR_INVALID && !big);
    CHECK_STR(loom_last_error(),
              "loom_raw_kernel_call: 4294967296 bytes of dynamic shared memory: more than any device has");
    loom_array *both[2] = {yf, yi};
    loom_plan *p = test_plan(both, 2, true);
    int found = 0;
    for (int i = 0; p && i < p->nsteps; i++)
        if (p->steps[i].kind == LOOM_STEP_KERNEL && p->steps[i].kernel.kind == LOOM_KERNEL_RAW)
            found += strcmp(p->steps[i].kernel.name, names[0]) == 0 || strcmp(p->steps[i].kernel.name, names[1]) == 0;
    CHECK_EQ_INT(found, 2);
    loom__plan_free(p);
    CHECK(test_compile_plan(both, 2, true, false) >= 3); /* sin, copies, both launches compile */
    /* DOT names the launch by its expression, in a plain string label */
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    CHECK(f && loom_dump_dot(f, &yf, 1) == LOOM_OK);
    if (f)
        fclose(f);
    CHECK(buf && strstr(buf, "scale_by<float, 2>"));
    free(buf);
    loom_raw_kernel_destroy(kf);
    loom_raw_kernel_destroy(ki);
    loom_clear_error();
    loom_scope_end();
}

int main(void)
{
    test_dtype_names();
    test_parse();
    test_call_errors();
    test_types_and_shapes();
    test_fusion();
    test_compiles_every_dtype();
    test_compile_error();
    test_reduction_kernels();
    test_reduction_without_identity();
    test_reduction_kernels_of_their_own();
    test_loop_prep();
    test_dot();
    test_raw_kernels();
    test_raw_name_expressions();
    return check_summary("test_ukernel");
}
