/* The host side of the testing helpers (exec/testing.c), for tests without a device. */
#ifndef LOOM_EXEC_TESTING_H
#define LOOM_EXEC_TESTING_H

#include "../include/loom.h"

#include <stdbool.h>
#include <stdint.h>

/* Compares host data as np.testing.assert_allclose (allclose) or assert_array_equal does:
 * LOOM_OK, or LOOM_ERR_ASSERT with NumPy's report as the message of fn. */
int loom__testing_compare(const char *fn, bool allclose, double rtol, double atol, bool equal_nan,
                          const void *x_data, loom_dtype x_dtype, int x_ndim, const int64_t *x_shape,
                          const void *y_data, loom_dtype y_dtype, int y_ndim, const int64_t *y_shape);

#endif
