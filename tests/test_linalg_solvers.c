#define _POSIX_C_SOURCE 200809L
/* inv, solve, det, slogdet, svd, svdvals, qr, eig, eigvals, matrix_rank, pinv, cond,
 * (svd, pinv and matrix_rank with hermitian=True), tensorinv, tensorsolve and lstsq's errors
 * without a GPU: result dtypes, shapes and errors against NumPy 2
 * (tests/data/linalg.txt, tools/gen_linalg_cases.py), and their plans: one matrix goes to
 * cuSOLVER's getrf and getrs with the workspace in the plan, stacks of small matrices to
 * cuBLAS's batched routines fed by pointer-array kernels, every step capturable; a singular
 * matrix is a status check for inv and solve and none for det, whose reductions fuse. */
#include "check.h"
#include "inputs.h"
#include "plans.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static int count(const loom_plan *p, loom_step_kind kind, int routine)
{
    int n = 0;
    for (int i = 0; p && i < p->nsteps; i++)
        n += p->steps[i].kind == kind && (routine < 0 || (int)p->steps[i].lib.routine == routine);
    return n;
}

static int parse_list(const char *s, int64_t *v)
{
    int n = 0;
    while (*s && n < LOOM_MAXDIMS) {
        char *end;
        v[n++] = strtoll(s, &end, 10);
        if (end == s)
            return n - 1;
        s = *end == ',' ? end + 1 : end;
    }
    return n;
}

static loom_array *operand(const char *tok)
{
    char dt[32];
    const char *colon = strchr(tok, ':');
    if (!colon || colon - tok >= (long)sizeof dt)
        return NULL;
    memcpy(dt, tok, (size_t)(colon - tok));
    dt[colon - tok] = '\0';
    int64_t shape[LOOM_MAXDIMS];
    int nd = parse_list(colon + 1, shape);
    return test_input(nd, shape, loom_dtype_from_name(dt));
}

static bool result_is(loom_array *r, const char *dt, const char *shape)
{
    int64_t dims[LOOM_MAXDIMS];
    int nd = parse_list(shape + 2, dims);
    bool ok = r && !strcmp(loom_dtype_name(loom_dtype_of(r)), dt) && loom_ndim(r) == nd;
    for (int i = 0; ok && i < nd; i++)
        ok = loom_shape(r)[i] == dims[i];
    return ok;
}

