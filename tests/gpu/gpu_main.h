/* What the main of a GPU test does around its cases: skip without a device, run the cases (often
 * fused and again with LOOM_FUSE=0), hand the pools' cached blocks back so that leak checkers
 * see only real leaks, and report. With LOOM_TEST_DEVICE=cpu the cases run on the host device
 * instead (docs/host-device.md), with or without a GPU. Include after check.h, with
 * _POSIX_C_SOURCE 200809L defined (setenv). */
#ifndef LOOM_TEST_GPU_MAIN_H
#define LOOM_TEST_GPU_MAIN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether LOOM_TEST_DEVICE=cpu asks for the host device. */
static inline bool gpu_test_on_host(void)
{
    const char *d = getenv("LOOM_TEST_DEVICE");
    return d && strcmp(d, "cpu") == 0;
}

/* A size that is n_gpu on a GPU and n_host on the host device, for work that CI's time on the
 * host cannot afford (a GPU run keeps its full size and strength); checks whose bounds depend
 * on the size compute them from the size they get. */
static inline int64_t gpu_test_scaled(int64_t n_gpu, int64_t n_host)
{
    return gpu_test_on_host() && n_host < n_gpu ? n_host : n_gpu;
}

/* False, after saying so, where there is no device: main then returns 77 (SKIP). On the host
 * device every thread starts there (LOOM_DEVICE, read at Loom's first use of a device). */
static inline bool gpu_test_start(const char *name)
{
    if (gpu_test_on_host()) {
        setenv("LOOM_DEVICE", "cpu", 1);
        setvbuf(stdout, NULL, _IONBF, 0);
        printf("%s: on the host device\n", name);
        return loom_device_set(LOOM_DEVICE_CPU) == LOOM_OK;
    }
    if (loom_device_count() <= 0) {
        printf("%s: no CUDA device, skipped\n", name);
        return false;
    }
    setvbuf(stdout, NULL, _IONBF, 0);
    return true;
}

/* True, after saying so, in the LOOM_FUSE=0 run of a case that the host device runs fused only:
 * one whose unfused kernels would cost CI's time on the host more than they add (the fused run
 * checks the same values). */
static inline bool gpu_test_host_fused_only(const char *what)
{
    const char *fuse = getenv("LOOM_FUSE");
    if (!gpu_test_on_host() || !fuse || strcmp(fuse, "0") != 0)
        return false;
    printf("  %s: fused only on the host device (CI's time)\n", what);
    return true;
}

/* Runs the cases again with fusion off (LOOM_FUSE=0). */
static inline void gpu_test_unfused(void (*run_all)(void))
{
    setenv("LOOM_FUSE", "0", 1);
    run_all();
    unsetenv("LOOM_FUSE");
}

static inline int gpu_test_finish(const char *name)
{
    CHECK_EQ_INT(loom_mempool_free_all_blocks(), LOOM_OK);
    return check_summary(name);
}

/* The whole main of a test whose cases all run fused and with LOOM_FUSE=0. */
static inline int gpu_test_main(const char *name, void (*run_all)(void))
{
    if (!gpu_test_start(name))
        return 77;
    run_all();
    gpu_test_unfused(run_all);
    return gpu_test_finish(name);
}

#endif
