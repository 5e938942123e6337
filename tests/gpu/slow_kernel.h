/* A kernel that spins for about `cycles` clock cycles, then fills out[0..n) with value: a slow
 * producer (or a busy stream) for tests of ordering across streams. Compiled through Loom's own
 * NVRTC path (loom__kernel_get). */
#ifndef LOOM_TEST_SLOW_KERNEL_H
#define LOOM_TEST_SLOW_KERNEL_H

#include "exec/exec.h"

static const char *const slow_source =
    "extern \"C\" __global__ void t_slow_fill(unsigned *out, unsigned n, unsigned value,\n"
    "                                         long long cycles)\n"
    "{\n"
    "    long long start = clock64();\n"
    "    while (clock64() - start < cycles) {\n"
    "    }\n"
    "    for (unsigned i = threadIdx.x; i < n; i += blockDim.x)\n"
    "        out[i] = value;\n"
    "}\n";

/* About 0.1 s on a current GPU. */
#define SLOW_CYCLES 200000000LL

/* Queues the slow fill of n unsigned values at ptr on s. */
static inline int slow_fill(const char *fn, void *ptr, unsigned n, unsigned value,
                            long long cycles, loom_stream *s)
{
    const loom__kernel *k = loom__kernel_get(fn, "t_slow_fill", slow_source, NULL, 0, NULL);
    if (!k)
        return loom_last_error_code();
    void *args[] = {&ptr, &n, &value, &cycles};
    return loom__kernel_launch(fn, k, (loom__dim3){1, 1, 1}, (loom__dim3){256, 1, 1}, 0, s, args);
}

#endif
