/* The toolbox on the device: printing evaluated arrays (views, every dtype), the testing
 * helpers on computed values, device properties and memory, the pinned pool's API,
 * loom_get_async overlapping a kernel on another stream, and DLPack round trips through Loom
 * itself (tests/gpu/check_dlpack.py exchanges with PyTorch and CuPy). Skips (77) without a
 * device. */
#define _POSIX_C_SOURCE 200809L
#include "check.h"
#include "slow_kernel.h"

#include "include/loom_dlpack.h"

#include <cuda_runtime_api.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define FN "loom_test"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* NumPy: repr(np.linspace(0, 1, 8, dtype=np.float32)), repr of its transpose-free slice
 * [::-3], str(np.arange(12).reshape(3, 4).T), repr(np.arange(6, dtype=np.uint8) * 40). */
static void test_print_evaluated(void)
{
    loom_scope_begin();
    loom_array *x = loom_linspace(0, 1, 8, true, LOOM_FLOAT32);
    char *s = loom_array_repr(x);
    CHECK_STR(s, "array([0.        , 0.14285715, 0.2857143 , 0.42857143, 0.5714286 ,\n"
                 "       0.71428573, 0.85714287, 1.        ], dtype=float32)");
    free(s);
    s = loom_array_repr(loom_slice(x, 0, LOOM_NONE, LOOM_NONE, -3));
    CHECK_STR(s, "array([1.        , 0.5714286 , 0.14285715], dtype=float32)");
    free(s);
    loom_array *m = loom_transpose(loom_reshape(loom_arange(0, 12, 1, LOOM_INT64), 2,
                                                (int64_t[]){3, 4}),
                                   NULL);
    s = loom_array_str(m);
    CHECK_STR(s, "[[ 0  4  8]\n [ 1  5  9]\n [ 2  6 10]\n [ 3  7 11]]");
    free(s);
    s = loom_array_repr(loom_multiply(loom_arange(0, 6, 1, LOOM_UINT8), loom_scalar_int(40)));
    CHECK_STR(s, "array([  0,  40,  80, 120, 160, 200], dtype=uint8)");
    free(s);
    CHECK_EQ_INT(loom_print(m), LOOM_OK);
    loom_scope_end();
}

/* Summarised arrays print from their corners alone (NumPy: repr(np.arange(6_000_000.0)
 * .reshape(2000, 3000)) and str(np.arange(24000, dtype=np.int32).reshape(20, 30, 40) * 3)). */
