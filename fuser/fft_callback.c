/* cuFFT store callbacks (docs/fft.md, "Callbacks"): the source of a device function cuFFT calls
 * for each element of its result, compiled by exec/ with NVRTC to LTO-IR and linked into the
 * transform (cufftXtSetJITCallback), and the table saying where one beats a separate kernel. */
#include "emit.h"

#include <stdlib.h>
#include <string.h>

char *loom__fft_store_callback(const loom_fft_args *a, char *name, size_t name_len)
{
    bool dbl = a->dtype == LOOM_FLOAT64 || a->dtype == LOOM_COMPLEX128;
    const char *real = dbl ? "double" : "float", *pair = dbl ? "double2" : "float2";
    loom_strbuf sb = {0};
    /* a C++ function (not extern "C"): cuFFT links it by this name */
    loom__sb_printf(&sb, "// Loom cuFFT store callback: each element of the result times a constant\n");
    loom__sb_printf(&sb, "__device__ void @NAME@(void *out, unsigned long long offset, %s element,\n"
                         "                   void *info, void *shared)\n{\n", pair);
    loom__sb_printf(&sb, "    const %s s = (%s)%a;\n", real, real, a->scale);
    loom__sb_printf(&sb, "    element.x *= s;\n    element.y *= s;\n");
    loom__sb_printf(&sb, "    ((%s *)out)[offset] = element;\n}\n", pair);
    char *src = loom__sb_take(&sb);
    loom_kernel k = {0};
    if (!src || loom__kernel_name_source(&k, "loom_fftcb", src))
        return NULL;
    snprintf(name, name_len, "%s", k.name);
    return k.source;
}

/* Shape classes measured faster with a store callback than with cuFFT and a kernel after it,
 * by transform type, input dtype and the least batch (docs/fft.md, "Callbacks": on an H100,
 * batches of 16 to 65536 transforms of 64 to 2^20 points gained 22-51%; one transform of 2^24
 * points took 2.7 times as long, so single transforms keep the kernel). */
static const struct {
    int type, dtype;
    int64_t min_batch;
} measured_wins[] = {{LOOM_FFT_C2C, LOOM_COMPLEX64, 16},
                     {LOOM_FFT_C2C, LOOM_COMPLEX128, 16},
                     {LOOM_FFT_R2C, LOOM_FLOAT32, 16},
                     {-1, 0, 0}}; /* the end */

bool loom__fft_callbacks_possible(int setting)
{
    return setting == 1 || (setting < 0 && measured_wins[0].type >= 0);
}

bool loom__fft_callback_wins(int setting, int type, int dtype, int64_t batch)
{
    if (setting >= 0)
        return setting == 1 && batch > 1;
    for (int i = 0; measured_wins[i].type >= 0; i++)
        if (measured_wins[i].type == type && measured_wins[i].dtype == dtype &&
            batch >= measured_wins[i].min_batch)
            return true;
    return false;
}
