#!/usr/bin/env python3
"""Writes tests/gpu/device_cases.inc: NumPy's results for every elementwise op of the device
headers on tricky inputs, the oracle of tests/gpu/test_device_ops.c.

For each loop dtype there is a list of unary inputs and a shorter list of binary inputs (binary
ops run on all ordered pairs, first operand major). Expected outputs are NumPy's (ml_dtypes' for
bfloat16), computed on whole arrays as a user would, except where NumPy has no defined result
and Loom documents its own (docs/semantics.md):
  - float -> integer casts of NaN, infinities and out-of-range values (also where np.round of
    an integer casts such a value back),
  - integer power with a negative exponent (NumPy raises),
  - float64/complex128/integer -> bfloat16 casts, rounded once (ml_dtypes rounds via float32),
  - np.round of bfloat16, which scales by 10**decimals rounded to bfloat16 as for float16.
The generator also records which (op, dtype) loops NumPy has, so the test can check that the
device headers provide exactly those.

Usage: python3 tools/gen_device_cases.py > tests/gpu/device_cases.inc
"""
import base64
import sys
import warnings
from fractions import Fraction

import ml_dtypes
import numpy as np

DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "bfloat16", "float32", "float64", "complex64", "complex128"]
NP = {name: (np.dtype(ml_dtypes.bfloat16) if name == "bfloat16" else np.dtype(name))
      for name in DTYPES}
INTS = DTYPES[1:9]
FLOATS = ["float16", "bfloat16", "float32", "float64"]
COMPLEX = ["complex64", "complex128"]

# Op name -> kind, in the order of tests/device_op_table.h.
OPS = [("copy", "unary")] + [(n, "unary") for n in (
    "negative positive absolute sign reciprocal square sqrt cbrt exp exp2 expm1 log log2 log10 "
    "log1p sin cos tan arcsin arccos arctan sinh cosh tanh arcsinh arccosh arctanh deg2rad "
    "rad2deg floor ceil trunc rint logical_not invert isnan isinf isfinite signbit real imag "
    "conjugate angle").split()] + [("round", "round")] + [(n, "binary") for n in (
    "add subtract multiply divide floor_divide remainder fmod power arctan2 hypot logaddexp "
    "logaddexp2 copysign maximum minimum fmax fmin equal not_equal less less_equal greater "
    "greater_equal logical_and logical_or logical_xor bitwise_and bitwise_or bitwise_xor "
    "left_shift right_shift").split()] + [("where", "where")]

# Results compared within a tolerance (transcendental functions and what is built on them);
# everything else must match bit for bit (any NaN matches any NaN).
APPROX = set(("cbrt exp exp2 expm1 log log2 log10 log1p sin cos tan arcsin arccos arctan sinh "
              "cosh tanh arcsinh arccosh arctanh power arctan2 hypot logaddexp logaddexp2 "
              "angle").split())
APPROX_COMPLEX = APPROX | {"sqrt", "absolute", "sign"}
TOL_EXACT, TOL_ULP, TOL_COMPLEX = 0, 1, 2

DECIMALS_INT = [-2, -1, 0, 1]
DECIMALS_FLOAT = [-1, 0, 1, 2, 5]
DECIMALS_COMPLEX = [-1, 0, 2]


def int_limits(name):
    info = np.iinfo(NP[name])
    return int(info.min), int(info.max), info.bits