static void check_line(const char *line)
{
    const char *arrow = strstr(line, " -> ");
    char left[512];
    if (!arrow || arrow - line >= (long)sizeof left) {
        CHECK(!"bad line in linalg.txt");
        return;
    }
    memcpy(left, line, (size_t)(arrow - line));
    left[arrow - line] = '\0';
    char *fn = strtok(left, " "), *cnt = strtok(NULL, " ");
    int n = cnt ? atoi(cnt) : 0;
    loom_scope_begin();
    loom_array *ops[2] = {0};
    for (int i = 0; i < n && i < 2; i++)
        ops[i] = operand(strtok(NULL, " "));
    loom_clear_error();
    loom_array *r[3] = {0};
    if (!strcmp(fn, "inv"))
        r[0] = loom_linalg_inv(ops[0]);
    else if (!strcmp(fn, "det"))
        r[0] = loom_linalg_det(ops[0]);
    else if (!strcmp(fn, "solve"))
        r[0] = loom_linalg_solve(ops[0], ops[1]);
    else if (!strcmp(fn, "slogdet"))
        loom_linalg_slogdet(ops[0], &r[0], &r[1]);
    else if (!strcmp(fn, "svd_full") || !strcmp(fn, "svd_reduced"))
        loom_linalg_svd(ops[0], !strcmp(fn, "svd_full"), &r[0], &r[1], &r[2]);
    else if (!strcmp(fn, "svdvals"))
        r[0] = loom_linalg_svdvals(ops[0]);
    else if (!strcmp(fn, "eig"))
        loom_linalg_eig(ops[0], &r[0], &r[1]);
    else if (!strcmp(fn, "eigvals"))
        r[0] = loom_linalg_eigvals(ops[0]);
    else if (!strcmp(fn, "matrix_rank"))
        r[0] = loom_linalg_matrix_rank(ops[0]);
    else if (!strcmp(fn, "pinv"))
        r[0] = loom_linalg_pinv(ops[0]);
    else if (!strcmp(fn, "pinv_hermitian"))
        r[0] = loom_linalg_pinv_hermitian(ops[0], NAN);
    else if (!strcmp(fn, "matrix_rank_hermitian"))
        r[0] = loom_linalg_matrix_rank_hermitian(ops[0], NAN, NAN);
    else if (!strcmp(fn, "svd_hermitian"))
        loom_linalg_svd_hermitian(ops[0], true, &r[0], &r[1], &r[2]);
    else if (!strcmp(fn, "svd_hermitianvals"))
        loom_linalg_svd_hermitian(ops[0], false, NULL, &r[0], NULL);
    else if (!strcmp(fn, "cond_fro") || !strcmp(fn, "cond_nuc"))
        r[0] = loom_linalg_cond_str(ops[0], fn + 5);
    else if (!strncmp(fn, "cond_", 5))
        r[0] = loom_linalg_cond(ops[0], !strcmp(fn, "cond_none") ? NAN : !strcmp(fn, "cond_m2") ? -2
                                         : !strcmp(fn, "cond_1") ? 1 : INFINITY);
    else if (!strncmp(fn, "tensorinv_", 10))
        r[0] = loom_linalg_tensorinv(ops[0], atoi(fn + 10));
    else if (!strcmp(fn, "tensorsolve"))
        r[0] = loom_linalg_tensorsolve(ops[0], ops[1], NULL, 0);
    else if (!strcmp(fn, "tensorsolve_axes"))
        r[0] = loom_linalg_tensorsolve(ops[0], ops[1], (const int[]){0, 2}, 2);
    else if (!strcmp(fn, "lstsq")) {
        /* lstsq reads the rank: without a device only its argument errors are checked here */
        if (strncmp(arrow + 4, "err ", 4)) {
            loom_scope_end();
            return;
        }
        int64_t rank;
        loom_linalg_lstsq(ops[0], ops[1], NAN, &r[0], &r[1], &rank, &r[2]);
    } else if (!strcmp(fn, "qr_r"))
        loom_linalg_qr(ops[0], "r", NULL, &r[0]);
    else if (!strncmp(fn, "qr_", 3))
        loom_linalg_qr(ops[0], fn + 3, &r[0], &r[1]);
    const char *verdict = arrow + 4;
    bool ok;
    if (!strncmp(verdict, "err ", 4)) {
        char want[64];
        /* the function's name: the case's up to its first '_' option ("svd_full": svd) */
        char base[32];
        bool rank = !strncmp(fn, "matrix_rank", 11);
        snprintf(base, sizeof base, "%s", rank ? "matrix_rank" : fn);
        if (!rank)
            base[strcspn(base, "_")] = '\0';
        snprintf(want, sizeof want, "loom_linalg_%s: ", base);
        const char *e = loom_last_error();
        ok = !r[0] && !r[1] && !r[2] && e && !strncmp(e, want, strlen(want)) &&
             strstr(e, verdict + 4);
    } else {
        char dt[3][32], sh[3][300];
        int got = sscanf(verdict, "ok %31s %299s %31s %299s %31s %299s", dt[0], sh[0], dt[1],
                         sh[1], dt[2], sh[2]) / 2;
        ok = got >= 1;
        for (int i = 0; i < 3; i++)
            ok = ok && (i < got ? result_is(r[i], dt[i], sh[i]) : !r[i]);
    }
    check_count++;
    if (!ok) {
        check_failures++;
        fprintf(stderr, "FAIL linalg.txt: %s\n  got %s\n", line,
                r[0] ? loom_dtype_name(loom_dtype_of(r[0])) : loom_last_error());
    }
    loom_scope_end();
}

static void test_numpy_table(void)
{
    char path[1024], line[1024];
    snprintf(path, sizeof path, "%s/linalg.txt", LOOM_TEST_DATA);
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    int cases = 0;
    while (f && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        if (line[0] == '#' || !line[0])
            continue;
        check_line(line);
        cases++;
    }
    if (f)
        fclose(f);
    CHECK(cases > 500);
}

static const loom_step *library_step(const loom_plan *p, int routine)
{
    for (int i = 0; p && i < p->nsteps; i++)
        if (p->steps[i].kind == LOOM_STEP_LIBRARY && (int)p->steps[i].lib.routine == routine)
            return &p->steps[i];
    return NULL;
}

static bool all_capturable(const loom_plan *p)
{
    for (int i = 0; p && i < p->nsteps; i++)
        if (p->steps[i].kind == LOOM_STEP_LIBRARY && !loom__lib_info(p->steps[i].lib.routine)->capturable)
            return false;
    return p != NULL;
}

