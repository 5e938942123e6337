/* Devices: discovery through the CUDA runtime, the current device, cached properties.
 * Nothing here runs at load time: a machine without a driver fails at first use. */
#include "cudart.h"
#include "creation.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_once_t count_once = PTHREAD_ONCE_INIT;
static int device_count;
static cudaError_t count_error;
static int driver_version; /* 0: no driver installed at all */

static void count_devices(void)
{
    int n = 0;
    if (cudaDriverGetVersion(&driver_version) != cudaSuccess)
        driver_version = 0;
    count_error = cudaGetDeviceCount(&n);
    if (count_error != cudaSuccess) {
        n = 0;
        cudaGetLastError();
    } else if (n == 0) {
        count_error = cudaErrorNoDevice;
    }
    device_count = n > LOOM__MAX_DEVICES ? LOOM__MAX_DEVICES : n;
}

/* Errors of a kernel that faulted: the context is unusable afterwards, and they surface at the
 * next call that waits on the device. */
static bool device_fault(cudaError_t e)
{
    switch (e) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorLaunchTimeout:
    case cudaErrorAssert:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorECCUncorrectable: return true;
    default: return false;
    }
}

int loom__cuda_check(cudaError_t e, const char *fn, const char *what)
{
    if (e == cudaSuccess)
        return 0;
    cudaGetLastError();
    int code = LOOM_ERR_CUDA;
    if (e == cudaErrorMemoryAllocation)
        code = LOOM_ERR_OOM;
    else if (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver)
        code = LOOM_ERR_NO_DEVICE;
    else if (device_fault(e))
        code = LOOM_ERR_DEVICE;
    loom__error(code, fn, "%s failed: %s", what, cudaGetErrorString(e));
    loom__error_set_detail((int)e);
    return code;
}

int loom__device_init(const char *fn)
{
    pthread_once(&count_once, count_devices);
    if (device_count > 0)
        return 0;
    /* The runtime reports a missing driver as "CUDA driver version is insufficient", which
     * sends users to upgrade a driver they do not have. */
    if (count_error == cudaErrorInsufficientDriver && driver_version > 0) {
        int runtime = 0;
        cudaRuntimeGetVersion(&runtime);
        loom__error(LOOM_ERR_NO_DEVICE, fn,
                    "the NVIDIA driver (CUDA %d.%d) is older than the CUDA runtime (%d.%d)",
                    driver_version / 1000, driver_version % 1000 / 10, runtime / 1000,
                    runtime % 1000 / 10);
    } else if (count_error == cudaErrorInsufficientDriver) {
        loom__error(LOOM_ERR_NO_DEVICE, fn, "no NVIDIA driver/GPU found (no NVIDIA driver is installed)");
    } else {
        loom__error(LOOM_ERR_NO_DEVICE, fn, "no NVIDIA driver/GPU found (cudaGetDeviceCount: %s)",
                    cudaGetErrorString(count_error));
    }
    return LOOM_ERR_NO_DEVICE;
}

/* What needs a GPU (streams, pinned copies, DLPack, cuBLAS...) on an array or thread of the
 * host device. */
static int host_refused(const char *fn)
{
    loom__error(LOOM_ERR_UNSUPPORTED, fn, "not available on the host device");
    return LOOM_ERR_UNSUPPORTED;
}

int loom__device_check(const char *fn, int device)
{
    if (device == LOOM_DEVICE_CPU)
        return host_refused(fn);
    int err = loom__device_init(fn);
    if (err)
        return err;
    if (device < 0 || device >= device_count) {
        loom__error(LOOM_ERR_INVALID, fn, "device %d is out of range (%d device%s)", device,
                    device_count, device_count == 1 ? "" : "s");
        return LOOM_ERR_INVALID;
    }
    return 0;
}

int loom__device_current(const char *fn, int *device)
{
    int err = loom__device_init(fn);
    if (err)
        return err;
    return loom__cuda_check(cudaGetDevice(device), fn, "cudaGetDevice");
}

int loom__device_push(const char *fn, int device, int *prev)
{
    if (device == LOOM_DEVICE_CPU)
        return host_refused(fn);
    int err = loom__device_current(fn, prev);
    if (err)
        return err;
    if (*prev == device)
        return 0;
    if ((err = loom__device_check(fn, device)) != 0)
        return err;
    return loom__cuda_check(cudaSetDevice(device), fn, "cudaSetDevice");
}

int loom__device_push_quiet(int device, int *prev)
{
    if (cudaGetDevice(prev) != cudaSuccess ||
        (*prev != device && cudaSetDevice(device) != cudaSuccess)) {
        cudaGetLastError();
        return -1;
    }
    return 0;
}

