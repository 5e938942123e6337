/* repr() and str() against NumPy's own strings (tools/gen_print_cases.py), print options and
 * the errors of the printing API. Needs no GPU: the table's data is formatted as the host
 * copy printing reads, and arrays of no elements print without reading anything. */
#define _POSIX_C_SOURCE 200809L /* getline */
#include "check.h"
#include "table_lines.h"

#include "exec/format.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The corners of full data that a summarised print shows, as printing gathers them from the
 * device (NULL when nothing is summarised). */
static unsigned char *corners_of(const unsigned char *full, loom_dtype dt, int ndim,
                                 const int64_t *shape, const loom_printoptions *opt)
{
    int64_t corner[LOOM_MAXDIMS], idx[LOOM_MAXDIMS] = {0}, n = 1;
    if (!loom__format_corner_shape(ndim, shape, opt, corner))
        return NULL;
    for (int k = 0; k < ndim; k++)
        n *= corner[k];
    size_t es = loom_dtype_size(dt);
    unsigned char *out = malloc((size_t)n * es);
    for (int64_t i = 0; out && i < n; i++) {
        int64_t src = 0;
        for (int k = 0; k < ndim; k++) {
            int64_t full_k = idx[k] < corner[k] / 2 || corner[k] == shape[k]
                                 ? idx[k]
                                 : shape[k] - corner[k] + idx[k];
            src = src * shape[k] + full_k;
        }
        memcpy(out + i * (int64_t)es, full + src * (int64_t)es, es);
        for (int k = ndim - 1; k >= 0 && ++idx[k] == corner[k]; k--)
            idx[k] = 0;
    }
    return out;
}

/* One line of the table. */
static void run_case(char *line)
{
    char *field[10] = {0};
    bool whole = table_fields(line, field, 10) == 10;
    CHECK(whole);
    if (!whole)
        return;
    bool repr = strcmp(field[0], "repr") == 0;
    loom_dtype dt = loom_dtype_from_name(field[1]);
    int64_t shape[LOOM_MAXDIMS];
    int ndim = table_shape(field[2], shape);
    loom_printoptions opt = {.precision = atoi(field[3]), .threshold = atoll(field[4]),
                             .edgeitems = atoi(field[5]), .linewidth = atoi(field[6]),
                             .suppress = atoi(field[7]) != 0};
    unsigned char *data = table_hex(field[8]);
    char *got = loom__format_array(data, dt, ndim, shape, repr, &opt);
    const char *want = table_unescape(field[9]);
    bool same = got && strcmp(got, want) == 0;
    CHECK(same);
    if (!same)
        fprintf(stderr, "%s %s shape %s (precision %d, suppress %d, linewidth %d):\n  NumPy: %s\n  Loom:  %s\n",
                field[0], field[1], field[2], opt.precision, opt.suppress, opt.linewidth, want,
                got ? got : "(NULL)");
    free(got);
    /* The same from the corners alone. */
    unsigned char *corners = corners_of(data, dt, ndim, shape, &opt);
    if (corners) {
        got = loom__format_array_corners(corners, dt, ndim, shape, repr, &opt);
        same = got && strcmp(got, want) == 0;
        CHECK(same);
        if (!same)
            fprintf(stderr, "from corners: %s %s shape %s:\n  NumPy: %s\n  Loom:  %s\n",
                    field[0], field[1], field[2], want, got ? got : "(NULL)");
        free(got);
        free(corners);
    }
    free(data);
}

static void test_numpy_table(void)
{
    CHECK(table_for_each_line(LOOM_TEST_DATA "/print_cases.txt", run_case) > 1000);
}

