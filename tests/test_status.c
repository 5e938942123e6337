/* Status codes: names, groups, which failures give the finer codes, and the library detail. */
#include "check.h"

#include <stdint.h>
#include <string.h>

static void test_names_and_groups(void)
{
    static const struct {
        int code;
        const char *name;
        int group;
    } table[] = {
        {LOOM_OK, "LOOM_OK", LOOM_OK},
        {LOOM_ERR_INVALID, "LOOM_ERR_INVALID", LOOM_ERR_INVALID},
        {LOOM_ERR_NO_DEVICE, "LOOM_ERR_NO_DEVICE", LOOM_ERR_NO_DEVICE},
        {LOOM_ERR_OOM, "LOOM_ERR_OOM", LOOM_ERR_OOM},
        {LOOM_ERR_CUDA, "LOOM_ERR_CUDA", LOOM_ERR_CUDA},
        {LOOM_ERR_COMPILE, "LOOM_ERR_COMPILE", LOOM_ERR_COMPILE},
        {LOOM_ERR_IO, "LOOM_ERR_IO", LOOM_ERR_IO},
        {LOOM_ERR_UNSUPPORTED, "LOOM_ERR_UNSUPPORTED", LOOM_ERR_UNSUPPORTED},
        {LOOM_ERR_LINALG, "LOOM_ERR_LINALG", LOOM_ERR_LINALG},
        {LOOM_ERR_DTYPE, "LOOM_ERR_DTYPE", LOOM_ERR_INVALID},
        {LOOM_ERR_SHAPE, "LOOM_ERR_SHAPE", LOOM_ERR_INVALID},
        {LOOM_ERR_LIBRARY, "LOOM_ERR_LIBRARY", LOOM_ERR_CUDA},
        {LOOM_ERR_DEVICE, "LOOM_ERR_DEVICE", LOOM_ERR_CUDA},
        {LOOM_ERR_ASSERT, "LOOM_ERR_ASSERT", LOOM_ERR_ASSERT},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        CHECK_STR(loom_status_name(table[i].code), table[i].name);
        CHECK_EQ_INT(loom_status_group(table[i].code), table[i].group);
    }
    CHECK_STR(loom_status_name(1), "LOOM_ERR_UNKNOWN");
    CHECK_STR(loom_status_name(-14), "LOOM_ERR_UNKNOWN");
    CHECK_EQ_INT(loom_status_group(-14), -14);
    /* Every code is distinct: the table has no two equal. */
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        for (size_t j = i + 1; j < sizeof table / sizeof table[0]; j++)
            CHECK(table[i].code != table[j].code);
}

/* The call must fail with this code, and no library detail. */
#define CHECK_CODE(expr, code)                                                                    \
    do {                                                                                          \
        loom_clear_error();                                                                       \
        CHECK((expr) == NULL);                                                                    \
        CHECK_EQ_INT(loom_last_error_code(), code);                                               \
        CHECK_EQ_INT(loom_last_error_detail(), 0);                                                \
    } while (0)

static void test_codes_of_failures(void)
{
    loom_scope_begin();
    loom_array *f = loom_zeros(2, (int64_t[]){3, 4}, LOOM_FLOAT32);
    loom_array *g = loom_zeros(1, (int64_t[]){5}, LOOM_FLOAT32);
    CHECK_CODE(loom_add(f, g), LOOM_ERR_SHAPE);
    CHECK(strstr(loom_last_error(), "cannot be broadcast"));
    CHECK_CODE(loom_reshape(f, 1, (int64_t[]){5}), LOOM_ERR_SHAPE);
    CHECK_CODE(loom_sum(f, (int[]){2}, 1, false), LOOM_ERR_SHAPE);
    CHECK(strstr(loom_last_error(), "axis 2 is out of bounds for array of dimension 2"));
    CHECK_CODE(loom_bitwise_and(f, f), LOOM_ERR_DTYPE);
    CHECK(strstr(loom_last_error(), "not supported for input types"));
    loom_array *b = loom_zeros(1, (int64_t[]){2}, LOOM_BOOL);
    CHECK_CODE(loom_subtract(b, b), LOOM_ERR_DTYPE);
    CHECK_CODE(loom_zeros(1, (int64_t[]){-1}, LOOM_FLOAT32), LOOM_ERR_INVALID);
    /* NULL propagation keeps the first failure's code. */
    loom_clear_error();
    CHECK(loom_sin(loom_add(f, g)) == NULL);
    CHECK_EQ_INT(loom_last_error_code(), LOOM_ERR_SHAPE);
    loom_scope_end();
}

int main(void)
{
    test_names_and_groups();
    test_codes_of_failures();
    return check_summary("test_status");
}
