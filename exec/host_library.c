/* Library steps on the host device (docs/host-device.md): each routine family's host
 * implementation, and what a step the host cannot run reports. The plan is the GPU's: buffers,
 * operands and status words are where the fuser put them; only the routine differs. */
#include "steps.h"
#include "host_library.h"

static int unavailable(const char *fn, const loom_step *s, const char *why)
{
    loom__error(LOOM_ERR_UNSUPPORTED, fn, "%s%s%s%s is not available on the host device%s%s",
                loom__lib_info(s->lib.routine)->name, s->summary ? " (" : "",
                s->summary ? s->summary : "", s->summary ? ")" : "", why ? ": " : "", why ? why : "");
    return LOOM_ERR_UNSUPPORTED;
}

int loom__host_library_check(const char *fn, const loom_step *s)
{
    const char *why = NULL;
    switch (s->lib.routine) {
    case LOOM_LIB_CUFFT:
        if (!(why = loom__host_fft_missing()))
            return LOOM_OK;
        return unavailable(fn, s, why);
    case LOOM_LIB_CURAND:
        return LOOM_OK;
    default:
        return unavailable(fn, s, why);
    }
}

int loom__host_library_run(const char *fn, const loom_step *s, void *const *addr)
{
    const loom_libcall *l = &s->lib;
    switch (l->routine) {
    case LOOM_LIB_CUFFT:
        return loom__host_fft_run(fn, l, addr);
    case LOOM_LIB_CURAND:
        return loom__curand_generate(fn, l, addr, NULL);
    default:
        return unavailable(fn, s, NULL);
    }
}
