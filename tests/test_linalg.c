#define _POSIX_C_SOURCE 200809L
/* Decompositions without a GPU: result shapes, dtypes and NumPy's errors (the messages are
 * numpy.linalg's, NumPy 2); multi-output nodes (eigh's w and v are two results of one node,
 * one cuSOLVER step, parts of one buffer); the plans of eigh and cholesky (a copy, the library
 * step, a status check; cholesky's triangle mask fused with its consumers), and which routine
 * each takes by size: potrfBatched / syevjBatched for stacks of small matrices, potrf (its
 * workspace in the plan, captured) or syevd otherwise. */
#include "check.h"
#include "fuser/walk.h"
#include "inputs.h"
#include "plans.h"

#include <stdlib.h>
#include <string.h>

static int count(const loom_plan *p, loom_step_kind kind, int routine)
{
    int n = 0;
    for (int i = 0; p && i < p->nsteps; i++)
        n += p->steps[i].kind == kind && (routine < 0 || (int)p->steps[i].lib.routine == routine);
    return n;
}

static void test_eigh_results(void)
{
    static const struct { loom_dtype in, w, v; } cases[] = {
        {LOOM_FLOAT32, LOOM_FLOAT32, LOOM_FLOAT32},   {LOOM_FLOAT64, LOOM_FLOAT64, LOOM_FLOAT64},
        {LOOM_COMPLEX64, LOOM_FLOAT32, LOOM_COMPLEX64}, {LOOM_COMPLEX128, LOOM_FLOAT64, LOOM_COMPLEX128},
        {LOOM_INT8, LOOM_FLOAT64, LOOM_FLOAT64},      {LOOM_BOOL, LOOM_FLOAT64, LOOM_FLOAT64},
        {LOOM_UINT64, LOOM_FLOAT64, LOOM_FLOAT64},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        loom_scope_begin();
        loom_array *a = test_input(3, (int64_t[]){2, 4, 4}, cases[i].in), *w, *v;
        CHECK_EQ_INT(loom_linalg_eigh(a, &w, &v), LOOM_OK);
        CHECK(w && loom_dtype_of(w) == cases[i].w && v && loom_dtype_of(v) == cases[i].v);
        CHECK_SHAPE(w, 2, ((int64_t[]){2, 4}));
        CHECK_SHAPE(v, 3, ((int64_t[]){2, 4, 4}));
        loom_array *e = loom_linalg_eigvalsh_ex(a, 'U');
        CHECK(e && loom_dtype_of(e) == cases[i].w);
        CHECK_SHAPE(loom_linalg_cholesky(a), 3, ((int64_t[]){2, 4, 4}));
        CHECK(loom_dtype_of(loom_linalg_cholesky(a)) == cases[i].v);
        loom_scope_end();
    }
}

static void test_errors(void)
{
    loom_scope_begin();
    loom_array *w = NULL, *v = NULL;
    loom_array *vec = test_input(1, (int64_t[]){3}, LOOM_FLOAT32);
    loom_array *rect = test_input(2, (int64_t[]){2, 3}, LOOM_FLOAT32);
    loom_array *half = test_input(2, (int64_t[]){2, 2}, LOOM_FLOAT16);
    loom_array *bf = test_input(2, (int64_t[]){2, 2}, LOOM_BFLOAT16);
    loom_clear_error();
    CHECK_EQ_INT(loom_linalg_eigh(vec, &w, &v), LOOM_ERR_INVALID);
    CHECK(!w && !v && strstr(loom_last_error(), "loom_linalg_eigh: 1-dimensional array given. "
                                                "Array must be at least two-dimensional"));
    CHECK_EQ_INT(loom_linalg_eigh(rect, &w, &v), LOOM_ERR_INVALID);
    CHECK(strstr(loom_last_error(), "Last 2 dimensions of the array must be square"));
    CHECK_FAILS(loom_linalg_eigvalsh(half), "loom_linalg_eigvalsh",
                "array type float16 is unsupported in linalg");
    CHECK_FAILS(loom_linalg_cholesky(bf), "loom_linalg_cholesky",
                "array type bfloat16 is unsupported in linalg");
    CHECK_FAILS(loom_linalg_eigvalsh_ex(rect, 'X'), "loom_linalg_eigvalsh",
                "UPLO argument must be 'L' or 'U'");
    CHECK_FAILS(loom_linalg_cholesky(vec), "loom_linalg_cholesky", "1-dimensional array given");
    CHECK_EQ_INT(loom_linalg_eigh(rect, NULL, &v), LOOM_ERR_INVALID);
    /* a NULL input keeps the error that made it */
    loom_clear_error();
    CHECK_EQ_INT(loom_linalg_eigh(NULL, &w, &v), LOOM_ERR_INVALID);
    CHECK(strstr(loom_last_error(), "array 0 is NULL"));
    loom_scope_end();
}

