/* Loom's device headers (the .cuh files of kernels/, embedded at build time) for NVRTC. */
#include "exec.h"
#include "kernels/loom_device_headers.h"

#include <pthread.h>
#include <stdlib.h>

/* The embedded device headers in the form NVRTC takes them, built once (kept for the life of
 * the process; if this small allocation fails, compiles report the missing header). */
static loom__header *device_headers;
static int ndevice_headers;
static pthread_once_t device_headers_once = PTHREAD_ONCE_INIT;

static void collect_device_headers(void)
{
    device_headers = malloc((size_t)loom__device_header_count * sizeof *device_headers);
    for (int i = 0; device_headers && i < loom__device_header_count; i++)
        device_headers[ndevice_headers++] =
            (loom__header){loom__device_header_names[i], loom__device_header_sources[i]};
}

const loom__header *loom__device_headers(int *count)
{
    pthread_once(&device_headers_once, collect_device_headers);
    *count = ndevice_headers;
    return device_headers;
}
