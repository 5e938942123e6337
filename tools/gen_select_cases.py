#!/usr/bin/env python3
"""NumPy's answers for selections by a condition and boolean assignment
(tests/test_select_cond.c, tests/gpu/test_select_cond.c): np.compress, np.extract,
np.where(condition) with one argument, a[mask] = values and np.place.

    python3 tools/gen_select_cases.py > tests/data/select_cases.txt

One case per line:  func | read | inputs | args | result
  read:   1 when Loom reads the condition's count back at the call (the data-dependent-shape
          model of docs/unique.md): without a device the call then fails with
          LOOM_ERR_NO_DEVICE after one forced evaluation; 0 when the call needs no read
  inputs: dtype:shape, filled as tools/gen_join_cases.py fills input k
  args:   compress: axis (N: None) COND;  extract, where: COND;  ix: COND (np.ix_(COND, input));
          trim_zeros: axis (N: None) trim (0 "fb", 1 "f", 2 "b", 3 "fx") COND (the array);
          setitem_mask: COND (inputs: a, values);  place: COND (inputs: a, vals)
  COND:   cdtype ndim dims... values... (cdtype 0 bool, 1 int64, 2 float64)
  result: ok k (dtype shape values)... / err message
"""
import random

import numpy as np

from gen_join_cases import fmt_array, input_values
from gen_shape_cases import rshape

CDTYPES = [np.bool_, np.int64, np.float64]
DTYPES = ["bool", "int8", "uint8", "int32", "int64", "float16", "float32", "float64",
          "complex64"]


def fmt_shape(s):
    return "x".join(str(d) for d in s) if s else "-"


def cond_args(c):
    code = [np.dtype(t) for t in CDTYPES].index(c.dtype)
    return [code, c.ndim] + list(c.shape) + [int(v) for v in c.ravel()]


def rand_cond(rng, shape, dtype=None):
    dtype = dtype or rng.choice(CDTYPES)
    n = int(np.prod(shape, dtype=np.int64))
    p = rng.choice([0.0, 0.3, 0.6, 1.0])
    v = [(rng.randint(1, 3) if dtype is not np.bool_ else 1) if rng.random() < p else 0
         for _ in range(n)]
    return np.array(v, dtype=np.int64).astype(dtype).reshape(shape)


TRIMS = ["fb", "f", "b", "fx"]


def run(func, a, cond, axis, trim=None):
    if func == "compress":
        return [np.compress(cond, a[0], axis=axis)]
    if func == "extract":
        return [np.extract(cond, a[0])]
    if func == "where":
        return list(np.where(cond))
    if func == "ix":
        return list(np.ix_(cond, a[0]))
    if func == "trim_zeros":
        return [np.trim_zeros(cond, trim, axis=axis)]
    if func == "setitem_mask":
        r = a[0].copy()
        r[cond] = a[1]
        return [r]
    r = a[0].copy()
    np.place(r, cond, a[1])
    return [r]


def reads(func, a, cond, axis, trim=None):
    """Whether Loom reads the count back at the call (mirrors graph/compress.c,
    graph/scatter.c and graph/update.c)."""
    if func == "compress":
        nd = max(a[0].ndim, 1)
        ok_axis = axis is None or -nd <= axis < nd
        return cond.ndim == 1 and ok_axis and cond.size > 0
    if func == "extract":
        return cond.size > 0
    if func == "ix":
        return cond.ndim == 1 and cond.size > 0
    if func == "trim_zeros":
        nd = cond.ndim
        return (cond.size > 0 and nd > 0 and (axis is None or -nd <= axis < nd) and
                set(trim) <= set("fbFB"))
    if func == "where":
        return cond.ndim > 0 and cond.size > 0
    if func == "setitem_mask":
        v = a[1]
        if cond.shape == a[0].shape:
            return v.ndim <= 1 and v.size != 1 and cond.size > 0
        fits = cond.ndim <= a[0].ndim and cond.shape == a[0].shape[:cond.ndim]
        return fits and cond.ndim > 0 and cond.size > 0
    return a[1].size == 0 and a[0].size > 0 and cond.size == a[0].size