static void test_options(void)
{
    loom_printoptions opt;
    CHECK_EQ_INT(loom_get_printoptions(&opt), LOOM_OK);
    CHECK(opt.precision == 8 && opt.threshold == 1000 && opt.edgeitems == 3 &&
          opt.linewidth == 75 && !opt.suppress);
    loom_printoptions mine = {.precision = 3, .threshold = 5, .edgeitems = 1, .linewidth = 40,
                              .suppress = true};
    CHECK_EQ_INT(loom_set_printoptions(&mine), LOOM_OK);
    CHECK_EQ_INT(loom_get_printoptions(&opt), LOOM_OK);
    CHECK(opt.precision == 3 && opt.threshold == 5 && opt.edgeitems == 1 && opt.linewidth == 40 &&
          opt.suppress);

    loom_printoptions bad = mine;
    bad.precision = -1;
    CHECK_EQ_INT(loom_set_printoptions(&bad), LOOM_ERR_INVALID);
    CHECK(strstr(loom_last_error(), "loom_set_printoptions: precision must be >= 0"));
    bad = mine;
    bad.edgeitems = 0;
    CHECK_EQ_INT(loom_set_printoptions(&bad), LOOM_ERR_INVALID);
    CHECK(strstr(loom_last_error(), "loom_set_printoptions: edgeitems must be >= 1"));
    bad = mine;
    bad.linewidth = 0;
    CHECK_EQ_INT(loom_set_printoptions(&bad), LOOM_ERR_INVALID);
    CHECK(strstr(loom_last_error(), "loom_set_printoptions: linewidth must be >= 1"));
    CHECK_EQ_INT(loom_get_printoptions(&opt), LOOM_OK);
    CHECK(opt.precision == 3); /* a refused call changes nothing */

    CHECK_EQ_INT(loom_set_printoptions(NULL), LOOM_OK);
    CHECK_EQ_INT(loom_get_printoptions(&opt), LOOM_OK);
    CHECK(opt.precision == 8 && opt.threshold == 1000 && opt.linewidth == 75);
    CHECK_EQ_INT(loom_get_printoptions(NULL), LOOM_ERR_INVALID);
}

/* Arrays of no elements print from their shape and dtype alone. */
static void test_empty_arrays(void)
{
    loom_scope_begin();
    char *s = loom_array_repr(loom_zeros(2, (int64_t[]){0, 3}, LOOM_FLOAT64));
    CHECK_STR(s, "array([], shape=(0, 3), dtype=float64)");
    free(s);
    s = loom_array_repr(loom_zeros(1, (int64_t[]){0}, LOOM_INT8));
    CHECK_STR(s, "array([], dtype=int8)");
    free(s);
    s = loom_array_str(loom_zeros(2, (int64_t[]){4, 0}, LOOM_COMPLEX64));
    CHECK_STR(s, "[]");
    free(s);
    /* The options in force reach the public functions (NumPy, with linewidth=20). */
    loom_printoptions narrow;
    loom_get_printoptions(&narrow);
    narrow.linewidth = 20;
    CHECK_EQ_INT(loom_set_printoptions(&narrow), LOOM_OK);
    s = loom_array_repr(loom_zeros(2, (int64_t[]){0, 3}, LOOM_FLOAT64));
    CHECK_STR(s, "array([],\n      shape=(0, 3), dtype=float64)");
    free(s);
    s = loom_array_repr(loom_zeros(1, (int64_t[]){0}, LOOM_COMPLEX64));
    CHECK_STR(s, "array([],\n      dtype=complex64)");
    free(s);
    CHECK_EQ_INT(loom_set_printoptions(NULL), LOOM_OK);
    loom_scope_end();
}

static void test_null(void)
{
    loom_clear_error();
    CHECK(loom_array_repr(NULL) == NULL);
    CHECK(strstr(loom_last_error(), "loom_array_repr: array 0 is NULL"));
    CHECK(loom_array_str(NULL) == NULL);
    CHECK(strstr(loom_last_error(), "loom_array_str"));
    CHECK_EQ_INT(loom_print(NULL), LOOM_ERR_INVALID);
    CHECK(strstr(loom_last_error(), "loom_print"));
    CHECK_EQ_INT(loom_fprint(NULL, NULL), LOOM_ERR_INVALID);
    CHECK(strstr(loom_last_error(), "loom_fprint: out is NULL"));
}

int main(void)
{
    test_numpy_table();
    test_options();
    test_empty_arrays();
    test_null();
    return check_summary("test_print");
}