static void test_print_summarised(void)
{
    static const char *const want_2d =
        "array([[0.000000e+00, 1.000000e+00, 2.000000e+00, ..., 2.997000e+03,\n"
        "        2.998000e+03, 2.999000e+03],\n"
        "       [3.000000e+03, 3.001000e+03, 3.002000e+03, ..., 5.997000e+03,\n"
        "        5.998000e+03, 5.999000e+03],\n"
        "       [6.000000e+03, 6.001000e+03, 6.002000e+03, ..., 8.997000e+03,\n"
        "        8.998000e+03, 8.999000e+03],\n"
        "       ...,\n"
        "       [5.991000e+06, 5.991001e+06, 5.991002e+06, ..., 5.993997e+06,\n"
        "        5.993998e+06, 5.993999e+06],\n"
        "       [5.994000e+06, 5.994001e+06, 5.994002e+06, ..., 5.996997e+06,\n"
        "        5.996998e+06, 5.996999e+06],\n"
        "       [5.997000e+06, 5.997001e+06, 5.997002e+06, ..., 5.999997e+06,\n"
        "        5.999998e+06, 5.999999e+06]], shape=(2000, 3000))";
    static const char *const want_3d =
        "[[[    0     3     6 ...   111   114   117]\n"
        "  [  120   123   126 ...   231   234   237]\n"
        "  [  240   243   246 ...   351   354   357]\n"
        "  ...\n"
        "  [ 3240  3243  3246 ...  3351  3354  3357]\n"
        "  [ 3360  3363  3366 ...  3471  3474  3477]\n"
        "  [ 3480  3483  3486 ...  3591  3594  3597]]\n"
        "\n"
        " [[ 3600  3603  3606 ...  3711  3714  3717]\n"
        "  [ 3720  3723  3726 ...  3831  3834  3837]\n"
        "  [ 3840  3843  3846 ...  3951  3954  3957]\n"
        "  ...\n"
        "  [ 6840  6843  6846 ...  6951  6954  6957]\n"
        "  [ 6960  6963  6966 ...  7071  7074  7077]\n"
        "  [ 7080  7083  7086 ...  7191  7194  7197]]\n"
        "\n"
        " [[ 7200  7203  7206 ...  7311  7314  7317]\n"
        "  [ 7320  7323  7326 ...  7431  7434  7437]\n"
        "  [ 7440  7443  7446 ...  7551  7554  7557]\n"
        "  ...\n"
        "  [10440 10443 10446 ... 10551 10554 10557]\n"
        "  [10560 10563 10566 ... 10671 10674 10677]\n"
        "  [10680 10683 10686 ... 10791 10794 10797]]\n"
        "\n"
        " ...\n"
        "\n"
        " [[61200 61203 61206 ... 61311 61314 61317]\n"
        "  [61320 61323 61326 ... 61431 61434 61437]\n"
        "  [61440 61443 61446 ... 61551 61554 61557]\n"
        "  ...\n"
        "  [64440 64443 64446 ... 64551 64554 64557]\n"
        "  [64560 64563 64566 ... 64671 64674 64677]\n"
        "  [64680 64683 64686 ... 64791 64794 64797]]\n"
        "\n"
        " [[64800 64803 64806 ... 64911 64914 64917]\n"
        "  [64920 64923 64926 ... 65031 65034 65037]\n"
        "  [65040 65043 65046 ... 65151 65154 65157]\n"
        "  ...\n"
        "  [68040 68043 68046 ... 68151 68154 68157]\n"
        "  [68160 68163 68166 ... 68271 68274 68277]\n"
        "  [68280 68283 68286 ... 68391 68394 68397]]\n"
        "\n"
        " [[68400 68403 68406 ... 68511 68514 68517]\n"
        "  [68520 68523 68526 ... 68631 68634 68637]\n"
        "  [68640 68643 68646 ... 68751 68754 68757]\n"
        "  ...\n"
        "  [71640 71643 71646 ... 71751 71754 71757]\n"
        "  [71760 71763 71766 ... 71871 71874 71877]\n"
        "  [71880 71883 71886 ... 71991 71994 71997]]]";
    loom_scope_begin();
    loom_array *m = loom_reshape(loom_arange(0, 6000000, 1, LOOM_FLOAT64), 2, (int64_t[]){2000, 3000});
    char *s = loom_array_repr(m);
    CHECK_STR(s, want_2d);
    free(s);
    loom_array *c = loom_multiply(loom_reshape(loom_arange(0, 24000, 1, LOOM_INT32), 3,
                                               (int64_t[]){20, 30, 40}),
                                  loom_scalar_int(3));
    s = loom_array_str(c);
    CHECK_STR(s, want_3d);
    free(s);
    loom_scope_end();
}

static void test_assert_on_device(void)
{
    loom_scope_begin();
    loom_array *x = loom_linspace(0, 1, 1000, true, LOOM_FLOAT64);
    loom_array *y = loom_add(loom_square(loom_sin(x)), loom_square(loom_cos(x)));
    CHECK_EQ_INT(loom_testing_assert_allclose(y, loom_ones_like(y), 1e-14, 0, true), LOOM_OK);
    CHECK_EQ_INT(loom_testing_assert_array_equal(loom_add(x, x), loom_mul_scalar(x, 2.0)), LOOM_OK);
    /* NumPy: assert_allclose(np.linspace(0, 1, 1000), np.linspace(0, 1, 1000) + 1e-3) */
    CHECK_EQ_INT(loom_testing_assert_allclose(x, loom_add_scalar(x, 1e-3), 1e-7, 0, true),
                 LOOM_ERR_ASSERT);
    const char *msg = loom_last_error();
    CHECK(msg && strstr(msg, "loom_testing_assert_allclose: Not equal to tolerance rtol=1e-07, atol=0\n\n"
                             "Mismatched elements: 1000 / 1000 (100%)\n"
                             "First 5 mismatches are at indices:\n"
                             " [0]: 0.0 (ACTUAL), 0.001 (DESIRED)\n"));
    loom_scope_end();
}

