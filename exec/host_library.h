/* exec/host_library.h — library steps on the host device: the dispatch (exec/host_library.c)
 * and each routine family's host implementation. Internal to exec/. */
#ifndef LOOM_EXEC_HOST_LIBRARY_H
#define LOOM_EXEC_HOST_LIBRARY_H

#include "steps.h"

/* LOOM_OK when the host can run library step s, else LOOM_ERR_UNSUPPORTED recorded under fn
 * ("cusolver svd (svd) is not available on the host device: <why>"); checked for every step
 * of a plan before any runs. */
int loom__host_library_check(const char *fn, const loom_step *s);
/* Runs library step s on the calling thread with the plan's buffer addresses. */
int loom__host_library_run(const char *fn, const loom_step *s, void *const *addr);

/* ---- FFTs (exec/host_fft.c, on KISS FFT: kernels/host_fft.cpp) ---- */
/* Why the host cannot run FFTs (Loom built without KISS FFT), else NULL. */
const char *loom__host_fft_missing(void);
int loom__host_fft_run(const char *fn, const loom_libcall *l, void *const *addr);
/* CUB's radix sort, select and bin counts in plain C, bit for bit with the GPU
 * (exec/host_sort.c, exec/host_select.c, exec/host_bincount.c). */
const char *loom__host_sort_unavailable(const loom_libcall *l); /* NULL, or why not */
int loom__host_sort(const char *fn, const loom_libcall *l, void *const *addr);
int loom__host_select(const char *fn, const loom_libcall *l, void *const *addr);
int loom__host_bincount(const char *fn, const loom_libcall *l, void *const *addr);

#endif /* LOOM_EXEC_HOST_LIBRARY_H */
