/* User kernels shared by tests/test_ukernel.c and tests/gpu/test_ukernel.c. */
#ifndef LOOM_TESTS_UKERNEL_CASES_H
#define LOOM_TESTS_UKERNEL_CASES_H

/* CuPy's argmax-and-max reduce type (cupy#1924), with ties broken by the first index, as
 * NumPy's argmax, whatever the order partial results combine in. */
#define MIN_MAX_PREAMBLE                                                                           \
    "struct min_max_st {\n"                                                                        \
    "    T value;\n"                                                                               \
    "    int index;\n"                                                                             \
    "    __device__ min_max_st() : index(-1) { }\n"                                                \
    "    __device__ min_max_st(T v, int i) : value(v), index(i) { }\n"                             \
    "};\n"                                                                                         \
    "__device__ min_max_st my_argmax(const min_max_st &a, const min_max_st &b) {\n"                \
    "    if (a.index == -1) return b;\n"                                                           \
    "    if (b.index == -1) return a;\n"                                                           \
    "    if (a.value == b.value) return a.index < b.index ? a : b;\n"                              \
    "    return a.value > b.value ? a : b;\n"                                                      \
    "}\n"

#endif