/* eigh of a computed matrix: the matrix is written to memory, copied into the packed value and
 * decomposed in place; w is a part of that value; v (a transpose) is written by one kernel. */
static void test_eigh_plan(void)
{
    loom_scope_begin();
    loom_array *a = test_input(2, (int64_t[]){8, 8}, LOOM_FLOAT64), *w, *v;
    CHECK_EQ_INT(loom_linalg_eigh(loom_mul_scalar(a, 2.0), &w, &v), LOOM_OK);
    loom_array *both[2] = {w, v};
    loom_plan *p = test_plan(both, 2, true);
    CHECK_EQ_INT(count(p, LOOM_STEP_LIBRARY, LOOM_LIB_CUSOLVER_SYEVD), 1);
    CHECK_EQ_INT(count(p, LOOM_STEP_COPY, -1), 1);
    CHECK_EQ_INT(count(p, LOOM_STEP_KERNEL, -1), 2); /* 2*a, and v */
    if (p) {
        const loom_plan_buffer *bw = &p->buffers[p->outputs[0]];
        CHECK(bw->role == LOOM_BUF_ALIAS && p->buffers[bw->alias_of].role == LOOM_BUF_OUTPUT);
        CHECK_EQ_INT(bw->alias_offset, 0);
        CHECK_EQ_INT(bw->bytes, 8 * 8);
        CHECK_EQ_INT(p->nchecks, 1);
        CHECK(p->nchecks == 1 && strcmp(p->checks[0].fn, "loom_linalg_eigh") == 0 &&
              p->checks[0].count == 1 && p->buffers[p->checks[0].buffer].role == LOOM_BUF_STATUS);
        for (int i = 0; i < p->nsteps; i++) {
            if (p->steps[i].kind != LOOM_STEP_LIBRARY)
                continue;
            const loom_eigh_args *e = &p->steps[i].lib.args.eigh;
            CHECK(e->n == 8 && e->batch == 1 && e->vectors && e->upper); /* 'L' of row-major */
            CHECK(!loom__lib_info(p->steps[i].lib.routine)->capturable);
        }
    }
    loom__plan_free(p);
    /* w alone: no kernel at all */
    p = test_plan(&w, 1, true);
    CHECK(p && p->nsteps == 3 && count(p, LOOM_STEP_KERNEL, -1) == 1);
    loom__plan_free(p);
    loom_scope_end();
}

static bool all_capturable(const loom_plan *p)
{
    for (int i = 0; p && i < p->nsteps; i++)
        if (p->steps[i].kind == LOOM_STEP_LIBRARY &&
            !loom__lib_info(p->steps[i].lib.routine)->capturable)
            return false;
    return p != NULL;
}

static const loom_step *library_step(const loom_plan *p, int routine)
{
    for (int i = 0; p && i < p->nsteps; i++)
        if (p->steps[i].kind == LOOM_STEP_LIBRARY && (int)p->steps[i].lib.routine == routine)
            return &p->steps[i];
    return NULL;
}

static int fake_query(const char *fn, const loom_libcall *l, int device, size_t *bytes)
{
    (void)fn, (void)device;
    *bytes = l->routine == LOOM_LIB_CUSOLVER_POTRF ? 2048 : 0;
    return LOOM_OK;
}

/* cholesky of a stack of small matrices: copy, the pointer kernel, one potrfBatched, and the
 * triangle mask fused with the consumer into one kernel; all captured. */
