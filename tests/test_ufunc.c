/* Elementwise constructors: output and loop dtypes of every ufunc against NumPy (tests/data),
 * broadcasting, scalar forms, aliases, round/clip/where, errors, and ownership in and out of
 * scopes (run under LeakSanitizer). */
#include "oracle.h"

typedef loom_array *(*unary_fn)(loom_array *);
typedef loom_array *(*binary_fn)(loom_array *, loom_array *);
typedef loom_array *(*scalar_fn)(loom_array *, double);

/* Every constructor under its graph/ops.def name ("conjugate", "divide"), plus the loom_ name
 * it was declared with. */
static const struct {
    const char *op, *fn;
    unary_fn f;
} unaries[] = {
#define X(name) {#name, "loom_" #name, loom_##name},
    LOOM_UNARY_UFUNCS(X)
#undef X
    {"conjugate", "loom_conjugate", loom_conjugate},
};

static const struct {
    const char *op, *fn;
    binary_fn f;
    scalar_fn s;
} binaries[] = {
#define X(name) {#name, "loom_" #name, loom_##name, loom_##name##_scalar},
    LOOM_BINARY_UFUNCS(X)
#undef X
    {"divide", "loom_divide", loom_divide, loom_divide_scalar},
};

#define COUNT(a) ((int)(sizeof(a) / sizeof *(a)))

/* Runs one oracle case through the public constructor; returns the result (scope-owned) and
 * the function name errors must carry. */
static loom_array *run_case(const oracle_case *c, const char **fn)
{
    loom_array *in[4] = {0};
    for (int i = 0; i < c->n; i++)
        in[i] = oracle_operand(c->args[i]);
    if (strcmp(c->op, "where") == 0) {
        *fn = "loom_where";
        return loom_where(in[0], in[1], in[2]);
    }
    if (strcmp(c->op, "clip") == 0) {
        *fn = "loom_clip";
        return loom_clip(in[0], in[1], in[2]);
    }
    if (strncmp(c->op, "round:", 6) == 0) {
        *fn = "loom_round";
        return loom_round(in[0], atoi(c->op + 6));
    }
    for (int i = 0; i < COUNT(unaries) && c->n == 1; i++) {
        if (strcmp(c->op, unaries[i].op) == 0) {
            *fn = unaries[i].fn;
            return unaries[i].f(in[0]);
        }
    }
    for (int i = 0; i < COUNT(binaries) && c->n == 2; i++) {
        if (strcmp(c->op, binaries[i].op) == 0) {
            *fn = binaries[i].fn;
            return binaries[i].f(in[0], in[1]);
        }
    }
    *fn = NULL;
    return NULL;
}

static void check_case(const oracle_case *c, void *ctx)
{
    int *count = ctx;
    if (strcmp(c->op, "result_type") == 0)
        return; /* test_promotion's */
    (*count)++;
    loom_scope_begin();
    loom_clear_error();
    const char *fn;
    loom_array *r = run_case(c, &fn);
    CHECK(fn != NULL);
    bool ok;
    if (strcmp(c->result, "error") == 0) {
        const char *e = loom_last_error();
        ok = !r && e && fn && strncmp(e, fn, strlen(fn)) == 0 && e[strlen(fn)] == ':';
    } else {
        ok = r && strcmp(loom_dtype_name(loom_dtype_of(r)), c->result) == 0 &&
             (strcmp(c->loop, "-") == 0 || strcmp(loom_dtype_name(r->cdtype), c->loop) == 0);
    }
    CHECK(ok);
    if (!ok)
        fprintf(stderr, "  %s:%d: %s(%s%s%s%s%s) expected %s %s, got %s %s (%s)\n", c->file,
                c->line, c->op, c->args[0], c->n > 1 ? ", " : "", c->n > 1 ? c->args[1] : "",
                c->n > 2 ? ", " : "", c->n > 2 ? c->args[2] : "", c->result, c->loop,
                r ? loom_dtype_name(loom_dtype_of(r)) : "NULL",
                r ? loom_dtype_name(r->cdtype) : "-", loom_last_error() ? loom_last_error() : "");
    loom_scope_end();
}

