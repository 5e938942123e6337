/* loom_device_properties and loom_mem_info: cupy.cuda.Device's attributes and
 * runtime.getDeviceProperties, read through device attributes (the same on CUDA 12 and 13). */
#include "cudart.h"

#include "../graph/internal.h"

#include <stdio.h>
#include <string.h>

static int attribute(const char *fn, enum cudaDeviceAttr what, int device, int *out)
{
    return loom__cuda_check(cudaDeviceGetAttribute(out, what, device), fn, "cudaDeviceGetAttribute");
}

static int memory_of(const char *fn, int device, size_t *free_bytes, size_t *total_bytes)
{
    int prev, rc = loom__device_push(fn, device, &prev);
    if (rc)
        return rc;
    rc = loom__cuda_check(cudaMemGetInfo(free_bytes, total_bytes), fn, "cudaMemGetInfo");
    loom__device_pop(prev);
    return rc;
}

int loom_device_properties(int id, loom_device_props *props)
{
    static const char fn[] = "loom_device_properties";
    if (!props) {
        loom__error(LOOM_ERR_INVALID, fn, "props is NULL");
        return LOOM_ERR_INVALID;
    }
    int rc = loom__device_check(fn, id);
    if (rc)
        return rc;
    memset(props, 0, sizeof *props);
    props->id = id;
    struct cudaDeviceProp p;
    if ((rc = loom__cuda_check(cudaGetDeviceProperties(&p, id), fn, "cudaGetDeviceProperties")))
        return rc;
    snprintf(props->name, sizeof props->name, "%s", p.name);
    props->shared_memory_per_block = p.sharedMemPerBlock;
    const struct {
        enum cudaDeviceAttr attr;
        int *out;
    } attrs[] = {
        {cudaDevAttrComputeCapabilityMajor, &props->major},
        {cudaDevAttrComputeCapabilityMinor, &props->minor},
        {cudaDevAttrMultiProcessorCount, &props->multiprocessors},
        {cudaDevAttrL2CacheSize, &props->l2_cache_bytes},
        {cudaDevAttrClockRate, &props->clock_khz},
        {cudaDevAttrMemoryClockRate, &props->memory_clock_khz},
        {cudaDevAttrGlobalMemoryBusWidth, &props->memory_bus_width},
        {cudaDevAttrMaxThreadsPerBlock, &props->max_threads_per_block},
        {cudaDevAttrWarpSize, &props->warp_size},
        {cudaDevAttrPciDomainId, &props->pci_domain},
        {cudaDevAttrPciBusId, &props->pci_bus},
        {cudaDevAttrPciDeviceId, &props->pci_device},
    };
    for (size_t i = 0; i < sizeof attrs / sizeof attrs[0]; i++)
        if ((rc = attribute(fn, attrs[i].attr, id, attrs[i].out)))
            return rc;
    if ((rc = loom__cuda_check(cudaDeviceGetPCIBusId(props->pci_bus_id, (int)sizeof props->pci_bus_id, id),
                               fn, "cudaDeviceGetPCIBusId")))
        return rc;
    return memory_of(fn, id, &props->free_memory, &props->total_memory);
}

int loom_mem_info(size_t *free_bytes, size_t *total_bytes)
{
    static const char fn[] = "loom_mem_info";
    if (!free_bytes || !total_bytes) {
        loom__error(LOOM_ERR_INVALID, fn, "%s is NULL", !free_bytes ? "free_bytes" : "total_bytes");
        return LOOM_ERR_INVALID;
    }
    int device;
    int rc = loom__device_current(fn, &device);
    if (rc)
        return rc;
    return memory_of(fn, device, free_bytes, total_bytes);
}
