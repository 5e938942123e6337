/* DLPack without a device: the ABI's layout as the specification fixes it (LP64), dtype
 * mapping both ways, the element span of strided tensors, and the refusals of
 * loom_from_dlpack (host tensors, dtypes, versions) and loom_to_dlpack. gpu_dlpack exchanges
 * arrays with PyTorch and CuPy. */
#include "check.h"

#include "exec/dlpack.h"

#include <stddef.h>
#include <stdlib.h>

static void test_layout(void)
{
    CHECK_EQ_INT(sizeof(DLDevice), 8);
    CHECK_EQ_INT(sizeof(DLDataType), 4);
    CHECK_EQ_INT(offsetof(DLTensor, data), 0);
    CHECK_EQ_INT(offsetof(DLTensor, device), 8);
    CHECK_EQ_INT(offsetof(DLTensor, ndim), 16);
    CHECK_EQ_INT(offsetof(DLTensor, dtype), 20);
    CHECK_EQ_INT(offsetof(DLTensor, shape), 24);
    CHECK_EQ_INT(offsetof(DLTensor, strides), 32);
    CHECK_EQ_INT(offsetof(DLTensor, byte_offset), 40);
    CHECK_EQ_INT(sizeof(DLTensor), 48);
    CHECK_EQ_INT(offsetof(DLManagedTensor, manager_ctx), 48);
    CHECK_EQ_INT(offsetof(DLManagedTensor, deleter), 56);
    CHECK_EQ_INT(offsetof(DLManagedTensorVersioned, version), 0);
    CHECK_EQ_INT(offsetof(DLManagedTensorVersioned, manager_ctx), 8);
    CHECK_EQ_INT(offsetof(DLManagedTensorVersioned, deleter), 16);
    CHECK_EQ_INT(offsetof(DLManagedTensorVersioned, flags), 24);
    CHECK_EQ_INT(offsetof(DLManagedTensorVersioned, dl_tensor), 32);
    CHECK_EQ_INT(kDLCUDA, 2);
    CHECK_EQ_INT(kDLBool, 6);
    CHECK_EQ_INT(DLPACK_FLAG_BITMASK_READ_ONLY, 1);
}

static void test_dtypes(void)
{
    static const struct {
        loom_dtype dt;
        uint8_t code, bits;
    } table[] = {
        {LOOM_BOOL, kDLBool, 8},        {LOOM_INT8, kDLInt, 8},         {LOOM_INT16, kDLInt, 16},
        {LOOM_INT32, kDLInt, 32},       {LOOM_INT64, kDLInt, 64},       {LOOM_UINT8, kDLUInt, 8},
        {LOOM_UINT16, kDLUInt, 16},     {LOOM_UINT32, kDLUInt, 32},     {LOOM_UINT64, kDLUInt, 64},
        {LOOM_FLOAT16, kDLFloat, 16},   {LOOM_BFLOAT16, kDLBfloat, 16}, {LOOM_FLOAT32, kDLFloat, 32},
        {LOOM_FLOAT64, kDLFloat, 64},   {LOOM_COMPLEX64, kDLComplex, 64},
        {LOOM_COMPLEX128, kDLComplex, 128},
    };
    CHECK_EQ_INT(sizeof table / sizeof table[0], LOOM_NUM_DTYPES);
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        DLDataType t;
        CHECK(loom__dlpack_dtype(table[i].dt, &t));
        CHECK(t.code == table[i].code && t.bits == table[i].bits && t.lanes == 1);
        CHECK_EQ_INT(loom__dtype_from_dlpack(t), table[i].dt);
    }
    DLDataType t;
    CHECK(!loom__dlpack_dtype(LOOM_NO_DTYPE, &t));
    CHECK_EQ_INT(loom__dtype_from_dlpack((DLDataType){kDLFloat, 32, 4}), LOOM_NO_DTYPE);
    CHECK_EQ_INT(loom__dtype_from_dlpack((DLDataType){kDLFloat, 8, 1}), LOOM_NO_DTYPE);
    CHECK_EQ_INT(loom__dtype_from_dlpack((DLDataType){kDLOpaqueHandle, 64, 1}), LOOM_NO_DTYPE);
}

static int64_t span_of(int ndim, int64_t *shape, int64_t *strides, int64_t *first)
{
    DLTensor t = {.device = {kDLCUDA, 0}, .ndim = ndim, .dtype = {kDLFloat, 32, 1},
                  .shape = shape, .strides = strides};
    loom_dtype dt;
    int64_t span = -1;
    CHECK_EQ_INT(loom__dlpack_check("t", &t, &dt, first, &span), LOOM_OK);
    CHECK_EQ_INT(dt, LOOM_FLOAT32);
    return span;
}

