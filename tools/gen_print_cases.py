#!/usr/bin/env python3
"""Writes tests/data/print_cases.txt: NumPy 2's repr() and str() of arrays of every dtype, for
tests/test_print.c (Loom's formatter must give the same strings byte for byte).

One case a line, fields separated by tabs:
    KIND DTYPE SHAPE PRECISION THRESHOLD EDGEITEMS LINEWIDTH SUPPRESS HEXDATA EXPECTED
KIND is repr or str; SHAPE is comma-separated ("-" for a 0-d array); HEXDATA is the C-ordered
bytes of the array (little-endian; "-" when empty); EXPECTED is NumPy's string with "\\" written
"\\\\" and newlines written "\\n".

The values exercise NumPy's float formatting: shortest round-trip digits (Dragon4, unique=True)
cut at `precision`, the switch to scientific notation (a value >= 10**min(8, finfo.precision),
or without suppress a value < 1e-4 or a ratio > 1000 between the largest and smallest non-zero
magnitudes), per-column padding, nan/inf, signed zeros, subnormals, summarisation past
`threshold` and line wrapping at `linewidth`.

bfloat16 (ml_dtypes; NumPy has none and ml_dtypes prints each element with str(), unaligned)
is printed by Loom with NumPy's float rules at bfloat16's finfo precision (2). Its expected
strings are NumPy's for the float32 array of each value's shortest bfloat16 decimal, with
values kept away from the cutoffs where float32 and bfloat16 differ (100 and 1e6), and only
where no value's digits are cut at the precision (the cut would round the float32 stand-in);
scientific and 0-d cases only where every stand-in is the bfloat16 value itself (they print
the exact value's digits past the shortest, or compare it with 1e-4).

Usage: python3 tools/gen_print_cases.py > tests/data/print_cases.txt
"""
import ml_dtypes
import numpy as np

DEFAULTS = dict(precision=8, threshold=1000, edgeitems=3, linewidth=75, suppress=False)


def bf16_shortest(v):
    """The shortest decimal that rounds back to the bfloat16 value v, as a float32."""
    if not np.isfinite(v) or v == 0:
        return np.float32(v)
    for digits in range(1, 10):
        s = f"{float(v):.{digits - 1}e}"
        if ml_dtypes.bfloat16(float(s)) == v:
            return np.float32(s)
    raise AssertionError(v)


def cut_at_precision(values, precision):
    """Whether printing cuts some value's shortest digits at `precision`."""
    for v in np.asarray(values).ravel():
        if np.isfinite(v) and v != 0:
            full = np.format_float_scientific(v, unique=True)
            if len(full.split("e")[0].lstrip("-").replace(".", "")) - 1 > precision:
                return True
            if np.format_float_positional(v, unique=True, precision=precision) != \
                    np.format_float_positional(v, unique=True):
                return True
    return False


def escape(s):
    return s.replace("\\", "\\\\").replace("\n", "\\n")


def emit(a, dtype_name, **opts):
    o = dict(DEFAULTS, **opts)
    with np.errstate(over="ignore", under="ignore"):
        data = a.astype(ml_dtypes.bfloat16 if dtype_name == "bfloat16" else dtype_name)
    if dtype_name == "bfloat16":
        shown = np.vectorize(bf16_shortest, otypes=[np.float32])(data) if data.size else \
            np.zeros(data.shape, np.float32)
    else:
        shown = data
    with np.printoptions(**o):
        texts = {"repr": repr(shown), "str": str(shown)}
    if dtype_name == "bfloat16":
        if cut_at_precision(shown, o["precision"]):
            return  # the float32 stand-in would round its own digits, not bfloat16's
        exact = data.astype(np.float32)
        stand_in_differs = np.any((shown != exact) & ~np.isnan(exact))
        scientific = "e+" in texts["repr"] or "e-" in texts["repr"]
        if stand_in_differs and (scientific or data.ndim == 0):
            return  # these print digits of the exact value, or compare it with 1e-4
        texts = {k: v.replace("dtype=float32", "dtype=bfloat16") for k, v in texts.items()}
        if "dtype=" not in texts["repr"]:
            raise AssertionError("a bfloat16 repr needs its dtype")
    shape = ",".join(str(n) for n in data.shape) or "-"
    raw = np.ascontiguousarray(data).tobytes().hex() or "-"
    for kind in ("repr", "str"):
        print("\t".join([kind, dtype_name, shape, str(o["precision"]), str(o["threshold"]),
                         str(o["edgeitems"]), str(o["linewidth"]), str(int(o["suppress"])),
                         raw, escape(texts[kind])]))


rng = np.random.default_rng(20261124)
INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
FLOATS = ["float16", "float32", "float64", "bfloat16"]
COMPLEX = ["complex64", "complex128"]

