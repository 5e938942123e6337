/* The pinned pool's API, the asynchronous transfers and device properties without a device:
 * their argument checks, the counters and the limit, and a clear error where a device is
 * needed. gpu_test_toolbox checks them on a device. */
#include "check.h"

#include <stdint.h>

static void test_pool_api(void)
{
    CHECK_EQ_INT(loom_pinned_mempool_set_limit(12345), LOOM_OK);
    CHECK_EQ_INT(loom_pinned_mempool_get_limit(), 12345);
    CHECK_EQ_INT(loom_pinned_mempool_set_limit(0), LOOM_OK);
    CHECK_EQ_INT(loom_pinned_mempool_get_limit(), 0);
    CHECK_EQ_INT(loom_pinned_mempool_free_all_blocks(), LOOM_OK);
    CHECK(loom_pinned_mempool_used_bytes() <= loom_pinned_mempool_total_bytes());
    CHECK_EQ_INT(loom_host_free_pinned(NULL), LOOM_OK);
    static char not_pinned[16];
    CHECK_EQ_INT(loom_host_free_pinned(not_pinned), LOOM_ERR_INVALID);
    CHECK(strstr(loom_last_error(), "loom_host_free_pinned:") &&
          strstr(loom_last_error(), "is not a buffer of loom_host_alloc_pinned in use"));
    CHECK(loom_host_alloc_pinned(0) == NULL);
    CHECK_STR(loom_last_error(), "loom_host_alloc_pinned: bytes is 0");
}

static void test_transfer_arguments(void)
{
    loom_scope_begin();
    float dst[4];
    CHECK_EQ_INT(loom_get_async(NULL, dst, sizeof dst), LOOM_ERR_INVALID);
    CHECK(strstr(loom_last_error(), "loom_get_async: array 0 is NULL"));
    loom_array *a = loom_zeros(1, (int64_t[]){4}, LOOM_FLOAT32);
    CHECK_EQ_INT(loom_get_async(a, dst, 8), LOOM_ERR_INVALID);
    CHECK_STR(loom_last_error(), "loom_get_async: dst holds 8 bytes but the float32 array needs 16");
    CHECK_EQ_INT(loom_get_async(a, NULL, 16), LOOM_ERR_INVALID);
    CHECK_STR(loom_last_error(), "loom_get_async: dst is NULL");
    loom_array *empty = loom_zeros(1, (int64_t[]){0}, LOOM_FLOAT32);
    CHECK_EQ_INT(loom_get_async(empty, NULL, 0), LOOM_OK); /* nothing to copy */
    CHECK(loom_asarray_async(dst, LOOM_FLOAT32, 1, (int64_t[]){-1}) == NULL);
    CHECK_EQ_INT(loom_last_error_code(), LOOM_ERR_INVALID);
    CHECK(loom_asarray_async(NULL, LOOM_FLOAT32, 1, (int64_t[]){4}) == NULL);
    CHECK(strstr(loom_last_error(), "loom_asarray_async: data is NULL for 4 elements"));
    CHECK(loom_asarray_async(dst, LOOM_NO_DTYPE, 1, (int64_t[]){4}) == NULL);
    if (loom_device_count() == 0) {
        CHECK_EQ_INT(loom_get_async(a, dst, sizeof dst), LOOM_ERR_NO_DEVICE);
        CHECK(loom_asarray_async(dst, LOOM_FLOAT32, 1, (int64_t[]){4}) == NULL);
        CHECK_EQ_INT(loom_last_error_code(), LOOM_ERR_NO_DEVICE);
        CHECK(loom_host_alloc_pinned(64) == NULL);
        CHECK_EQ_INT(loom_last_error_code(), LOOM_ERR_NO_DEVICE);
    }
    loom_scope_end();
}

static void test_device_properties(void)
{
    loom_device_props p;
    CHECK_EQ_INT(loom_device_properties(0, NULL), LOOM_ERR_INVALID);
    CHECK_STR(loom_last_error(), "loom_device_properties: props is NULL");
    size_t f, t;
    CHECK_EQ_INT(loom_mem_info(NULL, &t), LOOM_ERR_INVALID);
    CHECK_STR(loom_last_error(), "loom_mem_info: free_bytes is NULL");
    CHECK_EQ_INT(loom_mem_info(&f, NULL), LOOM_ERR_INVALID);
    CHECK_EQ_INT(loom_device_properties(-2, &p), loom_device_count() ? LOOM_ERR_INVALID
                                                                     : LOOM_ERR_NO_DEVICE);
    /* the host device has no GPU properties (docs/host-device.md) */
    CHECK_EQ_INT(loom_device_properties(LOOM_DEVICE_CPU, &p), LOOM_ERR_UNSUPPORTED);
    CHECK_STR(loom_last_error(), "loom_device_properties: not available on the host device");
    if (loom_device_count() == 0) {
        CHECK_EQ_INT(loom_device_properties(0, &p), LOOM_ERR_NO_DEVICE);
        CHECK(strstr(loom_last_error(), "loom_device_properties: no NVIDIA driver/GPU found"));
        CHECK_EQ_INT(loom_mem_info(&f, &t), LOOM_ERR_NO_DEVICE);
    }
}

int main(void)
{
    test_pool_api();
    test_transfer_arguments();
    test_device_properties();
    return check_summary("test_pinned_props");
}
