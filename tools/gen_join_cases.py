#!/usr/bin/env python3
"""NumPy's answers for joining and splitting (tests/test_join.c): result dtypes, shapes and
values, or NumPy's error message, of concatenate, stack, hstack, vstack, dstack,
column_stack, block, append, atleast_1d/2d/3d, split, array_split, split_at, hsplit, vsplit
and dsplit.

    python3 tools/gen_join_cases.py > tests/data/join_cases.txt

One case per line:  func | inputs | args | result
  inputs: dtype:shape per array (shape as 2x3, "-" for 0-d), values filled by input_values
  args:   integers; N stands for LOOM_AXIS_NONE (NumPy's axis=None)
  result: ok k, then k arrays as  dtype shape v0 v1 ...   (real parts, float64 repr)
          err message           (NumPy's message)
"""
import random

import numpy as np

DTYPES = ["bool", "int8", "uint8", "int16", "int32", "int64", "uint32", "float16",
          "float32", "float64", "complex64"]


def input_values(k, dtype, shape):
    """Input k's elements: small integers every dtype holds exactly (tests/test_join.c
    computes the same)."""
    size = int(np.prod(shape, dtype=np.int64))
    i = np.arange(size, dtype=np.int64)
    if dtype == "bool":
        v = (i + k) % 3 == 0
    else:
        v = (i * 7 + 3 * k) % 61
    return v.astype(dtype).reshape(shape)


def fmt_shape(shape):
    return "x".join(str(d) for d in shape) if len(shape) else "-"


def fmt_inputs(specs):
    return " ".join(f"{dt}:{fmt_shape(s)}" for dt, s in specs)


def fmt_array(a):
    vals = " ".join(repr(float(np.real(x))) for x in a.ravel())
    return f"{a.dtype} {fmt_shape(a.shape)} {vals}".rstrip()


def call(func, arrays, args):
    axis = [None if a == "N" else a for a in args]
    if func == "concatenate":
        return [np.concatenate(arrays, axis=axis[0])]
    if func == "stack":
        return [np.stack(arrays, axis=axis[0])]
    if func in ("hstack", "vstack", "dstack", "column_stack"):
        return [getattr(np, func)(arrays)]
    if func == "append":
        return [np.append(arrays[0], arrays[1], axis=axis[0])]
    if func == "block":
        rows, cols = args
        return [np.block([[arrays[r * cols + c] for c in range(cols)] for r in range(rows)])]
    if func.startswith("atleast"):
        return [getattr(np, func)(arrays[0])]
    if func in ("split", "array_split"):
        return list(getattr(np, func)(arrays[0], args[0], axis=args[1]))
    if func == "split_at":
        return list(np.split(arrays[0], args[1:], axis=args[0]))
    if func in ("hsplit", "vsplit", "dsplit"):
        return list(getattr(np, func)(arrays[0], args[0]))
    raise ValueError(func)


def case(func, specs, args):
    arrays = [input_values(k, dt, s) for k, (dt, s) in enumerate(specs)]
    try:
        out = call(func, arrays, args)
        result = f"ok {len(out)} " + " ".join(fmt_array(a) for a in out)
    except (ValueError, IndexError, TypeError) as e:
        result = f"err {e}"
    except ZeroDivisionError:
        # np.split(a, 0) divides by zero; Loom gives array_split's message (docs/indexing.md)
        result = "err number sections must be larger than 0."
    return f"{func} | {fmt_inputs(specs)} | {' '.join(str(a) for a in args)} | {result}"


def rand_shape(rng, nd, hi=4):
    return tuple(rng.randint(0, hi) if rng.random() < 0.15 else rng.randint(1, hi)
                 for _ in range(nd))


