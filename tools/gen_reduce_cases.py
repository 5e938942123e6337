#!/usr/bin/env python3
"""Generates tests/data/reduce.txt: result dtype and shape (or the error) of every public
reduction of include/loom.h (scans aside) on every dtype and axis pattern, with NumPy as the
oracle. tests/test_reduce.c reads it.

    python3 tools/gen_reduce_cases.py [outdir]     (default: tests/data next to this script)

One case per line:

    <fn> <dtype> <shape> <axes> <keepdims> <extra> -> ok <dtype> <shape>
    <fn> <dtype> <shape> <axes> <keepdims> <extra> -> err <message>

shape: "s:2,3" ("s:" is 0-d). axes: "*" (None), "a:" (the empty tuple), "a:0,-1"; the
one-axis functions (argmax family) take "i:1" or "*". extra: "-"; an int ddof (var, std,
nanvar, nanstd); a dtype name (the *_dtype functions; var_dtype/std_dtype "d:<dtype>:<ddof>");
weights "w:<dtype>:<shape>" or "w:none" (average); an ord "o:nan" / "o:inf" / "o:-inf" /
"o:<number>" (linalg_norm, nan is NumPy's None). Inputs hold ones: every case here is decided
by dtypes and shapes alone.

NumPy has no bfloat16: a case with bfloat16 and no float16 runs with float16 and reads
float16 in the answer as bfloat16 (Loom's rule: bfloat16 behaves as float16, docs/dtypes.md).
Messages are NumPy's, with the differences of docs/reductions.md applied in loom_message().
"""
import math
import os
import random
import sys
import warnings

import numpy as np

SEED = 4
DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "bfloat16", "float32", "float64", "complex64", "complex128"]

SHAPES = [(), (0,), (5,), (1,), (2, 3), (0, 3), (3, 0), (1, 1), (2, 3, 4), (2, 0, 4),
          (3, 1, 2, 2)]


def fmt_shape(s):
    return "s:" + ",".join(map(str, s))


def fmt_axes(ax):
    return "*" if ax is None else "a:" + ",".join(map(str, ax))


def axis_patterns(nd, rng):
    """None, (), each axis (some negative), pairs, all, and a few invalid lists."""
    pats = [None, ()]
    pats += [(i,) for i in range(nd)] + [(i - nd,) for i in range(nd) if rng.random() < 0.5]
    if nd >= 2:
        pats += [(0, nd - 1), (nd - 1, 0), (-1, -2), tuple(range(nd))]
    if nd >= 3:
        pats += [(1,), (0, 2), (2, 0, 1)[:nd]]
    pats += [(nd,), (-nd - 1,)]               # out of bounds
    if nd >= 1:
        pats += [(0, 0), (0, -nd)]            # repeated
    return pats


def np_dtype(name):
    return np.float16 if name == "bfloat16" else np.dtype(name)


def loom_message(fn, exc):
    msg = str(exc)
    if "boolean subtract" in msg:
        return "the boolean subtract is not supported"
    if fn.startswith("nanarg") and msg.endswith("dimension 0"):
        # NumPy's nanargmax checks axis against a 0-d array before argmax reads it as 1-D;
        # Loom's arg family reads a 0-d array as 1-D throughout.
        return msg[:-1] + "1"
    if fn == "average":
        # NumPy's average normalizes its axes with argname="axis".
        if msg.startswith("axis: "):
            msg = msg[len("axis: "):]
        if msg == "repeated axis in `axis` argument":
            msg = "duplicate value in 'axis'"
    return msg


def call(fn, a, axes, keep, extra):
    """NumPy's answer for one case (extra already parsed)."""
    ax = axes
    kw = {"keepdims": keep}
    if fn in ("sum", "prod", "max", "min", "any", "all", "ptp", "nansum", "nanprod", "nanmax",
              "nanmin", "mean", "nanmean"):
        return getattr(np, fn)(a, axis=ax, **kw)
    if fn in ("amax", "amin"):
        return getattr(np, fn)(a, axis=ax, **kw)
    if fn == "count_nonzero":
        r = np.count_nonzero(a, axis=ax, **kw)
        return np.asarray(r, dtype=np.intp)
    if fn in ("var", "std", "nanvar", "nanstd"):
        return getattr(np, fn)(a, axis=ax, ddof=extra, **kw)
    if fn in ("sum_dtype", "prod_dtype", "mean_dtype"):
        return getattr(np, fn[:-6])(a, axis=ax, dtype=extra, **kw)
    if fn in ("var_dtype", "std_dtype"):
        d, ddof = extra
        return getattr(np, fn[:-6])(a, axis=ax, dtype=d, ddof=ddof, **kw)
    if fn == "average":
        return np.average(a, axis=ax, weights=extra, **kw)
    if fn in ("argmax", "argmin", "nanargmax", "nanargmin"):
        return getattr(np, fn)(a, axis=ax, **kw)
    if fn == "linalg_norm":
        return np.linalg.norm(a, ord=extra, axis=ax, **kw)
    raise ValueError(fn)


