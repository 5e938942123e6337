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
    static const char fn[] = "loom_dtype_from_name";
    /* NumPy dtypes Loom does not have, named as such rather than "not understood" */
    static const char *const numpy_only[] = {"float96",    "float128",    "longdouble",
                                             "complex192", "complex256",  "clongdouble",
                                             "object",     "str",         "bytes",
                                             "void",       "datetime64",  "timedelta64"};
    if (!name) {
        loom__error(LOOM_ERR_INVALID, fn, "name is NULL");
        return LOOM_NO_DTYPE;
    }
    for (int i = 0; i < LOOM_NUM_DTYPES; i++)
        if (strcmp(name, dtype_info[i].name) == 0)
            return (loom_dtype)i;
    for (size_t i = 0; i < sizeof numpy_only / sizeof *numpy_only; i++)
        if (strcmp(name, numpy_only[i]) == 0) {
            loom__error(LOOM_ERR_UNSUPPORTED, fn, "data type '%s' is not supported", name);
            return LOOM_NO_DTYPE;
        }
    loom__error(LOOM_ERR_INVALID, fn, "data type '%.64s' not understood", name);
    return LOOM_NO_DTYPE;
}

bool loom__is_bool(loom_dtype dt) { return dt == LOOM_BOOL; }
bool loom__is_signed(loom_dtype dt) { return dt >= LOOM_INT8 && dt <= LOOM_INT64; }
bool loom__is_unsigned(loom_dtype dt) { return dt >= LOOM_UINT8 && dt <= LOOM_UINT64; }
bool loom__is_int(loom_dtype dt) { return dt >= LOOM_INT8 && dt <= LOOM_UINT64; }
bool loom__is_float(loom_dtype dt) { return dt >= LOOM_FLOAT16 && dt <= LOOM_FLOAT64; }
bool loom__is_complex(loom_dtype dt) { return dt == LOOM_COMPLEX64 || dt == LOOM_COMPLEX128; }
