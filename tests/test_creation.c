/* Creation routines: host copies and generator nodes (shape, dtype, parameters, errors).
 * Expected lengths and steps are NumPy 2.4's (np.arange, np.linspace(retstep=True)); the
 * values arange and linspace nodes stand for (evaluated on the CPU as the kernels compute
 * them, tests/graph_eval.h) and their errors are NumPy's (tests/data/ranges.txt). */
#include "check.h"
#include "creation.h"
#include "graph_eval.h"
#include "range_cases.h"

#include <math.h>

#define I64(...) ((const int64_t[]){__VA_ARGS__})

static void check_gen(const loom_array *a, loom_op op, loom_dtype dt, int nd, const int64_t *shape)
{
    CHECK(a != NULL);
    if (!a)
        return;
    CHECK_EQ_INT(a->op, op);
    CHECK_EQ_INT(loom_dtype_of(a), dt);
    CHECK_EQ_INT(a->cdtype, dt);
    CHECK_SHAPE(a, nd, shape);
    CHECK(!loom_is_view(a) && !loom_is_weak(a) && a->ninputs == 0);
    CHECK_EQ_INT(a->device, loom__default_device());
    CHECK_EQ_INT(loom_offset(a), 0);
}

static void test_fills(void)
{
    loom_scope_begin();
    for (int dt = 0; dt < LOOM_NUM_DTYPES; dt++) {
        loom_dtype d = (loom_dtype)dt;
        loom_array *z = loom_zeros(2, I64(2, 3), d), *o = loom_ones(1, I64(4), d);
        loom_array *f = loom_full(0, NULL, 7.0, d), *e = loom_empty(3, I64(1, 0, 2), d);
        check_gen(z, LOOM_OP_FULL, d, 2, I64(2, 3));
        check_gen(o, LOOM_OP_FULL, d, 1, I64(4));
        check_gen(f, LOOM_OP_FULL, d, 0, NULL);
        check_gen(e, LOOM_OP_EMPTY, d, 3, I64(1, 0, 2));
        CHECK(z->param.value.re == 0.0 && z->param.value.exact == 0 && z->param.value.im == 0.0);
        CHECK(o->param.value.re == 1.0 && o->param.value.exact == 1);
        CHECK(f->param.value.re == 7.0 && f->param.value.exact == (d == LOOM_BOOL ? 1 : 7));
        CHECK_EQ_INT(loom_size(z), 6);
        CHECK_EQ_INT(loom_size(e), 0);
        CHECK_EQ_INT(z->strides[0], 3);
    }
    /* Integer fills keep the value loom_astype gives (truncated, then wrapped by the kernel);
     * whole numbers must fit, as Python ints must in NumPy 2. */
    CHECK_EQ_INT(loom_full(1, I64(2), -1.5, LOOM_INT32)->param.value.exact, -1);
    CHECK_EQ_INT(loom_full(1, I64(2), -1.5, LOOM_UINT8)->param.value.exact, -1); /* wraps to 255 */
    CHECK_FAILS(loom_full(1, I64(2), -1.0, LOOM_UINT8), "loom_full", "Python integer -1 out of bounds");
    CHECK((uint64_t)loom_full(1, I64(2), 1e19, LOOM_UINT64)->param.value.exact == 10000000000000000000u);
    CHECK_EQ_INT(loom_full(1, I64(2), 9007199254740992.0, LOOM_INT64)->param.value.exact,
                 9007199254740992LL);
    CHECK_FAILS(loom_full(1, I64(2), 1e300, LOOM_INT64), "loom_full", "out of bounds for int64");
    CHECK_EQ_INT(loom_full(1, I64(2), NAN, LOOM_INT16)->param.value.exact, 0);
    /* bool is "non-zero", so 0.5 and NaN are True as in np.full(2, 0.5, dtype=bool). */
    CHECK_EQ_INT(loom_full(1, I64(2), 0.5, LOOM_BOOL)->param.value.exact, 1);
    CHECK_EQ_INT(loom_full(1, I64(2), NAN, LOOM_BOOL)->param.value.exact, 1);
    CHECK_EQ_INT(loom_full(1, I64(2), 0.0, LOOM_BOOL)->param.value.exact, 0);
    CHECK_EQ_INT(loom_scalar_typed(0.5, LOOM_BOOL)->param.value.exact, 1); /* the same conversion */
    CHECK_EQ_INT(loom_scalar_typed(-2.7, LOOM_INT8)->param.value.exact, -2);
    CHECK(loom_full(1, I64(2), 2.5, LOOM_COMPLEX64)->param.value.re == 2.5);
    CHECK(loom_full(1, I64(2), 2.5, LOOM_COMPLEX64)->param.value.im == 0.0);

    CHECK_FAILS(loom_zeros(1, I64(-1), LOOM_FLOAT32), "loom_zeros", "negative dimensions are not allowed");
    CHECK_FAILS(loom_ones(33, I64(1), LOOM_FLOAT32), "loom_ones", "ndim 33 is out of range");
    CHECK_FAILS(loom_full(2, NULL, 1.0, LOOM_FLOAT32), "loom_full", "shape is NULL");
    CHECK_FAILS(loom_empty(2, I64(1LL << 40, 1LL << 40), LOOM_INT8), "loom_empty",
                "array is too big; `arr.size * arr.dtype.itemsize` is larger than the maximum "
                "possible size (shape (1099511627776,1099511627776))");
    /* Byte sizes past INT64_MAX are refused at record time, as NumPy does, whatever the
     * kind of node (generators, views, casts, elementwise results). */
    CHECK_FAILS(loom_zeros(1, I64(1LL << 62), LOOM_FLOAT32), "loom_zeros",
                "array is too big; `arr.size * arr.dtype.itemsize` is larger than the maximum "
                "possible size (shape (4611686018427387904,), float32)");
    CHECK_FAILS(loom_zeros(2, I64(1LL << 31, 1LL << 31), LOOM_FLOAT32), "loom_zeros", "array is too big");
    CHECK_FAILS(loom_linspace(0, 1, 1LL << 62, true, LOOM_FLOAT64), "loom_linspace", "array is too big");
    CHECK_FAILS(loom_arange(0, 0x1p62, 1, LOOM_FLOAT32), "loom_arange", "array is too big");
    CHECK_FAILS(loom_eye(1LL << 31, 1LL << 31, 0, LOOM_COMPLEX64), "loom_eye", "array is too big");
    CHECK_FAILS(loom_full(3, I64(0, 1LL << 40, 1LL << 40), 1.0, LOOM_INT8), "loom_full", "array is too big");
    loom_array *big = loom_empty(1, I64(1LL << 61), LOOM_INT8); /* 2 EiB: fits */
    CHECK(big && loom_size(big) == 1LL << 61);
    CHECK_FAILS(loom_astype(big, LOOM_FLOAT64), "loom_astype", "array is too big");
    loom_array *big16 = loom_empty(1, I64(1LL << 61), LOOM_INT16); /* 4 EiB */
    CHECK_FAILS(loom_sin(big16), "loom_sin", "array is too big");   /* float32: 8 EiB */
    CHECK(loom_zeros(2, I64(0, 1LL << 40), LOOM_COMPLEX128) != NULL);
    loom_array *one = loom_scalar_typed(1, LOOM_FLOAT32);
    CHECK_FAILS(loom_broadcast_to(one, 1, I64(1LL << 62)), "loom_broadcast_to", "array is too big");
    CHECK(loom_broadcast_to(one, 1, I64((1LL << 61) - 1)) != NULL);
    /* A whole-number fill is a Python int: NumPy 2 refuses one out of the dtype's range. */
    CHECK_FAILS(loom_full(1, I64(3), 300, LOOM_UINT8), "loom_full",
                "loom_full: Python integer 300 out of bounds for uint8");
    CHECK_FAILS(loom_full(1, I64(3), -1, LOOM_UINT8), "loom_full", "Python integer -1 out of bounds for uint8");
    CHECK_FAILS(loom_full(1, I64(3), -129, LOOM_INT8), "loom_full", "Python integer -129 out of bounds for int8");
    CHECK_FAILS(loom_full(1, I64(3), 0x1p63, LOOM_INT64), "loom_full",
                "Python integer 9223372036854775808 out of bounds for int64");
    CHECK_FAILS(loom_full(1, I64(3), 0x1p64, LOOM_UINT64), "loom_full", "out of bounds for uint64");
    CHECK_FAILS(loom_full_like(loom_zeros(1, I64(2), LOOM_INT16), 40000), "loom_full_like",
                "Python integer 40000 out of bounds for int16");
    CHECK_EQ_INT(loom_full(1, I64(3), 255, LOOM_UINT8)->param.value.exact, 255);
    CHECK_EQ_INT(loom_full(1, I64(3), -128, LOOM_INT8)->param.value.exact, -128);
    CHECK_EQ_INT(loom_full(1, I64(3), 0x1p63, LOOM_UINT64)->param.value.exact, INT64_MIN);
    CHECK_EQ_INT(loom_full(1, I64(3), 300, LOOM_FLOAT16)->param.value.re, 300);
    CHECK_EQ_INT(loom_full(1, I64(3), 300, LOOM_BOOL)->param.value.exact, 1);
    /* Other values convert as loom_astype does: truncated, NaN 0, saturating, then wrapped
     * to the width by the kernel (300.5 -> 300 -> 44 in uint8, as NumPy's unsafe cast). */
    CHECK_EQ_INT(loom_full(1, I64(3), 300.5, LOOM_UINT8)->param.value.exact, 300);
    CHECK_EQ_INT(loom_full(1, I64(3), NAN, LOOM_INT32)->param.value.exact, 0);
    CHECK_EQ_INT(loom_full(1, I64(3), INFINITY, LOOM_INT64)->param.value.exact, INT64_MAX);
    CHECK_EQ_INT(loom_full(1, I64(3), -INFINITY, LOOM_INT64)->param.value.exact, INT64_MIN);
    CHECK_EQ_INT(loom_full(1, I64(3), INFINITY, LOOM_UINT64)->param.value.exact, -1);
    CHECK_FAILS(loom_zeros(1, I64(3), (loom_dtype)99), "loom_zeros", "loom_zeros: invalid dtype 99");
    CHECK_FAILS(loom_full(1, I64(3), 1.0, LOOM_NO_DTYPE), "loom_full", "invalid dtype -1");
    loom_scope_end();
}

