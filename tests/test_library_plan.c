#define _POSIX_C_SOURCE 200809L
/* Plans with library steps (no GPU): matrix products lower to one cuBLAS GEMM step whose
 * arguments describe transposed, sliced and broadcast operands in place; operands cuBLAS cannot
 * read are materialised first; elementwise consumers fuse into one kernel after the product;
 * the DOT dump shows the step as its own cluster. */
#include "check.h"
#include "inputs.h"
#include "plans.h"
#include "fuser/walk.h"

#include <stdlib.h>
#include <string.h>

/* The plan of one array. */
static loom_plan *plan_of(loom_array *y, bool fuse)
{
    return test_plan(&y, 1, fuse);
}

static int count(const loom_plan *p, loom_step_kind kind)
{
    int n = 0;
    for (int i = 0; p && i < p->nsteps; i++)
        n += p->steps[i].kind == kind;
    return n;
}

static const loom_gemm_args *gemm_of(const loom_plan *p)
{
    for (int i = 0; p && i < p->nsteps; i++)
        if (p->steps[i].kind == LOOM_STEP_LIBRARY && p->steps[i].lib.routine == LOOM_LIB_CUBLAS_GEMM)
            return &p->steps[i].lib.args.gemm;
    return NULL;
}

/* relu(a @ b + bias) * 2: one GEMM step, then one kernel reading the product once. */
static void test_epilogue_fuses(void)
{
    loom_scope_begin();
    loom_array *a = test_input(2, (int64_t[]){64, 32}, LOOM_FLOAT32);
    loom_array *b = test_input(2, (int64_t[]){32, 48}, LOOM_FLOAT32);
    loom_array *bias = test_input(1, (int64_t[]){48}, LOOM_FLOAT32);
    loom_array *y = loom_mul_scalar(loom_maximum_scalar(loom_add(loom__matmul("test", a, b), bias), 0.0), 2.0);
    loom_plan *p = plan_of(y, true);
    CHECK(p && p->nsteps == 2);
    CHECK_EQ_INT(count(p, LOOM_STEP_LIBRARY), 1);
    CHECK_EQ_INT(count(p, LOOM_STEP_KERNEL), 1);
    if (p && p->nsteps == 2) {
        CHECK(p->steps[0].kind == LOOM_STEP_LIBRARY && p->steps[1].kind == LOOM_STEP_KERNEL);
        CHECK(strstr(p->steps[1].kernel.summary, "add maximum multiply") != NULL);
        /* the workspace and the product are temporaries; the product is read by the kernel */
        const loom_libcall *l = &p->steps[0].lib;
        CHECK(l->workspace >= 0 && p->buffers[l->workspace].role == LOOM_BUF_TEMP);
        CHECK(p->buffers[l->buffer[2]].role == LOOM_BUF_TEMP);
        CHECK_EQ_INT(p->buffers[l->buffer[2]].last_use, 1);
    }
    loom__plan_free(p);
    /* unfused: the same GEMM step, then one kernel per elementwise op */
    p = plan_of(y, false);
    CHECK(p && count(p, LOOM_STEP_LIBRARY) == 1 && count(p, LOOM_STEP_KERNEL) == 3);
    loom__plan_free(p);
    loom_scope_end();
}

/* The probe of cublasLt's epilogue, answering as told and recording what it was asked. */
static bool probe_answer;
static int probe_calls;
static loom_gemm_args probe_asked;

static bool probe(int device, const loom_gemm_args *g)
{
    (void)device;
    probe_calls++;
    probe_asked = *g;
    return probe_answer;
}

static loom_plan *plan_probed(loom_array *y, bool wins)
{
    loom_fuse_options o = loom__fuse_options_default();
    o.epilogue_wins = probe;
    o.lt_epilogue = -1;
    probe_answer = wins;
    probe_calls = 0;
    return loom__plan_build("test", &y, 1, &o);
}