def case(func, specs, cond, axis=None, trim=None):
    a = [input_values(k, dt, shape) for k, (dt, shape) in enumerate(specs)]
    try:
        out = run(func, a, cond, axis, TRIMS[trim] if trim is not None else None)
        result = f"ok {len(out)} " + " ".join(fmt_array(r) for r in out)
    except (ValueError, IndexError, TypeError) as e:
        result = f"err {e}"
    head = [] if func not in ("compress", "trim_zeros") else ["N" if axis is None else str(axis)]
    head += [] if trim is None else [str(trim)]
    args = head + [str(x) for x in cond_args(cond)]
    inputs = " ".join(f"{dt}:{fmt_shape(s)}" for dt, s in specs)
    read = int(reads(func, a, cond, axis, TRIMS[trim] if trim is not None else None))
    return f"{func} | {read} | {inputs} | {' '.join(args)} | {result.rstrip()}"


def main():
    rng = random.Random(1517)
    lines = []
    for _ in range(70):
        dt = rng.choice(DTYPES)
        s = rshape(rng, rng.randint(0, 3), 0 if rng.random() < 0.1 else 1)
        axis = None if rng.random() < 0.3 else rng.randint(-len(s) - 1, len(s))
        n = (int(np.prod(s)) if axis is None else (s[axis] if -len(s) <= axis < len(s) and s else 1))
        length = max(0, n + rng.choice([0, 0, 0, -1, -2, 1, 2]))
        c = rand_cond(rng, (length,))
        if rng.random() < 0.05:
            c = c.reshape(1, -1)
        lines.append(case("compress", [(dt, s)], c, axis))
    # a set element past an empty axis: NumPy's take message
    lines.append(case("compress", [("float32", (0, 3))], np.array([True]), 0))
    lines.append(case("compress", [("int8", (2, 0))], np.array([False, False]), 1))
    for _ in range(30):
        dt = rng.choice(DTYPES)
        s = rshape(rng, rng.randint(0, 3), 1)
        size = int(np.prod(s))
        cs = rng.choice([s, (max(0, size + rng.choice([-2, -1, 1, 2])),), (size,)])
        lines.append(case("extract", [(dt, s)], rand_cond(rng, cs)))
    for _ in range(25):
        lines.append(case("where", [], rand_cond(rng, rshape(rng, rng.randint(0, 3), 0))))
    for shape in ((5,), (0,), (3,), (2, 2)):
        lines.append(case("ix", [("int32", (3,))], rand_cond(rng, shape, np.bool_)))
    for _ in range(30):
        # a box of nonzero values inside zeros, sometimes none
        s = rshape(rng, rng.randint(0, 3), 0 if rng.random() < 0.1 else 1, 6)
        c = np.zeros(s, dtype=rng.choice(CDTYPES))
        if c.size and rng.random() < 0.85:
            box = tuple(slice(rng.randint(0, n - 1), None) for n in s)
            c[box] = rand_cond(rng, c[box].shape, c.dtype.type)
        axis = None if rng.random() < 0.5 or not c.ndim else rng.randint(-c.ndim - 1, c.ndim)
        trim = 3 if rng.random() < 0.05 else rng.randint(0, 2)
        lines.append(case("trim_zeros", [], c, axis, trim))
    for _ in range(60):
        dt = rng.choice(DTYPES)
        s = rshape(rng, rng.randint(1, 3), 1)
        whole = rng.random() < 0.7
        ms = s if whole else s[:rng.randint(1, len(s))]
        if rng.random() < 0.05:
            ms = ms[:-1] + (ms[-1] + 1,)
        m = rand_cond(rng, ms, np.bool_)
        count = int(m.sum())
        vshape = rng.choice([(count,), (count,), (1,), (), (max(0, count + rng.choice([-1, 1])),),
                             (1, count)])
        if not whole and rng.random() < 0.6:
            vshape = (count,) + s[len(ms):][rng.randint(0, 1):] if count else vshape
        vdt = rng.choice([dt, "int64", "float64"]) if dt != "bool" else "bool"
        lines.append(case("setitem_mask", [(dt, s), (vdt, vshape)], m))
    for _ in range(25):
        dt = rng.choice(DTYPES)
        s = rshape(rng, rng.randint(1, 3), 0 if rng.random() < 0.1 else 1)
        size = int(np.prod(s))
        m = rand_cond(rng, (size,) if rng.random() < 0.5 else s)
        nv = rng.choice([0, 0, 1, 2, 5])
        lines.append(case("place", [(dt, s), (dt, (nv,))], m))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
