/* LOOM_NVTX=0 turns the NVTX ranges off (read once, at the first range). Ranges are on by
 * default, so every other test runs them without a profiler attached; gpu_nvtx checks what
 * Nsight Systems sees. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "check.h"

#include "exec/exec.h"

#include <stdlib.h>

int main(void)
{
    setenv("LOOM_NVTX", "0", 1);
    CHECK(!loom__nvtx_enabled());
    setenv("LOOM_NVTX", "1", 1);
    CHECK(!loom__nvtx_enabled()); /* read once */
    loom__nvtx_push("loom test");
    loom__nvtx_pop();
    return check_summary("test_nvtx");
}