def unary_values(name):
    if name == "bool":
        return [False, True]
    if name in INTS:
        lo, hi, bits = int_limits(name)
        if lo < 0:
            v = [0, 1, -1, 2, -2, 3, -3, 7, -7, bits, 15, 25, -25, 45, 100, -100, hi, lo, hi - 1,
                 lo + 1, 155, -155, 1250, -1251, 12345]
        else:
            v = [0, 1, 2, 3, 7, bits, 15, 25, 45, 100, 1 << (bits - 1), hi, hi - 1, 155, 1250,
                 12345]
        return [x for x in v if lo <= x <= hi]
    if name in FLOATS:
        v = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, 2.5, -2.5, 3.5, 0.3, -0.7, 0.99, -0.9, 1.005,
             2.675, 10.0, -10.0, 100.25, 155.0, -1234.5678, 1e-5, -3e-8, 6e-8, 88.5, 89.0, 710.0,
             -745.5, 1e10, -1e10, 3e38, 1e300, 1e-40, 5e-324, np.inf, -np.inf, np.nan]
        if name == "float64":
            v.append(1 + 2**-8 + 2**-30)  # a bfloat16 tie after rounding to float32 first
        return v
    return [0, complex(-0.0, -0.0), 1, -1, 1j, -1j, 1 + 1j, -2.5 + 0.5j, 3 - 4j, 0.3 + 0.7j,
            -0.9 - 0.1j, 0.5j, 2 + 0j, -3 + 0j, complex(-3, -0.0), 2j, -2j, 1e-5 + 1e-5j, 20 + 1j,
            -20 - 1j, 100 + 100j, 1e10 + 1j, 0.5 + 1e10j, complex(1e-310, 2e-310),
            complex(1e308, -1e308), complex(np.inf, 0),
            complex(-np.inf, 0), complex(0, np.inf), complex(np.nan, 0), complex(0, np.nan),
            complex(np.inf, np.inf), complex(np.nan, np.nan), complex(np.inf, 1),
            complex(-np.inf, 1), complex(1, np.inf), complex(np.nan, 1),
            # cosh/sinh/exp of the real part (cos/sin of the imaginary one) overflowing beside
            # a zero or tiny other part (Annex G: inf+0j, not inf+nanj); 95 overflows only in
            # complex64; infinities whose signs Annex G leaves to the library (glibc's)
            complex(95, 0), complex(-95, -0.0), complex(0, 95), complex(-0.0, -95),
            complex(800, 0), complex(-800, 0), complex(800, -0.0), complex(0, 800),
            complex(-0.0, -800), complex(800, 1), complex(-1, 800), complex(800, 1e-300),
            complex(1500, 0.5), complex(-np.inf, np.inf), complex(-np.inf, -np.inf),
            complex(-np.inf, np.nan), complex(np.nan, -np.inf), complex(np.inf, np.nan),
            complex(0, -np.inf), complex(np.nan, -0.0)]


def binary_values(name):
    if name == "bool":
        return [False, True]
    if name in INTS:
        lo, hi, bits = int_limits(name)
        if lo < 0:
            return [0, 1, -1, 3, -7, bits - 1, bits, hi, lo]
        return [0, 1, 2, 3, 7, bits - 1, bits, 1 << (bits - 1), hi]
    if name in FLOATS:
        return [0.0, -0.0, 1.0, -2.5, 3.75, 0.3, 2.0, np.inf, -np.inf, np.nan]
    return [0, 1, -1, 1 + 1j, -2.5 + 0.5j, 3 - 4j, 2 + 0j, complex(np.inf, 0),
            complex(np.nan, 0)]


def array(values, name):
    """The values as an array of dtype name, without duplicate bit patterns."""
    with np.errstate(all="ignore"):
        if name in FLOATS:
            a = np.array(values, dtype=np.float64).astype(NP[name])
        elif name in COMPLEX:
            a = np.array(values, dtype=np.complex128).astype(NP[name])
        else:
            a = np.array(values, dtype=NP[name])
    seen, keep = set(), []
    for i, x in enumerate(a):
        key = np.asarray(x).tobytes()
        if key not in seen:
            seen.add(key)
            keep.append(i)
    return a[keep]


def numpy_has_loop(op, name):
    """Whether NumPy (or, for bfloat16, ml_dtypes) has a loop for op on dtype name."""
    if op in ("copy", "where", "real", "imag"):
        return True
    if op == "angle":
        return name in FLOATS or name in COMPLEX
    if op == "round":
        return name != "bool"
    if op == "signbit" and (name == "bool" or name in INTS):
        return True  # Loom's extra: x < 0 without a detour through float16
    ufunc = getattr(np, op)
    char = NP["float16" if name == "bfloat16" else name].char
    return any(t.split("->")[0] == char * ufunc.nin for t in ufunc.types)