static void test_oracle(void)
{
    int n = 0;
    CHECK(oracle_each("ufunc.txt", check_case, &n) > 0);
    CHECK(oracle_each("weak.txt", check_case, &n) > 0);
    CHECK(n > 20000);
    loom_clear_error();
}

/* The X-macro lists map onto graph/ops.def in order; scalar forms compute op(a, weak float). */
static void test_constructors_map_to_ops(void)
{
    loom_scope_begin();
    loom_array *a = oracle_array(LOOM_FLOAT64, 1, (int64_t[]){4});
    loom_array *ints = oracle_array(LOOM_INT16, 1, (int64_t[]){4});
    for (int i = 0; i < COUNT(unaries); i++) {
        loom_array *x = a, *r = unaries[i].f(x);
        if (!r) /* the bitwise ones */
            r = unaries[i].f(x = ints);
        const char *want = strcmp(unaries[i].op, "conj") == 0 ? "conjugate" : unaries[i].op;
        CHECK(r && strcmp(loom__ops[r->op].name, want) == 0);
        CHECK(r && r->inputs[0] == x && r->ninputs == 1);
    }
    for (int i = 0; i < COUNT(binaries); i++) {
        loom_array *x = a, *r = binaries[i].f(x, x);
        if (!r)
            r = binaries[i].f(x = ints, ints);
        const char *want = strcmp(binaries[i].op, "true_divide") == 0 ? "divide" : binaries[i].op;
        CHECK(r && strcmp(loom__ops[r->op].name, want) == 0);
        /* The scalar form is the op with a weak float: a float for the bitwise ones fails. */
        loom_array *s = binaries[i].s(a, 2.5);
        if (!s) {
            CHECK(x == ints && strstr(loom_last_error(), "Python float"));
            continue;
        }
        CHECK(s && s->op == r->op && s->inputs[0] == a);
        /* The weak scalar is the node's input itself: a kernel argument, no broadcast view. */
        loom_array *v = s ? s->inputs[1] : NULL;
        CHECK(v && v->op == LOOM_OP_SCALAR && v->ndim == 0 && v->weak && v->param.value.re == 2.5);
    }
    const struct {
        loom_array *r;
        loom_op op;
    } aliases[] = {
        {loom_divide(a, a), LOOM_OP_TRUE_DIVIDE}, {loom_divide_scalar(a, 2), LOOM_OP_TRUE_DIVIDE},
        {loom_abs(a), LOOM_OP_ABSOLUTE},           {loom_conjugate(a), LOOM_OP_CONJ},
        {loom_mod(a, a), LOOM_OP_REMAINDER},       {loom_pow(a, a), LOOM_OP_POWER},
        {loom_sub_scalar(a, 1), LOOM_OP_SUBTRACT}, {loom_mul_scalar(a, 1), LOOM_OP_MULTIPLY},
        {loom_div_scalar(a, 1), LOOM_OP_TRUE_DIVIDE},
    };
    for (int i = 0; i < COUNT(aliases); i++)
        CHECK(aliases[i].r && aliases[i].r->op == aliases[i].op);
    loom_array *inv = loom_bitwise_not(ints);
    CHECK(inv && inv->op == LOOM_OP_INVERT && inv->dtype == LOOM_INT16);
    loom_scope_end();
}

static void check_inputs_have_output_shape(const loom_array *r)
{
    for (int i = 0; r && i < r->ninputs; i++) {
        if (r->inputs[i]->op == LOOM_OP_SCALAR && r->inputs[i]->ndim == 0)
            continue; /* scalars are kernel arguments, broadcast for free */
        CHECK_EQ_INT(r->inputs[i]->ndim, r->ndim);
        for (int d = 0; d < r->ndim && d < r->inputs[i]->ndim; d++)
            CHECK_EQ_INT(r->inputs[i]->shape[d], r->shape[d]);
    }
}