static void test_like(void)
{
    loom_scope_begin();
    loom_array *base = loom_empty(2, I64(3, 5), LOOM_FLOAT16);
    loom_array *v = loom_transpose(loom_slice(base, 1, 1, LOOM_NONE, 2), NULL);
    CHECK_SHAPE(v, 2, I64(2, 3));
    loom_array *z = loom_zeros_like(v), *o = loom_ones_like(v), *e = loom_empty_like(v);
    loom_array *f = loom_full_like(v, -3.0);
    check_gen(z, LOOM_OP_FULL, LOOM_FLOAT16, 2, I64(2, 3));
    check_gen(o, LOOM_OP_FULL, LOOM_FLOAT16, 2, I64(2, 3));
    check_gen(e, LOOM_OP_EMPTY, LOOM_FLOAT16, 2, I64(2, 3));
    check_gen(f, LOOM_OP_FULL, LOOM_FLOAT16, 2, I64(2, 3));
    CHECK_EQ_INT(z->strides[0], 3); /* a new C-contiguous array, not the view's map */
    CHECK(z->param.value.re == 0.0 && o->param.value.re == 1.0 && f->param.value.re == -3.0);
    CHECK_EQ_INT(f->param.value.exact, -3);
    loom_array *s = loom_scalar_int(4);
    check_gen(loom_full_like(s, 9.0), LOOM_OP_FULL, LOOM_INT64, 0, NULL);

    loom__error(LOOM_ERR_INVALID, "loom_first", "kept");
    CHECK(loom_zeros_like(NULL) == NULL);
    CHECK(loom_ones_like(NULL) == NULL);
    CHECK(loom_empty_like(NULL) == NULL);
    CHECK(loom_full_like(NULL, 1.0) == NULL);
    CHECK_STR(loom_last_error(), "loom_first: kept");
    loom_clear_error();
    loom_scope_end();
}