def loom_power_negative(a, b, name):
    """Loom's integer power with a negative exponent: the truncated exact value."""
    out = np.zeros_like(a)
    out[a == 1] = 1
    if NP[name].kind == "i":
        minus = a == -1
        out[minus] = np.where(b[minus] % 2 == 0, 1, -1)
    return out


def loom_round(a, name, decimals):
    """np.round, with two Loom definitions: an integer result outside the integer type casts
    by Loom's rule, and bfloat16 scales by 10**decimals rounded to bfloat16 (a weak Python
    float, NEP 50), as float16 does; ml_dtypes scales by the float64 value."""
    if name in INTS and decimals < 0:
        f = 10.0 ** -decimals
        scaled = np.rint(a.astype(np.float64) / f) * f
        return cast(scaled, "float64", name)
    if name == "bfloat16":
        f = np.array(10.0 ** abs(decimals), dtype=ml_dtypes.bfloat16)
        if decimals >= 0:
            return np.divide(np.rint(np.multiply(a, f)), f)
        return np.multiply(np.rint(np.divide(a, f)), f)
    return np.round(a, decimals)


def compute(op, name, a, b=None, cond=None, decimals=0):
    with np.errstate(all="ignore"):
        if op == "copy":
            return a.copy()
        if op == "where":
            return np.where(cond, a, b)
        if op == "round":
            return loom_round(a, name, decimals)
        if op in ("real", "imag", "angle"):
            r = getattr(np, op)(a)
            return np.array(r, dtype=r.dtype)
        if op == "power" and name in INTS:
            neg = b < 0
            r = np.power(a, np.where(neg, 0, b).astype(a.dtype))
            r[neg] = loom_power_negative(a[neg], b[neg], name)
            return r
        ufunc = getattr(np, op)
        return ufunc(a) if b is None else ufunc(a, b)


def float_to_int_loom(x, to):
    """Loom's float -> integer cast (docs/semantics.md): trunc to int64 (NaN -> 0, saturating;
    values >= 2^63 straight to uint64 for uint64), then wrap to the target width."""
    lo, hi, bits = int_limits(to)
    if x != x:
        v = 0
    elif x >= 2.0**63:
        v = (2**64 - 1 if x >= 2.0**64 else int(x)) if to == "uint64" else 2**63 - 1
    elif x < -(2.0**63):
        v = -(2**63)
    else:
        v = int(x)
    v &= (1 << bits) - 1
    if lo < 0 and v > hi:
        v -= 1 << bits
    return v


def round_bf16(value):
    """value (int, float or Fraction) rounded once, to nearest even, to bfloat16."""
    if value != value:
        return np.array([np.nan], dtype=ml_dtypes.bfloat16)
    if value in (float("inf"), float("-inf")):
        return np.array([value], dtype=ml_dtypes.bfloat16)
    f = Fraction(value)
    if f == 0:
        return np.array([float(value)], dtype=ml_dtypes.bfloat16)
    sign, mag = (-1 if f < 0 else 1), abs(f)
    e = mag.numerator.bit_length() - mag.denominator.bit_length()
    if Fraction(2) ** e > mag:
        e -= 1
    quantum = Fraction(2) ** (max(e, -126) - 7)
    q = mag / quantum
    n = q.numerator // q.denominator
    rest = q - n
    if rest > Fraction(1, 2) or (rest == Fraction(1, 2) and n % 2 == 1):
        n += 1
    r = sign * n * quantum
    return np.array([float(r) if abs(r) < 2**128 else sign * np.inf], dtype=ml_dtypes.bfloat16)