static void test_cholesky_plan(void)
{
    loom_scope_begin();
    loom_array *a = test_input(3, (int64_t[]){3, 5, 5}, LOOM_FLOAT32);
    loom_array *y = loom_mul_scalar(loom_linalg_cholesky(a), 2.0);
    loom_plan *p = test_plan(&y, 1, true);
    CHECK(p && p->nsteps == 4);
    CHECK_EQ_INT(count(p, LOOM_STEP_COPY, -1), 1);
    CHECK_EQ_INT(count(p, LOOM_STEP_LIBRARY, LOOM_LIB_CUSOLVER_POTRF_BATCHED), 1);
    CHECK_EQ_INT(count(p, LOOM_STEP_LIBRARY, LOOM_LIB_CUSOLVER_POTRF), 0);
    CHECK_EQ_INT(count(p, LOOM_STEP_KERNEL, -1), 2);
    CHECK(all_capturable(p));
    CHECK(p && p->nchecks == 1 && strcmp(p->checks[0].fn, "loom_linalg_cholesky") == 0 &&
          p->checks[0].count == 3 && p->checks[0].failure == LOOM_FAIL_NOT_POSITIVE);
    const loom_step *s = library_step(p, LOOM_LIB_CUSOLVER_POTRF_BATCHED);
    CHECK(s && s->lib.args.potrf.upper && s->lib.args.potrf.batch == 3 &&
          s->lib.args.potrf.n == 5 && s->lib.workspace < 0);
    CHECK(s && p->steps[s - p->steps - 1].kind == LOOM_STEP_KERNEL); /* the pointers first */
    loom__plan_free(p);
    CHECK(test_compile_plan(&y, 1, true, false) > 0);
    loom_scope_end();
}

/* One matrix, and stacks of matrices above the batched order: potrf per matrix, its workspace
 * in the plan (the query's size), captured; upper=True reads the other triangle. */
static void test_cholesky_looped_plan(void)
{
    loom_scope_begin();
    struct {
        int nd;
        int64_t shape[3];
        int64_t batch;
    } cases[] = {{2, {7, 7}, 1}, {3, {2, 65, 65}, 2}, {3, {1, 3, 3}, 1}};
    loom_fuse_options o = loom__fuse_options_default();
    o.workspace_query = fake_query;
    for (int i = 0; i < 3; i++) {
        for (int up = 0; up < 2; up++) {
            loom_array *a = test_input(cases[i].nd, cases[i].shape, LOOM_COMPLEX128);
            loom_array *y = loom_linalg_cholesky_ex(a, up);
            loom_plan *p = loom__plan_build("test", &y, 1, &o);
            const loom_step *s = library_step(p, LOOM_LIB_CUSOLVER_POTRF);
            CHECK(s && s->lib.args.potrf.batch == cases[i].batch && s->lib.workspace >= 0 &&
                  s->lib.workspace_bytes == 2048 && s->lib.args.potrf.upper == !up);
            CHECK_EQ_INT(count(p, LOOM_STEP_LIBRARY, LOOM_LIB_CUSOLVER_POTRF_BATCHED), 0);
            CHECK(all_capturable(p));
            loom__plan_free(p);
        }
    }
    loom_scope_end();
}

/* LOOM_LINALG_BATCHED=0: stacks of small matrices take the per-matrix routines. */
static void test_batched_switch(void)
{
    loom_scope_begin();
    setenv("LOOM_LINALG_BATCHED", "0", 1);
    loom_fuse_options o = loom__fuse_options_default();
    unsetenv("LOOM_LINALG_BATCHED");
    CHECK(o.linalg_loop && !loom__fuse_options_default().linalg_loop);
    loom_array *a = test_input(3, (int64_t[]){6, 4, 4}, LOOM_FLOAT64), *w, *v, *q, *r;
    CHECK_EQ_INT(loom_linalg_eigh(a, &w, &v), LOOM_OK);
    CHECK_EQ_INT(loom_linalg_qr(a, "reduced", &q, &r), LOOM_OK);
    loom_array *outs[6] = {loom_linalg_cholesky(a), w, v, q, r, loom_linalg_inv(a)};
    const int looped[4] = {LOOM_LIB_CUSOLVER_POTRF, LOOM_LIB_CUSOLVER_SYEVD,
                           LOOM_LIB_CUSOLVER_GEQRF, LOOM_LIB_CUSOLVER_GETRF};
    const int batched[4] = {LOOM_LIB_CUSOLVER_POTRF_BATCHED, LOOM_LIB_CUSOLVER_SYEVJ_BATCHED,
                            LOOM_LIB_CUBLAS_GEQRF_BATCHED, LOOM_LIB_CUBLAS_GETRF_BATCHED};
    loom_plan *p = loom__plan_build("test", outs, 6, &o);
    for (int i = 0; i < 4; i++)
        CHECK(library_step(p, looped[i]) && !library_step(p, batched[i]));
    loom__plan_free(p);
    p = test_plan(outs, 6, true);
    for (int i = 0; i < 4; i++)
        CHECK(!library_step(p, looped[i]) && library_step(p, batched[i]));
    loom__plan_free(p);
    /* the setting is part of the plan-cache key: a cached batched plan is not reused */
    loom_walk walk;
    char *key[2] = {NULL, NULL};
    size_t len[2] = {0, 0};
    loom_fuse_options both[2] = {loom__fuse_options_default(), o};
    if (loom__walk_build("test", &walk, outs, 1) == 0) {
        for (int i = 0; i < 2; i++)
            CHECK_EQ_INT(loom__plan_key(&walk, &both[i], &key[i], &len[i]), 0);
        loom__walk_free(&walk);
    }
    CHECK(key[0] && key[1] && (len[0] != len[1] || memcmp(key[0], key[1], len[0]) != 0));
    free(key[0]);
    free(key[1]);
    loom_scope_end();
}

