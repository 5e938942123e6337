/* Loom's device headers (the .cuh files of kernels/, embedded at build time) for NVRTC. */
#include "exec.h"
#include "kernels/loom_device_headers.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* The embedded device headers in the form NVRTC takes them, built once (kept for the life of
 * the process; if this small allocation fails, compiles report the missing header). */
static loom__header *device_headers;
static int ndevice_headers;
/* Their FNV-1a 64 and lengths: every kernel cache key names them (exec/kcache.c), and hashing
 * the ~120 KB took 0.12 ms a lookup. */
static uint64_t *device_header_hashes;
static size_t *device_header_lengths;
static pthread_once_t device_headers_once = PTHREAD_ONCE_INIT;

static void collect_device_headers(void)
{
    size_t n = (size_t)loom__device_header_count;
    device_headers = malloc(n * sizeof *device_headers);
    device_header_hashes = malloc(n * sizeof *device_header_hashes);
    device_header_lengths = malloc(n * sizeof *device_header_lengths);
    if (!device_header_hashes || !device_header_lengths) {
        free(device_header_hashes);
        free(device_header_lengths);
        device_header_hashes = NULL;
        device_header_lengths = NULL;
    }
    for (int i = 0; device_headers && i < loom__device_header_count; i++)
        device_headers[ndevice_headers++] =
            (loom__header){loom__device_header_names[i], loom__device_header_sources[i]};
    for (int i = 0; device_header_hashes && i < loom__device_header_count; i++) {
        device_header_lengths[i] = strlen(loom__device_header_sources[i]);
        device_header_hashes[i] = loom__fnv1a64(loom__device_header_sources[i],
                                                device_header_lengths[i], LOOM__FNV1A64_INIT);
    }
}

const loom__header *loom__device_headers(int *count)
{
    pthread_once(&device_headers_once, collect_device_headers);
    *count = ndevice_headers;
    return device_headers;
}

bool loom__device_header_digest(const char *source, uint64_t *hash, size_t *length)
{
    pthread_once(&device_headers_once, collect_device_headers);
    for (int i = 0; device_header_hashes && i < loom__device_header_count; i++) {
        if (loom__device_header_sources[i] == source) {
            *hash = device_header_hashes[i];
            *length = device_header_lengths[i];
            return true;
        }
    }
    return false;
}
