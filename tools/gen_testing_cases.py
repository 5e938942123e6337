#!/usr/bin/env python3
"""Writes tests/data/testing_cases.txt: NumPy 2's np.testing.assert_allclose and
assert_array_equal on pairs of arrays, for tests/test_testing.c: either PASS or the text of the
AssertionError (NumPy's report: mismatched elements, the first indices, the largest absolute
and relative differences, the arrays' reprs).

One case a line, tab-separated:
    KIND RTOL ATOL EQUAL_NAN XDTYPE XSHAPE XHEX YDTYPE YSHAPE YHEX EXPECTED
KIND is allclose or equal; shapes are comma-separated ("-" for 0-d); data is C-ordered
little-endian bytes in hex ("-" when empty); RTOL and ATOL are C99 hex floats; EXPECTED is PASS
or the message with "\\" written "\\\\" and newlines "\\n".

Usage: python3 tools/gen_testing_cases.py > tests/data/testing_cases.txt
"""
import numpy as np


def escape(s):
    return s.replace("\\", "\\\\").replace("\n", "\\n")


def emit(kind, x, y, rtol=1e-7, atol=0.0, equal_nan=True):
    try:
        if kind == "allclose":
            np.testing.assert_allclose(x, y, rtol=rtol, atol=atol, equal_nan=equal_nan)
        else:
            np.testing.assert_array_equal(x, y)
        expected = "PASS"
    except AssertionError as e:
        expected = escape(str(e))
    fields = [kind, float(rtol).hex(), float(atol).hex(), str(int(equal_nan))]
    for a in (x, y):
        fields += [a.dtype.name, ",".join(map(str, a.shape)) or "-", a.tobytes().hex() or "-"]
    print("\t".join(fields + [expected]))


rng = np.random.default_rng(1717)
f64 = np.array([1.0, 2.0, 3.0])
emit("allclose", f64, f64)
emit("allclose", f64, np.array([1.0, 2.5, 3.0]))
emit("allclose", f64.astype(np.float32), np.array([1.0, 2.5, 3.0]), rtol=1e-3, atol=0.1)
emit("allclose", f64.astype(np.float32), np.array([1.0, 2.5, 3.0], np.float32), rtol=1e-3, atol=0.5)
emit("allclose", np.array([1.0, np.nan, 3.0]), np.array([1.0, 2.5, 3.0]))
emit("allclose", np.array([1.0, np.nan, 3.0]), np.array([1.0, np.nan, 3.0]))
emit("allclose", np.array([1.0, np.nan, 3.0]), np.array([1.0, np.nan, 3.0]), equal_nan=False)
emit("allclose", np.array([1.0, 2.0]), np.array([1.0, 2.5, 3.0]))
emit("allclose", np.arange(20.0).reshape(4, 5), np.arange(20.0).reshape(4, 5) * 1.1)
emit("allclose", np.arange(20.0).reshape(4, 5), np.arange(20.0).reshape(4, 5) * (1 + 1e-8))
emit("allclose", np.array([0.0, 2.0]), np.array([1e-300, 0.0]))
emit("allclose", np.array([np.inf, 2.0]), np.array([-np.inf, 2.0]))
emit("allclose", np.array([np.inf, 2.0]), np.array([np.inf, 2.0]))
emit("allclose", np.array([np.inf, 2.0]), np.array([1.0, np.inf]))
emit("allclose", np.array([1 + 1j, 2]), np.array([1 + 2j, 2]))
emit("allclose", np.array([1 + 1j, 2], np.complex64), np.array([1 + 1j, 2.0001], np.complex64), rtol=1e-3)
emit("allclose", np.array(1.0), np.array(2.0))
emit("allclose", np.array([1, 2, 3]), np.array([1, 2, 4]))
emit("allclose", np.array([1, 2, 3], np.int32), np.array([1.0, 2.0, 3.0000001], np.float32))
emit("allclose", rng.standard_normal((30, 40)), rng.standard_normal((30, 40)), atol=3.0)
emit("allclose", rng.standard_normal(1200), rng.standard_normal(1200))
emit("allclose", np.linspace(0, 1, 7, dtype=np.float16), np.linspace(0, 1.01, 7, dtype=np.float16))
emit("allclose", np.zeros((2, 0)), np.zeros((2, 0)))
x = rng.standard_normal((3, 4, 5))
y = x.copy()
y[1, 2, 3] += 1e-3
y[2, 0, 0] = 0.0
emit("allclose", x, y, rtol=1e-5)
emit("allclose", x.astype(np.float32), y.astype(np.float32), rtol=1e-5, atol=1e-6)

emit("equal", np.array([1, 2, 3]), np.array([1, 5, 3]))
emit("equal", np.array([1, 2, 3], np.uint8), np.array([1, 5, 3], np.uint8))
emit("equal", np.array([200, 2, 3], np.uint8), np.array([1, 5, 250], np.uint8))
emit("equal", np.array([100, -100], np.int8), np.array([-100, 100], np.int8))
emit("equal", np.array([True, False]), np.array([True, True]))
emit("equal", np.array([True, False]), np.array([True, False]))
emit("equal", np.arange(12).reshape(3, 4), np.arange(12).reshape(3, 4))
emit("equal", np.arange(12).reshape(3, 4), np.arange(12).reshape(3, 4)[::-1].copy())
emit("equal", np.array([1.5, np.nan]), np.array([1.5, np.nan]))
emit("equal", np.array([0.0, -0.0]), np.array([-0.0, 0.0]))
emit("equal", np.array([1.0, 2.0], np.float32), np.array([1.0, 2.0000002], np.float32))
emit("equal", np.array([1, 2], np.int64), np.array([1.0, 2.5]))
emit("equal", np.array([2 ** 63 - 1], np.int64), np.array([2 ** 64 - 1], np.uint64))
emit("equal", np.array(5), np.array(6))
emit("equal", np.array([1 + 2j, 3j]), np.array([1 + 2j, 3 + 3j]))

# random pairs: a few elements perturbed past or within the tolerance, specials, mixed dtypes
fuzz = np.random.default_rng(99)
for _ in range(120):
    dts = [str(d) for d in fuzz.choice(["float16", "float32", "float64", "complex64",
                                        "complex128", "int16", "int64", "uint8"], 2)]
    shape = tuple(int(v) for v in fuzz.integers(1, 5, int(fuzz.integers(0, 4))))
    base = fuzz.standard_normal(shape) * 10.0 ** float(fuzz.integers(-3, 4))
    other = base * (1 + fuzz.standard_normal(shape) * 10.0 ** float(fuzz.integers(-9, -1)))
    if base.size > 1 and fuzz.random() < 0.3:
        flat = other.reshape(-1)
        flat[fuzz.integers(0, flat.size)] = fuzz.choice([np.nan, np.inf, 0.0])
    def cast(v, dt):
        if dt.startswith(("int", "uint")):
            info = np.iinfo(dt)
            return np.clip(np.round(np.nan_to_num(v, posinf=0, neginf=0)), info.min, info.max).astype(dt)
        with np.errstate(over="ignore", invalid="ignore"):
            return np.asarray(v).astype(dt)
    x, y = cast(base, dts[0]), cast(other, dts[1])
    if fuzz.random() < 0.7:
        emit("allclose", x, y, rtol=float(10.0 ** fuzz.integers(-9, -1)),
             atol=float(fuzz.choice([0.0, 1e-6, 1e-3])), equal_nan=bool(fuzz.random() < 0.8))
    else:
        emit("equal", x, y)