/* inv of one matrix: copy A, getrf, copy I, getrs (no transpose: inv solves M X = I). */
static void test_inv_plan(void)
{
    loom_scope_begin();
    loom_array *a = test_input(2, (int64_t[]){50, 50}, LOOM_FLOAT64);
    loom_array *y = loom_linalg_inv(a);
    loom_plan *p = test_plan(&y, 1, true);
    CHECK_EQ_INT(count(p, LOOM_STEP_LIBRARY, LOOM_LIB_CUSOLVER_GETRF), 1);
    CHECK_EQ_INT(count(p, LOOM_STEP_LIBRARY, LOOM_LIB_CUSOLVER_GETRS), 1);
    CHECK_EQ_INT(count(p, LOOM_STEP_COPY, -1), 2);
    CHECK_EQ_INT(count(p, LOOM_STEP_KERNEL, -1), 1); /* the identity written once */
    CHECK(all_capturable(p));
    CHECK(p && p->nchecks == 1 && !strcmp(p->checks[0].fn, "loom_linalg_inv") &&
          p->checks[0].failure == LOOM_FAIL_SINGULAR && p->checks[0].count == 1);
    const loom_step *s = library_step(p, LOOM_LIB_CUSOLVER_GETRS);
    CHECK(s && !s->lib.args.lu.trans && s->lib.args.lu.n == 50 && s->lib.args.lu.nrhs == 50);
    loom__plan_free(p);
    loom_scope_end();
}

/* The workspace of getrf is part of the plan, of the size the query gives. */
static int fake_query(const char *fn, const loom_libcall *l, int device, size_t *bytes)
{
    (void)fn, (void)device;
    *bytes = l->routine == LOOM_LIB_CUSOLVER_GETRF ? 4096 : 0;
    return LOOM_OK;
}

static int fake_query_all(const char *fn, const loom_libcall *l, int device, size_t *bytes)
{
    (void)fn, (void)l, (void)device;
    *bytes = 4096;
    return LOOM_OK;
}

static void test_workspace_in_plan(void)
{
    loom_scope_begin();
    loom_array *a = test_input(2, (int64_t[]){50, 50}, LOOM_FLOAT32);
    loom_array *y = loom_linalg_det(a);
    loom_fuse_options o = loom__fuse_options_default();
    o.workspace_query = fake_query;
    loom_plan *p = loom__plan_build("test", &y, 1, &o);
    const loom_step *s = library_step(p, LOOM_LIB_CUSOLVER_GETRF);
    CHECK(s && s->lib.workspace >= 0 && s->lib.workspace_bytes == 4096);
    CHECK(s && p->buffers[s->lib.workspace].role == LOOM_BUF_TEMP &&
          p->buffers[s->lib.workspace].bytes == 4096);
    loom__plan_free(p);
    loom_scope_end();
}

/* solve: b's transpose written contiguous; getrs with the transpose; x = a view back. */
static void test_solve_plan(void)
{
    loom_scope_begin();
    loom_array *a = test_input(2, (int64_t[]){100, 100}, LOOM_FLOAT64);
    loom_array *b = test_input(2, (int64_t[]){100, 3}, LOOM_FLOAT64);
    loom_array *x = loom_mul_scalar(loom_linalg_solve(a, b), 2.0);
    loom_plan *p = test_plan(&x, 1, true);
    const loom_step *s = library_step(p, LOOM_LIB_CUSOLVER_GETRS);
    CHECK(s && s->lib.args.lu.trans && s->lib.args.lu.nrhs == 3 && s->lib.args.lu.batch == 1);
    CHECK(p && p->nchecks == 1 && !strcmp(p->checks[0].fn, "loom_linalg_solve"));
    CHECK(all_capturable(p));
    loom__plan_free(p);
    /* a vector right-hand side: its (1, m) view is written once, and the requested (m,) view
     * of the solution too (as any requested view of a library result) */
    loom_array *v = loom_linalg_solve(a, test_input(1, (int64_t[]){100}, LOOM_FLOAT64));
    p = test_plan(&v, 1, true);
    CHECK_EQ_INT(count(p, LOOM_STEP_KERNEL, -1), 2);
    CHECK_EQ_INT(count(p, LOOM_STEP_LIBRARY, -1), 2);
    loom__plan_free(p);
    loom_scope_end();
}

