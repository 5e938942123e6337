/* The host device's API and failure paths (docs/host-device.md): choosing it, arrays keeping
 * their device, mixing devices, loom_to_device, the memory pool's limit, library steps that
 * report "not available on the host device", out-of-bounds indices found by a host kernel, and
 * (each a process of its own: the environment is read once) LOOM_DEVICE=cpu, a LOOM_DEVICE
 * that names no device, and no host compiler. Values are checked by the GPU tests that run on
 * the host device (host_test_*, docs/testing.md). */
#define _POSIX_C_SOURCE 200809L
#include "check.h"

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

static void test_unavailable(void)
{
    loom_scope_begin();
    int64_t shape[2] = {3, 3};
    loom_array *a = loom_ones(2, shape, LOOM_FLOAT32);
    double v;
    CHECK_EQ_INT(loom_item(loom_sum(loom_matmul(a, a), NULL, 0, false), &v), LOOM_ERR_UNSUPPORTED);
    CHECK(error_has("loom_item: cublas gemm", "is not available on the host device"));
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
    test_choosing();
    test_mixing();
    test_memory();
    test_unavailable();
    test_index_check();
    return check_summary("test_host_device");
}
