/* The host device's API and failure paths (docs/host-device.md): choosing it, arrays keeping
 * their device, mixing devices, loom_to_device, the memory pool's limit, steps that report "not
 * available on the host device", library steps on OpenBLAS/LAPACKE, out-of-bounds indices found
 * by a host kernel, and (each a process of its own: the environment is read once)
 * LOOM_DEVICE=cpu, a LOOM_DEVICE that names no device, no host compiler, and no CBLAS or
 * LAPACKE. Values are checked by the GPU tests that run on
 * the host device (host_test_*, docs/testing.md). */
#define _GNU_SOURCE /* RTLD_NOLOAD */
#include "check.h"

#include <dlfcn.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static bool error_has(const char *a, const char *b)
{
    const char *e = loom_last_error();
    return e && strstr(e, a) && (!b || strstr(e, b));
}

static void test_choosing(void)
{
    CHECK_EQ_INT(loom_device_set(LOOM_DEVICE_CPU), LOOM_OK);
    CHECK_EQ_INT(loom_device_get(), LOOM_DEVICE_CPU);
    CHECK_EQ_INT(loom_device_synchronize(), LOOM_OK);
    /* a GPU id outside the devices stays refused, whether or not there are GPUs */
    CHECK(loom_device_set(1000) != LOOM_OK);
    CHECK_EQ_INT(loom_device_get(), LOOM_DEVICE_CPU);
}

/* Arrays made while GPU 0 is current keep it; mixing them with host arrays names both. Needs
 * no GPU: nothing is evaluated. */
static void test_mixing(void)
{
    loom_scope_begin();
    loom_array *on_cpu = loom_arange(0, 4, 1, LOOM_INT32);
    /* made for device 0 without making it current (which needs a GPU) */
    int64_t n = 4;
    int32_t data[4] = {1, 2, 3, 4};
    loom_array *on_gpu = NULL;
    if (loom_device_count() > 0) {
        CHECK_EQ_INT(loom_device_set(0), LOOM_OK);
        on_gpu = loom_asarray(data, LOOM_INT32, 1, &n);
        CHECK_EQ_INT(loom_device_set(LOOM_DEVICE_CPU), LOOM_OK);
    } else {
        on_gpu = loom_to_device(on_cpu, 0);
        CHECK(!on_gpu && loom_last_error_code() == LOOM_ERR_NO_DEVICE);
    }
    if (on_gpu) {
        CHECK_FAILS(loom_add(on_cpu, on_gpu), "loom_add", "arrays are on different devices (cpu and 0)");
        loom_array *back = loom_to_device(on_gpu, LOOM_DEVICE_CPU);
        int32_t got[4] = {0};
        CHECK_EQ_INT(loom_get(back, got, sizeof got), LOOM_OK);
        CHECK(memcmp(got, data, sizeof got) == 0);
        loom_array *both = loom_add(on_cpu, back); /* both on the host now */
        CHECK(both != NULL);
    }
    CHECK(loom_to_device(on_cpu, LOOM_DEVICE_CPU) == on_cpu); /* the same device: a reference */
    CHECK(loom_to_device(on_cpu, 7777) == NULL && error_has("loom_to_device", NULL));
    loom_scope_end();
}

static void test_memory(void)
{
    loom_scope_begin();
    size_t before = loom_mempool_used_bytes();
    int64_t n = 1000;
    loom_array *x = loom_add(loom_arange(0, (double)n, 1, LOOM_FLOAT64), loom_scalar(1.0));
    CHECK_EQ_INT(loom_eval(x), LOOM_OK);
    CHECK_EQ_INT(loom_mempool_used_bytes(), before + 8000);
    CHECK_EQ_INT(loom_mempool_total_bytes(), loom_mempool_used_bytes());
    CHECK_EQ_INT(loom_mempool_set_limit(before + 8000 + 100), LOOM_OK);
    CHECK_EQ_INT(loom_mempool_get_limit(), before + 8000 + 100);
    loom_array *y = loom_multiply(x, x);
    CHECK_EQ_INT(loom_eval(y), LOOM_ERR_OOM);
    CHECK(error_has("loom_eval: out of memory allocating 8000 bytes for a result on the host device",
                    "the memory pool limit is"));
    CHECK_EQ_INT(loom_mempool_set_limit(0), LOOM_OK);
    CHECK_EQ_INT(loom_eval(y), LOOM_OK); /* nothing was lost */
    CHECK_EQ_INT(loom_mempool_free_all_blocks(), LOOM_OK);
    loom_scope_end();
    CHECK_EQ_INT(loom_mempool_used_bytes(), before);
}