/* 10000 8x8 matrices: one batched getrf and one batched getrs, pointer arrays by kernels. */
static void test_batched_plan(void)
{
    loom_scope_begin();
    loom_array *a = test_input(3, (int64_t[]){10000, 8, 8}, LOOM_FLOAT32);
    loom_array *y = loom_linalg_inv(a);
    loom_plan *p = test_plan(&y, 1, true);
    CHECK_EQ_INT(count(p, LOOM_STEP_LIBRARY, -1), 2);
    const loom_step *f = library_step(p, LOOM_LIB_CUBLAS_GETRF_BATCHED);
    const loom_step *s = library_step(p, LOOM_LIB_CUBLAS_GETRS_BATCHED);
    CHECK(f && f->lib.args.lu.batch == 10000 && f->lib.args.lu.n == 8);
    CHECK(s && s->lib.args.lu.nrhs == 8 && !s->lib.args.lu.trans);
    CHECK_EQ_INT(count(p, LOOM_STEP_KERNEL, -1), 4); /* identity, 3 pointer arrays */
    CHECK(all_capturable(p));
    CHECK(p && p->nchecks == 1 && p->checks[0].count == 10000);
    int ptr_kernels = 0;
    for (int i = 0; p && i < p->nsteps; i++)
        ptr_kernels += p->steps[i].kind == LOOM_STEP_KERNEL &&
                       !strncmp(p->steps[i].kernel.name, "loom_ptrs_", 10);
    CHECK_EQ_INT(ptr_kernels, 3);
    CHECK(test_compile_plan(&y, 1, true, false) > 0); /* the pointer kernels compile */
    loom__plan_free(p);
    /* a stack of large matrices: one cuSOLVER call per matrix */
    loom_array *big = test_input(3, (int64_t[]){3, 100, 100}, LOOM_FLOAT64);
    loom_array *z = loom_linalg_inv(big);
    p = test_plan(&z, 1, true);
    CHECK(library_step(p, LOOM_LIB_CUSOLVER_GETRF) && library_step(p, LOOM_LIB_CUSOLVER_GETRS));
    loom__plan_free(p);
    loom_scope_end();
}

/* det: getrf with its status in scratch (no check), then one reduction kernel for the
 * diagonal's product and the pivots' parity. */
static void test_det_plan(void)
{
    loom_scope_begin();
    loom_array *a = test_input(3, (int64_t[]){4, 6, 6}, LOOM_FLOAT64);
    loom_array *d = loom_linalg_det(a);
    loom_plan *p = test_plan(&d, 1, true);
    CHECK(p && p->nchecks == 0);
    CHECK_EQ_INT(count(p, LOOM_STEP_LIBRARY, LOOM_LIB_CUBLAS_GETRF_BATCHED), 1);
    CHECK(count(p, LOOM_STEP_KERNEL, -1) <= 3); /* pointers, then the reductions */
    CHECK(test_compile_plan(&d, 1, true, false) > 0);
    loom__plan_free(p);
    loom_array *s, *l;
    CHECK_EQ_INT(loom_linalg_slogdet(loom_astype(a, LOOM_COMPLEX64), &s, &l), LOOM_OK);
    CHECK(loom_dtype_of(s) == LOOM_COMPLEX64 && loom_dtype_of(l) == LOOM_FLOAT32);
    loom_array *both[2] = {s, l};
    CHECK(test_compile_plan(both, 2, true, false) > 0);
    loom_scope_end();
}

/* svd: a copy into scratch and one eager step (it splits CUDA Graph segments); a wide matrix
 * is read as it lies (its Vh is cuSOLVER's U read row-major: no kernel), a tall one through its
 * transpose (one kernel writes it); u * s fuses into one kernel after the step. */