static void test_arange(void)
{
    static const struct {
        double start, stop, step;
        int64_t len;
    } cases[] = {
        {0, 10, 1, 10},        {1, 5, 0.3, 14},       {5, 1, 1, 0},
        {5, 1, -1, 4},         {0, 10, INFINITY, 1},  {0, -10, INFINITY, 0},
        {-3.5, 2.25, 0.75, 8}, {0, 1, 0.1, 10},       {10, 0, -0.3, 34},
        {0, 0, 1, 0},          {1e18, 1e18 + 4096, 1024, 4},
    };
    loom_scope_begin();
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        loom_array *a = loom_arange(cases[i].start, cases[i].stop, cases[i].step, LOOM_FLOAT64);
        check_gen(a, LOOM_OP_ARANGE, LOOM_FLOAT64, 1, (int64_t[]){cases[i].len});
        CHECK(a && a->param.arange.start == cases[i].start && a->param.arange.step == cases[i].step);
    }
    check_gen(loom_arange(0, 7, 2, LOOM_INT32), LOOM_OP_ARANGE, LOOM_INT32, 1, I64(4));
    check_gen(loom_arange(0, 3, 1, LOOM_COMPLEX64), LOOM_OP_ARANGE, LOOM_COMPLEX64, 1, I64(3));
    check_gen(loom_arange(1, 3, 1, LOOM_BOOL), LOOM_OP_ARANGE, LOOM_BOOL, 1, I64(2));
    CHECK_FAILS(loom_arange(0, 3, 1, LOOM_BOOL), "loom_arange",
                "arange() is only supported for booleans when the result has at most length 2");
    CHECK_FAILS(loom_arange(0, 10, 0, LOOM_FLOAT32), "loom_arange", "loom_arange: step cannot be zero");
    CHECK_FAILS(loom_arange(0, 10, NAN, LOOM_FLOAT32), "loom_arange", "cannot compute length");
    CHECK_FAILS(loom_arange(INFINITY, INFINITY, 1, LOOM_FLOAT32), "loom_arange",
                "cannot compute length");
    CHECK_FAILS(loom_arange(0, INFINITY, 1, LOOM_FLOAT32), "loom_arange",
                "maximum allowed size exceeded");
    CHECK_FAILS(loom_arange(0, 1e300, -1, LOOM_FLOAT32), "loom_arange",
                "maximum allowed size exceeded");
    CHECK_FAILS(loom_arange(0, 1, 1e-320, LOOM_FLOAT32), "loom_arange",
                "maximum allowed size exceeded");
    CHECK_FAILS(loom_arange(0, 3, 1, (loom_dtype)42), "loom_arange", "invalid dtype 42");
    loom_scope_end();
}

