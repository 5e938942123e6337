/* Devices as messages name them: "cpu" for the host device, the GPU's number otherwise. */
#include "internal.h"

#include <stdio.h>

const char *loom__device_label(int device)
{
    static _Thread_local char ring[4][16];
    static _Thread_local int next;
    char *buf = ring[next];
    next = (next + 1) % 4;
    if (device == LOOM_DEVICE_CPU)
        snprintf(buf, sizeof ring[0], "cpu");
    else if (device == LOOM__DEVICE_BAD_ENV)
        snprintf(buf, sizeof ring[0], "LOOM_DEVICE");
    else
        snprintf(buf, sizeof ring[0], "%d", device);
    return buf;
}