static void test_svd_plan(void)
{
    loom_scope_begin();
    loom_array *wide = test_input(2, (int64_t[]){300, 500}, LOOM_FLOAT64), *u, *s, *vh;
    CHECK_EQ_INT(loom_linalg_svd(wide, false, &u, &s, &vh), LOOM_OK);
    CHECK_SHAPE(u, 2, ((int64_t[]){300, 300}));
    CHECK_SHAPE(vh, 2, ((int64_t[]){300, 500}));
    loom_plan *p = test_plan(&vh, 1, true);
    CHECK(p && p->nsteps == 2 && count(p, LOOM_STEP_COPY, -1) == 1);
    const loom_step *st = library_step(p, LOOM_LIB_CUSOLVER_SVD);
    CHECK(st && !loom__lib_info(st->lib.routine)->capturable);
    CHECK(st && st->lib.args.svd.rows == 500 && st->lib.args.svd.cols == 300 &&
          st->lib.args.svd.vectors && !st->lib.args.svd.full &&
          st->lib.args.svd.driver == LOOM_SVD_AUTO && st->lib.args.svd.batch == 1);
    CHECK(p && p->nchecks == 1 && !strcmp(p->checks[0].fn, "loom_linalg_svd") &&
          p->checks[0].failure == LOOM_FAIL_SVD);
    loom__plan_free(p);
    loom_array *us = loom_multiply(u, loom_expand_dims(s, 0));
    p = test_plan(&us, 1, true);
    CHECK_EQ_INT(count(p, LOOM_STEP_KERNEL, -1), 1);
    loom__plan_free(p);
    CHECK(test_compile_plan(&us, 1, true, false) > 0);

    loom_array *tall = test_input(3, (int64_t[]){4, 7, 3}, LOOM_COMPLEX64);
    CHECK_EQ_INT(loom_linalg_svd_ex(tall, true, true, LOOM_SVD_GESVDJ, &u, &s, &vh), LOOM_OK);
    CHECK_SHAPE(u, 3, ((int64_t[]){4, 7, 7}));
    CHECK(loom_dtype_of(s) == LOOM_FLOAT32);
    p = test_plan(&s, 1, true);
    CHECK_EQ_INT(count(p, LOOM_STEP_KERNEL, -1), 1); /* the transpose, written contiguous */
    st = library_step(p, LOOM_LIB_CUSOLVER_SVD);
    CHECK(st && st->lib.args.svd.rows == 7 && st->lib.args.svd.cols == 3 &&
          st->lib.args.svd.full && st->lib.args.svd.batch == 4 &&
          st->lib.args.svd.driver == LOOM_SVD_GESVDJ);
    loom__plan_free(p);
    /* an int8 tall matrix: cast and transpose in one kernel */
    loom_array *sv8 = loom_linalg_svdvals(test_input(2, (int64_t[]){9, 4}, LOOM_INT8));
    p = test_plan(&sv8, 1, true);
    CHECK(loom_dtype_of(sv8) == LOOM_FLOAT64 && count(p, LOOM_STEP_KERNEL, -1) == 1);
    loom__plan_free(p);
    /* svdvals: no vectors, its own name in the check */
    loom_array *sv = loom_linalg_svdvals(wide);
    p = test_plan(&sv, 1, true);
    st = library_step(p, LOOM_LIB_CUSOLVER_SVD);
    CHECK(st && !st->lib.args.svd.vectors);
    CHECK(p && p->nchecks == 1 && !strcmp(p->checks[0].fn, "loom_linalg_svdvals"));
    loom__plan_free(p);
    /* errors */
    loom_clear_error();
    CHECK_EQ_INT(loom_linalg_svd_ex(wide, true, true, (loom_svd_driver)9, &u, &s, &vh),
                 LOOM_ERR_INVALID);
    CHECK(!u && !s && !vh && strstr(loom_last_error(), "loom_linalg_svd: unknown driver 9"));
    CHECK_EQ_INT(loom_linalg_svd(wide, true, NULL, &s, &vh), LOOM_ERR_INVALID);
    CHECK_EQ_INT(loom_linalg_svd_ex(wide, true, false, LOOM_SVD_AUTO, NULL, &s, NULL), LOOM_OK);
    CHECK(s && loom_ndim(s) == 1);
    loom_scope_end();
}

/* qr: the transposed view written once, copy, geqrf, orgqr, all capturable, workspaces in
 * the plan; r is a triangle mask over a view of the factored matrix, fused into one kernel. */
