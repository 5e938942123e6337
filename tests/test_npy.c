/* loom_load_npy reads what NumPy writes (files from tools/gen_npy_cases.py). Loading makes a
 * host leaf, so no GPU is needed; the values are checked in the leaf's host copy, through the
 * transpose for the Fortran-ordered file. */
#include "check.h"
#include "internal.h"

static loom_array *load(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/npy/%s.npy", LOOM_TEST_DATA, name);
    loom_array *a = loom_load_npy(path);
    if (!a)
        fprintf(stderr, "loading %s: %s\n", name, loom_last_error());
    return a;
}

static const void *host(const loom_array *a)
{
    return a && a->op == LOOM_OP_HOST ? a->host_data : NULL;
}

int main(void)
{
    loom_scope_begin();
    loom_array *a = load("f32_2x3");
    CHECK_SHAPE(a, 2, ((int64_t[]){2, 3}));
    CHECK(a && loom_dtype_of(a) == LOOM_FLOAT32 && host(a) && ((const float *)host(a))[5] == 2.5f);

    a = load("i64_1d");
    CHECK(a && loom_dtype_of(a) == LOOM_INT64 && ((const int64_t *)host(a))[3] == (1LL << 40) &&
          ((const int64_t *)host(a))[0] == -3);
    a = load("bool_4");
    CHECK(a && loom_dtype_of(a) == LOOM_BOOL && ((const uint8_t *)host(a))[3] == 1);
    a = load("u8_0d");
    CHECK(a && loom_ndim(a) == 0 && ((const uint8_t *)host(a))[0] == 200);
    a = load("c64_3");
    CHECK(a && loom_dtype_of(a) == LOOM_COMPLEX64 && ((const float *)host(a))[1] == 2.0f &&
          ((const float *)host(a))[3] == -3.0f);
    a = load("f16_2");
    CHECK(a && loom_dtype_of(a) == LOOM_FLOAT16 &&
          loom__host_to_double(host(a), LOOM_FLOAT16) == 1.5);
    a = load("i32_bigendian_3");
    CHECK(a && loom_dtype_of(a) == LOOM_INT32 && ((const int32_t *)host(a))[1] == -2 &&
          ((const int32_t *)host(a))[2] == 65536);
    a = load("f32_empty_0x4");
    CHECK_SHAPE(a, 2, ((int64_t[]){0, 4}));

    /* Fortran order: a transpose of the C-ordered data, element (i, j) = 3 * i + j. */
    a = load("f64_fortran_2x3");
    CHECK_SHAPE(a, 2, ((int64_t[]){2, 3}));
    CHECK(a && loom_is_view(a));
    if (a && loom_is_view(a)) {
        const double *d = host(a->inputs[0]);
        const int64_t *st = loom_strides(a);
        int bad = 0;
        for (int i = 0; i < 2; i++)
            for (int j = 0; j < 3; j++)
                bad += d[i * st[0] + j * st[1]] != 3.0 * i + j;
        CHECK_EQ_INT(bad, 0);
    }

    CHECK_FAILS(loom_load_npy("/nonexistent/x.npy"), "loom_load_npy", "cannot open");
    char path[512];
    snprintf(path, sizeof path, "%s/npy/../promotion.txt", LOOM_TEST_DATA);
    CHECK_FAILS(loom_load_npy(path), "loom_load_npy", "not a .npy file");
    CHECK_FAILS(loom_load_npy(NULL), "loom_load_npy", "path is NULL");
    loom_scope_end();
    return check_summary("test_npy");
}