# bool
for a in [np.array(True), np.array(False), np.array([True, False, True]), np.array([True, True]),
          np.array([False]), np.zeros((2, 3), bool), rng.random((4, 5)) > 0.5, np.zeros((0,), bool),
          rng.random(1100) > 0.5, rng.random((3, 40)) > 0.5]:
    emit(a, "bool")

# integers
for dt in INTS:
    info = np.iinfo(dt)
    emit(np.array(7), dt)
    emit(np.array(info.max, dtype=dt), dt)
    emit(np.array([0, 1, 2, 3]), dt)
    emit(np.array([info.min, 0, info.max], dtype=dt), dt)
    emit(np.array([5, 100, 7]), dt)
    emit(np.arange(24).reshape(2, 3, 4), dt)
    emit(np.zeros((0,)), dt)
    emit(np.zeros((2, 0, 3)), dt)
    emit(np.arange(1200) % 100, dt)
    emit(rng.integers(0, 100, size=(40,)), dt)
    emit(rng.integers(0, 100, size=(6, 30)), dt, linewidth=40)
    emit(np.arange(30), dt, threshold=10, edgeitems=2)
    emit(np.arange(120).reshape(10, 12), dt, threshold=50)
    if info.min < 0:
        emit(np.array([-5, 3, -120]), dt)
        emit(np.array(-3), dt)

# real floats
SPECIAL = [0.0, -0.0, 1.0, -1.0, 0.5, 1.5, 2.5, 0.1, 0.2, 0.3, 1 / 3, 2 / 3, 3.14159265358979,
           100.0, 99.5, 12345.678, 1e-3, 1e-4, 9.99e-5, 1e5, 1e7, 1e8, 1e-8, 1e16, 1e20, 1e-20,
           1e300, 5e-324, 2.2250738585072014e-308, 65504.0, 6.1e-5, 5.96e-8]


def float_sets(dt):
    info = ml_dtypes.finfo(ml_dtypes.bfloat16) if dt == "bfloat16" else np.finfo(dt)
    tiny, big = float(info.smallest_subnormal), float(info.max)
    sets = [
        [0.0, 1.0, 2.5], [1.0, 2.0, 3.0], [0.1, 0.2, 0.3], [0.1 + 0.2], [1 / 3, 2 / 3, 1.0],
        [-1.5, 2.25, -0.125], [0.0, -0.0], [-0.0], [1e-5, 1.0, 1e5], [1e-3, 1.0, 10.0],
        [1.0, 999.0], [1.0, 1001.0], [np.nan, 1.0, -np.inf, np.inf], [np.nan, np.nan],
        [np.inf], [-np.inf, 1.5], [np.nan, 0.001, 12.5], [tiny, 1.0], [big, -big], [tiny],
        [0.5, 0.25, 0.125, 0.0625], [3.14159265358979, 2.718281828459045, 1.4142135623730951],
        [12345.678, 0.5], [99.5, 0.75], [1e20, -1e-20], [1e8, 1.0], [1e16, 3.0], [-7.0, 42.0],
        [1.0000000001, 2.0000000005], [0.123456789012, 9.87654321e-1], [5e-9, 1.0],
        [123456.0], [0.0001], [0.00011], [9.999e-5, 1.0], [2.0 ** -10, 2.0 ** 10],
    ]
    sets += [[v] for v in SPECIAL]
    return sets


for dt in FLOATS:
    for vals in float_sets(dt):
        a = np.array(vals, dtype=np.float64)
        if dt == "bfloat16":
            with np.errstate(over="ignore"):
                bf = a.astype(ml_dtypes.bfloat16)
            finite = np.abs(bf[np.isfinite(bf) & (bf != 0)].astype(np.float64))
            if finite.size and (100 <= finite.max() < 1e6):
                continue  # bfloat16 and float32 disagree on scientific notation here
        emit(a, dt)
        if a.size == 1:
            emit(a.reshape(()), dt)
        else:
            emit(a, dt, suppress=True)
            emit(a, dt, precision=3)
    emit(np.zeros((0,)), dt)
    emit(np.zeros((3, 0)), dt)
    r = rng.standard_normal((5, 7))
    emit(r, dt)
    emit(r, dt, precision=4, linewidth=50)
    emit(rng.standard_normal((2, 3, 4)), dt, precision=3)
    emit(rng.standard_normal(1100), dt)
    emit(rng.random(1050) * 50, dt, edgeitems=1)
    emit(np.arange(600.0).reshape(20, 30) / 8, dt, threshold=100)
    emit(rng.standard_normal(30) * 1e-6, dt)
    emit(rng.standard_normal(30) * 1e-6, dt, suppress=True)
    emit(rng.standard_normal(12), dt, precision=0)
    emit(rng.standard_normal((4, 4)), dt, linewidth=20)
    emit(np.array([1.5]).reshape(1, 1, 1), dt)

