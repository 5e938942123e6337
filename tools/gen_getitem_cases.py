#!/usr/bin/env python3
"""NumPy's answers for a[terms] (tests/test_getitem.c, tests/gpu/test_index.c): every way of
mixing integers, slices, newaxis, an ellipsis and integer arrays, with advanced indices
adjacent or separated (their dimensions in place or first).

    python3 tools/gen_getitem_cases.py > tests/data/getitem_cases.txt

One case per line:  getitem | dtype:shape | terms | result
  the array's elements are (i * 7 + 3) % 61 (bool: i % 3 == 0), as tools/gen_take_cases.py
  terms: i:K  s:START:STOP:STEP (N for None)  n (newaxis)  e (ellipsis)  a:dtype:shape:v0,v1,...
  result: ok dtype shape values / err message / oob axis size (an array index out of bounds:
          Loom reports it on the device, naming the first advanced axis and its size)
Where Loom's order differs from NumPy's (docs/indexing.md), the line holds Loom's answer:
integers are checked at the call before any array (NumPy checks them with the arrays), and an
empty result reads nothing, so its array indices are not checked.
"""
import random
import re

import numpy as np

from gen_take_cases import fmt_shape, source


def fmt_term(t):
    kind = t[0]
    if kind == "i":
        return f"i:{t[1]}"
    if kind == "s":
        return "s:" + ":".join("N" if x is None else str(x) for x in t[1:])
    if kind in ("n", "e"):
        return kind
    x = t[1]
    return f"a:{x.dtype}:{fmt_shape(x.shape)}:{','.join(str(int(v)) for v in x.ravel())}"


def as_index(t):
    kind = t[0]
    if kind == "i":
        return t[1]
    if kind == "s":
        return slice(t[1], t[2], t[3])
    if kind == "n":
        return None
    if kind == "e":
        return Ellipsis
    return t[1]


def first_advanced_axis(a, terms):
    """The axis of a consumed by the first advanced term (with arrays present, integers too)."""
    used = sum(t[0] in "isa" for t in terms)
    ax = 0
    for t in terms:
        if t[0] == "e":
            ax += a.ndim - used
        elif t[0] in "ia":
            return ax
        elif t[0] == "s":
            ax += 1
    return ax


def int_out_of_bounds(a, terms):
    """Loom checks integer terms at the call, in order, before anything about arrays: the
    message for the first one out of range, or None."""
    used = sum(t[0] in "isa" for t in terms)
    if used > a.ndim or sum(t[0] == "e" for t in terms) > 1:
        return None
    ax = 0
    for t in terms:
        if t[0] == "e":
            ax += a.ndim - used
        elif t[0] in "sa":
            ax += 1
        elif t[0] == "i":
            n = a.shape[ax]
            if not -n <= t[1] < n:
                return f"index {t[1]} is out of bounds for axis {ax} with size {n}"
            ax += 1
    return None


def clipped(a, terms):
    """The terms with every array index clipped into range (the shape Loom records)."""
    used = sum(t[0] in "isa" for t in terms)
    out, ax = [], 0
    for t in terms:
        if t[0] == "e":
            ax += a.ndim - used
        elif t[0] in "is":
            ax += 1
        if t[0] == "a":
            n = a.shape[ax]
            out.append(("a", np.clip(t[1].astype(np.int64), -n, n - 1)))
            ax += 1
        else:
            out.append(t)
    return out


def case(dtype, shape, terms):
    a = source(dtype, shape)
    idx = tuple(as_index(t) for t in terms)
    spec = " ".join(fmt_term(t) for t in terms)
    try:
        r = a[idx]
        vals = " ".join(repr(float(np.real(x))) for x in np.asarray(r).ravel())
        result = f"ok {r.dtype} {fmt_shape(np.shape(r))} {vals}".rstrip()
    except IndexError as e:
        m = re.match(r"index (-?\d+) is out of bounds for axis (\d+) with size (\d+)", str(e))
        early = int_out_of_bounds(a, terms)
        if early:
            result = f"err {early}"
        elif m:
            # an array index: found on the device, unless the result is empty (nothing read)
            r = a[tuple(as_index(t) for t in clipped(a, terms))]
            ax = first_advanced_axis(a, terms)
            result = (f"ok {r.dtype} {fmt_shape(r.shape)}" if r.size == 0
                      else f"oob {ax} {a.shape[ax]}")
        else:
            result = f"err {e}"
    except (ValueError, TypeError) as e:
        early = int_out_of_bounds(a, terms)
        result = f"err {early or e}"
    return f"getitem | {dtype}:{fmt_shape(shape)} | {spec} | {result}"


def rand_terms(rng, nd):
    terms = []
    left = nd
    has_e = False
    for _ in range(rng.randint(0, nd + 2)):
        c = rng.random()
        if c < 0.25 and left > 0:
            terms.append(("i", rng.randint(-3, 3)))
            left -= 1
        elif c < 0.5 and left > 0:
            terms.append(("s", rng.choice([None, -2, 0, 1]), rng.choice([None, -1, 2, 5]),
                          rng.choice([None, 1, 2, -1])))
            left -= 1
        elif c < 0.6:
            terms.append(("n",))
        elif c < 0.68 and not has_e:
            terms.append(("e",))
            has_e = True
        elif left > 0:
            ishape = tuple(rng.randint(1, 3) for _ in range(rng.randint(0, 2)))
            dt = rng.choice(["int64", "int32", "int8", "uint8"])
            lo = 0 if dt.startswith("u") else -3
            vals = np.array([rng.randint(lo, 3) for _ in range(int(np.prod(ishape)))])
            terms.append(("a", vals.astype(dt).reshape(ishape)))
            left -= 1
    return terms


def main():
    rng = random.Random(1516)
    lines = []
    for _ in range(400):
        nd = rng.randint(1, 4)
        shape = tuple(rng.randint(1, 4) for _ in range(nd))
        lines.append(case(rng.choice(["float32", "int16", "bool", "float64", "complex64"]), shape,
                          rand_terms(rng, nd)))
    # the placement rules, one by one
    a3 = (2, 3, 4)
    i2 = ("a", np.array([1, 0], dtype=np.int64))
    i21 = ("a", np.array([[1], [0]], dtype=np.int64))
    for terms in ([i2, i2], [("s", None, None, None), i2, i2], [i2, ("s", None, None, None), i2],
                  [i2, ("n",), i2], [i2, ("e",), i2], [("i", 1), ("s", None, None, None), i2],
                  [("i", 1), i2], [("n",), ("i", 0), ("s", None, None, None), i2],
                  [i21, ("s", 1, None, None), i2], [("e",), i21, i2], [i21, i2, ("n",)],
                  [("e",), ("e",)], [("i", 0)] * 4, [("a", np.array([1.0]))],
                  [("a", np.array([1, 2])), ("a", np.array([1, 2, 0]))],
                  [("a", np.array([5]))], [("s", None, None, None), ("a", np.array([-5]))],
                  [("i", 7)], [("s", None, None, 0)]):
        lines.append(case("int32", a3, terms))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