static void test_broadcasting(void)
{
    loom_scope_begin();
    loom_array *a = oracle_array(LOOM_FLOAT32, 2, (int64_t[]){3, 1});
    loom_array *b = oracle_array(LOOM_FLOAT32, 1, (int64_t[]){4});
    loom_array *r = loom_add(a, b);
    CHECK_SHAPE(r, 2, ((int64_t[]){3, 4}));
    check_inputs_have_output_shape(r);
    CHECK(r && loom_is_view(r->inputs[0]) && loom_is_view(r->inputs[1]));
    CHECK(r && r->inputs[0]->inputs[0] == a && loom_strides(r->inputs[0])[1] == 0);

    /* Same shapes: the inputs themselves, no views. */
    loom_array *same = loom_multiply(a, a);
    CHECK(same && same->inputs[0] == a && same->inputs[1] == a);

    /* A strong 0-d array broadcasts like any array (and promotes as strong). */
    loom_array *s = loom_scalar_typed(2.0, LOOM_FLOAT64);
    loom_array *rs = loom_multiply(b, s);
    CHECK_SHAPE(rs, 1, ((int64_t[]){4}));
    CHECK(rs && rs->dtype == LOOM_FLOAT64 && rs->inputs[0] == b);
    check_inputs_have_output_shape(rs);
    loom_array *zero_d = loom_negative(s);
    CHECK(zero_d && zero_d->ndim == 0 && !zero_d->weak);

    /* where broadcasts all three; clip broadcasts its bounds. */
    loom_array *cond = oracle_array(LOOM_BOOL, 3, (int64_t[]){2, 1, 1});
    loom_array *w = loom_where(cond, a, b);
    CHECK_SHAPE(w, 3, ((int64_t[]){2, 3, 4}));
    check_inputs_have_output_shape(w);
    CHECK(w && w->inputs[0]->dtype == LOOM_BOOL && w->cdtype == LOOM_FLOAT32);
    loom_array *c = loom_clip(a, b, NULL);
    CHECK_SHAPE(c, 2, ((int64_t[]){3, 4}));
    check_inputs_have_output_shape(c);

    /* Zero-size extents broadcast as NumPy does. */
    loom_array *e = oracle_array(LOOM_INT32, 2, (int64_t[]){0, 1});
    loom_array *re = loom_add(e, b);
    CHECK_SHAPE(re, 2, ((int64_t[]){0, 4}));
    CHECK(re && loom_size(re) == 0);

    CHECK_FAILS(loom_add(oracle_array(LOOM_FLOAT32, 2, (int64_t[]){3, 4}),
                         oracle_array(LOOM_FLOAT32, 1, (int64_t[]){5})),
                "loom_add", "shapes (3,4) and (5,) cannot be broadcast");
    CHECK_FAILS(loom_where(cond, oracle_array(LOOM_FLOAT32, 1, (int64_t[]){3}), b), "loom_where",
                "shapes (2,1,1), (3,) and (4,) cannot be broadcast");
    CHECK_FAILS(loom_add(oracle_array(LOOM_INT8, 2, (int64_t[]){INT64_MAX / 2, 1}),
                         oracle_array(LOOM_INT8, 1, (int64_t[]){4})),
                "loom_add", "is too big");
    loom_scope_end();
}

