#!/usr/bin/env python3
"""NumPy's answers for np.pad's modes computed from the values (tests/test_pad_modes.c,
tests/gpu/test_pad_modes.c): maximum, minimum, mean, median (stat_length=None and given) and
linear_ramp (end_values=9); and reflect_type="odd", in tools/gen_shape_cases.py's line format.

    python3 tools/gen_pad_cases.py > tests/data/pad_cases.txt
    python3 tools/gen_pad_cases.py --odd > tests/data/pad_odd_cases.txt

  pad | dtype:shape | mode widths... | ok 1 dtype shape values / err message
  pad_ex | dtype:shape | mode odd nstat stat... widths... | ...   (loom_pad_ex)
  mode: 0 constant, 1 edge, 3 reflect, 4 symmetric, 5 maximum, 6 minimum, 7 mean, 8 median,
  9 linear_ramp (the numbering of tests/index_cases.h's run_shape)
"""
import sys
import random

import numpy as np

import gen_shape_cases
from gen_shape_cases import case, rshape

MODES = {0: "constant", 1: "edge", 3: "reflect", 4: "symmetric", 5: "maximum", 6: "minimum",
         7: "mean", 8: "median", 9: "linear_ramp"}
DTYPES = ["bool", "int8", "uint8", "int32", "int64", "float16", "float32", "float64"]


def pairs(v):
    return v[0] if len(v) == 1 else tuple(v) if len(v) == 2 else np.array(v).reshape(-1, 2)


def call(func, a, args):
    mode = MODES[args[0]]
    kw = {"end_values": 9} if mode == "linear_ramp" else {}
    if func == "pad_ex":
        odd, nstat = args[1], args[2]
        if odd:
            kw["reflect_type"] = "odd"
        if nstat:
            kw["stat_length"] = pairs(args[3:3 + nstat])
        args = [args[0]] + args[3 + nstat:]
    w = np.array(args[1:]).reshape(-1, 2)
    return [np.pad(a[0], w, mode=mode, **kw)]


def stat_cases(rng):
    """stat_length: per side, per axis or one for all; beyond the axis; 0 (NumPy's error for
    maximum and minimum; mean and median of nothing are NaN, left out)."""
    lines = []
    for mode in (5, 6, 7, 8):
        for _ in range(10):
            nd = rng.randint(1, 3)
            s = rshape(rng, nd, 1, 5)
            dt = rng.choice(DTYPES)
            w = [rng.randint(0, 3) for _ in range(2 * nd)]
            nstat = rng.choice([1, 2, 2 * nd])
            lo = 0 if mode in (5, 6) and rng.random() < 0.2 else 1
            stat = [rng.randint(lo, 6) for _ in range(nstat)]
            lines.append(case("pad_ex", [(dt, s)], [mode, 0, nstat] + stat + w))
    # keywords a mode does not take; a negative length
    lines.append(case("pad_ex", [("float32", (3,))], [1, 0, 1, 2, 1, 1]))
    lines.append(case("pad_ex", [("float32", (3,))], [7, 1, 0, 1, 1]))
    lines.append(case("pad_ex", [("int32", (3,))], [7, 0, 1, -1, 1, 1]))
    return lines


def odd_cases(rng):
    """reflect_type="odd" for reflect and symmetric: widths up to several periods, every
    dtype (integers wrap as NumPy's 2 * edge - value does), singleton axes (the edge)."""
    lines = []
    for mode in (3, 4):
        for _ in range(30):
            nd = rng.randint(1, 3)
            s = rshape(rng, nd, 1, 5)
            dt = rng.choice(DTYPES)
            w = [rng.randint(0, 9) for _ in range(2 * nd)]
            lines.append(case("pad_ex", [(dt, s)], [mode, 1, 0] + w))
    return lines


def main():
    gen_shape_cases.call = call
    rng = random.Random(1516)
    if "--odd" in sys.argv:
        print("\n".join(odd_cases(random.Random(1517))))
        return
    lines = []
    for mode in (5, 6, 7, 8, 9):
        for _ in range(12):
            nd = rng.randint(1, 3)
            s = rshape(rng, nd, 0 if rng.random() < 0.08 else 1, 5)
            dt = rng.choice(DTYPES[1:] if mode == 9 else DTYPES)
            w = [rng.randint(0, 3) for _ in range(2 * nd)]
            lines.append(case("pad", [(dt, s)], [mode] + w))
    lines += stat_cases(random.Random(1518))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