/* A freed block of 1 MiB or more is kept for the next buffer of its size (docs/host-device.md)
 * and given back by loom_mempool_free_all_blocks. */
static void test_block_cache(void)
{
    const int64_t n = 1 << 18; /* 2 MiB of float64 */
    CHECK_EQ_INT(loom_mempool_free_all_blocks(), LOOM_OK);
    size_t used = loom_mempool_used_bytes();
    CHECK_EQ_INT(loom_mempool_total_bytes(), used);
    loom_array *k = loom_arange(0, (double)n, 1, LOOM_FLOAT64);
    loom_array *x = loom_add_scalar(k, 1.0);
    CHECK_EQ_INT(loom_eval(x), LOOM_OK);
    CHECK_EQ_INT(loom_mempool_used_bytes(), used + 8 * n);
    loom_release(x);
    CHECK_EQ_INT(loom_mempool_used_bytes(), used);
    CHECK_EQ_INT(loom_mempool_total_bytes(), used + 8 * n); /* kept */
    loom_array *y = loom_add_scalar(k, 2.0);
    double last = 0;
    CHECK_EQ_INT(loom_eval(y), LOOM_OK);
    CHECK_EQ_INT(loom_mempool_total_bytes(), used + 8 * n); /* reused, not a second block */
    loom_array *at = loom_index(y, 0, n - 1);
    CHECK_EQ_INT(loom_item(at, &last), LOOM_OK);
    CHECK(last == (double)n + 1.0);
    loom_release(at);
    loom_release(y);
    loom_release(k);
    CHECK_EQ_INT(loom_mempool_free_all_blocks(), LOOM_OK);
    CHECK_EQ_INT(loom_mempool_total_bytes(), used);
}

static void test_unavailable(void)
{
    loom_scope_begin();
    /* a user's raw kernel may use anything CUDA has */
    loom_raw_kernel *k = loom_raw_kernel_create("extern \"C\" __global__ void fill(float *y) { y[0] = 1; }",
                                                "fill", NULL);
    loom_array *raw = NULL;
    int64_t one = 1;
    CHECK(k && loom_raw_kernel_call(k, (unsigned[]){1, 1, 1}, (unsigned[]){1, 1, 1}, 0,
                                    (loom_array *[]){loom_empty(1, &one, LOOM_FLOAT32)}, 1, (int[]){0}, 1,
                                    &raw) == LOOM_OK);
    CHECK_EQ_INT(loom_eval(raw), LOOM_ERR_UNSUPPORTED);
    CHECK(error_has("loom_eval: a raw kernel (fill) is not available on the host device", NULL));
    loom_raw_kernel_destroy(k);
    /* sorts run on the host (exec/host_sort.c): np.sort([4., 3., 2., 1., 0.]) */
    float sorted[5];
    CHECK_EQ_INT(loom_get(loom_sort(loom_arange(4, -1, -1, LOOM_FLOAT32), 0), sorted, sizeof sorted),
                 LOOM_OK);
    CHECK(sorted[0] == 0 && sorted[1] == 1 && sorted[2] == 2 && sorted[3] == 3 && sorted[4] == 4);
    /* what needs a GPU's streams refuses host arrays with a message, never touches CUDA */
    float pinned_like[5];
    CHECK_EQ_INT(loom_get_async(loom_arange(0, 5, 1, LOOM_FLOAT32), pinned_like, sizeof pinned_like),
                 LOOM_ERR_UNSUPPORTED);
    CHECK(error_has("loom_get_async: not available on the host device", NULL));
    CHECK(loom_asarray_async(pinned_like, LOOM_FLOAT32, 1, (int64_t[]){5}) == NULL);
    CHECK(error_has("loom_asarray_async: not available on the host device", NULL));
    loom_scope_end();
}

