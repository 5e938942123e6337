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
