#!/usr/bin/env python3
"""NumPy's answers for updates that scatter (tests/test_scatter.c, tests/gpu/test_scatter.c):
np.add.at, subtract.at, multiply.at, minimum.at, maximum.at, a[terms] = values (setitem, with
a boolean mask too), np.put with modes raise, wrap and clip, and np.put_along_axis, as the new version of a.

    python3 tools/gen_scatter_cases.py > tests/data/scatter_cases.txt

One case per line:  func | dtype:shape | terms | values | result
  the array's elements are (i * 7 + 3) % 61 (bool: i % 3 == 0), as tools/gen_take_cases.py
  func:   at_add at_subtract at_multiply at_minimum at_maximum setitem put_raise put_wrap put_clip
          put_along_axis
  terms:  as tools/gen_getitem_cases.py (put: one index array a:dtype:shape:v0,...;
          put_along_axis: the index array, then the axis as i:AXIS)
  values: dtype:shape:v0,v1,...
  result: ok dtype shape values / err message / oob axis size (an array index out of bounds:
          Loom reports it on the device, naming the first advanced axis and its size)
Repeated indices are frequent: they must accumulate in order (ufunc.at) or leave the last
value (setitem, put). Values are small integers, so every dtype holds the exact answer.
"""
import random
import re

import numpy as np

from gen_getitem_cases import first_advanced_axis, fmt_term, int_out_of_bounds, rand_terms
from gen_take_cases import fmt_shape, source

DTYPES = ["bool", "int8", "uint8", "int32", "int64", "float16", "float32", "float64",
          "complex64"]
UFUNCS = {"at_add": np.add, "at_subtract": np.subtract, "at_multiply": np.multiply,
          "at_minimum": np.minimum, "at_maximum": np.maximum}


def fmt_array(x):
    return f"{x.dtype}:{fmt_shape(x.shape)}:{','.join(str(int(v)) for v in np.real(x).ravel())}"


def as_index(t):
    return {"i": lambda: t[1], "s": lambda: slice(t[1], t[2], t[3]), "n": lambda: None,
            "e": lambda: Ellipsis, "a": lambda: t[1]}[t[0]]()


def ok(r):
    vals = " ".join(repr(float(np.real(x))) for x in r.ravel())
    return f"ok {r.dtype} {fmt_shape(r.shape)} {vals}".rstrip()


def index_error(e, a, terms):
    m = re.match(r"index (-?\d+) is out of bounds for axis (\d+) with size (\d+)", str(e))
    early = int_out_of_bounds(a, terms)
    if early:
        return f"err {early}"
    if m:
        ax = first_advanced_axis(a, terms)
        return f"oob {ax} {a.shape[ax]}"
    return f"err {e}"


BOOL_SUBTRACT = ("numpy boolean subtract, the `-` operator, is not supported, use the "
                 "bitwise_xor, the `^` operator, or the logical_xor function instead.")


def case(func, dtype, shape, terms, values):
    a = source(dtype, shape)
    idx = tuple(as_index(t) for t in terms)
    spec = " ".join(fmt_term(t) for t in terms)
    try:
        r = a.copy()
        if func == "setitem":
            r[idx] = values
        else:
            UFUNCS[func].at(r, idx, values)
        result = ok(r)
    except IndexError as e:
        result = index_error(e, a, terms)
        target = target_shape(a, terms)
        if result.startswith("oob") and target is not None:
            # Loom's order: what the call can see comes first; an empty target reads nothing
            try:
                np.broadcast_to(values, target)
                if int(np.prod(target)) == 0:
                    result = ok(a)
            except ValueError:
                result = case(func, dtype, shape, clip_terms(a, terms), values).split(" | ")[-1]
    except (ValueError, TypeError) as e:
        early = int_out_of_bounds(a, terms)
        # Loom's message for the boolean subtract (docs/dtypes.md)
        result = f"err {early or e}".replace(
            BOOL_SUBTRACT, "the boolean subtract is not supported, use loom_logical_xor or "
            "loom_bitwise_xor instead")
    return f"{func} | {dtype}:{fmt_shape(shape)} | {spec} | {fmt_array(values)} | {result}"


def put_case(mode, dtype, shape, ind, values):
    a = source(dtype, shape)
    try:
        r = a.copy()
        np.put(r, ind, values, mode=mode)
        result = ok(r)
    except IndexError as e:
        m = re.match(r"index -?\d+ is out of bounds for axis 0 with size (\d+)", str(e))
        result = f"oob 0 {m.group(1)}" if m else f"err {e}"
    return f"put_{mode} | {dtype}:{fmt_shape(shape)} | a:{fmt_array(ind)} | {fmt_array(values)} | {result}"


def along_case(dtype, shape, ind, axis, values):
    a = source(dtype, shape)
    try:
        r = a.copy()
        np.put_along_axis(r, ind, values, axis)
        result = ok(r)
    except IndexError:
        n = shape[axis]
        clipped = np.clip(ind, -n, n - 1)
        try:
            np.broadcast_to(values, np.take_along_axis(a, clipped, axis).shape)
            empty = np.take_along_axis(a, clipped, axis).size == 0
            result = ok(a) if empty else f"oob {axis % a.ndim} {n}"
        except ValueError:
            result = along_case(dtype, shape, clipped, axis, values).split(" | ")[-1]
    except ValueError as e:
        result = f"err {e}"
    return (f"put_along_axis | {dtype}:{fmt_shape(shape)} | a:{fmt_array(ind)} i:{axis} | "
            f"{fmt_array(values)} | {result}")