static void test_device_properties(void)
{
    loom_device_props p;
    CHECK_EQ_INT(loom_device_properties(0, &p), LOOM_OK);
    struct cudaDeviceProp ref;
    CHECK(cudaGetDeviceProperties(&ref, 0) == cudaSuccess);
    CHECK_STR(p.name, ref.name);
    CHECK(p.major == ref.major && p.minor == ref.minor);
    CHECK(p.total_memory == ref.totalGlobalMem);
    CHECK(p.free_memory > 0 && p.free_memory <= p.total_memory);
    CHECK(p.multiprocessors == ref.multiProcessorCount && p.l2_cache_bytes == ref.l2CacheSize);
    CHECK(p.clock_khz > 0 && p.memory_clock_khz > 0 && p.memory_bus_width > 0);
    CHECK(p.warp_size == 32 && p.max_threads_per_block >= 1024);
    CHECK(p.pci_bus == ref.pciBusID && p.pci_device == ref.pciDeviceID);
    CHECK(strlen(p.pci_bus_id) >= 12);
    CHECK_EQ_INT(loom_device_properties(loom_device_count(), &p), LOOM_ERR_INVALID);
    CHECK(strstr(loom_last_error(), "loom_device_properties: device"));
    CHECK_EQ_INT(loom_device_properties(0, NULL), LOOM_ERR_INVALID);

    size_t free_bytes = 0, total = 0, f2, t2;
    CHECK_EQ_INT(loom_mem_info(&free_bytes, &total), LOOM_OK);
    CHECK(cudaMemGetInfo(&f2, &t2) == cudaSuccess);
    CHECK(total == t2 && free_bytes > 0 && free_bytes <= total);
    CHECK_EQ_INT(loom_mem_info(NULL, &total), LOOM_ERR_INVALID);
}

static void test_pinned_pool(void)
{
    CHECK_EQ_INT(loom_pinned_mempool_free_all_blocks(), LOOM_OK);
    size_t base_total = loom_pinned_mempool_total_bytes();
    size_t base_used = loom_pinned_mempool_used_bytes();
    void *p = loom_host_alloc_pinned(3 << 20);
    CHECK(p != NULL);
    struct cudaPointerAttributes attr;
    CHECK(cudaPointerGetAttributes(&attr, p) == cudaSuccess && attr.type == cudaMemoryTypeHost);
    CHECK(loom_pinned_mempool_used_bytes() >= base_used + (3 << 20));
    CHECK(loom_pinned_mempool_total_bytes() >= base_total + (3 << 20));
    CHECK_EQ_INT(loom_host_free_pinned(p), LOOM_OK);
    CHECK_EQ_INT(loom_pinned_mempool_used_bytes(), base_used);
    CHECK_EQ_INT(loom_host_free_pinned(p), LOOM_ERR_INVALID); /* given back already */
    CHECK_EQ_INT(loom_pinned_mempool_free_all_blocks(), LOOM_OK);
    CHECK(loom_pinned_mempool_total_bytes() <= base_total);

    CHECK_EQ_INT(loom_pinned_mempool_set_limit(1 << 20), LOOM_OK);
    CHECK_EQ_INT(loom_pinned_mempool_get_limit(), 1 << 20);
    CHECK(loom_host_alloc_pinned(4 << 20) == NULL);
    CHECK_EQ_INT(loom_last_error_code(), LOOM_ERR_OOM);
    CHECK(strstr(loom_last_error(), "loom_host_alloc_pinned: out of pinned host memory"));
    CHECK_EQ_INT(loom_pinned_mempool_set_limit(0), LOOM_OK);
    CHECK(loom_host_alloc_pinned(0) == NULL);
}