# complex
for dt in COMPLEX:
    sets = [[1 + 2j], [0j], [-0.0 - 0.0j], [1j], [1 + 2j, -3.5 - 1e-3j], [0.1 + 0.2j, 0.3 - 0.4j],
            [complex(np.nan, np.inf), 1 + 1j], [complex(1, np.nan)], [complex(-np.inf, 0)],
            [1e-10 + 1j, 1 + 1e10j], [1 / 3 + 2j / 3], [1e20 + 1j], [2.5 + 0j, 0 - 2.5j],
            [complex(-0.0, 1.5)], [complex(1.0, -0.0)], [123456789 + 1e-9j]]
    for vals in sets:
        a = np.array(vals, dtype=np.complex128)
        emit(a, dt)
        if a.size == 1:
            emit(a.reshape(()), dt)
        emit(a, dt, suppress=True)
    c = rng.standard_normal((4, 5)) + 1j * rng.standard_normal((4, 5))
    emit(c, dt)
    emit(c, dt, precision=3)
    emit(rng.standard_normal(1050) + 1j * rng.standard_normal(1050), dt)
    emit(np.zeros((0, 2)), dt)

# nesting, summarisation of several axes and narrow lines
for dt in ["int16", "float32", "float64", "complex128", "bool"]:
    emit(np.arange(1000).reshape(10, 10, 10) % 7 - 3, dt, threshold=100)
    emit(np.arange(2 * 3 * 4 * 5).reshape(2, 3, 4, 5) / 7, dt)
    emit(np.arange(2 * 3 * 8 * 9).reshape(2, 3, 8, 9) / 3, dt, threshold=50, edgeitems=2)
    emit(rng.standard_normal((3, 9)) * 1000, dt, linewidth=30)
    emit(np.ones((1, 1, 0)), dt)
    emit(np.ones((3, 1)), dt, linewidth=5)
emit(rng.standard_normal(40) * 10.0 ** rng.integers(-12, 12, 40), "float64")
emit(rng.standard_normal(40) * 10.0 ** rng.integers(-12, 12, 40), "float64", precision=2)
emit(np.array([12345678.9, 1.0]), "float64")
emit(np.array([123456.5, 1.25, -7e-3]), "float64", suppress=True)

# powers of two, where the values that read back reach twice as far above as below: the
# shortest digits may then be a neighbour of the correctly rounded ones (float16 2**-6 is
# 0.01563, not 0.01562)
emit(np.array([2.0 ** -6, 0.00996, 0.01]), "float16", suppress=True)
for dt in ["float16", "float32", "float64"]:
    for lo, hi in [(-24, 15), (-60, 60), (-1000, 1000)]:
        if dt != "float64" and lo < -200:
            continue
        exps = np.arange(lo, hi, 1 if hi - lo < 50 else 7)
        for chunk in np.array_split(2.0 ** exps, max(1, len(exps) // 8)):
            emit(chunk, dt)
            emit(chunk, dt, suppress=True)
            emit(chunk, dt, precision=3)

# random arrays: magnitudes over many decades, specials, random options
fuzz = np.random.default_rng(424242)
for _ in range(300):
    dt = str(fuzz.choice(["int8", "int32", "int64", "uint16", "uint64", "float16", "float32",
                          "float64", "complex64", "complex128", "bool"]))
    ndim = int(fuzz.integers(0, 4))
    shape = tuple(int(v) for v in fuzz.integers(1, 6, ndim))
    n = int(np.prod(shape))
    vals = fuzz.standard_normal(n) * 10.0 ** fuzz.integers(-9, 10, n).astype(float)
    if fuzz.random() < 0.5:  # one decade only: positional output
        vals = fuzz.standard_normal(n) * 10.0 ** float(fuzz.integers(-3, 4))
    for special in (0.0, -0.0, np.nan, np.inf, -np.inf):
        if n > 1 and fuzz.random() < 0.15:
            vals[fuzz.integers(0, n)] = special
    if dt.startswith("complex"):
        vals = vals + 1j * fuzz.standard_normal(n) * 10.0 ** float(fuzz.integers(-4, 5))
    elif dt == "bool":
        vals = vals > 0
    elif not dt.startswith("float"):
        info = np.iinfo(dt)
        vals = np.nan_to_num(vals, posinf=0, neginf=0)
        vals = np.clip(np.round(vals), max(info.min, -2.0 ** 62), min(info.max, 2.0 ** 62))
        vals = vals.astype(np.int64).astype(dt)
    opts = {}
    if fuzz.random() < 0.4:
        opts["precision"] = int(fuzz.integers(0, 11))
    if fuzz.random() < 0.3:
        opts["suppress"] = True
    if fuzz.random() < 0.3:
        opts["linewidth"] = int(fuzz.integers(20, 120))
    if fuzz.random() < 0.2:
        opts["threshold"] = int(fuzz.integers(0, 30))
        opts["edgeitems"] = int(fuzz.integers(1, 4))
    emit(np.asarray(vals).reshape(shape), dt, **opts)