static void test_qr_plan(void)
{
    loom_scope_begin();
    /* 70 rows: above geqrfBatched's order, one geqrf call per matrix */
    loom_array *a = test_input(3, (int64_t[]){2, 70, 30}, LOOM_FLOAT64), *q, *r;
    CHECK_EQ_INT(loom_linalg_qr(a, "complete", &q, &r), LOOM_OK);
    CHECK_SHAPE(q, 3, ((int64_t[]){2, 70, 70}));
    CHECK_SHAPE(r, 3, ((int64_t[]){2, 70, 30}));
    loom_fuse_options o = loom__fuse_options_default();
    o.workspace_query = fake_query_all;
    loom_array *both[2] = {q, r};
    loom_plan *p = loom__plan_build("test", both, 2, &o);
    const loom_step *f = library_step(p, LOOM_LIB_CUSOLVER_GEQRF);
    const loom_step *g = library_step(p, LOOM_LIB_CUSOLVER_ORGQR);
    CHECK(f && f->lib.args.qr.m == 70 && f->lib.args.qr.n == 30 && f->lib.args.qr.k == 30 &&
          f->lib.args.qr.batch == 2 && f->lib.workspace >= 0);
    CHECK(g && g->lib.args.qr.qcols == 70 && g->lib.workspace_bytes == 4096);
    CHECK(!library_step(p, LOOM_LIB_CUBLAS_GEQRF_BATCHED));
    CHECK(all_capturable(p));
    CHECK(p && p->nchecks == 0);
    CHECK_EQ_INT(count(p, LOOM_STEP_KERNEL, -1), 3); /* a^T, then q and r written */
    loom__plan_free(p);
    CHECK(test_compile_plan(both, 2, true, false) > 0);
    /* a stack of small matrices: geqrfBatched (pointer kernels for h and tau), then orgqr
     * per matrix; mode r: geqrfBatched alone */
    loom_array *small = test_input(3, (int64_t[]){4, 6, 5}, LOOM_COMPLEX64);
    CHECK_EQ_INT(loom_linalg_qr(small, "reduced", &q, &r), LOOM_OK);
    loom_array *qr_small[2] = {q, r};
    p = loom__plan_build("test", qr_small, 2, &o);
    f = library_step(p, LOOM_LIB_CUBLAS_GEQRF_BATCHED);
    g = library_step(p, LOOM_LIB_CUSOLVER_ORGQR);
    CHECK(f && f->lib.args.qr.m == 6 && f->lib.args.qr.n == 5 && f->lib.args.qr.batch == 4 &&
          f->lib.workspace < 0 && f->lib.nbuffers == 2);
    CHECK(f && p->steps[f - p->steps - 1].kind == LOOM_STEP_KERNEL &&
          p->steps[f - p->steps - 2].kind == LOOM_STEP_KERNEL);
    CHECK(g && g->lib.args.qr.qcols == 5 && g->lib.args.qr.batch == 4 && g->lib.workspace >= 0);
    CHECK(!library_step(p, LOOM_LIB_CUSOLVER_GEQRF));
    CHECK(all_capturable(p));
    loom__plan_free(p);
    CHECK(test_compile_plan(qr_small, 2, true, false) > 0);
    CHECK_EQ_INT(loom_linalg_qr(small, "r", NULL, &r), LOOM_OK);
    p = test_plan(&r, 1, true);
    CHECK(library_step(p, LOOM_LIB_CUBLAS_GEQRF_BATCHED) &&
          !library_step(p, LOOM_LIB_CUSOLVER_ORGQR) && !library_step(p, LOOM_LIB_CUSOLVER_GEQRF));
    CHECK(all_capturable(p));
    loom__plan_free(p);
    /* wide matrices (a 5 x 7: cuSOLVER's column-major m = 5, n = 7): geqrf per matrix */
    CHECK_EQ_INT(loom_linalg_qr(test_input(3, (int64_t[]){4, 5, 7}, LOOM_FLOAT64), "r", NULL,
                                &r),
                 LOOM_OK);
    p = test_plan(&r, 1, true);
    f = library_step(p, LOOM_LIB_CUSOLVER_GEQRF);
    CHECK(f && f->lib.args.qr.m == 5 && f->lib.args.qr.n == 7 &&
          !library_step(p, LOOM_LIB_CUBLAS_GEQRF_BATCHED));
    loom__plan_free(p);
    /* one matrix: geqrf */
    CHECK_EQ_INT(loom_linalg_qr(test_input(2, (int64_t[]){6, 5}, LOOM_FLOAT32), "r", NULL, &r),
                 LOOM_OK);
    p = test_plan(&r, 1, true);
    CHECK(library_step(p, LOOM_LIB_CUSOLVER_GEQRF) &&
          !library_step(p, LOOM_LIB_CUBLAS_GEQRF_BATCHED));
    loom__plan_free(p);
    /* mode r: no orgqr */
    CHECK_EQ_INT(loom_linalg_qr(a, "r", NULL, &r), LOOM_OK);
    CHECK_SHAPE(r, 3, ((int64_t[]){2, 30, 30}));
    p = test_plan(&r, 1, true);
    CHECK(library_step(p, LOOM_LIB_CUSOLVER_GEQRF) && !library_step(p, LOOM_LIB_CUSOLVER_ORGQR));
    loom__plan_free(p);
    loom_clear_error();
    CHECK_EQ_INT(loom_linalg_qr(a, "economic", &q, &r), LOOM_ERR_INVALID);
    CHECK(!q && !r && strstr(loom_last_error(), "loom_linalg_qr: Unrecognized mode 'economic'"));
    CHECK_EQ_INT(loom_linalg_qr(a, "reduced", NULL, &r), LOOM_ERR_INVALID);
    CHECK(strstr(loom_last_error(), "loom_linalg_qr: q must not be NULL in mode 'reduced'"));
    loom_scope_end();
}