/* Library steps run on OpenBLAS and LAPACKE (their values against NumPy: host_test_matmul,
 * host_test_linalg*); here the routing, and a status word written by LAPACK read as on a GPU. */
static void test_library_steps(void)
{
    loom_scope_begin();
    int64_t s23[2] = {2, 3}, s32[2] = {3, 2}, s22[2] = {2, 2};
    float a[6] = {1, 2, 3, 4, 5, 6}, b[6] = {7, 8, 9, 10, 11, 12};
    float got[4] = {0};
    /* np.array([[1,2,3],[4,5,6]], np.float32) @ np.array([[7,8],[9,10],[11,12]], np.float32) */
    const float want[4] = {58, 64, 139, 154};
    CHECK_EQ_INT(loom_get(loom_matmul(loom_asarray(a, LOOM_FLOAT32, 2, s23), loom_asarray(b, LOOM_FLOAT32, 2, s32)),
                          got, sizeof got),
                 LOOM_OK);
    CHECK(memcmp(got, want, sizeof got) == 0);
    /* relu(a @ b + bias) in float16 as one cublasLt step with its relu-bias epilogue (no kernel
     * after it): np.maximum(a16 @ b16 + np.array([-100, 1], np.float16), 0) */
    float bias[2] = {-100, 1};
    const float want_relu[4] = {0, 65, 39, 155};
    loom_array *a16 = loom_astype(loom_asarray(a, LOOM_FLOAT32, 2, s23), LOOM_FLOAT16);
    loom_array *b16 = loom_astype(loom_asarray(b, LOOM_FLOAT32, 2, s32), LOOM_FLOAT16);
    loom_array *bias16 = loom_astype(loom_asarray(bias, LOOM_FLOAT32, 1, (int64_t[]){2}), LOOM_FLOAT16);
    CHECK_EQ_INT(loom_eval_many((loom_array *[]){a16, b16, bias16}, 3), LOOM_OK);
    setenv("LOOM_LT_EPILOGUE", "1", 1);
    loom_array *y = loom_maximum_scalar(loom_add(loom_matmul(a16, b16), bias16), 0.0);
    loom_stats s0, s1;
    loom_stats_get(&s0);
    CHECK_EQ_INT(loom_eval(y), LOOM_OK);
    loom_stats_get(&s1);
    unsetenv("LOOM_LT_EPILOGUE");
    CHECK_EQ_INT(s1.kernels_launched - s0.kernels_launched, 0);
    CHECK_EQ_INT(loom_get(loom_astype(y, LOOM_FLOAT32), got, sizeof got), LOOM_OK);
    CHECK(memcmp(got, want_relu, sizeof got) == 0);
    /* a16 @ b16 + c16 in bfloat16 as one GEMM with beta = 1 (the addend copied into the result
     * first; no kernel): (a16 @ b16 + np.array([[0.5, -1], [2, 100]])).astype(ml_dtypes.bfloat16),
     * every value exact */
    float c[4] = {0.5f, -1, 2, 100};
    const float want_beta[4] = {58.5f, 63, 141, 254};
    loom_array *abf = loom_astype(a16, LOOM_BFLOAT16), *bbf = loom_astype(b16, LOOM_BFLOAT16);
    loom_array *cbf = loom_astype(loom_asarray(c, LOOM_FLOAT32, 2, s22), LOOM_BFLOAT16);
    CHECK_EQ_INT(loom_eval_many((loom_array *[]){abf, bbf, cbf}, 3), LOOM_OK);
    loom_array *z = loom_add(loom_matmul(abf, bbf), cbf);
    loom_stats_get(&s0);
    CHECK_EQ_INT(loom_eval(z), LOOM_OK);
    loom_stats_get(&s1);
    CHECK_EQ_INT(s1.kernels_launched - s0.kernels_launched, 0);
    CHECK_EQ_INT(loom_get(loom_astype(z, LOOM_FLOAT32), got, sizeof got), LOOM_OK);
    CHECK(memcmp(got, want_beta, sizeof got) == 0);
    /* np.linalg.inv(np.array([[4., 7.], [2., 6.]])) */
    double m[4] = {4, 7, 2, 6}, inv[4] = {0}, want_inv[4] = {0.6, -0.7, -0.2, 0.4};
    CHECK_EQ_INT(loom_get(loom_linalg_inv(loom_asarray(m, LOOM_FLOAT64, 2, s22)), inv, sizeof inv), LOOM_OK);
    double worst = 0;
    for (int i = 0; i < 4; i++)
        worst = fmax(worst, fabs(inv[i] - want_inv[i]));
    CHECK(worst < 1e-15);
    double singular[4] = {1, 2, 2, 4};
    CHECK_EQ_INT(loom_get(loom_linalg_inv(loom_asarray(singular, LOOM_FLOAT64, 2, s22)), inv, sizeof inv),
                 LOOM_ERR_LINALG);
    CHECK(error_has("loom_linalg_inv: Singular matrix", NULL));
    /* gesdd refuses NaN input; NumPy: np.linalg.svd(..., compute_uv=False) raises LinAlgError
     * "SVD did not converge" */
    double with_nan[4] = {NAN, 1, 1, 1};
    CHECK_EQ_INT(loom_get(loom_linalg_svdvals(loom_asarray(with_nan, LOOM_FLOAT64, 2, s22)), inv, 2 * sizeof *inv),
                 LOOM_ERR_LINALG);
    CHECK(error_has("loom_linalg_svdvals: SVD did not converge", NULL));
    /* geev cannot take NaN or inf (NumPy's eigvals raises LinAlgError for them): a status word */
    double eigvals[4];
    CHECK_EQ_INT(loom_get(loom_linalg_eigvals(loom_asarray(with_nan, LOOM_FLOAT64, 2, s22)), eigvals,
                          sizeof eigvals),
                 LOOM_ERR_LINALG);
    CHECK(error_has("loom_linalg_eigvals: Eigenvalues did not converge", NULL));
    loom_scope_end();
}