/* eigh of stacks of tiny matrices: one syevjBatched call (an eager step, as syevd); one
 * matrix, or stacks of larger ones: syevd. */
static void test_eigh_routines(void)
{
    loom_scope_begin();
    struct {
        int nd;
        int64_t shape[3];
        int routine;
    } cases[] = {{3, {5, 8, 8}, LOOM_LIB_CUSOLVER_SYEVJ_BATCHED},
                 {3, {2, 32, 32}, LOOM_LIB_CUSOLVER_SYEVJ_BATCHED},
                 {3, {2, 33, 33}, LOOM_LIB_CUSOLVER_SYEVD},
                 {3, {1, 8, 8}, LOOM_LIB_CUSOLVER_SYEVD},
                 {2, {8, 8}, LOOM_LIB_CUSOLVER_SYEVD}};
    for (int i = 0; i < 5; i++) {
        loom_array *a = test_input(cases[i].nd, cases[i].shape, LOOM_FLOAT32), *w, *v;
        CHECK_EQ_INT(loom_linalg_eigh(a, &w, &v), LOOM_OK);
        loom_array *both[2] = {w, v};
        loom_plan *p = test_plan(both, 2, true);
        const loom_step *s = library_step(p, cases[i].routine);
        CHECK(s && s->lib.args.eigh.vectors && s->lib.args.eigh.n == cases[i].shape[1]);
        CHECK(s && !loom__lib_info(s->lib.routine)->capturable);
        CHECK_EQ_INT(count(p, LOOM_STEP_LIBRARY, -1), 1);
        loom__plan_free(p);
        /* eigvalsh takes the same routine, without vectors */
        loom_array *wo = loom_linalg_eigvalsh(a);
        p = test_plan(&wo, 1, true);
        s = library_step(p, cases[i].routine);
        CHECK(s && !s->lib.args.eigh.vectors);
        loom__plan_free(p);
    }
    loom_scope_end();
}

static void test_triangles(void)
{
    loom_scope_begin();
    loom_array *b = test_input(2, (int64_t[]){3, 4}, LOOM_BOOL);
    CHECK(loom_dtype_of(loom_tril(b, 0)) == LOOM_BOOL && loom_dtype_of(loom_triu(b, -1)) == LOOM_BOOL);
    CHECK_SHAPE(loom_tril(b, 1), 2, ((int64_t[]){3, 4}));
    /* a 1-D input is a row repeated: (4,) gives (4, 4), as NumPy */
    CHECK_SHAPE(loom_triu(test_input(1, (int64_t[]){4}, LOOM_INT16), 0), 2, ((int64_t[]){4, 4}));
    CHECK_FAILS(loom_tril(loom_scalar(1.0), 0), "loom_tril", "input must be at least 1-d");
    loom_scope_end();
}

int main(void)
{
    test_eigh_results();
    test_errors();
    test_eigh_plan();
    test_cholesky_plan();
    test_cholesky_looped_plan();
    test_eigh_routines();
    test_batched_switch();
    test_triangles();
    return check_summary("test_linalg");
}
