#!/usr/bin/env python3
"""Generates tests/data/sort.txt: the result dtype and shape (or the error) of loom_sort and
loom_argsort (include/loom.h, "Sorting") with NumPy 2 as the oracle. tests/test_sort.c reads it.

    python3 tools/gen_sort_cases.py [outdir]     (default: tests/data next to this script)

One case per line:

    <fn> <dtype> <shape> <axis> -> ok <dtype> <shape>
    <fn> <dtype> <shape> <axis> -> err <message>
    <fn> <dtype> <shape> <axis> -> unsupported

shape is "s:2,3" ("s:" is 0-d); axis is an integer or "none" (LOOM_AXIS_NONE). Complex arrays
are not supported yet (docs/sorting.md): their cases read "unsupported" where NumPy succeeds.
"""
import os
import sys

import numpy as np

DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "float32", "float64", "complex64", "complex128"]
SHAPES = [(), (0,), (1,), (5,), (3, 4), (2, 0, 3), (2, 3, 4)]
AXES = [None, 0, 1, 2, -1, -2, -3, -4, 3]


def fmt_shape(s):
    return "s:" + ",".join(str(d) for d in s)


def main():
    outdir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")
    lines = []
    for fn, f in (("sort", np.sort), ("argsort", np.argsort)):
        for dt in DTYPES:
            for shape in SHAPES:
                for axis in AXES:
                    a = np.zeros(shape, dtype=dt)
                    head = f"{fn} {dt} {fmt_shape(shape)} {'none' if axis is None else axis} ->"
                    try:
                        r = f(a, axis=axis, kind="stable")
                    except np.exceptions.AxisError as e:
                        lines.append(f"{head} err {e}")
                        continue
                    if dt.startswith("complex"):
                        lines.append(f"{head} unsupported")
                    else:
                        lines.append(f"{head} ok {r.dtype} {fmt_shape(r.shape)}")
    with open(os.path.join(outdir, "sort.txt"), "w") as out:
        out.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