/* Where the probe says cublasLt's epilogue wins, relu(a @ b + bias) is one cublasLt step; a
 * consumer after it is one kernel; where it loses, the GEMM and one kernel as before. */
static void test_lt_epilogue(void)
{
    loom_scope_begin();
    loom_array *a = test_input(2, (int64_t[]){64, 32}, LOOM_FLOAT32);
    loom_array *b = test_input(2, (int64_t[]){32, 48}, LOOM_FLOAT32);
    loom_array *bias = test_input(1, (int64_t[]){48}, LOOM_FLOAT32);
    loom_array *z = loom_add(loom__matmul("test", a, b), bias);
    loom_array *y = loom_maximum_scalar(z, 0.0);
    loom_plan *p = plan_probed(y, true);
    CHECK(p && p->nsteps == 1 && p->steps[0].kind == LOOM_STEP_LIBRARY &&
          p->steps[0].lib.routine == LOOM_LIB_CUBLASLT_MATMUL);
    CHECK(probe_calls == 1 && probe_asked.epilogue == LOOM_EPILOGUE_RELU_BIAS &&
          probe_asked.m == 48 && probe_asked.n == 64 && probe_asked.k == 32);
    if (p && p->nsteps == 1) {
        const loom_libcall *l = &p->steps[0].lib;
        CHECK(l->args.gemm.epilogue == LOOM_EPILOGUE_RELU_BIAS && l->nbuffers == 4);
        CHECK(p->buffers[l->buffer[3]].node == bias && l->buffer[2] == p->outputs[0]);
    }
    loom__plan_free(p);
    p = plan_probed(loom_mul_scalar(y, 2.0), true);
    CHECK(p && p->nsteps == 2 && p->steps[0].lib.routine == LOOM_LIB_CUBLASLT_MATMUL &&
          count(p, LOOM_STEP_KERNEL) == 1);
    loom__plan_free(p);
    /* a bias alone (no relu after it) asks about the bias epilogue */
    p = plan_probed(loom_sin(z), true);
    CHECK(probe_asked.epilogue == LOOM_EPILOGUE_BIAS && p && p->nsteps == 2 &&
          p->steps[0].lib.args.gemm.epilogue == LOOM_EPILOGUE_BIAS);
    loom__plan_free(p);
    /* the probe says no: the GEMM, then one kernel */
    p = plan_probed(y, false);
    CHECK(p && p->nsteps == 2 && p->steps[0].lib.routine == LOOM_LIB_CUBLAS_GEMM &&
          count(p, LOOM_STEP_KERNEL) == 1);
    loom__plan_free(p);
    /* float64, a bias of another dtype, a batch: never asked */
    loom_array *a64 = test_input(2, (int64_t[]){64, 32}, LOOM_FLOAT64);
    loom_array *b64 = test_input(2, (int64_t[]){32, 48}, LOOM_FLOAT64);
    p = plan_probed(loom_add(loom__matmul("test", a64, b64), loom_astype(bias, LOOM_FLOAT64)), true);
    CHECK(p && probe_calls == 0);
    loom__plan_free(p);
    loom_array *a3 = test_input(3, (int64_t[]){2, 64, 32}, LOOM_FLOAT32);
    p = plan_probed(loom_add(loom__matmul("test", a3, b), bias), true);
    CHECK(p && probe_calls == 0);
    loom__plan_free(p);
    /* unfused: never asked */
    loom_fuse_options o = loom__fuse_options_default();
    o.fuse = false;
    o.epilogue_wins = probe;
    o.lt_epilogue = -1;
    probe_calls = 0;
    p = loom__plan_build("test", &y, 1, &o);
    CHECK(p && probe_calls == 0 && count(p, LOOM_STEP_KERNEL) == 2);
    loom__plan_free(p);
    /* LOOM_LT_EPILOGUE=1 takes the epilogue without asking (no probe at all), =0 never */
    setenv("LOOM_LT_EPILOGUE", "1", 1);
    o = loom__fuse_options_default();
    o.epilogue_wins = NULL;
    p = loom__plan_build("test", &y, 1, &o);
    CHECK(o.lt_epilogue == 1 && p && p->nsteps == 1 &&
          p->steps[0].lib.routine == LOOM_LIB_CUBLASLT_MATMUL);
    loom__plan_free(p);
    setenv("LOOM_LT_EPILOGUE", "0", 1);
    o = loom__fuse_options_default();
    o.epilogue_wins = probe;
    probe_calls = 0;
    p = loom__plan_build("test", &y, 1, &o);
    CHECK(o.lt_epilogue == 0 && p && probe_calls == 0 && p->nsteps == 2);
    loom__plan_free(p);
    unsetenv("LOOM_LT_EPILOGUE");
    loom_scope_end();
}

