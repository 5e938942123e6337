/* GEMM steps on the host device with CBLAS: the arguments cublasGemmStridedBatchedEx gets from
 * the plan (column-major, op N/T/C, leading dimensions, batch strides with 0 for a broadcast
 * operand, alpha from folded scalar factors, beta 1 for a fused addend) and cublasLt's bias and
 * relu-bias epilogues. float16 and bfloat16 have no CBLAS routine: their operands are widened
 * to float32 (exactly), multiplied by sgemm, the epilogue applied in float32 and the result
 * rounded once, as cuBLAS's float32 accumulation does (docs/host-device.md). */
#include "host_blas.h"

#include <limits.h>
#include <math.h>
#include <string.h>

static int cblas_op(int8_t op)
{
    return op == 'T' ? LOOM__CBLAS_TRANS : op == 'C' ? LOOM__CBLAS_CONJ_TRANS : LOOM__CBLAS_NO_TRANS;
}

/* One stored operand: rows x cols column-major at leading dimension ld. */
typedef struct stored {
    int64_t rows, cols, ld;
} stored;

static stored stored_a(const loom_gemm_args *g)
{
    return g->op_a == 'N' ? (stored){g->m, g->k, g->lda} : (stored){g->k, g->m, g->lda};
}

static stored stored_b(const loom_gemm_args *g)
{
    return g->op_b == 'N' ? (stored){g->k, g->n, g->ldb} : (stored){g->n, g->k, g->ldb};
}

/* BLAS wants ld >= max(1, rows) even where ld is never stepped over (one column); the plan
 * may give less there (cuBLAS does not check a single column's). */
static int64_t legal_ld(stored s)
{
    int64_t least = s.rows > 1 ? s.rows : 1;
    return s.cols <= 1 && s.ld < least ? least : s.ld;
}

/* ---- float16 and bfloat16 through float32 ---- */

static float widen(const void *p, int64_t i, loom_dtype dt)
{
    uint16_t h;
    memcpy(&h, (const char *)p + 2 * i, 2);
    return (float)(dt == LOOM_FLOAT16 ? loom__half_to_double(h) : loom__bfloat16_to_double(h));
}

/* f rounded to the nearest float16, ties to even (__float2half_rn). */
static uint16_t to_half(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    uint16_t sign = (uint16_t)((u >> 16) & 0x8000);
    u &= 0x7fffffff;
    if (u >= 0x7f800000) /* inf, NaN (kept quiet) */
        return sign | 0x7c00 | (u > 0x7f800000 ? 0x200 : 0);
    if (u >= 0x477ff000) /* 65520 and up round to inf */
        return sign | 0x7c00;
    if (u < 0x38800000) { /* below the smallest normal: a multiple of 2^-24, exact scaling */
        float a;
        memcpy(&a, &u, 4);
        return sign | (uint16_t)nearbyintf(a * 0x1p24f);
    }
    u += 0xfff + ((u >> 13) & 1);
    return sign | (uint16_t)((u - (112u << 23)) >> 13);
}

/* f rounded to the nearest bfloat16, ties to even (__float2bfloat16_rn). */
static uint16_t to_bfloat16(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    if ((u & 0x7fffffff) > 0x7f800000)
        return (uint16_t)((u >> 16) | 0x40);
    u += 0x7fff + ((u >> 16) & 1);
    return (uint16_t)(u >> 16);
}

/* s's elements of the 16-bit matrix at p, as a contiguous float32 matrix (ld = rows). */
static void widen_matrix(const void *p, stored s, loom_dtype dt, float *out)
{
    for (int64_t j = 0; j < s.cols; j++)
        for (int64_t i = 0; i < s.rows; i++)
            out[i + j * s.rows] = widen(p, i + j * s.ld, dt);
}

/* ---- the product ---- */

