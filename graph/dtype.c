/* dtype names, sizes and kinds. Promotion and casting rules live in graph/promote.c. */
#include "internal.h"

#include <string.h>

static const struct {
    const char *name;
    size_t size;
} dtype_info[LOOM_NUM_DTYPES] = {
    [LOOM_BOOL] = {"bool", 1},         [LOOM_INT8] = {"int8", 1},
    [LOOM_INT16] = {"int16", 2},       [LOOM_INT32] = {"int32", 4},
    [LOOM_INT64] = {"int64", 8},       [LOOM_UINT8] = {"uint8", 1},
    [LOOM_UINT16] = {"uint16", 2},     [LOOM_UINT32] = {"uint32", 4},
    [LOOM_UINT64] = {"uint64", 8},     [LOOM_FLOAT16] = {"float16", 2},
    [LOOM_BFLOAT16] = {"bfloat16", 2}, [LOOM_FLOAT32] = {"float32", 4},
    [LOOM_FLOAT64] = {"float64", 8},   [LOOM_COMPLEX64] = {"complex64", 8},
    [LOOM_COMPLEX128] = {"complex128", 16},
};

bool loom__dtype_valid(int dt) { return dt >= 0 && dt < LOOM_NUM_DTYPES; }

const char *loom_dtype_name(loom_dtype dt)
{
    return loom__dtype_valid(dt) ? dtype_info[dt].name : NULL;
}

size_t loom_dtype_size(loom_dtype dt)
{
    return loom__dtype_valid(dt) ? dtype_info[dt].size : 0;
}

loom_dtype loom_dtype_from_name(const char *name)
{
    for (int i = 0; name && i < LOOM_NUM_DTYPES; i++)
        if (strcmp(name, dtype_info[i].name) == 0)
            return (loom_dtype)i;
    return LOOM_NO_DTYPE;
}

bool loom__is_bool(loom_dtype dt) { return dt == LOOM_BOOL; }
bool loom__is_signed(loom_dtype dt) { return dt >= LOOM_INT8 && dt <= LOOM_INT64; }
bool loom__is_unsigned(loom_dtype dt) { return dt >= LOOM_UINT8 && dt <= LOOM_UINT64; }
bool loom__is_int(loom_dtype dt) { return dt >= LOOM_INT8 && dt <= LOOM_UINT64; }
bool loom__is_float(loom_dtype dt) { return dt >= LOOM_FLOAT16 && dt <= LOOM_FLOAT64; }
bool loom__is_complex(loom_dtype dt) { return dt == LOOM_COMPLEX64 || dt == LOOM_COMPLEX128; }