/* a @ b + c with c of the product's shape in memory: c is copied into the result, then the
 * GEMM adds the product with beta = 1 (no kernel); a broadcast addend fuses as an epilogue. */
static void test_beta(void)
{
    loom_scope_begin();
    loom_array *a = test_input(2, (int64_t[]){6, 4}, LOOM_FLOAT32);
    loom_array *b = test_input(2, (int64_t[]){4, 5}, LOOM_FLOAT32);
    loom_array *c = test_input(2, (int64_t[]){6, 5}, LOOM_FLOAT32);
    loom_array *y = loom_add(c, loom__matmul("test", a, b));
    loom_plan *p = plan_of(y, true);
    CHECK(p && p->nsteps == 2 && p->steps[0].kind == LOOM_STEP_COPY &&
          p->steps[1].kind == LOOM_STEP_LIBRARY);
    const loom_gemm_args *g = gemm_of(p);
    CHECK(g && g->beta_one);
    if (p && p->nsteps == 2) {
        CHECK(p->steps[0].copy.dst == p->steps[1].lib.buffer[2]);
        CHECK(p->buffers[p->steps[0].copy.dst].role == LOOM_BUF_OUTPUT);
        CHECK_EQ_INT(p->steps[0].copy.bytes, 6 * 5 * 4);
    }
    loom__plan_free(p);
    /* a computed addend is written once, then copied */
    p = plan_of(loom_add(loom__matmul("test", a, b), loom_exp(c)), true);
    CHECK(p && p->nsteps == 3 && count(p, LOOM_STEP_KERNEL) == 1 && gemm_of(p) && gemm_of(p)->beta_one);
    loom__plan_free(p);
    /* unfused, or a product read twice: no beta */
    p = plan_of(y, false);
    CHECK(p && gemm_of(p) && !gemm_of(p)->beta_one && count(p, LOOM_STEP_KERNEL) == 1);
    loom__plan_free(p);
    loom_array *mm = loom__matmul("test", a, b);
    p = plan_of(loom_add(loom_add(mm, c), mm), true);
    CHECK(p && gemm_of(p) && !gemm_of(p)->beta_one);
    loom__plan_free(p);
    /* a different dtype (float64 addend: the sum is float64) keeps the epilogue kernel */
    loom_array *c64 = test_input(2, (int64_t[]){6, 5}, LOOM_FLOAT64);
    p = plan_of(loom_add(loom__matmul("test", a, b), c64), true);
    CHECK(p && gemm_of(p) && !gemm_of(p)->beta_one && count(p, LOOM_STEP_KERNEL) == 1);
    loom__plan_free(p);
    loom_scope_end();
}