void loom__device_pop(int prev)
{
    int cur;
    if (cudaGetDevice(&cur) == cudaSuccess && cur != prev)
        cudaSetDevice(prev);
}

/* ---- properties, read once per device ---- */

static pthread_mutex_t props_lock = PTHREAD_MUTEX_INITIALIZER;
static loom__device_props props[LOOM__MAX_DEVICES];
static _Atomic bool props_ready[LOOM__MAX_DEVICES];

const loom__device_props *loom__device_props_get(const char *fn, int device)
{
    if (loom__device_check(fn, device) != 0)
        return NULL;
    if (atomic_load_explicit(&props_ready[device], memory_order_acquire))
        return &props[device];
    pthread_mutex_lock(&props_lock);
    int err = 0;
    if (!atomic_load_explicit(&props_ready[device], memory_order_relaxed)) {
        struct cudaDeviceProp p;
        err = loom__cuda_check(cudaGetDeviceProperties(&p, device), fn, "cudaGetDeviceProperties");
        if (!err) {
            loom__device_props *d = &props[device];
            snprintf(d->name, sizeof d->name, "%s", p.name);
            snprintf(d->arch, sizeof d->arch, "sm_%d%d", p.major, p.minor);
            d->cc_major = p.major;
            d->cc_minor = p.minor;
            d->sm_count = p.multiProcessorCount;
            d->max_threads_per_block = p.maxThreadsPerBlock;
            d->max_threads_per_sm = p.maxThreadsPerMultiProcessor;
            d->warp_size = p.warpSize;
            d->l2_bytes = (size_t)p.l2CacheSize;
            d->smem_per_block = p.sharedMemPerBlock;
            d->smem_per_block_optin = p.sharedMemPerBlockOptin;
            d->smem_per_sm = p.sharedMemPerMultiprocessor;
            d->total_mem = p.totalGlobalMem;
            /* Pending graphs may pin half of the smallest device seen before one is forced. */
            loom__force_default_pinned_limit(d->total_mem / 2);
            atomic_store_explicit(&props_ready[device], true, memory_order_release);
        }
    }
    pthread_mutex_unlock(&props_lock);
    return err ? NULL : &props[device];
}

/* "sm_" then digits, optionally one of NVRTC's suffixes (sm_90a, sm_100f). */
static bool valid_arch(const char *s)
{
    if (strncmp(s, "sm_", 3) != 0)
        return false;
    size_t digits = strspn(s + 3, "0123456789");
    const char *rest = s + 3 + digits;
    return digits >= 2 && digits <= 4 && (*rest == '\0' || (strchr("af", *rest) && !rest[1]));
}

int loom__target_arch(const char *fn, char *out)
{
    pthread_once(&count_once, count_devices);
    if (device_count > 0) {
        int dev;
        int err = loom__device_current(fn, &dev);
        const loom__device_props *p = err ? NULL : loom__device_props_get(fn, dev);
        if (!p)
            return err ? err : loom_last_error_code();
        memcpy(out, p->arch, sizeof p->arch);
        return 0;
    }
    const char *env = getenv("LOOM_ARCH");
    if (!env || !*env)
        env = "sm_90";
    if (!valid_arch(env)) {
        loom__error(LOOM_ERR_INVALID, fn, "LOOM_ARCH=\"%s\" is not a GPU architecture like sm_90",
                    env);
        return LOOM_ERR_INVALID;
    }
    snprintf(out, 16, "%s", env);
    return 0;
}

/* ---- public ---- */

int loom_device_count(void)
{
    pthread_once(&count_once, count_devices);
    return device_count;
}

int loom_device_set(int id)
{
    if (id == LOOM_DEVICE_CPU) { /* the CUDA runtime's current device stays as it is */
        loom__set_default_device(id);
        return LOOM_OK;
    }
    int err = loom__device_check("loom_device_set", id);
    if (err)
        return err;
    err = loom__cuda_check(cudaSetDevice(id), "loom_device_set", "cudaSetDevice");
    if (!err)
        loom__set_default_device(id); /* new arrays on this thread belong to id */
    return err;
}

int loom_device_get(void)
{
    int dev = 0;
    if (loom__default_device() == LOOM_DEVICE_CPU)
        return LOOM_DEVICE_CPU;
    if (loom_device_count() == 0 || cudaGetDevice(&dev) != cudaSuccess)
        return 0;
    return dev;
}

int loom_device_synchronize(void)
{
    if (loom__default_device() == LOOM_DEVICE_CPU)
        return LOOM_OK; /* host kernels have finished when their evaluation returns */
    int err = loom__device_init("loom_device_synchronize");
    if (err)
        return err;
    return loom__cuda_check(cudaDeviceSynchronize(), "loom_device_synchronize",
                            "cudaDeviceSynchronize");
}
