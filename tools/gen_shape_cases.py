#!/usr/bin/env python3
"""NumPy's answers for the shape routines (tests/test_shape_routines.c, tests/gpu/test_index.c):
tile, repeat, resize, pad, flipud, fliplr, rot90, copy, ascontiguousarray, meshgrid, indices,
ix_, tri, diag, diagflat, fill_diagonal, isclose and select.

    python3 tools/gen_shape_cases.py > tests/data/shape_cases.txt

The line format is tools/gen_join_cases.py's (inputs filled by its input_values):
  func | inputs | args | ok k (dtype shape values)... / err message
Arguments per function (integers):
  tile: reps...                      repeat: repeats axis          repeat_counts: axis counts...
  resize: shape...                   pad: mode widths... (mode: 0 constant (value 9), 1 edge,
                                          2 wrap, 3 reflect, 4 symmetric)
  rot90: k axis0 axis1               meshgrid: ij sparse           indices: dims...
  tri: n m k                         diag, diagflat: k             fill_diagonal: wrap (value 7)
  isclose: equal_nan (rtol 0.1, atol 2)   select: (inputs: conditions as bool, then choices)
  choose: mode (0 raise, 1 wrap, 2 clip; inputs: a, then the choices)
  vander: n increasing               trim_zeros: 0 "fb", 1 "f", 2 "b" (reads values: GPU only)
  putmask, place: (inputs: a, mask, values)    copyto: (inputs: dst, src[, where])
  delete: axis indices...             insert: axis positions... (inputs: a, values)
"""
import random

import numpy as np

from gen_join_cases import DTYPES, fmt_array, fmt_inputs, input_values

PAD_MODES = ["constant", "edge", "wrap", "reflect", "symmetric"]


def call(func, a, args):
    if func == "tile":
        return [np.tile(a[0], tuple(args))]
    if func == "repeat":
        return [np.repeat(a[0], args[0], axis=None if args[1] == "N" else args[1])]
    if func == "repeat_counts":
        return [np.repeat(a[0], args[1:], axis=None if args[0] == "N" else args[0])]
    if func == "resize":
        return [np.resize(a[0], tuple(args))]
    if func == "pad":
        mode = PAD_MODES[args[0]]
        w = np.array(args[1:]).reshape(-1, 2)
        kw = {"constant_values": 9} if mode == "constant" else {}
        return [np.pad(a[0], w, mode=mode, **kw)]
    if func in ("flipud", "fliplr", "copy", "ascontiguousarray"):
        return [getattr(np, func)(a[0])]
    if func == "rot90":
        return [np.rot90(a[0], args[0], axes=(args[1], args[2]))]
    if func == "meshgrid":
        return list(np.meshgrid(*a, indexing="ij" if args[0] else "xy", sparse=bool(args[1])))
    if func == "indices":
        return [np.indices(tuple(args), dtype=np.int64)]
    if func == "ix_":
        return list(np.ix_(*a))
    if func == "tri":
        return [np.tri(args[0], None if args[1] < 0 else args[1], args[2], dtype=np.float32)]
    if func in ("diag", "diagflat"):
        return [getattr(np, func)(a[0], args[0])]
    if func == "fill_diagonal":
        r = a[0].copy()
        np.fill_diagonal(r, 7, wrap=bool(args[0]))
        return [r]
    if func == "isclose":
        return [np.isclose(a[0], a[1], rtol=0.1, atol=2, equal_nan=bool(args[0]))]
    if func == "select":
        n = len(a) // 2
        return [np.select(a[:n], a[n:])]
    if func == "choose":
        return [np.choose(a[0], a[1:], mode=["raise", "wrap", "clip"][args[0]])]
    if func == "vander":
        return [np.vander(a[0], None if args[0] < 0 else args[0], increasing=bool(args[1]))]
    if func == "putmask":
        r = a[0].copy()
        np.putmask(r, a[1], a[2])
        return [r]
    if func == "place":
        r = a[0].copy()
        np.place(r, a[1], a[2])
        return [r]
    if func == "copyto":
        r = a[0].copy()
        np.copyto(r, a[1], where=a[2] if len(a) > 2 else True)
        return [r]
    if func == "insert":
        return [np.insert(a[0], args[1:], a[1], axis=None if args[0] == "N" else args[0])]
    if func == "delete":
        return [np.delete(a[0], args[1:], axis=None if args[0] == "N" else args[0])]
    if func == "trim_zeros":
        return [np.trim_zeros(a[0], ["fb", "f", "b"][args[0]])]
    raise ValueError(func)