def run(fn, dt, shape, axes, keep, extra, extra_txt, names):
    """One line, or None to skip the case."""
    uses_bf16 = "bfloat16" in names and "float16" not in names
    if "bfloat16" in names and "float16" in names:
        return None
    a = np.ones(shape, dtype=np_dtype(dt))
    head = "%s %s %s %s %d %s ->" % (fn, dt, fmt_shape(shape),
                                      axes if isinstance(axes, str) else fmt_axes(axes),
                                      keep, extra_txt)
    np_axes = None if axes == "*" else int(axes[2:]) if isinstance(axes, str) else axes
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = np.asarray(call(fn, a, np_axes, bool(keep), extra))
    except ZeroDivisionError:
        return None  # average's weights summing to 0: a data check NumPy makes, Loom cannot
    except (ValueError, TypeError, np.linalg.LinAlgError) as e:
        msg = loom_message(fn, e)
        if uses_bf16:  # NumPy ran float16 in bfloat16's place (it has no bfloat16)
            msg = msg.replace("type float16 ", "type bfloat16 ")
        return head + " err " + msg
    if fn == "std_dtype" and not r.shape and r.dtype.kind in "biu":
        # NumPy's in-place sqrt refuses integer dtype= except for 0-d results; Loom always does.
        return head + " err Cannot cast ufunc 'sqrt' output"
    out = str(r.dtype)
    if uses_bf16 and out == "float16":
        out = "bfloat16"
    return head + " ok %s %s" % (out, fmt_shape(r.shape))


def main():
    outdir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")
    rng = random.Random(SEED)
    lines = []

    def add(line):
        if line:
            lines.append(line)

    plain = ["sum", "prod", "amax", "amin", "max", "min", "mean", "any", "all", "count_nonzero",
             "ptp", "nansum", "nanprod", "nanmax", "nanmin", "nanmean"]
    ords = [None, math.inf, -math.inf, 0, 1, -1, 2, -2, 3, 0.5]
    # Every function on every dtype and shape, each with a few of the axis patterns.
    for dt in DTYPES:
        for shape in SHAPES:
            pats = axis_patterns(len(shape), rng)
            for fn in plain:
                for ax in rng.sample(pats, 2):
                    add(run(fn, dt, shape, ax, rng.randint(0, 1), None, "-", [dt]))
            for fn in ("var", "std", "nanvar", "nanstd"):
                for ax in rng.sample(pats, 2):
                    ddof = rng.choice([0, 1, 3])
                    add(run(fn, dt, shape, ax, rng.randint(0, 1), ddof, str(ddof), [dt]))
            nd = max(len(shape), 1)
            axes1 = ["*"] + ["i:%d" % i for i in range(-nd - 1, nd + 1)]
            for fn in ("argmax", "argmin", "nanargmax", "nanargmin"):
                for ax in rng.sample(axes1, 2):
                    add(run(fn, dt, shape, ax, rng.randint(0, 1), None, "-", [dt]))
            for _ in range(4):
                ordv, ax = rng.choice(ords), rng.choice(pats)
                txt = "o:nan" if ordv is None else "o:%r" % ordv
                add(run("linalg_norm", dt, shape, ax, rng.randint(0, 1), ordv, txt, [dt]))

    # dtype=: every target dtype from a few source dtypes.
    for dt in ["bool", "int8", "uint16", "bfloat16", "float32", "complex64"]:
        for shape, ax in [((2, 3), (0,)), ((2, 3), None), ((2, 3, 4), (2, 0))]:
            for d in DTYPES:
                names = [dt, d]
                for fn in ("sum_dtype", "prod_dtype", "mean_dtype"):
                    add(run(fn, dt, shape, ax, rng.randint(0, 1), np_dtype(d), d, names))
                for fn in ("var_dtype", "std_dtype"):
                    ddof = rng.choice([0, 1])
                    add(run(fn, dt, shape, ax, rng.randint(0, 1), (np_dtype(d), ddof),
                            "d:%s:%d" % (d, ddof), names))

    # average: no weights, weights of a's shape, along the reduced axes, and mismatches.
    for dt in DTYPES:
        for shape in SHAPES:
            for ax in rng.sample(axis_patterns(len(shape), rng), 3):
                wd = rng.choice(DTYPES)
                cands = [None, shape, (7,)]
                if ax and all(-len(shape) <= x < len(shape) for x in ax):
                    cands.append(tuple(shape[x] for x in ax))
                    cands.append(tuple(shape[x] + 1 for x in ax))
                ws = rng.choice(cands)
                if ws is None:
                    add(run("average", dt, shape, ax, rng.randint(0, 1), None, "w:none", [dt]))
                else:
                    w = np.ones(ws, dtype=np_dtype(wd))
                    add(run("average", dt, shape, ax, rng.randint(0, 1), w,
                            "w:%s:%s" % (wd, ",".join(map(str, ws))), [dt, wd]))

    header = ("# Generated by tools/gen_reduce_cases.py (NumPy %s); do not edit.\n"
              % np.__version__)
    with open(os.path.join(outdir, "reduce.txt"), "w") as f:
        f.write(header)
        f.write("\n".join(lines) + "\n")
    print(len(lines), "cases")


if __name__ == "__main__":
    main()