static void test_spans(void)
{
    int64_t first;
    CHECK_EQ_INT(span_of(2, (int64_t[]){2, 3}, NULL, &first), 6);
    CHECK_EQ_INT(first, 0);
    CHECK_EQ_INT(span_of(2, (int64_t[]){3, 2}, (int64_t[]){1, 3}, &first), 6); /* a transpose */
    CHECK_EQ_INT(first, 0);
    CHECK_EQ_INT(span_of(1, (int64_t[]){5}, (int64_t[]){-2}, &first), 9); /* x[::-2] */
    CHECK_EQ_INT(first, -8);
    CHECK_EQ_INT(span_of(2, (int64_t[]){4, 3}, (int64_t[]){0, 1}, &first), 3); /* broadcast */
    CHECK_EQ_INT(span_of(2, (int64_t[]){4, 0}, (int64_t[]){7, 1}, &first), 0); /* empty */
    CHECK_EQ_INT(first, 0);
    CHECK_EQ_INT(span_of(0, NULL, NULL, &first), 1);
    CHECK_EQ_INT(span_of(2, (int64_t[]){2, 2}, (int64_t[]){10, 3}, &first), 14);
}

static int deleted;

static void count_delete(DLManagedTensorVersioned *m)
{
    (void)m;
    deleted++;
}

static void test_refusals(void)
{
    static float data[6];
    int64_t shape[2] = {2, 3};
    DLManagedTensorVersioned m = {
        .version = {1, 0}, .deleter = count_delete,
        .dl_tensor = {.data = data, .device = {kDLCPU, 0}, .ndim = 2,
                      .dtype = {kDLFloat, 32, 1}, .shape = shape}};
    CHECK(loom_from_dlpack(&m) == NULL);
    CHECK_EQ_INT(loom_last_error_code(), LOOM_ERR_INVALID);
    CHECK(strstr(loom_last_error(), "loom_from_dlpack: the tensor is not in CUDA device memory "
                                    "(DLPack device type 1"));
    m.dl_tensor.device.device_type = kDLCUDA;
    m.dl_tensor.dtype.lanes = 4;
    CHECK(loom_from_dlpack(&m) == NULL);
    CHECK_EQ_INT(loom_last_error_code(), LOOM_ERR_UNSUPPORTED);
    CHECK(strstr(loom_last_error(), "DLPack dtype (code 2, 32 bits, 4 lanes) has no Loom dtype"));
    m.dl_tensor.dtype.lanes = 1;
    m.version.major = 2;
    CHECK(loom_from_dlpack(&m) == NULL);
    CHECK(strstr(loom_last_error(), "DLPack version 2.0 is not supported"));
    m.version.major = 1;
    shape[1] = -1;
    CHECK(loom_from_dlpack(&m) == NULL);
    CHECK_EQ_INT(loom_last_error_code(), LOOM_ERR_INVALID);
    shape[1] = 3;
    m.dl_tensor.ndim = 33;
    CHECK(loom_from_dlpack(&m) == NULL);
    m.dl_tensor.ndim = 2;
    /* CuPy before cupy#10172's fix sent (2^64 - 64) / 4 for a stride of -64 bytes: reaching
     * past the address space is refused, not wrapped around */
    int64_t strides[2] = {(int64_t)(((uint64_t)0 - 64) / 4), 1};
    m.dl_tensor.strides = strides;
    shape[0] = 3;
    CHECK(loom_from_dlpack(&m) == NULL);
    CHECK_EQ_INT(loom_last_error_code(), LOOM_ERR_INVALID);
    CHECK(strstr(loom_last_error(), "loom_from_dlpack: the strides reach outside the address "
                                    "space"));
    strides[0] = INT64_MAX / 2 + 1; /* each axis fits, their sum does not */
    strides[1] = -(INT64_MAX / 2) - 1;
    shape[0] = shape[1] = 2;
    CHECK(loom_from_dlpack(&m) == NULL);
    CHECK(strstr(loom_last_error(), "the strides reach outside the address space"));
    m.dl_tensor.strides = NULL;
    shape[0] = 2;
    shape[1] = 3;
    CHECK(loom_from_dlpack(NULL) == NULL);
    CHECK(strstr(loom_last_error(), "loom_from_dlpack: the managed tensor is NULL"));
    CHECK(loom_from_dlpack_legacy(NULL) == NULL);
    if (loom_device_count() == 0) {
        CHECK(loom_from_dlpack(&m) == NULL);
        CHECK_EQ_INT(loom_last_error_code(), LOOM_ERR_NO_DEVICE);
    }
    CHECK_EQ_INT(deleted, 0); /* a refused tensor stays the caller's */

    loom_clear_error();
    CHECK(loom_to_dlpack(NULL, NULL) == NULL);
    CHECK(strstr(loom_last_error(), "loom_to_dlpack: array 0 is NULL"));
    CHECK(loom_to_dlpack_legacy(NULL, NULL) == NULL);
    if (loom_device_count() == 0) {
        loom_scope_begin();
        CHECK(loom_to_dlpack(loom_zeros(1, (int64_t[]){3}, LOOM_FLOAT32), NULL) == NULL);
        CHECK_EQ_INT(loom_last_error_code(), LOOM_ERR_NO_DEVICE);
        loom_scope_end();
    }
}

int main(void)
{
    test_layout();
    test_dtypes();
    test_spans();
    test_refusals();
    return check_summary("test_dlpack");
}