/* float16 and bfloat16 products go through float32 and are rounded once to nearest even: with
 * k = 1 each element is the exact product rounded, overflow, subnormals and a tie included.
 * Tables: (a16 @ b16).view(np.uint16) in NumPy, and for bfloat16 the float32 product of the
 * inputs cast to ml_dtypes.bfloat16. */
static void test_16bit_products(void)
{
    static const double a16[4] = {300, 0x1p-10, 1 + 0x1p-10, -0x1p-14};
    static const double b16[4] = {300, 1.5 * 0x1p-10, 1 - 0x1p-11, 0x1p-10 + 0x1p-20};
    static const uint16_t want16[16] = {0x7c00, 0x3708, 0x5caf, 0x34b1, 0x34b0, 0x18, 0x13ff, 0x10,
                                        0x5cb1, 0x1602, 0x3c00, 0x1402, 0xa4b0, 0x8002, 0x8400, 0x8001};
    static const double abf[4] = {1.5 * 0x1p100, 0x1p-100, 1 + 0x1p-7, -0x1p-101};
    static const double bbf[4] = {0x1p28, 1.5 * 0x1p-30, 1 - 0x1p-8, 0x1p-7 + 0x1p-14};
    static const uint16_t wantbf[16] = {0x7f80, 0x6310, 0x71bf, 0x6e42, 0x1b80, 0xc, 0xd7f, 0xa01,
                                        0x4d81, 0x30c2, 0x3f80, 0x3c02, 0x9b00, 0x8006, 0x8cff, 0x8981};
    for (int bf = 0; bf < 2; bf++) {
        loom_scope_begin();
        loom_dtype dt = bf ? LOOM_BFLOAT16 : LOOM_FLOAT16;
        loom_array *a = loom_astype(loom_asarray(bf ? abf : a16, LOOM_FLOAT64, 2, (int64_t[]){4, 1}), dt);
        loom_array *b = loom_astype(loom_asarray(bf ? bbf : b16, LOOM_FLOAT64, 2, (int64_t[]){1, 4}), dt);
        uint16_t got[16] = {0};
        loom_array *y = loom_matmul(a, b);
        loom_stats s0, s1;
        CHECK_EQ_INT(loom_eval_many((loom_array *[]){a, b}, 2), LOOM_OK);
        loom_stats_get(&s0);
        CHECK_EQ_INT(loom_get(y, got, sizeof got), LOOM_OK);
        loom_stats_get(&s1);
        CHECK_EQ_INT(s1.kernels_launched - s0.kernels_launched, 0); /* the GEMM step alone */
        CHECK(memcmp(got, bf ? wantbf : want16, sizeof got) == 0);
        loom_scope_end();
    }
}