/* A copy into pinned memory on one stream does not wait for a spin kernel on another: the host
 * sees the copy done long before the kernel ends. Then the same buffer goes back up with
 * loom_asarray_async. */
static float pageable_probe[4];

static void test_get_async_overlaps(void)
{
    enum { N = 1 << 24 };
    loom_scope_begin();
    loom_array *x = loom_arange(0, N, 1, LOOM_FLOAT32);
    CHECK_EQ_INT(loom_eval(x), LOOM_OK);
    CHECK_EQ_INT(loom_stream_synchronize(NULL), LOOM_OK);
    float *host = loom_host_alloc_pinned((size_t)N * 4);
    CHECK(host != NULL);

    /* Pageable memory is refused. */
    float *pageable = malloc(16 * 4);
    CHECK_EQ_INT(loom_get_async(loom_slice(x, 0, 0, 16, 1), pageable, 16 * 4), LOOM_ERR_INVALID);
    CHECK(strstr(loom_last_error(), "dst is not page-locked host memory"));
    free(pageable);

    loom_stream *busy = loom_stream_create();
    void *scratch = NULL;
    CHECK(cudaMalloc(&scratch, 256) == cudaSuccess);
    CHECK_EQ_INT(slow_fill(FN, scratch, 1, 0, SLOW_CYCLES, busy), LOOM_OK); /* about 0.1 s */
    double t0 = now();
    CHECK_EQ_INT(loom_get_async(x, host, (size_t)N * 4), LOOM_OK);
    CHECK_EQ_INT(loom_stream_synchronize(NULL), LOOM_OK);
    double copy = now() - t0;
    CHECK_EQ_INT(loom_stream_synchronize(busy), LOOM_OK);
    double spin = now() - t0;
    printf("gpu_test_toolbox: 64 MiB copy done after %.1f ms, the kernel after %.1f ms\n",
           copy * 1e3, spin * 1e3);
    CHECK(copy < 0.5 * spin);
    bool right = true;
    for (int i = 0; host && i < N; i += 4099)
        right &= host[i] == (float)i;
    CHECK(right);

    /* Back to the device from the same pinned buffer, without a host copy. */
    loom_array *z = loom_asarray_async(host, LOOM_FLOAT32, 1, (int64_t[]){N});
    CHECK(z != NULL);
    CHECK_EQ_INT(loom_testing_assert_array_equal(z, x), LOOM_OK);
    CHECK(loom_asarray_async(pageable_probe, LOOM_FLOAT32, 1, (int64_t[]){4}) == NULL);
    CHECK(strstr(loom_last_error(), "loom_asarray_async: data is not page-locked host memory"));

    /* The array may go before its copy ran: the buffer's free waits for the stream. */
    loom_array *y = loom_mul_scalar(loom_arange(0, N, 1, LOOM_FLOAT32), 2.0);
    CHECK_EQ_INT(loom_get_async(y, host, (size_t)N * 4), LOOM_OK);
    loom_scope_end();
    CHECK_EQ_INT(loom_stream_synchronize(NULL), LOOM_OK);
    CHECK(host && host[N - 1] == 2.0f * (N - 1));
    loom_host_free_pinned(host);
    loom_stream_destroy(busy);
    cudaFree(scratch);
}

/* Loom -> DLPack -> Loom: the same memory, a materialised view, strided imports (a transpose
 * and reversed rows) as views, and the deleters' order. */
