/* The NVTX injection harness without a device: a process started with NVTX_INJECTION64_PATH
 * naming tests/nvtx_recorder.c's library hands it the ranges Loom pushes, nested as pushed.
 * gpu_test_nvtx_ranges uses the same harness on a real evaluation. */
#define _POSIX_C_SOURCE 200809L
#include "check.h"
#include "nvtx_record.h"
#include "tmpdir.h"

#include "exec/exec.h"

int main(void)
{
    char dir[4096], file[4200];
    CHECK(tmpdir_make(dir, sizeof dir) != NULL);
    snprintf(file, sizeof file, "%s/ranges.txt", dir);
    nvtx_record_start(file);
    CHECK(loom__nvtx_enabled());
    loom__nvtx_push("loom outer");
    loom__nvtx_push("loom inner: a name with spaces (and parentheses)");
    loom__nvtx_pop();
    loom__nvtx_pop();
    loom__nvtx_push("loom second");
    loom__nvtx_pop();

    static nvtx_record r;
    CHECK(nvtx_record_read(file, &r));
    CHECK(r.injected);
    CHECK(r.balanced);
    CHECK_EQ_INT(r.n, 3);
    CHECK_STR(r.name[0], "loom outer");
    CHECK_STR(r.name[1], "loom inner: a name with spaces (and parentheses)");
    CHECK_STR(r.name[2], "loom second");
    CHECK_EQ_INT(r.depth[0], 0);
    CHECK_EQ_INT(r.depth[1], 1);
    CHECK_EQ_INT(r.depth[2], 0);
    CHECK_EQ_INT(r.max_depth, 2);
    tmpdir_remove(dir);
    return check_summary("test_nvtx_injection");
}
