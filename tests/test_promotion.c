/* dtype promotion and casting against NumPy's own tables (tests/data), and bfloat16's rules. */
#include "oracle.h"

static loom_dtype dt(const char *name)
{
    loom_dtype d = loom_dtype_from_name(name);
    CHECK(d != LOOM_NO_DTYPE);
    return d;
}

static void check_promotion(const oracle_case *c, void *ctx)
{
    int *count = ctx;
    (*count)++;
    loom_dtype got = loom_result_type(dt(c->args[0]), dt(c->args[1]));
    CHECK_STR(loom_dtype_name(got), c->result);
    if (got != loom_dtype_from_name(c->result))
        fprintf(stderr, "  promotion.txt:%d: %s + %s\n", c->line, c->args[0], c->args[1]);
}

static void check_can_cast(const oracle_case *c, void *ctx)
{
    int *count = ctx;
    (*count)++;
    static const char *const levels[] = {"can_cast:no", "can_cast:equiv", "can_cast:safe",
                                         "can_cast:same_kind", "can_cast:unsafe"};
    int level = -1;
    for (int i = 0; i < 5; i++)
        if (strcmp(c->op, levels[i]) == 0)
            level = i;
    CHECK(level >= 0);
    bool want = strcmp(c->result, "true") == 0;
    CHECK(want || strcmp(c->result, "false") == 0);
    bool got = loom_can_cast(dt(c->args[0]), dt(c->args[1]), (loom_casting)level);
    CHECK_EQ_INT(got, want);
    if (got != want)
        fprintf(stderr, "  can_cast.txt:%d: %s -> %s (%s)\n", c->line, c->args[0], c->args[1],
                c->op);
}

/* np.result_type with weak Python scalars (the other weak.txt lines are ufuncs). */
static void check_weak_result_type(const oracle_case *c, void *ctx)
{
    int *count = ctx;
    if (strcmp(c->op, "result_type") != 0)
        return;
    (*count)++;
    loom_scope_begin();
    loom_array *ops[4];
    for (int i = 0; i < c->n; i++)
        ops[i] = oracle_operand(c->args[i]);
    loom_dtype got = loom_result_type_arrays(ops, c->n);
    CHECK_STR(loom_dtype_name(got), c->result);
    if (!loom_dtype_name(got) || strcmp(loom_dtype_name(got), c->result) != 0)
        fprintf(stderr, "  weak.txt:%d\n", c->line);
    loom_scope_end();
}

static void test_oracle_tables(void)
{
    int promotions = 0, casts = 0;
    CHECK(oracle_each("promotion.txt", check_promotion, &promotions) > 0);
    CHECK_EQ_INT(promotions, LOOM_NUM_DTYPES * LOOM_NUM_DTYPES);
    CHECK(oracle_each("can_cast.txt", check_can_cast, &casts) > 0);
    CHECK_EQ_INT(casts, LOOM_NUM_DTYPES * LOOM_NUM_DTYPES * 5);
    int weak = 0;
    CHECK(oracle_each("weak.txt", check_weak_result_type, &weak) > 0);
    CHECK(weak >= LOOM_NUM_DTYPES * 15);
}

/* bfloat16 is not in NumPy: the rules of docs/dtypes.md, spelled out independently of the
 * generated tables. */