/* s * (a @ b) folds s into alpha; a plan rebound to a graph with another s takes its value. */
static void test_alpha(void)
{
    loom_scope_begin();
    loom_array *a = test_input(2, (int64_t[]){6, 4}, LOOM_FLOAT32);
    loom_array *b = test_input(2, (int64_t[]){4, 5}, LOOM_FLOAT32);
    loom_array *y = loom_mul_scalar(loom__matmul("test", a, b), 3.0);
    loom_plan *p = plan_of(y, true);
    CHECK(p && p->nsteps == 1 && gemm_of(p) && gemm_of(p)->nfactors == 1 && gemm_of(p)->alpha_re == 3.0);
    CHECK(p && p->buffers[p->outputs[0]].role == LOOM_BUF_OUTPUT &&
          p->steps[0].lib.buffer[2] == p->outputs[0]);
    loom_walk w;
    loom_array *y2 = loom_mul_scalar(loom__matmul("test", a, b), -0.5);
    CHECK(loom__walk_build("test", &w, &y2, 1) == 0);
    if (p) {
        loom__plan_rebind(p, &w);
        CHECK(gemm_of(p)->alpha_re == -0.5);
    }
    loom__walk_free(&w);
    loom__plan_free(p);
    /* then a consumer: the scaled product is written once and read by one kernel */
    p = plan_of(loom_add_scalar(loom_mul_scalar(loom__matmul("test", a, b), 2.0), 1.0), true);
    CHECK(p && p->nsteps == 2 && gemm_of(p) && gemm_of(p)->nfactors == 1);
    loom__plan_free(p);
    /* a complex factor makes the result complex: no alpha; unfused: none either */
    p = plan_of(loom_multiply(loom__matmul("test", a, b), loom_scalar_complex(1.0, 2.0)), true);
    CHECK(p && gemm_of(p) && !gemm_of(p)->nfactors && count(p, LOOM_STEP_KERNEL) == 1);
    loom__plan_free(p);
    p = plan_of(y, false);
    CHECK(p && gemm_of(p) && !gemm_of(p)->nfactors && count(p, LOOM_STEP_KERNEL) == 1);
    loom__plan_free(p);
    loom_scope_end();
}

/* Scalar factors of the operands join alpha: cuBLAS reads a and b, nothing is written first. */
static void test_operand_factors(void)
{
    loom_scope_begin();
    loom_array *a = test_input(2, (int64_t[]){6, 4}, LOOM_COMPLEX64);
    loom_array *b = test_input(2, (int64_t[]){4, 5}, LOOM_COMPLEX64);
    loom_array *a2 = loom_mul_scalar(a, 2.0);
    loom_array *y = loom_multiply(loom_scalar_complex(0.0, 3.0),
                                  loom__matmul("test", a2, loom_mul_scalar(b, -0.5)));
    loom_plan *p = plan_of(y, true);
    CHECK(p && p->nsteps == 1 && gemm_of(p) && gemm_of(p)->nfactors == 3 &&
          gemm_of(p)->alpha_re == 0.0 && gemm_of(p)->alpha_im == -3.0);
    CHECK(p && p->buffers[p->steps[0].lib.buffer[1]].node == a); /* a itself, not 2 * a */
    loom__plan_free(p);
    /* 2 * a also requested: it is written anyway, and read as it is */
    p = test_plan((loom_array *[]){loom__matmul("test", a2, b), a2}, 2, true);
    CHECK(p && gemm_of(p) && gemm_of(p)->nfactors == 0 && count(p, LOOM_STEP_KERNEL) == 1);
    loom__plan_free(p);
    /* a factor that changes the dtype (a complex scalar times a real matrix) is no factor */
    loom_array *r = test_input(2, (int64_t[]){6, 4}, LOOM_FLOAT32);
    loom_array *rb = test_input(2, (int64_t[]){4, 5}, LOOM_COMPLEX64);
    p = plan_of(loom__matmul("test", loom_multiply(r, loom_scalar_complex(1.0, 1.0)), rb), true);
    CHECK(p && gemm_of(p) && gemm_of(p)->nfactors == 0 && count(p, LOOM_STEP_KERNEL) == 1);
    loom__plan_free(p);
    loom_scope_end();
}

