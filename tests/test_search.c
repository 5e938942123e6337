#define _POSIX_C_SOURCE 200809L
/* searchsorted, digitize, partition, argpartition, lexsort and the complex sorts without a GPU:
 * result shapes, dtypes and NumPy's errors (tests/data/search.txt from
 * tools/gen_search_cases.py); plans (a search is one generated kernel computing v inline and
 * fused with its elementwise consumer, its sorted array read from memory; a sorter is one
 * gather; partition is the sort); NVRTC compiles of the binary search on every dtype. */
#include "check.h"
#include "inputs.h"
#include "plans.h"
#include "sort_tables.h"

#include <stdlib.h>
#include <string.h>

static loom_array *input(const char *dt, const char *shp)
{
    int64_t shape[8];
    int nd = parse_shape(shp, shape);
    return test_input(nd, shape, loom_dtype_from_name(dt));
}

static loom_array *run(char *args)
{
    char *save = NULL, *fn = strtok_r(args, " ", &save);
    if (!strcmp(fn, "searchsorted") || !strcmp(fn, "digitize")) {
        char *adt = strtok_r(NULL, " ", &save), *ash = strtok_r(NULL, " ", &save);
        char *vdt = strtok_r(NULL, " ", &save), *vsh = strtok_r(NULL, " ", &save);
        loom_array *a = input(adt, ash), *v = input(vdt, vsh);
        return fn[0] == 's' ? loom_searchsorted(a, v, false) : loom_digitize(a, v, false);
    }
    if (!strcmp(fn, "partition") || !strcmp(fn, "argpartition")) {
        char *dt = strtok_r(NULL, " ", &save), *sh = strtok_r(NULL, " ", &save);
        char *ax = strtok_r(NULL, " ", &save), *k = strtok_r(NULL, " ", &save) + 2;
        int64_t kth[8];
        int nkth = 0;
        while (*k) {
            kth[nkth++] = strtoll(k, &k, 10);
            if (*k == ',')
                k++;
        }
        int axis = !strcmp(ax, "none") ? LOOM_AXIS_NONE : atoi(ax);
        loom_array *a = input(dt, sh);
        return fn[0] == 'p' ? loom_partition(a, kth, nkth, axis)
                            : loom_argpartition(a, kth, nkth, axis);
    }
    if (!strcmp(fn, "lexsort")) {
        char *spec = strtok_r(NULL, " ", &save), *ax = strtok_r(NULL, " ", &save);
        loom_array *keys[8];
        int n = 0;
        char *s2 = NULL;
        for (char *key = strtok_r(spec, "/", &s2); key; key = strtok_r(NULL, "/", &s2)) {
            char *colon = strchr(key, ':');
            *colon = 0;
            keys[n++] = input(key, colon + 1);
        }
        return loom_lexsort(keys, n, atoi(ax));
    }
    char *dt = strtok_r(NULL, " ", &save), *sh = strtok_r(NULL, " ", &save);
    return loom_sort_complex(input(dt, sh));
}

static void test_table(void)
{
    FILE *f = fopen(LOOM_TEST_DATA "/search.txt", "r");
    CHECK(f != NULL);
    char line[512];
    int cases = 0;
    while (f && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        char *arrow = strstr(line, " -> ");
        if (!arrow)
            continue;
        *arrow = 0;
        const char *want = arrow + 4;
        char fn[16] = {0}, args[512];
        sscanf(line, "%15s", fn);
        snprintf(args, sizeof args, "%s", line);
        cases++;
        loom_scope_begin();
        loom_clear_error();
        loom_array *r = run(args);
        if (!strncmp(want, "ok ", 3)) {
            char rdt[16], rshp[64];
            CHECK(r != NULL && sscanf(want + 3, "%15s %63s", rdt, rshp) == 2);
            if (r) {
                check_dtype_shape(r, rdt, rshp);
            } else {
                fprintf(stderr, "%s: %s\n", line, loom_last_error());
            }
        } else {
            char msg[320];
            snprintf(msg, sizeof msg, "loom_%s: %s", fn, want + 4);
            CHECK(r == NULL);
            CHECK_STR(loom_last_error(), msg);
            CHECK_EQ_INT(loom_status_group(loom_last_error_code()), LOOM_ERR_INVALID);
            if (r || strcmp(loom_last_error(), msg))
                fprintf(stderr, "  case: %s\n", line);
        }
        loom_scope_end();
    }
    if (f)
        fclose(f);
    CHECK(cases > 6000);
}