/* C = relu?(C + bias), bias a vector of m (cublasLt's epilogues), in float32 or in dt. */
static void bias_epilogue(const loom_gemm_args *g, float *c, int64_t ldc, const void *bias)
{
    loom_dtype dt = (loom_dtype)g->dtype;
    for (int64_t j = 0; j < g->n; j++)
        for (int64_t i = 0; i < g->m; i++) {
            float x = c[i + j * ldc] + (dt == LOOM_FLOAT32 ? ((const float *)bias)[i] : widen(bias, i, dt));
            c[i + j * ldc] = g->epilogue == LOOM_EPILOGUE_RELU_BIAS && x < 0 ? 0 : x; /* NaN stays */
        }
}

/* C_b = alpha op(A_b) op(B_b) + beta C_b for one batch member of a CBLAS dtype. */
static void gemm_one(const loom__host_blas *blas, const loom_gemm_args *g, int64_t lda,
                     int64_t ldb, const void *a, const void *b, void *c)
{
    int ta = cblas_op(g->op_a), tb = cblas_op(g->op_b);
    int m = (int)g->m, n = (int)g->n, k = (int)g->k;
    double beta = g->beta_one ? 1 : 0;
    switch ((loom_dtype)g->dtype) {
    case LOOM_FLOAT32:
        blas->sgemm(LOOM__COL_MAJOR, ta, tb, m, n, k, (float)g->alpha_re, a, (int)lda, b, (int)ldb,
                    (float)beta, c, (int)g->ldc);
        break;
    case LOOM_FLOAT64:
        blas->dgemm(LOOM__COL_MAJOR, ta, tb, m, n, k, g->alpha_re, a, (int)lda, b, (int)ldb, beta,
                    c, (int)g->ldc);
        break;
    case LOOM_COMPLEX64: {
        const float alpha[2] = {(float)g->alpha_re, (float)g->alpha_im}, bt[2] = {(float)beta, 0};
        blas->complex_gemm[0](LOOM__COL_MAJOR, ta, tb, m, n, k, alpha, a, (int)lda, b, (int)ldb, bt,
                              c, (int)g->ldc);
        break;
    }
    default: {
        const double alpha[2] = {g->alpha_re, g->alpha_im}, bt[2] = {beta, 0};
        blas->complex_gemm[1](LOOM__COL_MAJOR, ta, tb, m, n, k, alpha, a, (int)lda, b, (int)ldb, bt,
                              c, (int)g->ldc);
        break;
    }
    }
}

/* float16 and bfloat16: each batch member widened into float32 scratch, multiplied, rounded. */
static int gemm_16bit(const char *fn, const loom__host_blas *blas, const loom_libcall *l,
                      void *const *addr)
{
    const loom_gemm_args *g = &l->args.gemm;
    loom_dtype dt = (loom_dtype)g->dtype;
    stored sa = stored_a(g), sb = stored_b(g);
    size_t na = (size_t)(sa.rows * sa.cols), nb = (size_t)(sb.rows * sb.cols);
    size_t nc = (size_t)(g->m * g->n);
    loom_buffer *scratch = loom__host_buffer_alloc(fn, "a 16-bit float product's float32 copies",
                                                   (na + nb + nc) * sizeof(float));
    if (!scratch)
        return loom_last_error_code();
    float *a = scratch->ptr, *b = a + na, *c = b + nb;
    const char *A = loom__lib_operand(l, addr, 0), *B = loom__lib_operand(l, addr, 1);
    char *C = loom__lib_operand(l, addr, 2);
    for (int64_t i = 0; i < g->batch; i++) {
        const char *ai = A + 2 * i * g->stride_a, *bi = B + 2 * i * g->stride_b;
        char *ci = C + 2 * i * g->stride_c;
        widen_matrix(ai, sa, dt, a);
        widen_matrix(bi, sb, dt, b);
        stored sc = {g->m, g->n, g->ldc};
        if (g->beta_one)
            widen_matrix(ci, sc, dt, c);
        if (g->k > 0) /* every dimension is at least 1: the copies' leading ones are legal */
            blas->sgemm(LOOM__COL_MAJOR, cblas_op(g->op_a), cblas_op(g->op_b), (int)g->m, (int)g->n,
                        (int)g->k, (float)g->alpha_re, a, (int)sa.rows, b, (int)sb.rows,
                        g->beta_one ? 1.0f : 0.0f, c, (int)g->m);
        else if (!g->beta_one)
            memset(c, 0, nc * sizeof *c);
        if (g->epilogue != LOOM_EPILOGUE_NONE)
            bias_epilogue(g, c, g->m, loom__lib_operand(l, addr, 3));
        for (int64_t col = 0; col < g->n; col++)
            for (int64_t row = 0; row < g->m; row++) {
                float x = c[row + col * g->m];
                uint16_t h = dt == LOOM_FLOAT16 ? to_half(x) : to_bfloat16(x);
                memcpy(ci + 2 * (row + col * g->ldc), &h, 2);
            }
    }
    loom__buffer_release(scratch);
    return LOOM_OK;
}

