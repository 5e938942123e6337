#!/usr/bin/env python3
"""Writes kernels/loom_ziggurat.cuh: the tables of the 256-layer ziggurat for standard normals
(Marsaglia and Tsang, "The Ziggurat Method for Generating Random Variables", JSS 2000), computed
here in float64 from the method's two constants: r, the start of the tail, and v, the area of
each layer.

For B value bits (23 for float32, 52 for float64), layer i has
    w[i] = x[i] / 2^B          a value's scale: x = rabs * w[i], rabs in [0, 2^B)
    k[i] = floor(2^B * x[i-1] / x[i])   rabs < k[i]: x lies under the curve, accept at once
    f[i] = exp(-x[i]^2 / 2)    the wedge test of the other values
with x[255] = r and layer 0 the base strip (x[0] = v / f(r), its k from r / x[0]; beyond r is
the tail).

    python3 tools/gen_ziggurat.py > kernels/loom_ziggurat.cuh
"""
import math

R = 3.6541528853610088
V = 4.92867323399e-3


def f(x):
    return math.exp(-0.5 * x * x)


def tables(bits):
    m = float(1 << bits)
    k, w, fv = [0] * 256, [0.0] * 256, [0.0] * 256
    dn = tn = R
    q = V / f(dn)
    k[0] = int(dn / q * m)
    k[1] = 0
    w[0] = q / m
    w[255] = dn / m
    fv[0] = 1.0
    fv[255] = f(dn)
    for i in range(254, 0, -1):
        dn = math.sqrt(-2.0 * math.log(V / dn + f(dn)))
        k[i + 1] = int(dn / tn * m)
        tn = dn
        fv[i] = f(dn)
        w[i] = dn / m
    return k, w, fv


def rows(values, fmt, per_line):
    out = []
    for i in range(0, len(values), per_line):
        out.append("    " + ", ".join(fmt(v) for v in values[i:i + per_line]) + ",")
    return "\n".join(out)


def main():
    k32, w32, f32 = tables(23)
    k64, w64, f64 = tables(52)
    print("/* kernels/loom_ziggurat.cuh: written by tools/gen_ziggurat.py (do not edit), the tables of the")
    print(" * 256-layer normal ziggurat for 23 value bits (float32) and 52 (float64); loom_random.cuh uses them.")
    print(" * LOOM__ZT is their storage class: __device__ const on the device. */")
    print("#ifndef LOOM_ZIGGURAT_CUH")
    print("#define LOOM_ZIGGURAT_CUH")
    print()
    print("#define LOOM_ZIG_R %r" % R)
    print()
    print("LOOM__ZT unsigned loom_zig_k32[256] = {")
    print(rows(k32, lambda v: "%du" % v, 8))
    print("};")
    print("LOOM__ZT float loom_zig_w32[256] = {")
    print(rows(w32, lambda v: float(v).hex() + "f", 4))
    print("};")
    print("LOOM__ZT float loom_zig_f32[256] = {")
    print(rows(f32, lambda v: float(v).hex() + "f", 4))
    print("};")
    print("LOOM__ZT unsigned long long loom_zig_k64[256] = {")
    print(rows(k64, lambda v: "%dull" % v, 4))
    print("};")
    print("LOOM__ZT double loom_zig_w64[256] = {")
    print(rows(w64, lambda v: float(v).hex(), 4))
    print("};")
    print("LOOM__ZT double loom_zig_f64[256] = {")
    print(rows(f64, lambda v: float(v).hex(), 4))
    print("};")
    print()
    print("#endif")


if __name__ == "__main__":
    main()
