/* The overloads kernels/loom_ops.cuh provides, for the device-header tests: each elementwise
 * op of graph/ops.def with its loop dtypes (NumPy's loops, plus Loom's signbit of bool and
 * integers). test_device_header compiles all of them; gpu/test_device_ops runs them against
 * NumPy and checks that this table and NumPy's loops agree. */
#ifndef LOOM_TEST_DEVICE_OP_TABLE_H
#define LOOM_TEST_DEVICE_OP_TABLE_H

#include "loom.h"

enum { DEV_UNARY = 1, DEV_BINARY = 2, DEV_ROUND = 3, DEV_WHERE = 4 };

typedef struct dev_op {
    const char *name; /* loom_<name> */
    int kind;         /* DEV_UNARY ... DEV_WHERE */
    unsigned dtypes;  /* bit LOOM_X set: a loop for dtype X */
} dev_op;

#define DEV_(d) (1u << LOOM_##d)
#define DEV_B DEV_(BOOL)
#define DEV_I                                                                                     \
    (DEV_(INT8) | DEV_(INT16) | DEV_(INT32) | DEV_(INT64) | DEV_(UINT8) | DEV_(UINT16) |          \
     DEV_(UINT32) | DEV_(UINT64))
#define DEV_F (DEV_(FLOAT16) | DEV_(BFLOAT16) | DEV_(FLOAT32) | DEV_(FLOAT64))
#define DEV_C (DEV_(COMPLEX64) | DEV_(COMPLEX128))
#define DEV_ALL (DEV_B | DEV_I | DEV_F | DEV_C)

static const dev_op dev_ops[] = {
    {"copy", DEV_UNARY, DEV_ALL},
    {"negative", DEV_UNARY, DEV_I | DEV_F | DEV_C},
    {"positive", DEV_UNARY, DEV_I | DEV_F | DEV_C},
    {"absolute", DEV_UNARY, DEV_ALL},
    {"sign", DEV_UNARY, DEV_I | DEV_F | DEV_C},
    {"reciprocal", DEV_UNARY, DEV_I | DEV_F | DEV_C},
    {"square", DEV_UNARY, DEV_I | DEV_F | DEV_C},
    {"sqrt", DEV_UNARY, DEV_F | DEV_C},
    {"cbrt", DEV_UNARY, DEV_F},
    {"exp", DEV_UNARY, DEV_F | DEV_C},
    {"exp2", DEV_UNARY, DEV_F | DEV_C},
    {"expm1", DEV_UNARY, DEV_F | DEV_C},
    {"log", DEV_UNARY, DEV_F | DEV_C},
    {"log2", DEV_UNARY, DEV_F | DEV_C},
    {"log10", DEV_UNARY, DEV_F | DEV_C},
    {"log1p", DEV_UNARY, DEV_F | DEV_C},
    {"sin", DEV_UNARY, DEV_F | DEV_C},
    {"cos", DEV_UNARY, DEV_F | DEV_C},
    {"tan", DEV_UNARY, DEV_F | DEV_C},
    {"arcsin", DEV_UNARY, DEV_F | DEV_C},
    {"arccos", DEV_UNARY, DEV_F | DEV_C},
    {"arctan", DEV_UNARY, DEV_F | DEV_C},
    {"sinh", DEV_UNARY, DEV_F | DEV_C},
    {"cosh", DEV_UNARY, DEV_F | DEV_C},
    {"tanh", DEV_UNARY, DEV_F | DEV_C},
    {"arcsinh", DEV_UNARY, DEV_F | DEV_C},
    {"arccosh", DEV_UNARY, DEV_F | DEV_C},
    {"arctanh", DEV_UNARY, DEV_F | DEV_C},
    {"deg2rad", DEV_UNARY, DEV_F},
    {"rad2deg", DEV_UNARY, DEV_F},
    {"floor", DEV_UNARY, DEV_B | DEV_I | DEV_F},
    {"ceil", DEV_UNARY, DEV_B | DEV_I | DEV_F},
    {"trunc", DEV_UNARY, DEV_B | DEV_I | DEV_F},
    {"rint", DEV_UNARY, DEV_F | DEV_C},
    {"logical_not", DEV_UNARY, DEV_ALL},
    {"invert", DEV_UNARY, DEV_B | DEV_I},
    {"isnan", DEV_UNARY, DEV_ALL},
    {"isinf", DEV_UNARY, DEV_ALL},
    {"isfinite", DEV_UNARY, DEV_ALL},
    {"signbit", DEV_UNARY, DEV_B | DEV_I | DEV_F},
    {"real", DEV_UNARY, DEV_ALL},
    {"imag", DEV_UNARY, DEV_ALL},
    {"conjugate", DEV_UNARY, DEV_I | DEV_F | DEV_C},
    {"angle", DEV_UNARY, DEV_F | DEV_C},
    {"round", DEV_ROUND, DEV_I | DEV_F | DEV_C},
    {"add", DEV_BINARY, DEV_ALL},
    {"subtract", DEV_BINARY, DEV_I | DEV_F | DEV_C},
    {"multiply", DEV_BINARY, DEV_ALL},
    {"divide", DEV_BINARY, DEV_F | DEV_C},
    {"floor_divide", DEV_BINARY, DEV_I | DEV_F},
    {"remainder", DEV_BINARY, DEV_I | DEV_F},
    {"fmod", DEV_BINARY, DEV_I | DEV_F},
    {"power", DEV_BINARY, DEV_I | DEV_F | DEV_C},
    {"arctan2", DEV_BINARY, DEV_F},
    {"hypot", DEV_BINARY, DEV_F},
    {"logaddexp", DEV_BINARY, DEV_F},
    {"logaddexp2", DEV_BINARY, DEV_F},
    {"copysign", DEV_BINARY, DEV_F},
    {"maximum", DEV_BINARY, DEV_ALL},
    {"minimum", DEV_BINARY, DEV_ALL},
    {"fmax", DEV_BINARY, DEV_ALL},
    {"fmin", DEV_BINARY, DEV_ALL},
    {"equal", DEV_BINARY, DEV_ALL},
    {"not_equal", DEV_BINARY, DEV_ALL},
    {"less", DEV_BINARY, DEV_ALL},
    {"less_equal", DEV_BINARY, DEV_ALL},
    {"greater", DEV_BINARY, DEV_ALL},
    {"greater_equal", DEV_BINARY, DEV_ALL},
    {"logical_and", DEV_BINARY, DEV_ALL},
    {"logical_or", DEV_BINARY, DEV_ALL},
    {"logical_xor", DEV_BINARY, DEV_ALL},
    {"bitwise_and", DEV_BINARY, DEV_B | DEV_I},
    {"bitwise_or", DEV_BINARY, DEV_B | DEV_I},
    {"bitwise_xor", DEV_BINARY, DEV_B | DEV_I},
    {"left_shift", DEV_BINARY, DEV_I},
    {"right_shift", DEV_BINARY, DEV_I},
    {"where", DEV_WHERE, DEV_ALL},
};
#define DEV_NUM_OPS ((int)(sizeof dev_ops / sizeof dev_ops[0]))

#endif /* LOOM_TEST_DEVICE_OP_TABLE_H */
