#!/usr/bin/env python3
"""numpy.random.Generator.permutation(n) and choice(a, size, replace, p) for integer a: the
result's shape or NumPy's error, for tests/test_random_choice.c.

Writes tests/data/random_choice.txt, one case a line:
  "permutation N | SHAPE" or "choice A SIZE REPLACE P | SHAPE-or-message"
where SIZE is a comma-separated shape ("-" for size=None, a 0-d result), REPLACE 0 or 1, P
"-" (None) or comma-separated probabilities (repr, so they read back exactly), and SHAPE
"shape 2,3" ("shape -" for 0-d). Run: python3 tools/gen_random_choice_cases.py >
tests/data/random_choice.txt (NumPy 2).
"""
import numpy as np

g = np.random.default_rng(0)
nan, inf = float("nan"), float("inf")


def fmt_shape(s):
    return ",".join(str(d) for d in s) if s else "-"


def outcome(f):
    try:
        r = np.asarray(f())
        assert r.dtype == np.int64
        return "shape " + fmt_shape(r.shape)
    except ValueError as e:
        return str(e)


for n in [0, 1, 5, 1000, -3]:
    print(f"permutation {n} | {outcome(lambda: g.permutation(n))}")

P_CASES = [None, [0.2, 0.3, 0.5], [0.5, nan, 0.5], [0.5, -0.1, 0.6], [0.5, 0.1, 0.6],
           [0.5, 0.5, 0.0], [inf, 0.0, 0.0], [0.0, 0.0, inf], [0.5, 0.5 + 1e-9, 0.0],
           [0.5, 0.5 + 1e-7, 0.0], [1.0, 0.0, 0.0]]
SIZES = [None, (), (2,), (3,), (4,), (2, 2), (0,), (2, 0), (1, 3)]
for a in [3, 0, -1]:
    for p in P_CASES:
        if p is not None and len(p) != a:
            continue
        for size in SIZES:
            for replace in (True, False):
                ps = "-" if p is None else ",".join(repr(x) for x in p)
                ss = "-" if size is None else (fmt_shape(size) if size else "()")
                o = outcome(lambda: g.choice(a, size, replace=replace, p=p))
                print(f"choice {a} {ss} {int(replace)} {ps} | {o}")
for a, size in [(10, (2, -1)), (5, (6,)), (2**40, (3,))]:
    for replace in (True, False):
        o = outcome(lambda: g.choice(a, size, replace=replace))
        print(f"choice {a} {fmt_shape(size)} {int(replace)} - | {o}")

# Arrays: Generator.choice(a, size, replace, p, axis), permutation(a, axis), shuffle(a, axis)
# and permuted(a, axis) on float32 zeros of shape ASHAPE; results keep a's dtype. Lines:
#   "choice_array ASHAPE AXIS SIZE REPLACE P | ...", "permutation_array ASHAPE AXIS | ...",
#   "shuffle ASHAPE AXIS | ...", "permuted ASHAPE AXIS | ..." (AXIS "none": axis=None).
# Two messages are Loom's where NumPy's name no cause (docs/random.md): an axis out of range
# for choice (NumPy's IndexError "tuple index out of range") and a 0-d a for choice.
LOOM_WORDING = {
    "tuple index out of range": None,  # filled per case: NumPy's AxisError wording
    "a must be a sequence or an integer, not <class 'numpy.ndarray'>":
        "a must be a sequence or an integer, not a 0-d array",
}


def outcome_array(f, ndim, axis):
    try:
        r = f()
        if r is None:  # shuffle works in place
            return "same"
        assert r.dtype == np.float32
        return "shape " + fmt_shape(r.shape)
    except (ValueError, IndexError, TypeError) as e:
        msg = str(e)
        if msg == "tuple index out of range":
            return f"axis {axis} is out of bounds for array of dimension {ndim}"
        return LOOM_WORDING.get(msg, msg)


def ashape(s):
    return fmt_shape(s) if s else "()"


A_SHAPES = [(), (4,), (0,), (3, 4), (2, 0, 3), (1,)]
AXES = [0, 1, -1, 2, -3]
for shp in A_SHAPES:
    nd = len(shp)
    for axis in AXES:
        for size in [None, (2,), (2, 3), (0,)]:
            for replace in (True, False):
                ps = "-"
                x = np.zeros(shp, np.float32)
                o = outcome_array(lambda: g.choice(x, size, replace=replace, axis=axis), nd, axis)
                ss = "-" if size is None else fmt_shape(size)
                print(f"choice_array {ashape(shp)} {axis} {ss} {int(replace)} {ps} | {o}")
        # weights along the chosen axis
        if nd and -nd <= axis < nd and shp[axis] == 4:
            for p in ([0.1, 0.2, 0.3, 0.4], [0.5, 0.5, 0.0, 0.0], [0.5, -0.5, 0.5, 0.5]):
                for size in [(2,), (3,)]:
                    for replace in (True, False):
                        x = np.zeros(shp, np.float32)
                        o = outcome_array(lambda: g.choice(x, size, replace=replace, p=p,
                                                           axis=axis), nd, axis)
                        ps = ",".join(repr(v) for v in p)
                        print(f"choice_array {ashape(shp)} {axis} {fmt_shape(size)} "
                              f"{int(replace)} {ps} | {o}")
        for name in ("permutation_array", "shuffle"):
            x = np.zeros(shp, np.float32)
            if name == "permutation_array":
                o = outcome_array(lambda: g.permutation(x, axis=axis), nd, axis)
            else:
                o = outcome_array(lambda: g.shuffle(x, axis=axis), nd, axis)
                o = "shape " + fmt_shape(shp) if o == "same" else o
            print(f"{name} {ashape(shp)} {axis} | {o}")
    for axis in AXES + [None]:
        x = np.zeros(shp, np.float32)
        o = outcome_array(lambda: g.permuted(x, axis=axis), nd, axis)
        print(f"permuted {ashape(shp)} {'none' if axis is None else axis} | {o}")
