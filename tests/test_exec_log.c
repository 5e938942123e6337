/* LOOM_LOG traces compiles (with milliseconds), cache hits and forced evaluations to stderr.
 * LOOM_LOG is read once, so this test sets it before any Loom call, in its own process. */
#define _POSIX_C_SOURCE 200809L
#include "check.h"
#include "exec/exec.h"
#include "capture_stderr.h"
#include "tmpdir.h"

#include <fcntl.h>

int main(void)
{
    char dir[4096];
    if (!tmpdir_make(dir, sizeof dir)) {
        perror("mkdtemp");
        return 1;
    }
    setenv("LOOM_LOG", "1", 1);
    setenv("LOOM_CACHE_DIR", dir, 1);
    CHECK(loom__log_enabled());

    stderr_capture capture;
    capture_begin(&capture, dir);

    const char *src = "extern \"C\" __global__ void t_log(int *p) { *p = 3; }\n";
    const loom__kernel *k = loom__kernel_compile("loom_test", "t_log", src, NULL, 0, NULL, "sm_90");
    loom__exec_clear_memory_caches();
    const loom__kernel *k2 =
        loom__kernel_compile("loom_test", "t_log", src, NULL, 0, NULL, "sm_90");
    loom__stat_forced_eval(LOOM_EVAL_DEPTH_LIMIT);
    CHECK(loom__kernel_compile("loom_test", "t_logbad", "syntax error here", NULL, 0, NULL,
                               "sm_90") == NULL);

    char text[16384];
    capture_end(&capture, text, sizeof text);
    CHECK(k != NULL && k2 != NULL);

    CHECK(strstr(text, "loom: compiled kernel t_log for sm_90 in ") != NULL);
    CHECK(strstr(text, " ms (") != NULL);
    CHECK(strstr(text, "loom: disk cache: wrote ") != NULL);
    CHECK(strstr(text, "loom: kernel t_log for sm_90 loaded from the disk cache") != NULL);
    CHECK(strstr(text, "loom: forced eval (depth_limit)\n") != NULL);
    CHECK(strstr(text, "loom: NVRTC failed to compile kernel t_logbad for sm_90 after ") != NULL);
    CHECK(strstr(text, "syntax error") != NULL || strstr(text, "error") != NULL);
    if (check_failures)
        fprintf(stderr, "captured log:\n%s\n", text);

    loom__exec_clear_memory_caches();
    tmpdir_remove(dir);
    return check_summary("test_exec_log");
}