/* eig: the complex transpose written once, copied to scratch, one eager geev step with a
 * status check; eigvals reads the matrix as it lies (no kernel before the copy). */
static void test_eig_plan(void)
{
    loom_scope_begin();
    loom_array *a = test_input(3, (int64_t[]){3, 6, 6}, LOOM_FLOAT64), *w, *v;
    CHECK_EQ_INT(loom_linalg_eig(a, &w, &v), LOOM_OK);
    CHECK(loom_dtype_of(w) == LOOM_COMPLEX128 && loom_dtype_of(v) == LOOM_COMPLEX128);
    loom_array *both[2] = {w, v};
    loom_plan *p = test_plan(both, 2, true);
    const loom_step *st = library_step(p, LOOM_LIB_CUSOLVER_GEEV);
    CHECK(st && st->lib.args.eig.n == 6 && st->lib.args.eig.batch == 3 &&
          st->lib.args.eig.vectors && !loom__lib_info(st->lib.routine)->capturable);
    CHECK(p && p->nchecks == 1 && !strcmp(p->checks[0].fn, "loom_linalg_eig") &&
          p->checks[0].failure == LOOM_FAIL_NO_CONVERGENCE && p->checks[0].count == 3);
    CHECK_EQ_INT(count(p, LOOM_STEP_COPY, -1), 1);
    CHECK_EQ_INT(count(p, LOOM_STEP_KERNEL, -1), 2); /* the complex transpose in, v out */
    loom__plan_free(p);
    CHECK(test_compile_plan(both, 2, true, false) > 0);
    loom_array *e = loom_linalg_eigvals(loom_astype(a, LOOM_COMPLEX64));
    p = test_plan(&e, 1, true);
    CHECK(p && count(p, LOOM_STEP_KERNEL, -1) == 1 && p->nchecks == 1 &&
          !strcmp(p->checks[0].fn, "loom_linalg_eigvals")); /* the cast */
    st = library_step(p, LOOM_LIB_CUSOLVER_GEEV);
    CHECK(st && !st->lib.args.eig.vectors);
    loom__plan_free(p);
    loom_scope_end();
}

