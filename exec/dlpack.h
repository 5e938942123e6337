/* The host side of DLPack (exec/dlpack.c), for tests without a device. */
#ifndef LOOM_EXEC_DLPACK_H
#define LOOM_EXEC_DLPACK_H

#include "../include/loom.h"
#include "../include/loom_dlpack.h"

#include <stdbool.h>
#include <stdint.h>

/* The DLPack data type of a Loom dtype (false for an invalid one), and back (LOOM_NO_DTYPE for
 * a DLPack type Loom lacks). */
bool loom__dlpack_dtype(loom_dtype dt, DLDataType *out);
loom_dtype loom__dtype_from_dlpack(DLDataType t);
/* Checks a tensor loom_from_dlpack may import (CUDA memory, ndim, dtype, shape) under fn, and
 * finds the elements its strides reach: from first (relative to the element at data +
 * byte_offset, <= 0) on, span of them (0 when it is empty). Returns LOOM_OK or an error. */
int loom__dlpack_check(const char *fn, const DLTensor *t, loom_dtype *dtype, int64_t *first,
                       int64_t *span);

#endif
