/* Names and groups of the status codes. */
#include "internal.h"

const char *loom_status_name(int status)
{
    switch (status) {
    case LOOM_OK: return "LOOM_OK";
    case LOOM_ERR_INVALID: return "LOOM_ERR_INVALID";
    case LOOM_ERR_NO_DEVICE: return "LOOM_ERR_NO_DEVICE";
    case LOOM_ERR_OOM: return "LOOM_ERR_OOM";
    case LOOM_ERR_CUDA: return "LOOM_ERR_CUDA";
    case LOOM_ERR_COMPILE: return "LOOM_ERR_COMPILE";
    case LOOM_ERR_IO: return "LOOM_ERR_IO";
    case LOOM_ERR_UNSUPPORTED: return "LOOM_ERR_UNSUPPORTED";
    case LOOM_ERR_LINALG: return "LOOM_ERR_LINALG";
    case LOOM_ERR_DTYPE: return "LOOM_ERR_DTYPE";
    case LOOM_ERR_SHAPE: return "LOOM_ERR_SHAPE";
    case LOOM_ERR_LIBRARY: return "LOOM_ERR_LIBRARY";
    case LOOM_ERR_DEVICE: return "LOOM_ERR_DEVICE";
    case LOOM_ERR_ASSERT: return "LOOM_ERR_ASSERT";
    default: return "LOOM_ERR_UNKNOWN";
    }
}

int loom_status_group(int status)
{
    switch (status) {
    case LOOM_ERR_DTYPE:
    case LOOM_ERR_SHAPE: return LOOM_ERR_INVALID;
    case LOOM_ERR_LIBRARY:
    case LOOM_ERR_DEVICE: return LOOM_ERR_CUDA;
    default: return status;
    }
}
