#!/usr/bin/env python3
"""NumPy's answers for gathers (tests/test_take.c): np.take with modes raise/wrap/clip and
np.take_along_axis, as result dtype, shape and values, or NumPy's error.

    python3 tools/gen_take_cases.py > tests/data/take_cases.txt

One case per line:  func | a | indices | axis mode | result
  a:       dtype:shape, elements (i * 7 + 3) % 61 (bool: i % 3 == 0)
  indices: dtype:shape:v0,v1,...  (explicit values)
  axis:    an integer or N (LOOM_AXIS_NONE); mode: raise, wrap or clip
  result:  ok dtype shape v0 v1 ...
           err message        (refused when the node is recorded)
           oob axis size      (NumPy's IndexError for an index out of bounds: Loom records
                               the node and reports it on the device, naming axis and size)
"""
import random
import re

import numpy as np

DTYPES = ["bool", "int8", "uint8", "int32", "int64", "float16", "float32", "float64",
          "complex64"]
INDEX_DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint32", "uint64", "bool"]


def source(dtype, shape):
    size = int(np.prod(shape, dtype=np.int64))
    i = np.arange(size, dtype=np.int64)
    v = i % 3 == 0 if dtype == "bool" else (i * 7 + 3) % 61
    return v.astype(dtype).reshape(shape)


def fmt_shape(shape):
    return "x".join(str(d) for d in shape) if len(shape) else "-"


def case(func, dtype, shape, idx, axis, mode):
    a = source(dtype, shape)
    ax = None if axis == "N" else axis
    idx_s = f"{idx.dtype}:{fmt_shape(idx.shape)}:{','.join(str(int(x)) for x in idx.ravel())}"
    try:
        if func == "take":
            r = np.take(a, idx, axis=ax, mode=mode)
        else:
            r = np.take_along_axis(a, idx, axis=ax)
        vals = " ".join(repr(float(np.real(x))) for x in r.ravel())
        result = f"ok {r.dtype} {fmt_shape(r.shape)} {vals}".rstrip()
    except IndexError as e:
        m = re.match(r"index -?\d+ is out of bounds for axis (\d+) with size (\d+)", str(e))
        result = f"oob {m.group(1)} {m.group(2)}" if m else f"err {e}"
    except (ValueError, TypeError) as e:
        # a 0-d index says "scalar" where Loom, which has no scalars apart, says "array data"
        result = f"err {e}".replace("Cannot cast scalar from", "Cannot cast array data from")
    return f"{func} | {dtype}:{fmt_shape(shape)} | {idx_s} | {axis} {mode} | {result}"


def main():
    rng = random.Random(15)
    lines = []
    for _ in range(220):
        nd = rng.randint(0, 3)
        shape = tuple(rng.randint(0 if rng.random() < 0.1 else 1, 4) for _ in range(nd))
        axis = "N" if rng.random() < 0.2 or nd == 0 else rng.randint(-nd - 1, nd - 1)
        if nd == 0 and rng.random() < 0.5:
            axis = 0
        n = int(np.prod(shape)) if axis == "N" else (shape[axis] if -nd <= axis < nd else 1)
        ind = tuple(rng.randint(0, 3) for _ in range(rng.randint(0, 2)))
        mode = rng.choice(["raise", "raise", "wrap", "clip"])
        hi = max(n, 1) + (2 if rng.random() < 0.2 else 0)
        idt = rng.choice(INDEX_DTYPES)
        lo = -hi if idt.startswith("int") else 0
        vals = np.array([rng.randint(lo, hi - 1) for _ in range(int(np.prod(ind)))], dtype=np.int64)
        idx = vals.astype(idt).reshape(ind)
        if rng.random() < 0.03:
            idx = idx.astype("float32")
        lines.append(case("take", rng.choice(DTYPES), shape, idx, axis, mode))
    for _ in range(80):
        nd = rng.randint(1, 3)
        shape = tuple(rng.randint(1, 4) for _ in range(nd))
        if rng.random() < 0.15:
            axis = "N"
            ishape = (rng.randint(0, 4),)
            n = int(np.prod(shape))
        else:
            axis = rng.randint(-nd, nd - 1)
            ishape = tuple(rng.choice([1, s]) for s in shape)
            ishape = tuple(rng.randint(0, 3) if d == axis % nd else s for d, s in enumerate(ishape))
            if rng.random() < 0.1:
                ishape = ishape[:-1] if len(ishape) > 1 else ishape + (1,)
            n = shape[axis]
        hi = n + (1 if rng.random() < 0.15 else 0)
        idt = rng.choice(["int64", "int32", "int8", "uint8"] + (["float64"] if rng.random() < 0.05 else []))
        lo = -n if idt.startswith("int") else 0
        vals = np.array([rng.randint(lo, hi - 1) for _ in range(int(np.prod(ishape)))], dtype=np.int64)
        lines.append(case("take_along_axis", rng.choice(DTYPES), shape,
                          vals.astype(idt).reshape(ishape), axis, "raise"))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