static void test_scalar_forms(void)
{
    loom_scope_begin();
    loom_array *f32 = oracle_array(LOOM_FLOAT32, 1, (int64_t[]){5});
    loom_array *i8 = oracle_array(LOOM_INT8, 1, (int64_t[]){5});
    loom_array *u8 = oracle_array(LOOM_UINT8, 1, (int64_t[]){5});
    loom_array *bf = oracle_array(LOOM_BFLOAT16, 1, (int64_t[]){5});
    CHECK_EQ_INT(loom_dtype_of(loom_mul_scalar(f32, 2.0)), LOOM_FLOAT32);
    CHECK_EQ_INT(loom_dtype_of(loom_mul_scalar(i8, 2.0)), LOOM_FLOAT64);
    CHECK_EQ_INT(loom_dtype_of(loom_add_scalar(u8, 300.0)), LOOM_FLOAT64);
    CHECK_EQ_INT(loom_dtype_of(loom_power_scalar(bf, 2.0)), LOOM_BFLOAT16);
    CHECK_EQ_INT(loom_dtype_of(loom_less_scalar(i8, 0.5)), LOOM_BOOL);
    loom_array *l = loom_less_scalar(i8, 0.5);
    CHECK(l && l->cdtype == LOOM_FLOAT64);
    CHECK_FAILS(loom_bitwise_and_scalar(i8, 1.0), "loom_bitwise_and_scalar",
                "not supported for input types (int8, Python float)");
    CHECK_FAILS(loom_left_shift_scalar(f32, 1.0), "loom_left_shift_scalar",
                "not supported for input types (float32, Python float)");
    /* 0-d input: no broadcast view, the weak scalar is the input itself. */
    loom_array *z = loom_scalar_typed(1.0, LOOM_FLOAT16);
    loom_array *rz = loom_add_scalar(z, 1.0);
    CHECK(rz && rz->dtype == LOOM_FLOAT16 && rz->inputs[1]->op == LOOM_OP_SCALAR);
    loom_scope_end();
}

static void test_weak_ints(void)
{
    loom_scope_begin();
    loom_array *u8 = oracle_array(LOOM_UINT8, 1, (int64_t[]){5});
    loom_array *i8 = oracle_array(LOOM_INT8, 1, (int64_t[]){5});
    loom_array *u64 = oracle_array(LOOM_UINT64, 1, (int64_t[]){5});
    CHECK_FAILS(loom_add(u8, loom_scalar_int(300)), "loom_add",
                "Python integer 300 out of bounds for uint8");
    CHECK_FAILS(loom_maximum(loom_scalar_int(-129), i8), "loom_maximum",
                "Python integer -129 out of bounds for int8");
    CHECK_FAILS(loom_add(u64, loom_scalar_int(-1)), "loom_add",
                "Python integer -1 out of bounds for uint64");
    CHECK_EQ_INT(loom_dtype_of(loom_add(i8, loom_scalar_int(-128))), LOOM_INT8);
    CHECK_EQ_INT(loom_dtype_of(loom_add(u8, loom_scalar_int(255))), LOOM_UINT8);
    /* No error where the loop is a float one or the op is a comparison (NumPy compares an
     * out-of-range Python int exactly, so Loom computes in a dtype holding both). */
    CHECK_EQ_INT(loom_dtype_of(loom_divide(u8, loom_scalar_int(300))), LOOM_FLOAT64);
    CHECK_EQ_INT(loom_dtype_of(loom_arctan2(u8, loom_scalar_int(300))), LOOM_FLOAT16);
    loom_array *eq = loom_equal(u8, loom_scalar_int(300));
    CHECK(eq && eq->dtype == LOOM_BOOL && eq->cdtype == LOOM_INT64);
    loom_array *lt = loom_less(u64, loom_scalar_int(-1));
    CHECK(lt && lt->dtype == LOOM_BOOL && lt->cdtype == LOOM_FLOAT64);
    loom_array *in_range = loom_equal(u8, loom_scalar_int(3));
    CHECK(in_range && in_range->cdtype == LOOM_UINT8);
    /* Logical ops read mixed inputs as bool, so no value ever overflows. */
    loom_array *land = loom_logical_and(u8, loom_scalar_int(300));
    CHECK(land && land->cdtype == LOOM_BOOL);
    /* where refuses what NumPy silently wraps (Loom's rule, docs/dtypes.md). */
    CHECK_FAILS(loom_where(oracle_array(LOOM_BOOL, 0, NULL), u8, loom_scalar_int(300)),
                "loom_where", "Python integer 300 out of bounds for uint8");
    loom_scope_end();
}