/* Row-major C = A B is column-major C^T = B^T A^T: B is cuBLAS's first operand. */
static void test_layouts(void)
{
    loom_scope_begin();
    loom_array *a = test_input(2, (int64_t[]){5, 7}, LOOM_FLOAT64);
    loom_array *b = test_input(2, (int64_t[]){7, 3}, LOOM_FLOAT64);
    loom_plan *p = plan_of(loom__matmul("test", a, b), true);
    const loom_gemm_args *g = gemm_of(p);
    CHECK(g && g->op_a == 'N' && g->op_b == 'N' && g->m == 3 && g->n == 5 && g->k == 7);
    CHECK(g && g->lda == 3 && g->ldb == 7 && g->ldc == 3 && g->batch == 1);
    CHECK_EQ_INT(count(p, LOOM_STEP_KERNEL), 0);
    loom__plan_free(p);

    /* transposed operands are read in place as op T */
    loom_array *at = test_input(2, (int64_t[]){7, 5}, LOOM_FLOAT64);
    loom_array *bt = test_input(2, (int64_t[]){3, 7}, LOOM_FLOAT64);
    p = plan_of(loom__matmul("test", loom_transpose(at, NULL), loom_transpose(bt, NULL)), true);
    g = gemm_of(p);
    CHECK(g && g->op_a == 'T' && g->op_b == 'T' && g->lda == 7 && g->ldb == 5);
    CHECK_EQ_INT(count(p, LOOM_STEP_KERNEL), 0);
    loom__plan_free(p);

    /* a column slice keeps its row stride as the leading dimension, its offset as bytes */
    loom_array *wide = test_input(2, (int64_t[]){5, 20}, LOOM_FLOAT64);
    p = plan_of(loom__matmul("test", loom_slice(wide, 1, 2, 9, 1), b), true);
    g = gemm_of(p);
    CHECK(g && g->op_b == 'N' && g->ldb == 20);
    CHECK(p && p->nsteps == 1 && p->steps[0].lib.byte_offset[1] == 2 * sizeof(double));
    loom__plan_free(p);

    /* a strided column slice (step 2) cannot be described: one copy kernel first */
    p = plan_of(loom__matmul("test", loom_slice(wide, 1, 0, 14, 2), b), true);
    CHECK(p && count(p, LOOM_STEP_KERNEL) == 1 && count(p, LOOM_STEP_LIBRARY) == 1);
    g = gemm_of(p);
    CHECK(g && g->op_b == 'N' && g->ldb == 7);
    loom__plan_free(p);

    /* the Hermitian transpose of a matrix is read in place as op C; a conjugate alone is not */
    loom_array *ca = test_input(2, (int64_t[]){5, 7}, LOOM_COMPLEX128);
    loom_array *cb = test_input(2, (int64_t[]){3, 7}, LOOM_COMPLEX128);
    p = plan_of(loom__matmul("test", ca, loom_conjugate(loom_transpose(cb, NULL))), true);
    g = gemm_of(p);
    CHECK(g && g->op_a == 'C' && g->op_b == 'N' && g->lda == 7 && g->m == 3 && g->k == 7);
    CHECK_EQ_INT(count(p, LOOM_STEP_KERNEL), 0);
    loom__plan_free(p);
    loom_array *cbc = loom_conjugate(cb), *cbh = loom_transpose(cbc, NULL);
    p = plan_of(loom__matmul("test", ca, cbh), true);
    g = gemm_of(p);
    CHECK(g && g->op_a == 'C' && g->lda == 7 && count(p, LOOM_STEP_KERNEL) == 0);
    loom__plan_free(p);
    /* conj(cb) also requested: written once, and the product reads it transposed */
    p = test_plan((loom_array *[]){loom__matmul("test", ca, cbh), cbc}, 2, true);
    g = gemm_of(p);
    CHECK(g && g->op_a == 'T' && count(p, LOOM_STEP_KERNEL) == 1);
    loom__plan_free(p);
    loom_array *cc = test_input(2, (int64_t[]){7, 3}, LOOM_COMPLEX128);
    p = plan_of(loom__matmul("test", ca, loom_conjugate(cc)), true);
    CHECK(p && count(p, LOOM_STEP_KERNEL) == 1 && gemm_of(p) && gemm_of(p)->op_a == 'N');
    loom__plan_free(p);

    /* a computed operand is materialised once, contiguous */
    p = plan_of(loom__matmul("test", loom_sin(a), b), true);
    CHECK(p && p->nsteps == 2 && p->steps[0].kind == LOOM_STEP_KERNEL);
    loom__plan_free(p);
    loom_scope_end();
}

