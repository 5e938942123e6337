/* np.testing.assert_allclose and assert_array_equal against NumPy's own verdicts and reports
 * (tools/gen_testing_cases.py), compared on host data; and the public functions' errors. */
#define _POSIX_C_SOURCE 200809L /* getline */
#include "check.h"
#include "table_lines.h"

#include "exec/testing.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void run_case(char *line)
{
    char *f[11] = {0};
    bool whole = table_fields(line, f, 11) == 11;
    CHECK(whole);
    if (!whole)
        return;
    bool allclose = strcmp(f[0], "allclose") == 0;
    const char *fn = allclose ? "loom_testing_assert_allclose" : "loom_testing_assert_array_equal";
    int64_t xs[LOOM_MAXDIMS], ys[LOOM_MAXDIMS];
    int xn = table_shape(f[5], xs), yn = table_shape(f[8], ys);
    unsigned char *x = table_hex(f[6]), *y = table_hex(f[9]);
    loom_clear_error();
    int rc = loom__testing_compare(fn, allclose, strtod(f[1], NULL), strtod(f[2], NULL),
                                   atoi(f[3]) != 0, x, loom_dtype_from_name(f[4]), xn, xs, y,
                                   loom_dtype_from_name(f[7]), yn, ys);
    char *want = table_unescape(f[10]);
    if (strcmp(want, "PASS") == 0) {
        CHECK_EQ_INT(rc, LOOM_OK);
    } else {
        CHECK_EQ_INT(rc, LOOM_ERR_ASSERT);
        /* NumPy's message starts with a newline where Loom's names the function. */
        char expected[LOOM_MAXDIMS * 1024];
        snprintf(expected, sizeof expected, "%s: %s", fn, want + 1);
        const char *got = loom_last_error();
        bool same = got && strcmp(got, expected) == 0;
        CHECK(same);
        if (!same)
            fprintf(stderr, "NumPy:\n%s\nLoom:\n%s\n", expected, got ? got : "(none)");
    }
    free(x);
    free(y);
}

static void test_numpy_table(void)
{
    CHECK(table_for_each_line(LOOM_TEST_DATA "/testing_cases.txt", run_case) >= 40);
}

static void test_errors(void)
{
    loom_clear_error();
    CHECK_EQ_INT(loom_testing_assert_allclose(NULL, NULL, 1e-7, 0, true), LOOM_ERR_INVALID);
    CHECK(strstr(loom_last_error(), "loom_testing_assert_allclose: array 0 is NULL"));
    loom_scope_begin();
    loom_array *a = loom_zeros(1, (int64_t[]){0}, LOOM_FLOAT32);
    CHECK_EQ_INT(loom_testing_assert_array_equal(a, NULL), LOOM_ERR_INVALID);
    CHECK(strstr(loom_last_error(), "loom_testing_assert_array_equal: array 1 is NULL"));
    CHECK_EQ_INT(loom_testing_assert_allclose(a, a, -1, 0, true), LOOM_ERR_INVALID);
    CHECK(strstr(loom_last_error(), "rtol and atol must be finite and >= 0"));
    /* Arrays of no elements are compared without reading anything. */
    CHECK_EQ_INT(loom_testing_assert_allclose(a, a, 1e-7, 0, true), LOOM_OK);
    loom_array *b = loom_zeros(2, (int64_t[]){0, 2}, LOOM_FLOAT32);
    CHECK_EQ_INT(loom_testing_assert_array_equal(a, b), LOOM_ERR_ASSERT);
    CHECK_STR(loom_last_error(), "loom_testing_assert_array_equal: Arrays are not equal\n\n"
                                 "(shapes (0,), (0, 2) mismatch)\n"
                                 " ACTUAL: array([], dtype=float32)\n"
                                 " DESIRED: array([], shape=(0, 2), dtype=float32)");
    loom_scope_end();
}

int main(void)
{
    test_numpy_table();
    test_errors();
    return check_summary("test_testing");
}
