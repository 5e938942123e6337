/* Reading one element of any dtype on the host (loom_item, tests). */
#include "internal.h"

#include <math.h>
#include <string.h>

double loom__half_to_double(uint16_t h)
{
    int sign = h >> 15, exp = (h >> 10) & 0x1f, frac = h & 0x3ff;
    double v;
    if (exp == 0)
        v = ldexp(frac, -24); /* subnormal */
    else if (exp == 31)
        v = frac ? NAN : INFINITY;
    else
        v = ldexp(frac + 1024, exp - 25);
    return sign ? -v : v;
}

double loom__bfloat16_to_double(uint16_t b)
{
    uint32_t bits = (uint32_t)b << 16;
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

double loom__host_to_double(const void *p, loom_dtype dt)
{
    switch (dt) {
    case LOOM_BOOL: return *(const uint8_t *)p != 0;
    case LOOM_INT8: return *(const int8_t *)p;
    case LOOM_INT16: { int16_t v; memcpy(&v, p, 2); return v; }
    case LOOM_INT32: { int32_t v; memcpy(&v, p, 4); return v; }
    case LOOM_INT64: { int64_t v; memcpy(&v, p, 8); return (double)v; }
    case LOOM_UINT8: return *(const uint8_t *)p;
    case LOOM_UINT16: { uint16_t v; memcpy(&v, p, 2); return v; }
    case LOOM_UINT32: { uint32_t v; memcpy(&v, p, 4); return v; }
    case LOOM_UINT64: { uint64_t v; memcpy(&v, p, 8); return (double)v; }
    case LOOM_FLOAT16: { uint16_t v; memcpy(&v, p, 2); return loom__half_to_double(v); }
    case LOOM_BFLOAT16: { uint16_t v; memcpy(&v, p, 2); return loom__bfloat16_to_double(v); }
    case LOOM_FLOAT32: case LOOM_COMPLEX64: { float v; memcpy(&v, p, 4); return v; }
    case LOOM_FLOAT64: case LOOM_COMPLEX128: { double v; memcpy(&v, p, 8); return v; }
    default: return NAN;
    }
}
