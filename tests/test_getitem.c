/* a[terms] without a GPU against NumPy (tools/gen_getitem_cases.py ->
 * tests/data/getitem_cases.txt): every mix of integers, slices, newaxis, an ellipsis and integer
 * arrays, adjacent or separated, as dtypes, shapes and values (tests/graph_eval.h), errors at
 * the call, and array indices out of bounds, found by the reference evaluator and named with
 * the first advanced axis and its size. Plans: a basic index is a view; x[idx] * 2 is one
 * kernel. */
#define _POSIX_C_SOURCE 200809L
#include "graph_eval.h"
#include "index_cases.h"
#include "plans.h"

static void table(void)
{
    FILE *f = fopen(LOOM_TEST_DATA "/getitem_cases.txt", "r");
    CHECK(f != NULL);
    if (!f)
        return;
    char *line = NULL;
    size_t cap = 0;
    int ncases = 0;
    while (getline(&line, &cap, f) > 0) {
        line[strcspn(line, "\n")] = 0;
        char where[64];
        snprintf(where, sizeof where, "getitem_cases.txt:%d", ++ncases);
        char *field[4], *save, *p, *tok;
        field[0] = strtok_r(line, "|", &save);
        for (int i = 1; i < 4; i++)
            field[i] = strtok_r(NULL, "|", &save);
        loom_scope_begin();
        loom_array *a = make_source(strtok_r(field[1], " ", &p));
        loom_index_term terms[16];
        int n = 0;
        for (tok = strtok_r(field[2], " ", &p); tok; tok = strtok_r(NULL, " ", &p))
            terms[n++] = parse_term(tok);
        loom_clear_error();
        loom_array *r = loom_getitem(a, terms, n);
        char *q, *kind = strtok_r(field[3], " ", &q);
        if (strcmp(kind, "err") == 0) {
            char want[512];
            snprintf(want, sizeof want, "loom_getitem: %s", q);
            CHECK(r == NULL);
            CHECK_STR(loom_last_error(), want);
            if (r || !loom_last_error() || strcmp(loom_last_error(), want))
                fprintf(stderr, "%s\n", where);
        } else if (strcmp(kind, "oob") == 0) {
            CHECK(r != NULL && r->op == LOOM_OP_TAKE);
            if (r && r->op == LOOM_OP_TAKE) {
                CHECK_EQ_INT(r->param.take.report_axis, strtoll(strtok_r(NULL, " ", &q), NULL, 10));
                CHECK_EQ_INT(r->param.take.report_size, strtoll(strtok_r(NULL, " ", &q), NULL, 10));
                ge_memo m = {0};
                CHECK(ge_eval(r, &m) != NULL);
                CHECK_EQ_INT(m.oob, 1);
                ge_free(&m);
            } else {
                fprintf(stderr, "%s: %s\n", where, loom_last_error());
            }
        } else {
            CHECK(r != NULL);
            if (r)
                ge_check_result(where, r, &q);
            else
                fprintf(stderr, "%s: %s\n", where, loom_last_error());
        }
        loom_scope_end();
    }
    free(line);
    fclose(f);
    CHECK(ncases > 400);
}

static void plans(void)
{
    loom_scope_begin();
    int64_t s[] = {6, 8};
    loom_array *x = loom_astype(loom_reshape(loom_arange(0, 48, 1, LOOM_INT64), 2, s), LOOM_FLOAT32);
    loom_array *basic = loom_getitem(x, (loom_index_term[]){{LOOM_INDEX_INT, 2, 0, 0, NULL},
                                                            {LOOM_INDEX_SLICE, 1, LOOM_NONE, 2, NULL}},
                                     2);
    CHECK(basic != NULL && loom_is_view(basic));
    int64_t n = 5;
    int64_t iv[] = {0, 5, -1, 3, 2};
    loom_array *idx = loom_asarray(iv, LOOM_INT64, 1, &n);
    loom_array *g = loom_mul_scalar(
        loom_getitem(x, (loom_index_term[]){{LOOM_INDEX_ARRAY, 0, 0, 0, idx},
                                            {LOOM_INDEX_SLICE, LOOM_NONE, LOOM_NONE, -1, NULL}},
                     2),
        2.0);
    CHECK_EQ_INT(test_compile_plan(&g, 1, true, false), 2); /* the cast x, then the gather */
    loom_scope_end();
}

int main(void)
{
    table();
    plans();
    return check_summary("test_getitem");
}
