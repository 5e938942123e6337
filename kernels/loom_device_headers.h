/* The device headers (the .cuh files of kernels/) as strings, for NVRTC: pass names and sources as the
 * program's headers and include "loom_device.cuh" in generated code. Defined in a file that the
 * build generates (tools/embed_headers.cmake). C, no CUDA. */
#ifndef LOOM_DEVICE_HEADERS_H
#define LOOM_DEVICE_HEADERS_H

/* NVRTC include names ("loom_device.cuh", ...), each NUL-terminated source text, and how many. */
extern const char *const loom__device_header_names[];
extern const char *const loom__device_header_sources[];
extern const int loom__device_header_count;

#endif /* LOOM_DEVICE_HEADERS_H */
