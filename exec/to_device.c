/* loom_to_device: an explicit copy between devices, through host memory (the value is read
 * to the host, then becomes a host leaf of the target device, uploaded when it is used). */
#include "exec.h"
#include "creation.h"

#include <stdlib.h>

loom_array *loom_to_device(loom_array *a, int device)
{
    static const char fn[] = "loom_to_device";
    if (!a)
        return NULL;
    if (device != LOOM_DEVICE_CPU && loom__device_check(fn, device) != LOOM_OK)
        return NULL;
    if (device == a->device)
        return loom__adopt(loom_retain(a));
    size_t bytes = (size_t)a->size * loom_dtype_size((loom_dtype)a->dtype);
    void *data = malloc(bytes ? bytes : 1);
    if (!data) {
        loom__error(LOOM_ERR_OOM, fn, "out of host memory for %zu bytes", bytes);
        return NULL;
    }
    if (loom__read_back(fn, a, data, bytes) != LOOM_OK) {
        free(data);
        return NULL;
    }
    int prev = loom__default_device();
    loom__set_default_device(device);
    loom_array *r = loom_asarray(data, (loom_dtype)a->dtype, a->ndim, a->shape);
    loom__set_default_device(prev);
    free(data);
    return r;
}