static void test_errors(void)
{
    loom_scope_begin();
    loom_array *f32 = oracle_array(LOOM_FLOAT32, 1, (int64_t[]){5});
    loom_array *c64 = oracle_array(LOOM_COMPLEX64, 1, (int64_t[]){5});
    loom_array *b = oracle_array(LOOM_BOOL, 1, (int64_t[]){5});
    CHECK_FAILS(loom_bitwise_and(f32, f32), "loom_bitwise_and",
                "not supported for input types (float32, float32)");
    CHECK_FAILS(loom_invert(f32), "loom_invert", "not supported for input types (float32)");
    CHECK_FAILS(loom_bitwise_not(f32), "loom_bitwise_not", "not supported for input types");
    CHECK_FAILS(loom_floor(c64), "loom_floor", "not supported for input types (complex64)");
    CHECK_FAILS(loom_arctan2(c64, f32), "loom_arctan2",
                "not supported for input types (complex64, float32)");
    CHECK_FAILS(loom_right_shift(loom_scalar_complex(1, 1), loom_scalar_int(2)), "loom_right_shift",
                "not supported for input types (Python complex, Python int)");
    CHECK_FAILS(loom_negative(b), "loom_negative", "boolean negative is not supported");
    CHECK_FAILS(loom_subtract(b, b), "loom_subtract", "boolean subtract is not supported");
    CHECK_FAILS(loom_subtract(b, loom_scalar_typed(1, LOOM_BOOL)), "loom_subtract", "boolean");
    CHECK_EQ_INT(loom_dtype_of(loom_sub_scalar(b, 1.0)), LOOM_FLOAT64);
    CHECK_FAILS(loom_positive(b), "loom_positive", "not supported for input types (bool)");
    CHECK_FAILS(loom_round(b, 2), "loom_round", "bool array can only be rounded to 0 decimals");
    CHECK_FAILS(loom_clip(f32, NULL, NULL), "loom_clip", "lo and hi cannot both be NULL");

    /* Arrays on different devices. */
    loom_array *other = oracle_array(LOOM_FLOAT32, 1, (int64_t[]){5});
    other->device = 1;
    CHECK_FAILS(loom_add(f32, other), "loom_add", "arrays are on different devices (0 and 1)");
    CHECK_FAILS(loom_where(b, f32, other), "loom_where", "different devices (0 and 1)");
    loom_array *on1 = loom_sqrt(other);
    CHECK(on1 && on1->device == 1);
    loom_scope_end();
}

/* A NULL input returns NULL and leaves the first error in place. */
static void test_null_propagation(void)
{
    loom_scope_begin();
    loom_array *f32 = oracle_array(LOOM_FLOAT32, 1, (int64_t[]){5});
    loom_clear_error();
    loom_array *bad = loom_bitwise_or(f32, f32);
    CHECK(bad == NULL);
    const char *first = "loom_bitwise_or: not supported for input types (float32, float32)";
    CHECK_STR(loom_last_error(), first);
    loom_array *chain = loom_add(loom_sqrt(loom_mul_scalar(bad, 2.0)), f32);
    chain = loom_where(bad, chain, f32);
    chain = loom_clip(loom_round(chain, 1), bad, f32);
    chain = loom_add(f32, loom_abs(loom_pow(f32, loom_negative(loom_divide(bad, f32)))));
    CHECK(chain == NULL);
    CHECK(loom_where(f32, f32, NULL) == NULL && loom_clip(NULL, f32, f32) == NULL);
    CHECK(loom_add_scalar(NULL, 1.0) == NULL && loom_sub_scalar(NULL, 1.0) == NULL);
    CHECK_STR(loom_last_error(), first);
    loom_clear_error();
    loom_scope_end();
}

