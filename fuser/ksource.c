/* Pieces every code generator shares: the C++ type of a dtype in generated source, and naming
 * a kernel by a hash of its source so the same structure always gets the same name. */
#include "walk.h"

#include <stdlib.h>
#include <string.h>

const char *loom__ctype(int dt)
{
    static const char *names[LOOM_NUM_DTYPES] = {
        "lt_bool",    "lt_int8",     "lt_int16",    "lt_int32",     "lt_int64",
        "lt_uint8",   "lt_uint16",   "lt_uint32",   "lt_uint64",    "lt_float16",
        "lt_bfloat16", "lt_float32", "lt_float64",  "lt_complex64", "lt_complex128"};
    return names[dt];
}

int loom__kernel_set_source(loom_kernel *k, const char *prefix, char *src)
{
    snprintf(k->name, sizeof k->name, "%s_%016llx", prefix,
             (unsigned long long)loom__fnv1a64(src, strlen(src), LOOM__FNV1A64_INIT));
    char *at = strstr(src, "@NAME@");
    size_t len = strlen(src), nl = strlen(k->name);
    k->source = malloc(len - 6 + nl + 1);
    if (!k->source) {
        free(src);
        return -1;
    }
    memcpy(k->source, src, (size_t)(at - src));
    memcpy(k->source + (at - src), k->name, nl);
    strcpy(k->source + (at - src) + nl, at + 6);
    free(src);
    return 0;
}