/* LAPACK's workspace is a host buffer of the pool: under a limit that leaves room for the
 * plan's buffers but not for it, the SVD fails with LOOM_ERR_OOM naming it, and succeeds once
 * the limit allows it. The limit is raised step by step, so some step lands in between. */
static void test_library_oom(void)
{
    loom_scope_begin();
    enum { N = 64 };
    double *m = malloc(N * N * sizeof *m);
    for (int i = 0; i < N * N; i++)
        m[i] = (double)((i * 37) % 101) - 50 + (i % (N + 1) == 0 ? 100 : 0);
    loom_array *a = loom_asarray(m, LOOM_FLOAT64, 2, (int64_t[]){N, N});
    free(m);
    CHECK_EQ_INT(loom_eval(a), LOOM_OK);
    size_t base = loom_mempool_used_bytes();
    bool workspace_refused = false, succeeded = false, only_oom = true;
    for (size_t extra = 4096; extra <= ((size_t)1 << 20) && !succeeded; extra += 4096) {
        loom_scope_begin();
        loom_array *s = loom_linalg_svdvals(a);
        CHECK_EQ_INT(loom_mempool_set_limit(base + extra), LOOM_OK);
        int rc = loom_eval(s);
        CHECK_EQ_INT(loom_mempool_set_limit(0), LOOM_OK);
        succeeded = rc == LOOM_OK;
        only_oom &= succeeded || rc == LOOM_ERR_OOM;
        workspace_refused |= rc == LOOM_ERR_OOM && error_has("loom_eval: out of memory allocating",
                                                             "for LAPACK's SVD workspace on the host device");
        loom_scope_end();
    }
    CHECK(workspace_refused && succeeded && only_oom);
    loom_scope_end();
}

/* Without LAPACKE (LOOM_HOST_LAPACKE names a file that is not there, or a library without it)
 * the decompositions report why; products, on CBLAS, still run. */
static void test_missing_lapacke(const char *why)
{
    CHECK_EQ_INT(loom_device_set(LOOM_DEVICE_CPU), LOOM_OK);
    loom_scope_begin();
    int64_t s22[2] = {2, 2};
    double m[4] = {4, 2, 2, 3}, got[4];
    loom_array *a = loom_asarray(m, LOOM_FLOAT64, 2, s22);
    CHECK_EQ_INT(loom_get(loom_linalg_cholesky(a), got, sizeof got), LOOM_ERR_UNSUPPORTED);
    CHECK(error_has("loom_get: cusolver potrf (linalg_cholesky) is not available on the host device: ", why));
    CHECK_EQ_INT(loom_get(loom_matmul(a, a), got, sizeof got), LOOM_OK);
    CHECK(got[0] == 20 && got[1] == 14 && got[2] == 14 && got[3] == 13);
    loom_scope_end();
}

/* A gather's out-of-bounds index is found by the host kernel and reported when read. */
static void test_index_check(void)
{
    loom_scope_begin();
    int64_t n = 3;
    int64_t idx[3] = {0, 7, 1};
    loom_array *t = loom_take(loom_arange(0, 5, 1, LOOM_FLOAT32), loom_asarray(idx, LOOM_INT64, 1, &n), 0);
    float got[3];
    CHECK_EQ_INT(loom_get(t, got, sizeof got), LOOM_ERR_INVALID);
    CHECK(error_has("loom_take: index out of bounds for axis 0 with size 5", NULL));
    loom_scope_end();
}