static void test_round_clip_where(void)
{
    loom_scope_begin();
    loom_array *f32 = oracle_array(LOOM_FLOAT32, 1, (int64_t[]){5});
    loom_array *i16 = oracle_array(LOOM_INT16, 1, (int64_t[]){5});
    loom_array *u8 = oracle_array(LOOM_UINT8, 1, (int64_t[]){5});
    loom_array *r1 = loom_round(f32, 3), *r2 = loom_round(f32, -2), *r3 = loom_round(f32, 3);
    CHECK(r1 && r1->op == LOOM_OP_ROUND && r1->param.round.decimals == 3 && r2->param.round.decimals == -2);
    CHECK(r1->hash == r3->hash && r1->hash != r2->hash);

    /* clip drops a Python-int bound beyond an integer a's range (NumPy does the same). */
    loom_array *c = loom_clip(u8, loom_scalar_int(-1), loom_scalar_int(300));
    CHECK(c == u8);
    c = loom_clip(u8, loom_scalar_int(3), loom_scalar_int(300));
    CHECK(c && c->op == LOOM_OP_MAXIMUM && c->inputs[0] == u8 && c->dtype == LOOM_UINT8);
    loom_array *i8 = oracle_array(LOOM_INT8, 1, (int64_t[]){5});
    CHECK(loom_clip(i8, loom_scalar_int(-128), loom_scalar_int(127)) == i8);
    c = loom_clip(i8, loom_scalar_int(-127), loom_scalar_int(126));
    CHECK(c && c->op == LOOM_OP_MINIMUM && c->inputs[0]->op == LOOM_OP_MAXIMUM);
    loom_array *u64 = oracle_array(LOOM_UINT64, 1, (int64_t[]){5});
    c = loom_clip(u64, loom_scalar_int(0), loom_scalar_int(INT64_MAX));
    CHECK(c && c->op == LOOM_OP_MINIMUM && c->inputs[0] == u64 && c->dtype == LOOM_UINT64);
    CHECK_FAILS(loom_clip(u8, loom_scalar_int(300), loom_scalar_int(400)), "loom_clip",
                "Python integer 300 out of bounds for uint8");
    /* The dtype is result_type(a, lo, hi): a is cast first, so a weak bound never meets a
     * narrower a alone (NumPy: clip(int16, 1.5, float32) is float32, not float64). */
    c = loom_clip(i16, loom_scalar(1.5), oracle_array(LOOM_FLOAT32, 0, NULL));
    CHECK(c && c->dtype == LOOM_FLOAT32 && c->op == LOOM_OP_MINIMUM);
    CHECK(c && c->inputs[0]->op == LOOM_OP_MAXIMUM && c->inputs[0]->inputs[0]->op == LOOM_OP_CAST);
    c = loom_clip(oracle_array(LOOM_INT8, 1, (int64_t[]){5}), loom_scalar_int(200),
                  oracle_array(LOOM_INT16, 1, (int64_t[]){5}));
    CHECK(c && c->dtype == LOOM_INT16);
    /* a is read as an array: a weak a is strong in clip (np.clip(5, lo, hi) is np.asarray(5)). */
    c = loom_clip(loom_scalar_int(5), oracle_array(LOOM_FLOAT16, 0, NULL), NULL);
    CHECK(c && c->dtype == LOOM_FLOAT64 && !c->weak);
    c = loom_clip(loom_scalar_int(5), loom_scalar_int(-9000000000000000000), NULL);
    CHECK(c && c->dtype == LOOM_INT64 && !c->weak);

    /* where: cond keeps its dtype (read as bool), x and y promote as NEP 50 says. */
    loom_array *w = loom_where(f32, i16, loom_scalar(0.5));
    CHECK(w && w->dtype == LOOM_FLOAT64 && w->cdtype == LOOM_FLOAT64);
    CHECK(w && w->inputs[0] == f32 && w->inputs[1] == i16);
    w = loom_where(i16, f32, loom_scalar(0.5));
    CHECK(w && w->dtype == LOOM_FLOAT32 && w->inputs[0]->dtype == LOOM_INT16);
    w = loom_where(oracle_array(LOOM_BOOL, 1, (int64_t[]){5}), loom_scalar_int(1),
                   loom_scalar(2.0));
    CHECK(w && w->dtype == LOOM_FLOAT64);
    loom_scope_end();
}