static void test_linspace(void)
{
    static const struct {
        double start, stop;
        int64_t num;
        bool endpoint;
        double step;
    } cases[] = {
        {0, 1, 5, true, 0.25}, {0, 1, 5, false, 0.2},  {0, 1, 1, true, NAN},
        {0, 1, 1, false, 1.0}, {2, -3, 4, true, -5.0 / 3.0}, {0, 1, 0, true, NAN},
    };
    loom_scope_begin();
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        loom_array *a = loom_linspace(cases[i].start, cases[i].stop, cases[i].num,
                                      cases[i].endpoint, LOOM_FLOAT32);
        check_gen(a, LOOM_OP_LINSPACE, LOOM_FLOAT32, 1, &cases[i].num);
        if (!a)
            continue;
        CHECK(a->param.linspace.start == cases[i].start && a->param.linspace.stop == cases[i].stop);
        CHECK(isnan(cases[i].step) ? isnan(a->param.linspace.step) : a->param.linspace.step == cases[i].step);
        CHECK_EQ_INT(a->param.linspace.num, cases[i].num);
        CHECK_EQ_INT(a->param.linspace.endpoint, cases[i].endpoint);
    }
    check_gen(loom_linspace(0, 10, 3, true, LOOM_BOOL), LOOM_OP_LINSPACE, LOOM_BOOL, 1, I64(3));
    check_gen(loom_linspace(0, 10, 3, true, LOOM_COMPLEX128), LOOM_OP_LINSPACE, LOOM_COMPLEX128,
              1, I64(3));
    CHECK_FAILS(loom_linspace(0, 1, -1, true, LOOM_FLOAT64), "loom_linspace",
                "loom_linspace: number of samples, -1, must be non-negative");
    CHECK_FAILS(loom_linspace(0, 1, 3, true, (loom_dtype)-5), "loom_linspace", "invalid dtype -5");
    loom_scope_end();
}

static void test_eye(void)
{
    loom_scope_begin();
    loom_array *e = loom_eye(3, 5, -1, LOOM_INT8);
    check_gen(e, LOOM_OP_EYE, LOOM_INT8, 2, I64(3, 5));
    CHECK_EQ_INT(e->param.eye.k, -1);
    check_gen(loom_eye(4, -1, 0, LOOM_BOOL), LOOM_OP_EYE, LOOM_BOOL, 2, I64(4, 4));
    check_gen(loom_eye(0, 2, 7, LOOM_COMPLEX64), LOOM_OP_EYE, LOOM_COMPLEX64, 2, I64(0, 2));
    loom_array *id = loom_identity(6, LOOM_FLOAT64);
    check_gen(id, LOOM_OP_EYE, LOOM_FLOAT64, 2, I64(6, 6));
    CHECK_EQ_INT(id->param.eye.k, 0);
    CHECK_FAILS(loom_eye(-1, 2, 0, LOOM_FLOAT64), "loom_eye", "negative dimensions are not allowed");
    CHECK_FAILS(loom_eye(2, 2, 0, (loom_dtype)15), "loom_eye", "invalid dtype 15");
    CHECK_FAILS(loom_identity(-3, LOOM_FLOAT64), "loom_identity", "negative dimensions are not allowed");
    loom_scope_end();
}

