/* graph/creation.h — what every new leaf and generator needs: its device and fill values. */
#ifndef LOOM_GRAPH_CREATION_H
#define LOOM_GRAPH_CREATION_H

#include "internal.h"

/* The device new leaves and generators belong to (the calling thread's current device). */
int loom__default_device(void);
/* Called by loom_device_set: arrays created on this thread from now on belong to device. */
void loom__set_default_device(int device);
/* The exact integer that value converts to in dtype, as a C cast (and NumPy's unsafe cast)
 * would give it: kept in param.value.exact so int64 values beyond 2^53 survive. 0 when value does
 * not fit an int64 (or uint64 for LOOM_UINT64); 1 for any non-zero value in LOOM_BOOL. */
int64_t loom__fill_ival(double value, loom_dtype dtype);

#endif /* LOOM_GRAPH_CREATION_H */