/* Ownership: results are the caller's (or the scope's); every temporary is freed with them. */
static void test_ownership(void)
{
    /* Outside any scope. */
    loom_array *a = oracle_array(LOOM_FLOAT32, 2, (int64_t[]){3, 1});
    loom_array *b = oracle_array(LOOM_FLOAT32, 1, (int64_t[]){4});
    loom_array *r = loom_add(a, b);
    CHECK_EQ_INT(atomic_load(&r->refcount), 1);
    CHECK_EQ_INT(atomic_load(&r->inputs[0]->refcount), 1); /* the view: only r holds it */
    CHECK_EQ_INT(atomic_load(&a->refcount), 2);            /* ours + the view's */
    loom_array *s = loom_mul_scalar(r, 3.0);
    CHECK_EQ_INT(atomic_load(&s->refcount), 1);
    CHECK_EQ_INT(atomic_load(&s->inputs[1]->refcount), 1); /* the weak scalar: only s holds it */
    loom_array *hi = loom_scalar_typed(1, LOOM_FLOAT64);
    loom_array *c = loom_clip(a, b, hi);
    CHECK(c && atomic_load(&c->refcount) == 1 && c->dtype == LOOM_FLOAT64);
    CHECK_EQ_INT(atomic_load(&hi->refcount), 2); /* ours + its broadcast view's */
    /* Failures after the scalar and views exist must release them too (LeakSanitizer). */
    CHECK(loom_bitwise_and_scalar(a, 1.0) == NULL);
    CHECK(loom_bitwise_or(a, b) == NULL);
    loom_array *elsewhere = oracle_array(LOOM_FLOAT64, 1, (int64_t[]){4});
    elsewhere->device = 1;
    CHECK(loom_clip(a, elsewhere, NULL) == NULL); /* fails after casting a to float64 */
    loom_release(elsewhere);
    CHECK(loom_add_scalar(loom_bitwise_and(a, a), 1.0) == NULL);
    loom_release(r);
    loom_release(a);
    loom_release(b);
    loom_release(s);
    loom_release(c);
    loom_release(hi);
    loom_clear_error();

    /* Inside a user scope, nested: the scope owns results; keep lets one out. */
    loom_array *kept;
    loom_scope_begin();
    a = oracle_array(LOOM_INT32, 2, (int64_t[]){2, 1});
    b = oracle_array(LOOM_INT32, 1, (int64_t[]){3});
    loom_scope_begin();
    r = loom_add_scalar(loom_subtract(a, b), 2.0);
    CHECK_EQ_INT(atomic_load(&r->refcount), 1);
    CHECK_EQ_INT(atomic_load(&r->inputs[1]->refcount), 1);
    loom_array *w = loom_where(loom_less(a, b), loom_clip(a, loom_scalar_int(0), NULL), b);
    kept = loom_keep(loom_maximum(r, w));
    CHECK(loom_add_scalar(loom_bitwise_and_scalar(r, 1.0), 1.0) == NULL);
    loom_scope_end();
    CHECK_EQ_INT(atomic_load(&kept->refcount), 1); /* the outer scope's */
    kept = loom_keep(kept);
    CHECK_EQ_INT(atomic_load(&kept->refcount), 2); /* and ours */
    loom_scope_end();
    CHECK_EQ_INT(atomic_load(&kept->refcount), 1);
    CHECK_SHAPE(kept, 2, ((int64_t[]){2, 3}));
    CHECK_EQ_INT(loom_dtype_of(kept), LOOM_FLOAT64);
    loom_release(kept);
    loom_clear_error();
}

/* x ** 2 is recorded as square when power would compute in x's own dtype; float32 and
 * float64 loops with a scalar exponent of -1, 0.5, 1 or 2 are NumPy's direct forms. */
static bool is_unary_of(const loom_array *p, loom_op op, loom_dtype dt, loom_dtype in)
{
    return p && p->op == op && p->dtype == dt && p->ninputs == 1 && p->inputs[0]->dtype == in;
}