def values_for(rng, func, dtype, shape):
    """Small values: NumPy's loop and Loom's agree exactly (no overflow of float16, no float
    to integer conversion out of range)."""
    vdt = dtype if rng.random() < 0.7 else rng.choice(
        ["int64", "int8", "bool"] + (["float64", "float32"] if dtype[0] in "fc" else []))
    hi = 3 if func == "at_multiply" else 9
    lo = 0 if func == "at_multiply" or vdt in ("uint8", "bool") else -5
    v = np.array([rng.randint(lo, hi) for _ in range(int(np.prod(shape, dtype=np.int64)))])
    return v.astype(vdt).reshape(shape)


def clip_terms(a, terms):
    """terms with array indices clipped into range."""
    used = sum(t[0] in "isa" for t in terms)
    ax, out = 0, []
    for t in terms:
        if t[0] == "e":
            ax += a.ndim - used
        if t[0] == "a" and a.shape[ax]:
            n = a.shape[ax]
            out.append(("a", np.clip(t[1].astype(np.int64), -n, n - 1)))
        else:
            out.append(t)
        ax += t[0] in "isa"
    return out


def target_shape(a, terms):
    """a[terms].shape, with out-of-range array indices clipped; None when a[terms] fails."""
    try:
        return a[tuple(as_index(t) for t in clip_terms(a, terms))].shape
    except (IndexError, ValueError, TypeError):
        return None


def main():
    rng = random.Random(1515)
    lines = []
    funcs = list(UFUNCS) + ["setitem"]
    for _ in range(260):
        func = rng.choice(funcs)
        dtype = rng.choice(DTYPES)
        if dtype == "complex64" and func in ("at_minimum", "at_maximum"):
            dtype = "float32"
        nd = rng.randint(1, 3)
        shape = tuple(rng.randint(1, 4) for _ in range(nd))
        if rng.random() < 0.5:
            # one index array along the first axis, with many repeats
            n = shape[0]
            k = rng.randint(0, 8)
            hi = n + (1 if rng.random() < 0.1 else 0)
            terms = [("a", np.array([rng.randint(-n, hi - 1) for _ in range(k)], dtype=np.int64))]
        else:
            terms = rand_terms(rng, nd)
        a = source(dtype, shape)
        tshape = target_shape(a, terms)
        if tshape is None:
            tshape = (rng.randint(0, 3),)
        vshape = tshape[rng.randint(0, len(tshape)):] if tshape else ()
        if rng.random() < 0.2 and vshape:
            vshape = (1,) + tuple(vshape[1:])
        if rng.random() < 0.05:
            vshape = (7,)
        lines.append(case(func, dtype, shape, terms, values_for(rng, func, dtype, vshape)))
    for _ in range(40):
        # a boolean mask of a's shape and one value
        dtype = rng.choice(DTYPES)
        shape = tuple(rng.randint(1, 4) for _ in range(rng.randint(1, 3)))
        mask = np.array([rng.random() < 0.5 for _ in range(int(np.prod(shape)))]).reshape(shape)
        if rng.random() < 0.1:
            mask = mask[..., :1] if shape[-1] > 1 else np.concatenate([mask, mask], axis=-1)
        lines.append(case("setitem", dtype, shape, [("a", mask)],
                          values_for(rng, "setitem", dtype, rng.choice([(), (1,)]))))
    for _ in range(60):
        mode = rng.choice(["raise", "raise", "wrap", "clip"])
        dtype = rng.choice(DTYPES)
        shape = tuple(rng.randint(1, 4) for _ in range(rng.randint(0, 3)))
        n = int(np.prod(shape))
        hi = n + (3 if mode != "raise" or rng.random() < 0.1 else 0)
        ind = np.array([rng.randint(-hi, hi - 1) for _ in range(rng.randint(1, 8))],
                       dtype=rng.choice(["int64", "int32", "int8"]))
        vals = values_for(rng, "put", dtype, (rng.randint(1, 4),))
        lines.append(put_case(mode, dtype, shape, ind, vals))
    for _ in range(40):
        dtype = rng.choice(DTYPES)
        nd = rng.randint(1, 3)
        shape = tuple(rng.randint(1, 4) for _ in range(nd))
        axis = rng.randint(-nd, nd - 1)
        ishape = [rng.choice([1, s]) for s in shape]
        ishape[axis] = rng.randint(0, 3)
        if rng.random() < 0.08:
            ishape = ishape[1:] or [2, 1]
        n = shape[axis]
        hi = n + (1 if rng.random() < 0.15 else 0)
        ind = np.array([rng.randint(-n, hi - 1) for _ in range(int(np.prod(ishape)))],
                       dtype=np.int64).reshape(ishape)
        vshape = tuple(ishape[rng.randint(0, len(ishape)):])
        if rng.random() < 0.1:
            vshape = (5,)
        lines.append(along_case(dtype, shape, ind, axis, values_for(rng, "put", dtype, vshape)))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