/* Batches: one stride per operand, 0 for a broadcast operand; a batch cuBLAS cannot step
 * through uniformly is copied. */
static void test_batches(void)
{
    loom_scope_begin();
    int64_t bs[3] = {4, 6, 8}, ws[3] = {4, 8, 2};
    loom_array *a = test_input(3, bs, LOOM_FLOAT32);
    loom_array *w = test_input(2, (int64_t[]){8, 2}, LOOM_FLOAT32);
    loom_plan *p = plan_of(loom__matmul("test", a, loom_broadcast_to(w, 3, ws)), true);
    const loom_gemm_args *g = gemm_of(p);
    CHECK(g && g->batch == 4 && g->stride_a == 0 && g->stride_b == 48 && g->stride_c == 12);
    CHECK_EQ_INT(count(p, LOOM_STEP_KERNEL), 0);
    loom__plan_free(p);

    /* two batch axes that collapse into one stride */
    loom_array *a4 = test_input(4, (int64_t[]){2, 3, 6, 8}, LOOM_FLOAT32);
    loom_array *b4 = test_input(4, (int64_t[]){2, 3, 8, 5}, LOOM_FLOAT32);
    p = plan_of(loom__matmul("test", a4, b4), true);
    g = gemm_of(p);
    CHECK(g && g->batch == 6 && g->stride_a == 40 && g->stride_b == 48 && g->stride_c == 30);
    loom__plan_free(p);

    /* batch axes swapped (strides out of C order): copied, then one uniform stride */
    int perm[4] = {1, 0, 2, 3};
    loom_array *s = test_input(4, (int64_t[]){3, 2, 6, 8}, LOOM_FLOAT32);
    p = plan_of(loom__matmul("test", loom_transpose(s, perm), b4), true);
    CHECK(p && count(p, LOOM_STEP_KERNEL) == 1);
    g = gemm_of(p);
    CHECK(g && g->stride_b == 48);
    loom__plan_free(p);

    /* nothing to compute: no step at all */
    loom_array *e = test_input(3, (int64_t[]){0, 6, 8}, LOOM_FLOAT32);
    loom_array *f = test_input(3, (int64_t[]){0, 8, 2}, LOOM_FLOAT32);
    p = plan_of(loom__matmul("test", e, f), true);
    CHECK(p && p->nsteps == 0);
    loom__plan_free(p);
    loom_scope_end();
}

static void test_dot_cluster(void)
{
    loom_scope_begin();
    loom_array *a = test_input(2, (int64_t[]){4, 4}, LOOM_FLOAT32);
    loom_array *y = loom_exp(loom__matmul("test", a, a));
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    CHECK(f && loom_dump_dot(f, &y, 1) == LOOM_OK);
    if (f)
        fclose(f);
    CHECK(buf && strstr(buf, "label=\"library: cublas gemm: matmul\"") != NULL);
    CHECK(buf && strstr(buf, "(elementwise): exp") != NULL);
    free(buf);
    loom_scope_end();
}

int main(void)
{
    test_epilogue_fuses();
    test_layouts();
    test_beta();
    test_alpha();
    test_lt_epilogue();
    test_operand_factors();
    test_batches();
    test_dot_cluster();
    return check_summary("test_library_plan");
}