static void test_asarray(void)
{
    /* Outside a scope: the caller owns the leaf. */
    double data[6] = {1, 2, 3, 4, 5, 6};
    loom_array *a = loom_asarray(data, LOOM_FLOAT64, 2, I64(2, 3));
    check_gen(a, LOOM_OP_HOST, LOOM_FLOAT64, 2, I64(2, 3));
    CHECK(a->host_data != NULL && a->host_data != (void *)data);
    data[0] = -1; /* the copy was taken at the call */
    CHECK(((double *)a->host_data)[0] == 1.0 && ((double *)a->host_data)[5] == 6.0);
    loom_release(a);

    loom_scope_begin();
    int16_t one = -7;
    loom_array *s = loom_asarray(&one, LOOM_INT16, 0, NULL);
    check_gen(s, LOOM_OP_HOST, LOOM_INT16, 0, NULL);
    CHECK_EQ_INT(*(int16_t *)s->host_data, -7);
    float cplx[4] = {1, 2, 3, 4};
    loom_array *c = loom_asarray(cplx, LOOM_COMPLEX64, 1, I64(2));
    CHECK(c && memcmp(c->host_data, cplx, sizeof cplx) == 0);
    bool flags[3] = {true, false, true};
    loom_array *b = loom_asarray(flags, LOOM_BOOL, 1, I64(3));
    CHECK(b && memcmp(b->host_data, flags, sizeof flags) == 0);
    loom_array *z = loom_asarray(NULL, LOOM_UINT32, 2, I64(4, 0));
    check_gen(z, LOOM_OP_HOST, LOOM_UINT32, 2, I64(4, 0));
    CHECK(z && z->host_data == NULL);
    CHECK_FAILS(loom_asarray(NULL, LOOM_FLOAT32, 2, I64(2, 3)), "loom_asarray",
                "loom_asarray: data is NULL for 6 elements");
    CHECK_FAILS(loom_asarray(data, (loom_dtype)20, 1, I64(2)), "loom_asarray", "invalid dtype 20");
    CHECK_FAILS(loom_asarray(data, LOOM_FLOAT64, 1, I64(-2)), "loom_asarray", "negative dimensions");
    CHECK_FAILS(loom_asarray(data, LOOM_FLOAT64, -1, NULL), "loom_asarray", "ndim -1 is out of range");
    CHECK_FAILS(loom_asarray(data, LOOM_COMPLEX128, 2, I64(1LL << 31, 1LL << 31)), "loom_asarray",
                "is too big");
    loom_scope_end();
}

/* Every case of NumPy's table: the error, or the length and each value bit for bit. */
static void test_range_values(void)
{
    FILE *f = fopen(LOOM_TEST_DATA "/ranges.txt", "r");
    CHECK(f != NULL);
    if (!f)
        return;
    range_case c;
    int cases = 0;
    while (range_case_next(f, &c)) {
        cases++;
        loom_scope_begin();
        loom_clear_error();
        loom_array *a = range_case_array(&c);
        if (c.error) {
            bool ok = !a && range_error_matches(&c, loom_last_error());
            CHECK(ok);
            if (!ok)
                fprintf(stderr, "%s\n  Loom: %s\n", c.line, a ? "an array" : loom_last_error());
            loom_scope_end();
            continue;
        }
        CHECK(a && a->ndim == 1 && a->shape[0] == c.n);
        if (!a || a->shape[0] != c.n) {
            fprintf(stderr, "%s\n  Loom: %s\n", c.line, a ? "another length" : loom_last_error());
            loom_scope_end();
            continue;
        }
        for (int i = 0; i < c.n; i++) {
            double got = ge_range_at(a, i).re;
            bool same = isnan(c.v[i]) ? isnan(got) : got == c.v[i] && signbit(got) == signbit(c.v[i]);
            CHECK(same);
            if (!same)
                fprintf(stderr, "%s\n  element %d: Loom %a, NumPy %a\n", c.line, i, got, c.v[i]);
        }
        loom_scope_end();
    }
    fclose(f);
    CHECK(cases > 600);
}

int main(void)
{
    CHECK_EQ_INT(loom__default_device(), 0);
    test_fills();
    test_like();
    test_arange();
    test_linspace();
    test_range_values();
    test_eye();
    test_asarray();
    return check_summary("test_creation");
}