static void test_null_and_args(void)
{
    loom_clear_error();
    CHECK(loom_searchsorted(NULL, NULL, false) == NULL);
    CHECK(loom_searchsorted_sorter(NULL, NULL, true, NULL) == NULL);
    CHECK(loom_digitize(NULL, NULL, false) == NULL);
    CHECK(loom_partition(NULL, (int64_t[]){0}, 1, 0) == NULL);
    CHECK(loom_argpartition(NULL, (int64_t[]){0}, 1, 0) == NULL);
    CHECK(loom_sort_complex(NULL) == NULL);
    CHECK_EQ_INT(loom_last_error_code(), LOOM_OK);
    loom_scope_begin();
    loom_array *a = test_input(1, (int64_t[]){5}, LOOM_FLOAT32);
    CHECK(loom_lexsort(NULL, 0, -1) == NULL);
    CHECK_STR(loom_last_error(), "loom_lexsort: need sequence of keys with len > 0 in lexsort");
    CHECK(loom_lexsort((loom_array *[]){a, NULL}, 2, -1) == NULL);
    CHECK(loom_lexsort(&a, 1, LOOM_AXIS_NONE) == NULL);
    CHECK_STR(loom_last_error(),
              "loom_lexsort: axis must be an integer (np.lexsort has no axis=None)");
    /* sorter: integers of a's size (NumPy's messages) */
    loom_array *v = test_input(1, (int64_t[]){3}, LOOM_FLOAT32);
    CHECK(loom_searchsorted_sorter(a, v, false, test_input(1, (int64_t[]){5}, LOOM_FLOAT64)) == NULL);
    CHECK_STR(loom_last_error(), "loom_searchsorted: sorter must only contain integers");
    CHECK(loom_searchsorted_sorter(a, v, false, test_input(1, (int64_t[]){4}, LOOM_INT64)) == NULL);
    CHECK_STR(loom_last_error(), "loom_searchsorted: sorter.size must equal a.size");
    loom_array *r = loom_searchsorted_sorter(a, v, true, test_input(1, (int64_t[]){5}, LOOM_INT32));
    CHECK(r && loom_dtype_of(r) == LOOM_INT64 && loom_ndim(r) == 1 && loom_shape(r)[0] == 3);
    /* a weak scalar v: a 0-d result */
    r = loom_searchsorted(a, loom_scalar(1.5), false);
    CHECK(r && loom_dtype_of(r) == LOOM_INT64 && loom_ndim(r) == 0);
    loom_scope_end();
}

static int count(const loom_plan *p, loom_step_kind kind)
{
    int n = 0;
    for (int i = 0; p && i < p->nsteps; i++)
        n += p->steps[i].kind == kind;
    return n;
}

static const loom_step *only_kernel(const loom_plan *p)
{
    for (int i = 0; p && i < p->nsteps; i++)
        if (p->steps[i].kind == LOOM_STEP_KERNEL)
            return &p->steps[i];
    return NULL;
}

/* searchsorted(a, v * 2) + 1 with a in memory: one kernel computing v, the search and the add. */
static void test_plan_fused(void)
{
    loom_scope_begin();
    loom_array *a = test_input(1, (int64_t[]){100}, LOOM_FLOAT64);
    loom_array *v = loom_multiply(test_input(2, (int64_t[]){3, 7}, LOOM_FLOAT32), loom_scalar(2.0));
    loom_array *r = loom_add(loom_searchsorted(a, v, true), loom_scalar_int(1));
    CHECK(r && loom_dtype_of(r) == LOOM_INT64);
    loom_plan *p = test_plan(&r, 1, true);
    CHECK_EQ_INT(p ? p->nsteps : -1, 1);
    const loom_step *k = only_kernel(p);
    CHECK(k != NULL);
    if (k) {
        CHECK_STR(k->kernel.summary, "add multiply astype searchsorted");
        CHECK(strstr(k->kernel.source, "while (lo") != NULL);
    }
    loom__plan_free(p);
    CHECK_EQ_INT(test_compile_plan(&r, 1, true, getenv("SHOWSRC") != NULL), 1);
    CHECK(test_compile_plan(&r, 1, false, false) > 1);
    loom_scope_end();
}

/* A computed sorted array (a sort's result) is read from memory; a sorter is one gather of a
 * (mode raise: a status check) before the search. */
