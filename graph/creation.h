/* graph/creation.h — what every new leaf and generator needs: its device and fill values. */
#ifndef LOOM_GRAPH_CREATION_H
#define LOOM_GRAPH_CREATION_H

#include "internal.h"

/* The device new leaves and generators belong to (the calling thread's current device). */
int loom__default_device(void);
/* Called by loom_device_set: arrays created on this thread from now on belong to device. */
void loom__set_default_device(int device);
/* Every thread's device before it calls loom_device_set: the one LOOM_DEVICE names (cpu, auto,
 * a GPU number), else 0 (exec/device_env.c). */
int loom__initial_device(void);
/* The exact integer that value converts to in dtype, as loom_astype converts it: kept in
 * param.value.exact so int64 values beyond 2^53 survive. Truncated toward zero; NaN gives 0 and
 * values beyond int64 (uint64 for LOOM_UINT64) saturate; 1 for any non-zero value in
 * LOOM_BOOL. The kernel wraps it to the dtype's width. */
int64_t loom__fill_ival(double value, loom_dtype dtype);

#endif /* LOOM_GRAPH_CREATION_H */