static void test_power_of_two(void)
{
    loom_scope_begin();
    loom_array *f = oracle_array(LOOM_FLOAT32, 1, (int64_t[]){4});
    loom_array *i = oracle_array(LOOM_INT32, 1, (int64_t[]){4});
    loom_array *p = loom_power(f, loom_scalar(2.0));
    CHECK(p && p->op == LOOM_OP_SQUARE && p->dtype == LOOM_FLOAT32);
    p = loom_power(i, loom_scalar_int(2));
    CHECK(p && p->op == LOOM_OP_SQUARE && p->dtype == LOOM_INT32);
    p = loom_power(i, loom_scalar(2.0)); /* int32 ** 2.0: the float64 loop's x * x */
    CHECK(is_unary_of(p, LOOM_OP_SQUARE, LOOM_FLOAT64, LOOM_FLOAT64) &&
          p->inputs[0]->op == LOOM_OP_CAST);
    p = loom_power(f, loom_scalar(3.0));
    CHECK(p && p->op == LOOM_OP_POWER);
    p = loom_power(f, loom_scalar_typed(2.0, LOOM_FLOAT64)); /* strong float64: promotes */
    CHECK(is_unary_of(p, LOOM_OP_SQUARE, LOOM_FLOAT64, LOOM_FLOAT64));

    /* NumPy 2's np.power(x, 0.5) is np.sqrt(x) for float32/float64 (-0.0 -> -0.0,
     * -inf -> nan), x ** -1 is 1 / x and x ** 1 is x. */
    CHECK(is_unary_of(loom_power(f, loom_scalar(0.5)), LOOM_OP_SQRT, LOOM_FLOAT32, LOOM_FLOAT32));
    CHECK(is_unary_of(loom_power_scalar(f, 0.5), LOOM_OP_SQRT, LOOM_FLOAT32, LOOM_FLOAT32));
    CHECK(is_unary_of(loom_power(f, loom_scalar(-1.0)), LOOM_OP_RECIPROCAL, LOOM_FLOAT32,
                      LOOM_FLOAT32));
    CHECK(loom_power(f, loom_scalar(1.0)) == f);
    CHECK(is_unary_of(loom_power(i, loom_scalar(0.5)), LOOM_OP_SQRT, LOOM_FLOAT64, LOOM_FLOAT64));
    CHECK(is_unary_of(loom_power(f, loom_scalar_typed(0.5, LOOM_FLOAT64)), LOOM_OP_SQRT,
                      LOOM_FLOAT64, LOOM_FLOAT64));
    loom_array *one = loom_power(i, loom_scalar(1.0));
    CHECK(one && one->op == LOOM_OP_CAST && one->dtype == LOOM_FLOAT64);
    /* No such path in NumPy's float16, bfloat16 and complex loops, nor for other exponents;
     * integer ** -1 stays the integer loop. */
    loom_array *h = oracle_array(LOOM_FLOAT16, 1, (int64_t[]){4});
    loom_array *c = oracle_array(LOOM_COMPLEX64, 1, (int64_t[]){4});
    loom_array *b = oracle_array(LOOM_BFLOAT16, 1, (int64_t[]){4});
    CHECK(loom_power(h, loom_scalar(0.5))->op == LOOM_OP_POWER);
    CHECK(loom_power(b, loom_scalar(0.5))->op == LOOM_OP_POWER);
    CHECK(loom_power(c, loom_scalar(0.5))->op == LOOM_OP_POWER);
    CHECK(loom_power(oracle_array(LOOM_INT8, 1, (int64_t[]){4}),
                     loom_scalar_typed(0.5, LOOM_FLOAT16))->op == LOOM_OP_POWER);
    CHECK(loom_power(f, loom_scalar(-0.5))->op == LOOM_OP_POWER);
    CHECK(loom_power(f, loom_scalar_complex(0.5, 0))->op == LOOM_OP_POWER);
    CHECK(loom_power(i, loom_scalar_int(-1))->op == LOOM_OP_POWER);
    /* An array exponent, even 0-d and computed, is the general loop. */
    CHECK(loom_power(f, loom_full(1, (int64_t[]){4}, 0.5, LOOM_FLOAT32))->op == LOOM_OP_POWER);
    loom_scope_end();
}

int main(void)
{
    test_power_of_two();
    test_oracle();
    test_constructors_map_to_ops();
    test_broadcasting();
    test_scalar_forms();
    test_weak_ints();
    test_errors();
    test_null_propagation();
    test_round_clip_where();
    test_ownership();
    return check_summary("test_ufunc");
}