def case(func, specs, args):
    arrays = [input_values(k, dt, s) for k, (dt, s) in enumerate(specs)]
    try:
        out = call(func, arrays, args)
        result = f"ok {len(out)} " + " ".join(fmt_array(np.asarray(x)) for x in out)
    except (ValueError, IndexError, TypeError) as e:
        result = f"err {e}"
    if func == "tile" and any(r < 0 for r in args):
        # NumPy's message depends on where the negative count meets an empty axis
        result = "err negative dimensions are not allowed"
    return f"{func} | {fmt_inputs(specs)} | {' '.join(str(x) for x in args)} | {result}"


def rshape(rng, nd, lo=1, hi=4):
    return tuple(rng.randint(lo, hi) for _ in range(nd))


def main():
    rng = random.Random(1515)
    L = []
    for _ in range(25):
        nd = rng.randint(0, 3)
        reps = [rng.randint(0, 3) for _ in range(rng.randint(0, 4))]
        if rng.random() < 0.05:
            reps.append(-1)
        L.append(case("tile", [(rng.choice(DTYPES), rshape(rng, nd))], reps))
    for _ in range(20):
        nd = rng.randint(1, 3)
        axis = rng.choice(["N", rng.randint(-nd - 1, nd - 1)])
        L.append(case("repeat", [(rng.choice(DTYPES), rshape(rng, nd))], [rng.randint(-1, 3), axis]))
    for _ in range(15):
        nd = rng.randint(1, 2)
        s = rshape(rng, nd)
        axis = rng.choice(["N", rng.randint(0, nd - 1)])
        n = int(np.prod(s)) if axis == "N" else s[axis]
        counts = [rng.randint(0, 3) for _ in range(n + (1 if rng.random() < 0.1 else 0))]
        if rng.random() < 0.1:
            counts[0] = -1
        L.append(case("repeat_counts", [(rng.choice(DTYPES), s)], [axis] + counts))
    for _ in range(12):
        s = rshape(rng, rng.randint(1, 2), 0)
        L.append(case("resize", [("int32", s)], list(rshape(rng, rng.randint(0, 3), 0, 5))))
    for _ in range(50):
        nd = rng.randint(1, 3)
        s = rshape(rng, nd, 0 if rng.random() < 0.1 else 1, 5)
        mode = rng.randint(0, 4)
        w = [rng.randint(0, 5) for _ in range(2 * nd)]
        if rng.random() < 0.04:
            w[0] = -1
        L.append(case("pad", [(rng.choice(DTYPES), s)], [mode] + w))
    for func, nds in (("flipud", (0, 1, 2)), ("fliplr", (1, 2, 3)), ("copy", (0, 2)),
                      ("ascontiguousarray", (0, 1, 2))):
        for nd in nds:
            L.append(case(func, [("float32", rshape(rng, nd))], []))
    for _ in range(16):
        nd = rng.randint(1, 3)
        L.append(case("rot90", [("int16", rshape(rng, nd))],
                      [rng.randint(-5, 5), rng.randint(-nd - 1, nd), rng.randint(-nd - 1, nd)]))
    for ij in (0, 1):
        for sparse in (0, 1):
            for n in (1, 2, 3):
                L.append(case("meshgrid", [(rng.choice(DTYPES), rshape(rng, 1, 0)) for _ in range(n)],
                              [ij, sparse]))
    for dims in ((), (3,), (2, 3), (2, 0, 2)):
        L.append(case("indices", [], list(dims)))
    L.append(case("ix_", [("int32", (3,)), ("int64", (2,))], []))
    L.append(case("ix_", [("int32", (3, 1))], []))
    for n, m, k in ((3, -1, 0), (3, 4, 1), (4, 2, -1), (0, 3, 0), (2, 2, 5)):
        L.append(case("tri", [], [n, m, k]))
    for func in ("diag", "diagflat"):
        for s, k in (((3,), 0), ((3,), 2), ((2,), -1), ((3, 4), 1), ((3, 4), -2), ((2, 2, 2), 0),
                     ((0,), 0), ((2, 2), 0)):
            L.append(case(func, [(rng.choice(DTYPES), s)], [k]))
    for s in ((3, 3), (5, 3), (3, 5), (2, 2, 2), (2, 3, 2), (4,)):
        for wrap in (0, 1):
            L.append(case("fill_diagonal", [(rng.choice(DTYPES[1:]), s)], [wrap]))
    for _ in range(15):
        s = rshape(rng, rng.randint(0, 2))
        L.append(case("isclose", [(rng.choice(DTYPES), s), (rng.choice(DTYPES), s)], [rng.randint(0, 1)]))
    for n in (1, 2, 3):
        s = (5,)
        L.append(case("select", [("bool", s)] * n + [(rng.choice(DTYPES[1:]), s) for _ in range(n)], []))
    for mode in (1, 2):
        for n in (1, 3):
            L.append(case("choose", [("int8", (2, 3))] + [(rng.choice(DTYPES[1:]), rng.choice([(3,), (2, 3), (1,)]))
                                                          for _ in range(n)], [mode]))
    # mode raise with choices in range (out of range is found on the device: gpu_test_index)
    L.append(case("choose", [("bool", (4,)), ("float32", (4,)), ("int16", (4,))], [0]))
    for s_, n, inc in (((3,), -1, 0), ((4,), 3, 1), ((2,), 0, 0), ((3,), 1, 1), ((2, 2), -1, 0)):
        L.append(case("vander", [("int64", s_)], [n, inc]))
    for trim in (0, 1, 2):
        for s_ in ((7,), (1,), (0,)):
            L.append(case("trim_zeros", [("int32", s_)], [trim]))
    for s_, axis, idx in (((6,), 0, [5, 7]), ((6,), 0, [-1, 1, 1]), ((2, 3), 2, [0]),
                          ((2, 3), 1, [0, 2]), ((2, 3), "N", [4, 0]), ((2, 3), -2, []),
                          ((3, 2), 0, [0, 1, 2])):
        L.append(case("delete", [(rng.choice(DTYPES), s_)], [axis] + idx))
    for s_, axis, pos, vs in (((6,), 0, [1, 1, 5], (3,)), ((6,), 0, [6], (1,)), ((6,), 0, [1, 7], (2,)),
                              ((6,), 0, [1, -8], (2,)), ((6,), 0, [1, 2], (3,)),
                              ((2, 3), 1, [0, 3], (2,)), ((2, 3), 1, [0], (2, 1)),
                              ((2, 3), 0, [2, 0], (3,)), ((2, 3), "N", [0, 6], (1,)),
                              ((0,), 0, [0, 0], (2,))):
        L.append(case("insert", [(rng.choice(DTYPES[1:]), s_), ("int32", vs)], [axis] + pos))
    for func in ("putmask", "place"):
        for s_, ms, vs, vt in (((2, 3), (2, 3), (2,), "int32"), ((6,), (2, 3), (4,), "int8"),
                               ((2, 3), (5,), (2,), "int32"), ((3,), (3,), (5,), "float64"),
                               ((3,), (3,), (0,), "int32")):
            L.append(case(func, [("int64", s_), ("bool", ms), (vt, vs)], []))
    for dt_src, wshape in (("int32", None), ("float64", None), ("int8", (3,)), ("int64", (2, 1)),
                           ("int16", (4,))):
        specs = [("int64", (2, 3)), (dt_src, (3,))] + ([("bool", wshape)] if wshape else [])
        L.append(case("copyto", specs, []))
    print("\n".join(L))


if __name__ == "__main__":
    main()