static void test_dlpack_round_trip(void)
{
    loom_scope_begin();
    loom_array *x = loom_reshape(loom_arange(0, 12, 1, LOOM_FLOAT32), 2, (int64_t[]){3, 4});
    loom_array *t = loom_transpose(x, NULL);
    DLManagedTensorVersioned *m = loom_to_dlpack(t, loom_stream_handle(NULL));
    CHECK(m != NULL);
    if (!m) {
        loom_scope_end();
        return;
    }
    CHECK(m->version.major == 1 && (m->flags & DLPACK_FLAG_BITMASK_READ_ONLY));
    CHECK(m->dl_tensor.device.device_type == kDLCUDA && m->dl_tensor.device.device_id == 0);
    CHECK(m->dl_tensor.ndim == 2 && m->dl_tensor.shape[0] == 4 && m->dl_tensor.shape[1] == 3);
    CHECK(m->dl_tensor.strides[0] == 3 && m->dl_tensor.strides[1] == 1);
    CHECK(m->dl_tensor.dtype.code == kDLFloat && m->dl_tensor.dtype.bits == 32);
    loom_array *back = loom_from_dlpack(m); /* owns m now */
    float out[12];
    CHECK_EQ_INT(loom_get(back, out, sizeof out), LOOM_OK);
    bool same = true;
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 3; j++)
            same &= out[i * 3 + j] == (float)(j * 4 + i);
    CHECK(same);

    /* x's memory seen through strides: its transpose, and its rows reversed. */
    DLManagedTensor *l = loom_to_dlpack_legacy(x, loom_stream_handle(NULL));
    CHECK(l != NULL);
    if (l) {
        int64_t shape_t[2] = {4, 3}, strides_t[2] = {1, 4};
        l->dl_tensor.shape = shape_t;
        l->dl_tensor.strides = strides_t;
        loom_array *xt = loom_from_dlpack_legacy(l);
        CHECK(xt && loom_is_view(xt));
        CHECK_EQ_INT(loom_testing_assert_array_equal(xt, t), LOOM_OK);
    }
    DLManagedTensor *r = loom_to_dlpack_legacy(x, loom_stream_handle(NULL));
    CHECK(r != NULL);
    if (r) {
        int64_t shape_r[2] = {3, 4}, strides_r[2] = {-4, 1};
        r->dl_tensor.shape = shape_r;
        r->dl_tensor.strides = strides_r;
        r->dl_tensor.byte_offset = 8 * sizeof(float); /* the last row */
        loom_array *flipped = loom_from_dlpack_legacy(r);
        CHECK_EQ_INT(loom_testing_assert_array_equal(flipped, loom_flip(x, (int[]){0}, 1)), LOOM_OK);
        CHECK_EQ_INT(loom_testing_assert_array_equal(loom_add(flipped, flipped),
                                                     loom_mul_scalar(loom_flip(x, (int[]){0}, 1), 2.0)),
                     LOOM_OK);
    }
    /* The shapes above are the caller's: every import is released at the scope's end. */
    loom_scope_end();

    /* A consumer's stream that is not Loom's waits for the value. */
    loom_stream *other = loom_stream_create();
    loom_scope_begin();
    loom_array *y = loom_mul_scalar(loom_arange(0, 1 << 20, 1, LOOM_FLOAT32), 3.0);
    DLManagedTensorVersioned *e = loom_to_dlpack(y, loom_stream_handle(other));
    loom_scope_end(); /* y goes: the capsule keeps its memory */
    CHECK(e != NULL);
    if (e) {
        float last = 0;
        CHECK(cudaMemcpyAsync(&last, (float *)e->dl_tensor.data + (1 << 20) - 1, sizeof last,
                              cudaMemcpyDeviceToHost,
                              (cudaStream_t)loom_stream_handle(other)) == cudaSuccess);
        CHECK(cudaStreamSynchronize((cudaStream_t)loom_stream_handle(other)) == cudaSuccess);
        CHECK(last == 3.0f * ((1 << 20) - 1));
        e->deleter(e);
    }
    loom_stream_destroy(other);
}

int main(void)
{
    if (loom_device_count() == 0) {
        printf("gpu_test_toolbox: no CUDA device, skipped\n");
        return 77;
    }
    test_print_evaluated();
    test_print_summarised();
    test_assert_on_device();
    test_device_properties();
    test_pinned_pool();
    test_get_async_overlaps();
    test_dlpack_round_trip();
    return check_summary("gpu_test_toolbox");
}
