#define _POSIX_C_SOURCE 200809L
/* Sorting without a GPU: result shapes, dtypes and NumPy's errors for every dtype, shape and
 * axis (tests/data/sort.txt from tools/gen_sort_cases.py); the plans (a producer kernel writing
 * straight into the sort's first buffer, copies where the sort may not overwrite its input, the
 * argsort's index buffers, rows of axis sorts); the nvcc-built CUB layer links. */
#include "check.h"
#include "inputs.h"
#include "kernels/loom_cub.h"
#include "plans.h"
#include "sort_tables.h"

#include <cuda_runtime_api.h>
#include <stdlib.h>
#include <string.h>

static void test_table(void)
{
    FILE *f = fopen(LOOM_TEST_DATA "/sort.txt", "r");
    CHECK(f != NULL);
    char line[512];
    int cases = 0;
    while (f && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        char fn[16], dt[16], shp[64], ax[16], status[16];
        int at = 0;
        if (sscanf(line, "%15s %15s %63s %15s -> %15s %n", fn, dt, shp, ax, status, &at) != 5)
            continue;
        cases++;
        int64_t shape[8];
        int nd = parse_shape(shp, shape);
        int axis = strcmp(ax, "none") == 0 ? LOOM_AXIS_NONE : atoi(ax);
        loom_scope_begin();
        loom_clear_error();
        loom_array *a = test_input(nd, shape, loom_dtype_from_name(dt));
        bool arg = strcmp(fn, "argsort") == 0;
        loom_array *r = arg ? loom_argsort(a, axis) : loom_sort(a, axis);
        const char *rest = line + at;
        if (strcmp(status, "ok") == 0) {
            char rdt[16], rshp[64];
            CHECK(r != NULL && sscanf(rest, "%15s %63s", rdt, rshp) == 2);
            if (r) {
                check_dtype_shape(r, rdt, rshp);
            } else {
                fprintf(stderr, "%s: %s\n", line, loom_last_error());
            }
        } else {
            char msg[256];
            snprintf(msg, sizeof msg, "loom_%s: %s", fn,
                     strcmp(status, "err") == 0 ? rest : "sorting complex arrays is not supported yet");
            CHECK(r == NULL);
            CHECK_STR(loom_last_error(), msg);
            CHECK_EQ_INT(loom_status_group(loom_last_error_code()),
                         strcmp(status, "err") == 0 ? LOOM_ERR_INVALID : LOOM_ERR_UNSUPPORTED);
        }
        loom_scope_end();
    }
    if (f)
        fclose(f);
    CHECK(cases > 1000);
}

static void test_null(void)
{
    loom_clear_error();
    CHECK(loom_sort(NULL, 0) == NULL && loom_argsort(NULL, LOOM_AXIS_NONE) == NULL);
    CHECK_EQ_INT(loom_last_error_code(), LOOM_OK);
}

static int count(const loom_plan *p, loom_step_kind kind)
{
    int n = 0;
    for (int i = 0; p && i < p->nsteps; i++)
        n += p->steps[i].kind == kind;
    return n;
}

static const loom_libcall *sort_step(const loom_plan *p)
{
    for (int i = 0; p && i < p->nsteps; i++)
        if (p->steps[i].kind == LOOM_STEP_LIBRARY && p->steps[i].lib.routine == LOOM_LIB_CUB_SORT)
            return &p->steps[i].lib;
    return NULL;
}

static loom_buffer_role role(const loom_plan *p, const loom_libcall *l, int k)
{
    return p->buffers[l->buffer[k]].role;
}

/* sort(sin(linspace)): one kernel writes the keys into a temporary that the sort owns, the
 * sorted keys end in the output buffer; no copy. */
static void test_plan_fused_producer(void)
{
    loom_scope_begin();
    loom_array *r = loom_sort(loom_sin(loom_linspace(0, 6.28, 1000, true, LOOM_FLOAT32)), 0);
    loom_plan *p = test_plan(&r, 1, true);
    const loom_libcall *l = sort_step(p);
    CHECK(l != NULL);
    CHECK_EQ_INT(count(p, LOOM_STEP_KERNEL), 1);
    CHECK_EQ_INT(count(p, LOOM_STEP_COPY), 0);
    if (l) {
        CHECK_EQ_INT(l->nbuffers, 2);
        CHECK(role(p, l, 0) == LOOM_BUF_TEMP && l->buffer[1] == p->outputs[0]);
        CHECK_EQ_INT(l->args.sort.out, 1);
        CHECK(l->args.sort.n == 1000 && l->args.sort.rows == 1 && l->args.sort.dtype == LOOM_FLOAT32);
        CHECK(l->workspace >= 0 && l->workspace_bytes >= 1000);
    }
    CHECK(loom__lib_info(LOOM_LIB_CUB_SORT)->capturable);
    loom__plan_free(p);
    CHECK_EQ_INT(test_compile_plan(&r, 1, true, false), 2);
    loom_scope_end();
}