/* ones((2, 2)) @ ones((2, 2)) on the host device: LOOM_OK (the values checked) or the error. */
static int product_of_ones(void)
{
    CHECK_EQ_INT(loom_device_set(LOOM_DEVICE_CPU), LOOM_OK);
    loom_scope_begin();
    float got[4];
    loom_array *a = loom_ones(2, (int64_t[]){2, 2}, LOOM_FLOAT32);
    int rc = loom_get(loom_matmul(a, a), got, sizeof got);
    if (rc == LOOM_OK)
        CHECK(got[0] == 2 && got[1] == 2 && got[2] == 2 && got[3] == 2);
    loom_scope_end();
    return rc;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    if (strcmp(mode, "env-cpu") == 0) { /* LOOM_DEVICE=cpu */
        CHECK_EQ_INT(loom_device_get(), LOOM_DEVICE_CPU);
        loom_scope_begin();
        CHECK_EQ_INT(loom_eval(loom_negative(loom_arange(0, 3, 1, LOOM_INT8))), LOOM_OK);
        loom_scope_end();
        return check_summary("test_host_device env-cpu");
    }
    if (strcmp(mode, "env-bad") == 0) { /* LOOM_DEVICE=gpu */
        loom_scope_begin();
        CHECK_EQ_INT(loom_eval(loom_negative(loom_arange(0, 3, 1, LOOM_INT8))), LOOM_ERR_INVALID);
        CHECK(error_has("loom_eval: LOOM_DEVICE=\"gpu\" names no device", "cpu, auto or a GPU number"));
        loom_scope_end();
        return check_summary("test_host_device env-bad");
    }
    if (strcmp(mode, "no-compiler") == 0) { /* LOOM_HOST_CC names no program */
        CHECK_EQ_INT(loom_device_set(LOOM_DEVICE_CPU), LOOM_OK);
        loom_scope_begin();
        CHECK_EQ_INT(loom_eval(loom_negative(loom_arange(0, 3, 1, LOOM_INT8))), LOOM_ERR_UNSUPPORTED);
        CHECK(error_has("loom_eval: no host C++ compiler for the host device",
                        "LOOM_HOST_CC=\"/nonexistent/c++\" is not an executable program"));
        loom_scope_end();
        return check_summary("test_host_device no-compiler");
    }
    if (strcmp(mode, "no-lapacke") == 0) { /* LOOM_HOST_LAPACKE=/nonexistent/liblapacke.so.3 */
        test_missing_lapacke("LOOM_HOST_LAPACKE=\"/nonexistent/liblapacke.so.3\" could not be loaded (");
        return check_summary("test_host_device no-lapacke");
    }
    if (strcmp(mode, "lapacke-without-symbols") == 0) { /* LOOM_HOST_LAPACKE=libm.so.6 */
        test_missing_lapacke("LOOM_HOST_LAPACKE=\"libm.so.6\" has no LAPACKE (LAPACKE_sgetrf_work is missing)");
        return check_summary("test_host_device lapacke-without-symbols");
    }
    if (strcmp(mode, "blas-threads") == 0) { /* LOOM_HOST_THREADS=1, OPENBLAS_NUM_THREADS=3 */
        CHECK_EQ_INT(product_of_ones(), LOOM_OK);
        /* the OpenBLAS Loom loaded (the same library, already in the process) obeys the cap */
        void *h = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_NOLOAD);
        void *get = h ? dlsym(h, "openblas_get_num_threads") : NULL;
        int (*threads)(void) = NULL;
        memcpy(&threads, &get, sizeof get);
        CHECK(threads && threads() == 1);
        if (h)
            dlclose(h);
        return check_summary("test_host_device blas-threads");
    }
    if (strcmp(mode, "no-blas") == 0) { /* LOOM_HOST_BLAS=/nonexistent/libopenblas.so.0 */
        CHECK_EQ_INT(product_of_ones(), LOOM_ERR_UNSUPPORTED);
        CHECK(error_has("loom_get: cublas gemm (matmul) is not available on the host device: "
                        "LOOM_HOST_BLAS=\"/nonexistent/libopenblas.so.0\" could not be loaded (",
                        NULL));
        return check_summary("test_host_device no-blas");
    }
    test_choosing();
    test_mixing();
    test_memory();
    test_block_cache();
    CHECK_EQ_INT(loom_stream_synchronize(NULL), LOOM_OK); /* nothing to wait for, no GPU needed */
    CHECK_EQ_INT(loom_device_synchronize(), LOOM_OK);
    test_unavailable();
    test_library_steps();
    test_16bit_products();
    test_library_oom();
    test_index_check();
    return check_summary("test_host_device");
}
