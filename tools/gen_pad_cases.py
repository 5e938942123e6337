#!/usr/bin/env python3
"""NumPy's answers for np.pad's modes computed from the values (tests/test_pad_modes.c,
tests/gpu/test_pad_modes.c): maximum, minimum, mean, median (stat_length=None) and
linear_ramp (end_values=9), in tools/gen_shape_cases.py's line format.

    python3 tools/gen_pad_cases.py > tests/data/pad_cases.txt

  pad | dtype:shape | mode widths... | ok 1 dtype shape values / err message
  mode: 5 maximum, 6 minimum, 7 mean, 8 median, 9 linear_ramp (the numbering of
  tests/index_cases.h's run_shape, after gen_shape_cases.py's 0-4)
"""
import random

import numpy as np

import gen_shape_cases
from gen_shape_cases import case, rshape

MODES = {5: "maximum", 6: "minimum", 7: "mean", 8: "median", 9: "linear_ramp"}
DTYPES = ["bool", "int8", "uint8", "int32", "int64", "float16", "float32", "float64"]


def call(func, a, args):
    mode = MODES[args[0]]
    w = np.array(args[1:]).reshape(-1, 2)
    kw = {"end_values": 9} if mode == "linear_ramp" else {}
    return [np.pad(a[0], w, mode=mode, **kw)]


def main():
    gen_shape_cases.call = call
    rng = random.Random(1516)
    lines = []
    for mode in MODES:
        for _ in range(12):
            nd = rng.randint(1, 3)
            s = rshape(rng, nd, 0 if rng.random() < 0.08 else 1, 5)
            dt = rng.choice(DTYPES[1:] if mode == 9 else DTYPES)
            w = [rng.randint(0, 3) for _ in range(2 * nd)]
            lines.append(case("pad", [(dt, s)], [mode] + w))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