def main():
    rng = random.Random(15)
    lines = []
    # concatenate: matching and mismatched shapes, every axis form
    for _ in range(160):
        nd = rng.randint(1, 3)
        base = rand_shape(rng, nd)
        n = rng.randint(1, 4)
        axis = rng.randint(-nd - 1, nd) if rng.random() < 0.9 else "N"
        specs = []
        for _k in range(n):
            s = list(base)
            ax = axis if axis != "N" and -nd <= axis < nd else 0
            s[ax] = rng.randint(0, 4)
            if rng.random() < 0.07:
                s = list(rand_shape(rng, nd if rng.random() < 0.5 else nd + 1))
            specs.append((rng.choice(DTYPES), tuple(s)))
        lines.append(case("concatenate", specs, [axis]))
    lines.append(case("concatenate", [("float32", ())], [0]))
    lines.append(case("concatenate", [("float32", ()), ("float32", ())], ["N"]))
    lines.append(case("concatenate", [("int8", (40,))] * 40, [0]))   # past one node's sources
    lines.append(case("concatenate", [("int8", (2, 3))] * 3 + [("uint8", (2, 0))], [1]))
    for func in ("stack", "hstack", "vstack", "dstack", "column_stack"):
        for _ in range(30):
            nd = rng.randint(0, 3)
            base = rand_shape(rng, nd)
            n = rng.randint(1, 3)
            specs = []
            for _k in range(n):
                s = list(base)
                if func != "stack" and nd and rng.random() < 0.6:
                    ax = {"hstack": -1 if nd > 1 else 0, "vstack": 0, "dstack": 2 if nd > 2 else 0,
                          "column_stack": 0}[func]
                    if func in ("hstack", "vstack", "dstack") or nd > 1:
                        s[ax if func != "hstack" else (1 if nd > 1 else 0)] = rng.randint(1, 3)
                if rng.random() < 0.08:
                    s = list(rand_shape(rng, nd))
                specs.append((rng.choice(DTYPES), tuple(s)))
            args = [rng.randint(-nd - 2, nd + 1)] if func == "stack" else []
            lines.append(case(func, specs, args))
    for _ in range(30):
        nd = rng.randint(1, 3)
        a = rand_shape(rng, nd)
        axis = rng.choice(["N", rng.randint(-nd, nd - 1)])
        b = list(a)
        if axis != "N":
            b[axis] = rng.randint(0, 3)
        lines.append(case("append", [(rng.choice(DTYPES), a), (rng.choice(DTYPES), tuple(b))],
                          [axis]))
    for nd in range(0, 4):
        for func in ("atleast_1d", "atleast_2d", "atleast_3d"):
            lines.append(case(func, [("int32", rand_shape(rng, nd))], []))
    # block: a 2x2 grid with matching row heights and column widths
    for _ in range(15):
        h = [rng.randint(1, 3), rng.randint(1, 3)]
        wd = [rng.randint(1, 3), rng.randint(1, 3)]
        specs = [(rng.choice(DTYPES), (h[r], wd[c])) for r in range(2) for c in range(2)]
        lines.append(case("block", specs, [2, 2]))
    lines.append(case("block", [("float64", (3,)), ("float64", (2,))], [1, 2]))
    lines.append(case("block", [("float64", (2, 3)), ("float64", (2, 3, 1))], [2, 1]))
    # splits
    for _ in range(40):
        nd = rng.randint(1, 3)
        s = rand_shape(rng, nd, 7)
        axis = rng.randint(-nd, nd - 1)
        sections = rng.randint(0, 4)
        func = rng.choice(["split", "array_split"])
        lines.append(case(func, [("float32", s)], [sections, axis]))
    for _ in range(15):
        nd = rng.randint(1, 2)
        s = rand_shape(rng, nd, 8)
        axis = rng.randint(-nd, nd - 1)
        idx = [rng.randint(-9, 9) for _ in range(rng.randint(0, 3))]
        lines.append(case("split_at", [("int16", s)], [axis] + idx))
    for func, nd in (("hsplit", 0), ("hsplit", 1), ("hsplit", 2), ("vsplit", 1), ("vsplit", 2),
                     ("dsplit", 2), ("dsplit", 3)):
        for sections in (1, 2, 3):
            lines.append(case(func, [("int64", tuple([2, 4, 6][:nd]))], [sections]))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