static void test_bfloat16(void)
{
    const loom_dtype BF = LOOM_BFLOAT16;
    const loom_dtype to_bf16[] = {LOOM_BOOL, LOOM_INT8, LOOM_UINT8, LOOM_BFLOAT16};
    for (size_t i = 0; i < sizeof to_bf16 / sizeof *to_bf16; i++) {
        CHECK_EQ_INT(loom_result_type(to_bf16[i], BF), BF);
        CHECK_EQ_INT(loom_result_type(BF, to_bf16[i]), BF);
        CHECK(loom_can_cast(to_bf16[i], BF, LOOM_CASTING_SAFE));
    }
    const struct {
        loom_dtype other, result;
    } pairs[] = {
        {LOOM_FLOAT16, LOOM_FLOAT32},    {LOOM_INT16, LOOM_FLOAT32},    {LOOM_UINT16, LOOM_FLOAT32},
        {LOOM_INT32, LOOM_FLOAT64},      {LOOM_UINT32, LOOM_FLOAT64},   {LOOM_INT64, LOOM_FLOAT64},
        {LOOM_UINT64, LOOM_FLOAT64},     {LOOM_FLOAT32, LOOM_FLOAT32},  {LOOM_FLOAT64, LOOM_FLOAT64},
        {LOOM_COMPLEX64, LOOM_COMPLEX64}, {LOOM_COMPLEX128, LOOM_COMPLEX128},
    };
    for (size_t i = 0; i < sizeof pairs / sizeof *pairs; i++) {
        CHECK_EQ_INT(loom_result_type(BF, pairs[i].other), pairs[i].result);
        CHECK_EQ_INT(loom_result_type(pairs[i].other, BF), pairs[i].result);
    }
    const loom_dtype from_bf16[] = {LOOM_FLOAT32, LOOM_FLOAT64, LOOM_COMPLEX64, LOOM_COMPLEX128};
    for (size_t i = 0; i < sizeof from_bf16 / sizeof *from_bf16; i++) {
        CHECK(loom_can_cast(BF, from_bf16[i], LOOM_CASTING_SAFE));
        CHECK(!loom_can_cast(from_bf16[i], BF, LOOM_CASTING_SAFE));
    }
    CHECK(!loom_can_cast(BF, LOOM_FLOAT16, LOOM_CASTING_SAFE));
    CHECK(!loom_can_cast(LOOM_FLOAT16, BF, LOOM_CASTING_SAFE));
    CHECK(loom_can_cast(BF, LOOM_FLOAT16, LOOM_CASTING_SAME_KIND));
    CHECK(loom_can_cast(LOOM_FLOAT16, BF, LOOM_CASTING_SAME_KIND));
    CHECK(!loom_can_cast(BF, LOOM_FLOAT16, LOOM_CASTING_EQUIV));
    CHECK(!loom_can_cast(LOOM_INT16, BF, LOOM_CASTING_SAFE));
    CHECK(loom_can_cast(LOOM_INT16, BF, LOOM_CASTING_SAME_KIND));
    CHECK(!loom_can_cast(BF, LOOM_INT64, LOOM_CASTING_SAME_KIND));
    CHECK(loom_can_cast(BF, LOOM_INT64, LOOM_CASTING_UNSAFE));
}

