/* A kernel that faults is reported as LOOM_ERR_DEVICE (group LOOM_ERR_CUDA) with the runtime's
 * cudaError_t as the detail, by the call that waits for it, and reading an array afterwards
 * fails with a message instead of aborting. A fault leaves the CUDA context unusable, so it
 * happens in a child process, which initialises CUDA itself (the parent never touches it).
 * Skips (77) without a device. */
#define _POSIX_C_SOURCE 200809L
#include "check.h"

#include "exec/exec.h"

#include <cuda_runtime_api.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *const fault_source =
    "extern \"C\" __global__ void t_fault(int *p)\n"
    "{\n"
    "    *(volatile int *)(p + 0x10) = 1; /* p is NULL: an illegal address */\n"
    "}\n";

static int child(void)
{
    if (loom_device_count() == 0) {
        printf("gpu_test_device_fault: no CUDA device, skipped\n");
        return 77;
    }
    loom_array *x = loom_linspace(0, 1, 1000, true, LOOM_FLOAT32);
    CHECK_EQ_INT(loom_eval(x), LOOM_OK);
    CHECK_EQ_INT(loom_stream_synchronize(NULL), LOOM_OK);
    const loom__kernel *k = loom__kernel_get("loom_test", "t_fault", fault_source, NULL, 0, NULL);
    CHECK(k != NULL);
    void *p = NULL;
    void *args[] = {&p};
    if (k)
        loom__kernel_launch("loom_test", k, (loom__dim3){1, 1, 1}, (loom__dim3){1, 1, 1}, 0,
                            NULL, args);
    int rc = loom_stream_synchronize(NULL);
    CHECK_EQ_INT(rc, LOOM_ERR_DEVICE);
    CHECK_EQ_INT(loom_status_group(rc), LOOM_ERR_CUDA);
    CHECK(loom_last_error_detail() == cudaErrorIllegalAddress ||
          loom_last_error_detail() == cudaErrorLaunchFailure);
    CHECK(strstr(loom_last_error(), "loom_stream_synchronize: cudaStreamSynchronize failed: "));
    printf("gpu_test_device_fault: %s (%s, detail %d)\n", loom_last_error(),
           loom_status_name(rc), loom_last_error_detail());
    /* The context is gone: later calls fail with an error, and nothing aborts. */
    float out[1000];
    loom_scope_begin();
    rc = loom_get(loom_sin(x), out, sizeof out);
    loom_scope_end();
    CHECK(rc != LOOM_OK);
    CHECK(loom_last_error() != NULL);
    loom_release(x);
    return check_summary("gpu_test_device_fault");
}

int main(void)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        return 1;
    }
    if (pid == 0) {
        int rc = child();
        fflush(stdout);
        fflush(stderr);
        _exit(rc); /* no exit handlers: the child's CUDA context is broken */
    }
    int status = 0;
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) {
        printf("gpu_test_device_fault: the child did not exit normally\n");
        return 1;
    }
    return WEXITSTATUS(status);
}
