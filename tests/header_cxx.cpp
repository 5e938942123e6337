// loom.h and loom_dlpack.h must compile as C++ (extern "C" linkage, no CUDA headers) and link
// from C++.
#include "loom.h"
#include "loom_dlpack.h"

#include <cstdio>

int main()
{
    loom_array *a = loom_scalar(1.0);
    int ok = a != nullptr && loom_ndim(a) == 0 && loom_dtype_of(a) == LOOM_FLOAT64;
    loom_release(a);
    ok = ok && loom_from_dlpack(nullptr) == nullptr && sizeof(DLManagedTensorVersioned) == 80;
    std::printf("header_cxx: %s\n", ok ? "ok" : "FAILED");
    return ok ? 0 : 1;
}