/* NEP 50, spelled out: np.result_type(np.int8, 1.0) etc. */
static void test_weak_rules(void)
{
    loom_scope_begin();
    loom_array *wi = loom_scalar_int(300), *wf = loom_scalar(0.5), *wc = loom_scalar_complex(0, 1);
    CHECK(loom_is_weak(wi) && loom_is_weak(wf) && loom_is_weak(wc));
    const struct {
        loom_dtype strong;
        loom_dtype with_int, with_float, with_complex;
    } rules[] = {
        {LOOM_BOOL, LOOM_INT64, LOOM_FLOAT64, LOOM_COMPLEX128},
        {LOOM_INT8, LOOM_INT8, LOOM_FLOAT64, LOOM_COMPLEX128},
        {LOOM_UINT8, LOOM_UINT8, LOOM_FLOAT64, LOOM_COMPLEX128}, /* no value check here */
        {LOOM_UINT64, LOOM_UINT64, LOOM_FLOAT64, LOOM_COMPLEX128},
        {LOOM_FLOAT16, LOOM_FLOAT16, LOOM_FLOAT16, LOOM_COMPLEX64},
        {LOOM_BFLOAT16, LOOM_BFLOAT16, LOOM_BFLOAT16, LOOM_COMPLEX64},
        {LOOM_FLOAT32, LOOM_FLOAT32, LOOM_FLOAT32, LOOM_COMPLEX64},
        {LOOM_FLOAT64, LOOM_FLOAT64, LOOM_FLOAT64, LOOM_COMPLEX128},
        {LOOM_COMPLEX64, LOOM_COMPLEX64, LOOM_COMPLEX64, LOOM_COMPLEX64},
    };
    for (size_t i = 0; i < sizeof rules / sizeof *rules; i++) {
        loom_array *s = oracle_array(rules[i].strong, 0, NULL);
        CHECK_EQ_INT(loom_result_type_arrays((loom_array *[]){s, wi}, 2), rules[i].with_int);
        CHECK_EQ_INT(loom_result_type_arrays((loom_array *[]){wf, s}, 2), rules[i].with_float);
        CHECK_EQ_INT(loom_result_type_arrays((loom_array *[]){s, wc}, 2), rules[i].with_complex);
        CHECK_EQ_INT(loom_result_type_arrays((loom_array *[]){wi, s, wf}, 3),
                     loom_result_type_arrays((loom_array *[]){s, wf}, 2));
    }
    /* Only weak operands: the highest kind's default. */
    CHECK_EQ_INT(loom_result_type_arrays(&wi, 1), LOOM_INT64);
    CHECK_EQ_INT(loom_result_type_arrays((loom_array *[]){wi, wf}, 2), LOOM_FLOAT64);
    CHECK_EQ_INT(loom_result_type_arrays((loom_array *[]){wc, wi}, 2), LOOM_COMPLEX128);
    /* A strong 0-d array is strong (NumPy 2): float32 + float64 0-d -> float64. */
    loom_array *s64 = loom_scalar_typed(0.5, LOOM_FLOAT64);
    loom_array *a32 = oracle_array(LOOM_FLOAT32, 1, (int64_t[]){3});
    CHECK_EQ_INT(loom_result_type_arrays((loom_array *[]){a32, s64}, 2), LOOM_FLOAT64);
    CHECK_EQ_INT(loom_result_type_arrays((loom_array *[]){a32, wf}, 2), LOOM_FLOAT32);
    /* Many operands fold like two. */
    loom_array *many[40];
    for (int i = 0; i < 40; i++)
        many[i] = i == 37 ? s64 : wi;
    CHECK_EQ_INT(loom_result_type_arrays(many, 40), LOOM_FLOAT64);
    loom_scope_end();
}

static void test_errors(void)
{
    loom_clear_error();
    CHECK_EQ_INT(loom_result_type(LOOM_INT8, (loom_dtype)99), LOOM_NO_DTYPE);
    CHECK(strstr(loom_last_error(), "loom_result_type: invalid dtype 99"));
    loom_clear_error();
    CHECK(!loom_can_cast(LOOM_NO_DTYPE, LOOM_INT8, LOOM_CASTING_UNSAFE));
    CHECK(strstr(loom_last_error(), "loom_can_cast: invalid dtype -1"));
    loom_clear_error();
    CHECK(!loom_can_cast(LOOM_INT8, LOOM_INT8, (loom_casting)7));
    CHECK(strstr(loom_last_error(), "loom_can_cast: invalid casting level 7"));
    loom_clear_error();
    CHECK_EQ_INT(loom_result_type_arrays(NULL, 0), LOOM_NO_DTYPE);
    CHECK(strstr(loom_last_error(), "loom_result_type_arrays"));
    /* A NULL array keeps the first error. */
    loom_clear_error();
    loom__error(LOOM_ERR_INVALID, "loom_first", "first");
    CHECK_EQ_INT(loom_result_type_arrays((loom_array *[]){NULL}, 1), LOOM_NO_DTYPE);
    CHECK_STR(loom_last_error(), "loom_first: first");
    loom_clear_error();
}

int main(void)
{
    test_oracle_tables();
    test_bfloat16();
    test_weak_rules();
    test_errors();
    return check_summary("test_promotion");
}