def cast(a, src, to):
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
        numpy_result = a.astype(NP[to])
    if to == "bfloat16" and src in ("float64", "complex128") + tuple(INTS):
        vals = a.real if src in COMPLEX else a
        return np.concatenate([round_bf16(int(x) if src in INTS else float(x)) for x in vals])
    if to in INTS and (src in FLOATS or src in COMPLEX):
        vals = (a.real if src in COMPLEX else a).astype(np.float64)
        lo, hi, _ = int_limits(to)
        out = numpy_result.copy()
        for i, x in enumerate(vals):
            loom = float_to_int_loom(float(x), to)
            if np.isfinite(x) and lo <= int(np.trunc(x)) <= hi:
                assert loom == int(numpy_result[i]), (src, to, x)  # in range: NumPy's value
            out[i] = loom
        return out
    return numpy_result


def encode(arr):
    return base64.b64encode(np.ascontiguousarray(arr).tobytes()).decode()


def c_string(text, indent="     "):
    if not text:
        return '""'
    chunks = [text[i:i + 92] for i in range(0, len(text), 92)]
    return ("\n" + indent).join('"%s"' % c for c in chunks)


def main():
    out = []
    emit = out.append
    emit("/* Generated by tools/gen_device_cases.py with NumPy %s and ml_dtypes %s: do not edit."
         % (np.__version__, ml_dtypes.__version__))
    emit(" * Strings are base64 of little-endian elements back to back. */")
    for kind, fn in (("unary", unary_values), ("binary", binary_values)):
        emit("static const char *const dc_%s_values[LOOM_NUM_DTYPES] = {" % kind)
        for name in DTYPES:
            emit("    /* %s */ %s," % (name, c_string(encode(array(fn(name), name)), "    ")))
        emit("};")
    emit("static const dc_case dc_cases[] = {")
    count = 0
    for name in DTYPES:
        ua = array(unary_values(name), name)
        bv = array(binary_values(name), name)
        ba, bb = np.repeat(bv, len(bv)), np.tile(bv, len(bv))
        for op, kind in OPS:
            if not numpy_has_loop(op, name):
                continue
            if name in COMPLEX:
                tol = TOL_COMPLEX if op in APPROX_COMPLEX else TOL_EXACT
            else:
                tol = TOL_ULP if op in APPROX and name in FLOATS else TOL_EXACT
            runs = []
            if kind == "unary":
                runs.append((0, compute(op, name, ua)))
            elif kind == "binary":
                runs.append((0, compute(op, name, ba, bb)))
            elif kind == "where":
                cond = np.arange(len(ua)) % 3 == 0
                runs.append((0, compute(op, name, ua, ua[::-1].copy(), cond)))
            else:
                decs = (DECIMALS_INT if name in INTS else
                        DECIMALS_COMPLEX if name in COMPLEX else DECIMALS_FLOAT)
                runs += [(d, compute(op, name, ua, decimals=d)) for d in decs]
            for decimals, r in runs:
                if name == "bfloat16" and r.dtype == np.float32:
                    r = r.astype(ml_dtypes.bfloat16)
                emit('    {"%s", %d, %d, %d, %d,\n     %s},' % (
                    op, DTYPES.index(name), DTYPES.index(str(r.dtype)), decimals, tol,
                    c_string(encode(r))))
                count += 1
        for to in DTYPES:
            r = cast(ua, name, to)
            emit('    {"astype", %d, %d, 0, 0,\n     %s},' % (
                DTYPES.index(name), DTYPES.index(to), c_string(encode(r))))
            count += 1
    emit("};")
    ia = array(binary_values("int64"), "int64")
    ub = array(binary_values("uint64"), "uint64")
    a, b = np.repeat(ia, len(ub)), np.tile(ub, len(ia))
    emit("/* int64 x uint64 comparisons, in the order of loom_t_mixed: op(a, b) then op(b, a). */")
    emit("static const char *const dc_mixed[12] = {")
    for op in ("equal", "not_equal", "less", "less_equal", "greater", "greater_equal"):
        emit("    %s," % c_string(encode(getattr(np, op)(a, b)), "    "))
        emit("    %s," % c_string(encode(getattr(np, op)(b, a)), "    "))
    emit("};")
    sys.stdout.write("\n".join(out) + "\n")
    print("%d cases" % count, file=sys.stderr)


if __name__ == "__main__":
    main()