static void test_plan_sorted_in_memory(void)
{
    loom_scope_begin();
    loom_array *x = test_input(1, (int64_t[]){64}, LOOM_INT32);
    loom_array *v = test_input(1, (int64_t[]){9}, LOOM_INT32);
    loom_array *r = loom_searchsorted(loom_sort(loom_negative(x), 0), v, false);
    loom_plan *p = test_plan(&r, 1, true);
    CHECK(p && count(p, LOOM_STEP_LIBRARY) == 1 && count(p, LOOM_STEP_KERNEL) == 2);
    loom__plan_free(p);
    CHECK(test_compile_plan(&r, 1, true, false) > 0);
    loom_array *sorter = test_input(1, (int64_t[]){64}, LOOM_INT64);
    r = loom_searchsorted_sorter(x, v, false, sorter);
    p = test_plan(&r, 1, true);
    CHECK(p && count(p, LOOM_STEP_KERNEL) == 2 && p->nchecks == 1);
    loom__plan_free(p);
    CHECK_EQ_INT(test_compile_plan(&r, 1, true, false), 2);
    loom_scope_end();
}

/* The binary search compiles for every dtype, both sides; a strided view of a sorted
 * array is copied contiguous first. Empty inputs need no step. */
static void test_compile_dtypes(void)
{
    for (int dt = 0; dt < LOOM_NUM_DTYPES; dt++) {
        for (int right = 0; right < 2; right++) {
            loom_scope_begin();
            loom_array *a = test_input(1, (int64_t[]){10}, (loom_dtype)dt);
            loom_array *v = test_input(2, (int64_t[]){2, 5}, (loom_dtype)dt);
            loom_array *r = loom_searchsorted(a, v, right);
            CHECK_EQ_INT(test_compile_plan(&r, 1, true, false), 1);
            loom_scope_end();
        }
    }
    loom_scope_begin();
    loom_array *a = test_input(1, (int64_t[]){10}, LOOM_FLOAT32);
    loom_array *r = loom_searchsorted(loom_slice(a, 0, LOOM_NONE, LOOM_NONE, 2), a, false);
    CHECK_EQ_INT(test_compile_plan(&r, 1, true, false), 2);
    /* v a view of a computed value, and a broadcast of one */
    loom_array *x = test_input(2, (int64_t[]){3, 4}, LOOM_FLOAT32);
    r = loom_searchsorted(a, loom_transpose(loom_multiply(x, loom_scalar(2.0)), NULL), true);
    CHECK(test_compile_plan(&r, 1, true, false) > 0);
    r = loom_searchsorted(a, loom_broadcast_to(loom_sin(a), 2, (int64_t[]){3, 10}), false);
    CHECK(test_compile_plan(&r, 1, true, false) > 0);
    r = loom_searchsorted(a, test_input(1, (int64_t[]){0}, LOOM_FLOAT32), false);
    loom_plan *p = test_plan(&r, 1, true);
    CHECK(p && count(p, LOOM_STEP_KERNEL) == 0 && loom_shape(r)[0] == 0);
    loom__plan_free(p);
    loom_scope_end();
}

/* partition is the stable sort; lexsort of two keys is two argsorts; a complex argsort is three
 * (its lexsort of three real keys). */
static void test_plan_sorts(void)
{
    loom_scope_begin();
    loom_array *a = test_input(2, (int64_t[]){4, 6}, LOOM_FLOAT32);
    loom_array *r = loom_partition(a, (int64_t[]){1, -1}, 2, 1);
    loom_plan *p = test_plan(&r, 1, true);
    CHECK(p && count(p, LOOM_STEP_LIBRARY) == 1);
    loom__plan_free(p);
    r = loom_lexsort((loom_array *[]){a, test_input(2, (int64_t[]){4, 6}, LOOM_INT8)}, 2, 0);
    p = test_plan(&r, 1, true);
    CHECK(p && count(p, LOOM_STEP_LIBRARY) == 2);
    loom__plan_free(p);
    CHECK(test_compile_plan(&r, 1, true, false) > 0);
    r = loom_argsort(test_input(1, (int64_t[]){9}, LOOM_COMPLEX64), 0);
    p = test_plan(&r, 1, true);
    CHECK(p && count(p, LOOM_STEP_LIBRARY) == 3);
    loom__plan_free(p);
    CHECK(test_compile_plan(&r, 1, true, false) > 0);
    r = loom_sort(test_input(2, (int64_t[]){3, 9}, LOOM_COMPLEX128), LOOM_AXIS_NONE);
    CHECK(r && loom_dtype_of(r) == LOOM_COMPLEX128 && loom_ndim(r) == 1 && loom_shape(r)[0] == 27);
    CHECK(test_compile_plan(&r, 1, true, false) > 0);
    loom_scope_end();
}

int main(void)
{
    test_table();
    test_null_and_args();
    test_plan_fused();
    test_plan_sorted_in_memory();
    test_compile_dtypes();
    test_plan_sorts();
    return check_summary("test_search");
}
