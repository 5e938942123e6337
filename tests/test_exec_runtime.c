/* The runtime's API where no GPU is needed: every device-facing call on a machine without a
 * device fails cleanly with LOOM_ERR_NO_DEVICE (only checked where there is none), the
 * architecture chosen for compiles, and the statistics. */
#define _POSIX_C_SOURCE 200809L
#include "check.h"
#include "exec/exec.h"

#include <stdlib.h>

/* Without a driver the runtime says "CUDA driver version is insufficient"; Loom says what
 * is missing (a machine with a driver but no GPU gets cudaGetDeviceCount's reason). */
#define NO_DEVICE_PREFIX "no NVIDIA driver/GPU found ("

/* The call must fail with LOOM_ERR_NO_DEVICE and "fn: no NVIDIA driver/GPU found (". */
static void check_no_device(const char *fn, int code)
{
    const char *msg = loom_last_error();
    char want[128];
    snprintf(want, sizeof want, "%s: " NO_DEVICE_PREFIX, fn);
    CHECK(!msg || !strstr(msg, "insufficient"));
    CHECK_EQ_INT(code, LOOM_ERR_NO_DEVICE);
    CHECK_EQ_INT(loom_last_error_code(), LOOM_ERR_NO_DEVICE);
    CHECK(msg && strncmp(msg, want, strlen(want)) == 0);
    if (!msg || strncmp(msg, want, strlen(want)) != 0)
        fprintf(stderr, "  expected \"%s...\", got \"%s\"\n", want, msg ? msg : "(none)");
    loom_clear_error();
}

static int status_of(const void *p)
{
    return p ? LOOM_OK : loom_last_error_code();
}

static void test_no_device(void)
{
    CHECK_EQ_INT(loom_device_count(), 0);
    CHECK_EQ_INT(loom_device_get(), 0);
    loom_clear_error();
    check_no_device("loom_device_set", loom_device_set(0));
    check_no_device("loom_device_synchronize", loom_device_synchronize());
    check_no_device("loom_stream_create", status_of(loom_stream_create()));
    check_no_device("loom_stream_wrap", status_of(loom_stream_wrap(NULL)));
    check_no_device("loom_stream_get_current", status_of(loom_stream_get_current()));
    check_no_device("loom_stream_synchronize", loom_stream_synchronize(NULL));
    check_no_device("loom_stream_handle", status_of(loom_stream_handle(NULL)));
    CHECK_EQ_INT(loom_stream_set_current(NULL), LOOM_ERR_NO_DEVICE);
    loom_clear_error();
    loom_stream_destroy(NULL);

    CHECK_EQ_INT(loom_mempool_used_bytes(), 0);
    CHECK_EQ_INT(loom_mempool_total_bytes(), 0);
    CHECK_EQ_INT(loom_mempool_get_limit(), 0);
    CHECK(loom_last_error() == NULL); /* queries have nothing to report */
    check_no_device("loom_mempool_set_limit", loom_mempool_set_limit(1 << 20));
    check_no_device("loom_mempool_free_all_blocks", loom_mempool_free_all_blocks());

    check_no_device("loom_eval", status_of(loom__buffer_alloc("loom_eval", 1024, 0, NULL)));
    check_no_device("loom_eval", status_of(loom__stream_current("loom_eval", 0)));
    check_no_device("loom_asarray", status_of(loom__pinned_get("loom_asarray", 1024)));
    check_no_device("loom_eval", status_of(loom__device_props_get("loom_eval", 0)));
    int dev;
    check_no_device("loom_eval", loom__device_current("loom_eval", &dev));
    const char *src = "extern \"C\" __global__ void t_nodev(int *p) { *p = 1; }\n";
    check_no_device("loom_eval",
                    status_of(loom__kernel_get("loom_eval", "t_nodev", src, NULL, 0, NULL)));
    /* What a user sees first: an evaluation. */
    loom_scope_begin();
    loom_array *x = loom_sin(loom_ones(1, (int64_t[]){8}, LOOM_FLOAT32));
    check_no_device("loom_eval", loom_eval(x));
    float out[8];
    check_no_device("loom_get", loom_get(x, out, sizeof out));
    loom_scope_end();
}

