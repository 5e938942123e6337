/* LOOM_DEVICE: the device every thread starts on. "cpu" is the host device, "auto" the host
 * device when there is no GPU (else GPU 0), a number that GPU; unset or empty, GPU 0. Read
 * once per process. */
#include "exec.h"
#include "creation.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int initial;
static char bad_value[64];

static void read_env(void)
{
    const char *v = getenv("LOOM_DEVICE");
    if (!v || !*v) {
        initial = 0;
    } else if (strcmp(v, "cpu") == 0) {
        initial = LOOM_DEVICE_CPU;
    } else if (strcmp(v, "auto") == 0) {
        initial = loom_device_count() > 0 ? 0 : LOOM_DEVICE_CPU;
    } else {
        char *end;
        long id = strtol(v, &end, 10);
        bool number = *end == '\0' && end != v && id >= 0 && id < LOOM__MAX_DEVICES;
        initial = number ? (int)id : LOOM__DEVICE_BAD_ENV;
        if (!number)
            snprintf(bad_value, sizeof bad_value, "%s", v);
    }
}

int loom__initial_device(void)
{
    pthread_once(&once, read_env);
    return initial;
}

int loom__device_env_error(const char *fn)
{
    pthread_once(&once, read_env);
    loom__error(LOOM_ERR_INVALID, fn,
                "LOOM_DEVICE=\"%s\" names no device (cpu, auto or a GPU number such as 0)", bad_value);
    return LOOM_ERR_INVALID;
}
