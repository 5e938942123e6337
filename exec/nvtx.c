/* NVTX ranges (the toolkit's header-only nvtx3) around planning, compiling and running plans,
 * so that Nsight Systems shows where time goes. LOOM_NVTX=0 turns them off. Without a profiler
 * attached each call costs a check of a function pointer. */
#include "exec.h"

#include <nvtx3/nvToolsExt.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static pthread_once_t once = PTHREAD_ONCE_INIT;
static bool enabled;

static void read_env(void)
{
    const char *v = getenv("LOOM_NVTX");
    enabled = !(v && strcmp(v, "0") == 0);
}

bool loom__nvtx_enabled(void)
{
    pthread_once(&once, read_env);
    return enabled;
}

void loom__nvtx_push(const char *name)
{
    if (loom__nvtx_enabled())
        nvtxRangePushA(name);
}

void loom__nvtx_pop(void)
{
    if (loom__nvtx_enabled())
        nvtxRangePop();
}