/* An int32 array in memory is never overwritten: it is copied into the output, sorted there
 * with a scratch buffer; rows of the last axis are CUB's segments. */
static void test_plan_input_copied(void)
{
    loom_scope_begin();
    loom_array *a = test_input(2, (int64_t[]){3, 4}, LOOM_INT32);
    loom_array *r = loom_sort(a, -1);
    loom_plan *p = test_plan(&r, 1, true);
    const loom_libcall *l = sort_step(p);
    CHECK(l != NULL);
    CHECK_EQ_INT(count(p, LOOM_STEP_KERNEL), 0);
    CHECK_EQ_INT(count(p, LOOM_STEP_COPY), 1);
    if (l) {
        CHECK(l->buffer[0] == p->outputs[0] && role(p, l, 1) == LOOM_BUF_TEMP);
        CHECK_EQ_INT(l->args.sort.out, 0);
        CHECK(l->args.sort.n == 4 && l->args.sort.rows == 3);
    }
    loom__plan_free(p);
    loom_scope_end();
}

/* A value read elsewhere too is copied before the sort overwrites anything. */
static void test_plan_shared_value(void)
{
    loom_scope_begin();
    loom_array *s = loom_negative(loom_arange(0, 64, 1, LOOM_INT32));
    loom_array *both[2] = {loom_sort(s, 0), loom_add_scalar(s, 1.0)};
    loom_plan *p = test_plan(both, 2, true);
    CHECK(sort_step(p) != NULL);
    CHECK_EQ_INT(count(p, LOOM_STEP_COPY), 1);
    loom__plan_free(p);
    loom_scope_end();
}

/* argsort: keys and indices written by kernels into buffers the sort owns; the indices end in
 * the output. Axis 0 of (5, 7): 7 rows of 5 after moving the axis last. */
static void test_plan_argsort(void)
{
    loom_scope_begin();
    loom_array *a = test_input(2, (int64_t[]){5, 7}, LOOM_FLOAT64);
    loom_array *r = loom_argsort(a, 0);
    CHECK(r && loom_dtype_of(r) == LOOM_INT64 && loom_shape(r)[0] == 5 && loom_shape(r)[1] == 7);
    loom_plan *p = test_plan(&r, 1, true);
    const loom_libcall *l = sort_step(p);
    CHECK(l != NULL);
    CHECK_EQ_INT(count(p, LOOM_STEP_COPY), 0);
    if (l) {
        CHECK_EQ_INT(l->nbuffers, 4);
        CHECK(role(p, l, 0) == LOOM_BUF_TEMP && role(p, l, 1) == LOOM_BUF_TEMP &&
              role(p, l, 2) == LOOM_BUF_TEMP);
        CHECK_EQ_INT(l->args.sort.out, 3);
        CHECK(l->args.sort.n == 5 && l->args.sort.rows == 7);
    }
    loom__plan_free(p);
    CHECK(test_compile_plan(&r, 1, true, false) > 0);
    CHECK(test_compile_plan(&r, 1, false, false) > 0);
    loom_scope_end();
}

/* Empty arrays: no step at all. */
static void test_plan_empty(void)
{
    loom_scope_begin();
    loom_array *r = loom_argsort(test_input(2, (int64_t[]){0, 3}, LOOM_INT8), 1);
    loom_plan *p = test_plan(&r, 1, true);
    CHECK(p && sort_step(p) == NULL);
    loom__plan_free(p);
    loom_scope_end();
}

/* The nvcc-built layer is in the library: a dtype it has no sort for is refused before any
 * device is touched. */
static void test_cub_links(void)
{
    loom_cub_sort_call c = {.dtype = LOOM_COMPLEX64, .n = 4, .rows = 1};
    size_t bytes = 1;
    CHECK_EQ_INT(loom__cub_sort_temp_bytes(&c, &bytes), (int)cudaErrorInvalidValue);
}

int main(void)
{
    test_table();
    test_null();
    test_plan_fused_producer();
    test_plan_input_copied();
    test_plan_shared_value();
    test_plan_argsort();
    test_plan_empty();
    test_cub_links();
    return check_summary("test_sort");
}