static void test_target_arch(void)
{
    char arch[16];
    unsetenv("LOOM_ARCH");
    CHECK_EQ_INT(loom__target_arch("loom_eval", arch), 0);
    CHECK_STR(arch, "sm_90");
    setenv("LOOM_ARCH", "sm_80", 1);
    CHECK_EQ_INT(loom__target_arch("loom_eval", arch), 0);
    CHECK_STR(arch, "sm_80");
    setenv("LOOM_ARCH", "sm_90a", 1);
    CHECK_EQ_INT(loom__target_arch("loom_eval", arch), 0);
    CHECK_STR(arch, "sm_90a");
    const char *bad[] = {"bogus", "sm_", "sm_9", "compute_90", "sm_90x", "sm_90ab"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        setenv("LOOM_ARCH", bad[i], 1);
        loom_clear_error();
        CHECK_EQ_INT(loom__target_arch("loom_eval", arch), LOOM_ERR_INVALID);
        char want[128];
        snprintf(want, sizeof want,
                 "loom_eval: LOOM_ARCH=\"%s\" is not a GPU architecture like sm_90", bad[i]);
        CHECK_STR(loom_last_error(), want);
    }
    /* The cache path compiles for LOOM_ARCH when no architecture is given. */
    setenv("LOOM_ARCH", "sm_80", 1);
    setenv("LOOM_CACHE", "0", 1);
    const loom__kernel *k = loom__kernel_compile(
        "loom_eval", "t_arch", "extern \"C\" __global__ void t_arch(int *p) { *p = 2; }\n", NULL, 0,
        NULL, NULL);
    CHECK(k && strcmp(k->arch, "sm_80") == 0 && k->handle == NULL);
    unsetenv("LOOM_CACHE");
    unsetenv("LOOM_ARCH");
    loom_clear_error();
}

static void test_stats(void)
{
    loom_stats s;
    loom_stats_reset();
    loom_stats_get(&s);
    CHECK_EQ_INT(s.kernels_compiled + s.memory_cache_hits + s.disk_cache_hits +
                     s.kernels_launched + s.graph_launches + s.forced_evals + s.bytes_allocated,
                 0);
    loom__stat_add(LOOM__STAT_KERNELS_COMPILED, 1);
    loom__stat_add(LOOM__STAT_MEMORY_CACHE_HITS, 2);
    loom__stat_add(LOOM__STAT_DISK_CACHE_HITS, 3);
    loom__stat_add(LOOM__STAT_KERNELS_LAUNCHED, 4);
    loom__stat_add(LOOM__STAT_GRAPH_LAUNCHES, 5);
    loom__stat_add(LOOM__STAT_BYTES_ALLOCATED, 1u << 20);
    loom__stat_forced_eval(LOOM_EVAL_HOST_READ);
    loom__stat_forced_eval(LOOM_EVAL_DEPTH_LIMIT);
    loom__stat_forced_eval(LOOM_EVAL_DEPTH_LIMIT);
    loom__stat_forced_eval((loom_eval_reason)99); /* out of range: not counted */
    loom_stats_get(&s);
    CHECK_EQ_INT(s.kernels_compiled, 1);
    CHECK_EQ_INT(s.memory_cache_hits, 2);
    CHECK_EQ_INT(s.disk_cache_hits, 3);
    CHECK_EQ_INT(s.kernels_launched, 4);
    CHECK_EQ_INT(s.graph_launches, 5);
    CHECK_EQ_INT(s.bytes_allocated, 1 << 20);
    CHECK_EQ_INT(s.forced_evals, 3);
    CHECK_EQ_INT(s.forced_evals_by_reason[LOOM_EVAL_HOST_READ], 1);
    CHECK_EQ_INT(s.forced_evals_by_reason[LOOM_EVAL_DEPTH_LIMIT], 2);
    CHECK_EQ_INT(s.forced_evals_by_reason[LOOM_EVAL_MEMORY_PRESSURE], 0);
    CHECK_EQ_INT(s.forced_evals_by_reason[LOOM_EVAL_NODE_LIMIT], 0);
    loom_stats_get(NULL);
    loom_stats_reset();
    loom_stats_get(&s);
    CHECK_EQ_INT(s.kernels_launched + s.forced_evals + s.forced_evals_by_reason[1], 0);

    CHECK_STR(loom_eval_reason_name(LOOM_EVAL_HOST_READ), "host_read");
    CHECK_STR(loom_eval_reason_name(LOOM_EVAL_DEPTH_LIMIT), "depth_limit");
    CHECK_STR(loom_eval_reason_name(LOOM_EVAL_NODE_LIMIT), "node_limit");
    CHECK_STR(loom_eval_reason_name(LOOM_EVAL_MEMORY_PRESSURE), "memory_pressure");
    for (int r = 0; r < LOOM_EVAL_NUM_REASONS; r++)
        CHECK(loom_eval_reason_name((loom_eval_reason)r) != NULL);
    CHECK(loom_eval_reason_name(LOOM_EVAL_NUM_REASONS) == NULL);
    CHECK(loom_eval_reason_name((loom_eval_reason)-1) == NULL);
}

int main(void)
{
    /* Whether a device exists is the CUDA runtime's answer (cudaGetDeviceCount). */
    if (loom_device_count() == 0) {
        test_no_device();
        test_target_arch();
    } else {
        printf("a CUDA device is present: the no-device checks are skipped\n");
    }
    test_stats();
    return check_summary("test_exec_runtime");
}