/* hermitian=True: one eigh step (eigenvectors only where they are used), no SVD step. */
static void test_hermitian_plans(void)
{
    loom_scope_begin();
    loom_array *a = test_input(3, (int64_t[]){4, 6, 6}, LOOM_COMPLEX64), *u, *s, *vh;
    CHECK_EQ_INT(loom_linalg_svd_hermitian(a, true, &u, &s, &vh), LOOM_OK);
    CHECK(loom_dtype_of(s) == LOOM_FLOAT32 && loom_dtype_of(u) == LOOM_COMPLEX64 &&
          loom_dtype_of(vh) == LOOM_COMPLEX64);
    loom_array *all[3] = {u, s, vh};
    loom_array *r = loom_linalg_matrix_rank_hermitian(a, NAN, NAN);
    loom_array *pi = loom_linalg_pinv_hermitian(a, NAN);
    CHECK_SHAPE(r, 1, ((int64_t[]){4}));
    CHECK_SHAPE(pi, 3, ((int64_t[]){4, 6, 6}));
    struct {
        loom_array *const *arrays;
        int n;
        bool vectors;
    } cases[] = {{all, 3, true}, {&r, 1, false}, {&pi, 1, true}};
    for (int i = 0; i < 3; i++) {
        loom_plan *p = test_plan(cases[i].arrays, cases[i].n, true);
        /* a stack of 6 x 6 matrices: syevjBatched */
        CHECK_EQ_INT(count(p, LOOM_STEP_LIBRARY, LOOM_LIB_CUSOLVER_SYEVJ_BATCHED), 1);
        CHECK_EQ_INT(count(p, LOOM_STEP_LIBRARY, LOOM_LIB_CUSOLVER_SVD), 0);
        const loom_step *e = library_step(p, LOOM_LIB_CUSOLVER_SYEVJ_BATCHED);
        CHECK(e && e->lib.args.eigh.vectors == cases[i].vectors && e->lib.args.eigh.batch == 4);
        loom__plan_free(p);
    }
    /* values only: u and vh may be NULL; a non-square matrix is eigh's error under svd's name */
    CHECK_EQ_INT(loom_linalg_svd_hermitian(a, false, NULL, &s, NULL), LOOM_OK);
    CHECK_SHAPE(s, 2, ((int64_t[]){4, 6}));
    loom_array *wide = test_input(2, (int64_t[]){2, 3}, LOOM_FLOAT64);
    CHECK(loom_linalg_svd_hermitian(wide, true, &u, &s, &vh) == LOOM_ERR_INVALID && !u && !s &&
          !vh);
    CHECK(loom_last_error() &&
          strstr(loom_last_error(), "loom_linalg_svd: Last 2 dimensions of the array"));
    CHECK_EQ_INT(loom_linalg_svd_hermitian(a, true, NULL, &s, &vh), LOOM_ERR_INVALID);
    CHECK(!loom_linalg_pinv_hermitian(NULL, NAN) &&
          !loom_linalg_matrix_rank_hermitian(NULL, NAN, NAN));
    CHECK_EQ_INT(loom_linalg_svd_hermitian(NULL, false, NULL, &s, NULL), LOOM_ERR_INVALID);
    loom_scope_end();
}

static void test_null_and_errors(void)
{
    loom_clear_error();
    CHECK(loom_linalg_inv(NULL) == NULL && loom_linalg_det(NULL) == NULL);
    /* a NULL input keeps the error that made it: functions returning arrays leave the error
     * alone, those returning a status name the NULL */
    loom_clear_error();
    CHECK(loom_linalg_solve(NULL, NULL) == NULL);
    CHECK(!loom_linalg_svdvals(NULL) && !loom_linalg_eigvals(NULL) && !loom_linalg_pinv(NULL) &&
          !loom_linalg_matrix_rank(NULL) && !loom_linalg_cond(NULL, NAN) &&
          !loom_linalg_tensorinv(NULL, 2) && !loom_linalg_tensorsolve(NULL, NULL, NULL, 0) &&
          !loom_linalg_norm_str(NULL, "nuc", NULL, 0, false) && !loom_linalg_eigvalsh(NULL));
    CHECK(loom_last_error() == NULL || loom_last_error()[0] == '\0');
    loom_array *q = (loom_array *)1, *r = (loom_array *)1, *w = (loom_array *)1;
    CHECK_EQ_INT(loom_linalg_qr(NULL, "reduced", &q, &r), LOOM_ERR_INVALID);
    CHECK(!q && !r);
    CHECK_EQ_INT(loom_linalg_eig(NULL, &w, &q), LOOM_ERR_INVALID);
    CHECK(!w && !q);
    int64_t rank = 5;
    CHECK_EQ_INT(loom_linalg_lstsq(NULL, NULL, NAN, &q, &r, &rank, &w), LOOM_ERR_INVALID);
    CHECK(!q && !r && !w && rank == 0);
    loom_array *s = (loom_array *)1, *l = (loom_array *)1;
    CHECK_EQ_INT(loom_linalg_slogdet(NULL, &s, &l), LOOM_ERR_INVALID);
    CHECK(!s && !l);
    CHECK_EQ_INT(loom_linalg_slogdet(NULL, NULL, &l), LOOM_ERR_INVALID);
    CHECK(strstr(loom_last_error(), "loom_linalg_slogdet: sign and logabsdet must not be NULL"));
}

int main(void)
{
    test_numpy_table();
    test_inv_plan();
    test_workspace_in_plan();
    test_solve_plan();
    test_batched_plan();
    test_det_plan();
    test_svd_plan();
    test_qr_plan();
    test_eig_plan();
    test_hermitian_plans();
    test_null_and_errors();
    return check_summary("test_linalg_solvers");
}