int loom__host_gemm(const char *fn, const loom_libcall *l, void *const *addr)
{
    const loom_gemm_args *g = &l->args.gemm;
    const char *why;
    const loom__host_blas *blas = loom__host_blas_get(&why);
    loom_dtype dt = (loom_dtype)g->dtype;
    if (!blas) {
        loom__error(LOOM_ERR_UNSUPPORTED, fn, "matmul is not available on the host device: %s", why);
        return LOOM_ERR_UNSUPPORTED;
    }
    stored sa = stored_a(g), sb = stored_b(g);
    int64_t lda = legal_ld(sa), ldb = legal_ld(sb);
    bool operands_read = g->k > 0; /* an empty sum reads neither A nor B */
    if ((operands_read && (lda < (sa.rows > 1 ? sa.rows : 1) || ldb < (sb.rows > 1 ? sb.rows : 1) ||
                           lda > INT_MAX || ldb > INT_MAX)) ||
        g->ldc < (g->m > 1 ? g->m : 1) || g->ldc > INT_MAX) {
        loom__error(LOOM_ERR_INVALID, fn, "internal error: a product's leading dimensions (%lld, "
                    "%lld, %lld) do not fit its (%lld x %lld x %lld) shape", (long long)g->lda,
                    (long long)g->ldb, (long long)g->ldc, (long long)g->m, (long long)g->n,
                    (long long)g->k);
        return LOOM_ERR_INVALID;
    }
    if (dt == LOOM_FLOAT16 || dt == LOOM_BFLOAT16)
        return gemm_16bit(fn, blas, l, addr);
    if (dt != LOOM_FLOAT32 && dt != LOOM_FLOAT64 && dt != LOOM_COMPLEX64 && dt != LOOM_COMPLEX128) {
        loom__error(LOOM_ERR_INVALID, fn, "internal error: CBLAS has no %s product",
                    loom_dtype_name(dt));
        return LOOM_ERR_INVALID;
    }
    size_t item = loom_dtype_size(dt);
    const char *A = loom__lib_operand(l, addr, 0), *B = loom__lib_operand(l, addr, 1);
    char *C = loom__lib_operand(l, addr, 2);
    for (int64_t i = 0; i < g->batch; i++) {
        char *ci = C + item * (size_t)(i * g->stride_c);
        if (g->k > 0)
            gemm_one(blas, g, lda, ldb, A + item * (size_t)(i * g->stride_a),
                     B + item * (size_t)(i * g->stride_b), ci);
        else if (!g->beta_one) /* an empty sum; BLAS may reject k = 0's leading dimensions */
            for (int64_t col = 0; col < g->n; col++)
                memset(ci + item * (size_t)(col * g->ldc), 0, item * (size_t)g->m);
        if (g->epilogue != LOOM_EPILOGUE_NONE) /* float32 only: the fuser asks for no other */
            bias_epilogue(g, (float *)ci, g->ldc, loom__lib_operand(l, addr, 3));
    }
    return LOOM_OK;
}
