// loom.h must compile as C++ (extern "C" linkage, no CUDA headers) and link from C++.
#include "loom.h"

#include <cstdio>

int main()
{
    loom_array *a = loom_scalar(1.0);
    int ok = a != nullptr && loom_ndim(a) == 0 && loom_dtype_of(a) == LOOM_FLOAT64;
    loom_release(a);
    std::printf("header_cxx: %s\n", ok ? "ok" : "FAILED");
    return ok ? 0 : 1;
}
