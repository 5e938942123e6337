#!/usr/bin/env python3
"""Generates the NumPy 2 tables of the data-dependent-shape ops (docs/unique.md):

  tests/data/unique.txt       result dtypes and shapes that need no device (empty inputs, the
                              lazily recorded isin and _size variants) and errors, for
                              tests/test_unique.c;
  tests/gpu/unique_cases.inc  small inputs with NaN, +-0, +-inf and duplicates and NumPy's
                              nonzero, unique (every return), isin, the set operations,
                              x[mask], bincount and histogram, for tests/gpu/test_unique.c.

    python3 tools/gen_unique_cases.py [repo root]

unique.txt, one case per line:

    <fn> <args...> -> ok <dtype> <shape> [<dtype> <shape>...]
    <fn> <args...> -> err <message>

shape is "s:2,3" ("s:" is 0-d).
"""
import math
import os
import sys

import numpy as np

DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "float32", "float64"]


def fs(s):
    return "s:" + ",".join(str(d) for d in s)


def res(*arrays):
    return " ".join(f"{a.dtype} {fs(a.shape)}" for a in arrays)


def unique_lines(dt, shape):
    """np.unique of zeros(shape, dt) with each combination of returns (flags: index 1, inverse
    2, counts 4)."""
    lines = []
    for flags in range(8):
        ri, rv, rc = bool(flags & 1), bool(flags & 2), bool(flags & 4)
        r = np.unique(np.zeros(shape, dt), return_index=ri, return_inverse=rv, return_counts=rc)
        r = r if isinstance(r, tuple) else (r,)
        lines.append(f"unique {dt} {fs(shape)} {flags} -> ok {res(*r)}")
    return lines


def cpu_table():
    lines = []
    for dt in DTYPES:
        for shape in [(0,), (2, 0, 3)]:
            a = np.zeros(shape, dt)
            lines += unique_lines(dt, shape)
            lines.append(f"nonzero {dt} {fs(shape)} -> ok {res(*np.nonzero(a))}")
            lines.append(f"flatnonzero {dt} {fs(shape)} -> ok {res(np.flatnonzero(a))}")
            lines.append(f"argwhere {dt} {fs(shape)} -> ok {res(np.argwhere(a))}")
        try:
            np.nonzero(np.zeros((), dt))
        except ValueError as e:
            lines.append(f"nonzero {dt} s: -> err {e}")
        for shape in [(), (4,), (2, 3)]:
            for dt2 in DTYPES:
                r = np.isin(np.zeros(shape, dt), np.arange(3).astype(dt2), assume_unique=True)
                lines.append(f"isin {dt} {fs(shape)} {dt2} -> ok {res(r)}")
        for fn in ("intersect1d", "setxor1d", "setdiff1d"):
            for dt2 in ("int8", "uint64", "float32"):
                f = getattr(np, fn)
                r = f(np.zeros((0,), dt), np.zeros((2, 0), dt2), assume_unique=True)
                lines.append(f"{fn} {dt} {dt2} -> ok {res(r)}")
    for dt in ("complex64", "complex128"):
        for shape in [(0,), (2, 0, 3)]:
            lines += unique_lines(dt, shape)
        for other in ("int8", "float32", "complex64", "complex128"):
            for x, y in ((dt, other), (other, dt)):
                for shape in [(), (4,), (2, 3)]:
                    r = np.isin(np.zeros(shape, x), np.arange(3).astype(y), assume_unique=True)
                    lines.append(f"isin {x} {fs(shape)} {y} -> ok {res(r)}")
                for fn in ("intersect1d", "setxor1d", "setdiff1d"):
                    r = getattr(np, fn)(np.zeros((0,), x), np.zeros((2, 0), y), assume_unique=True)
                    lines.append(f"{fn} {x} {y} -> ok {res(r)}")
    mask_cases = [((3, 4, 5), ["m:4"]), ((3, 4, 5), ["m:3,5"]), ((0, 4), ["m:0,4"]),
                  ((0, 4), ["m:0"]), ((2, 0, 3), ["s", "m:0,3"]), ((2, 0, 3), ["e", "m:0,3"]),
                  ((3, 4), ["m:3,4,1"]), ((3, 4), ["m:2"]), ((3, 4), ["e", "m:3"]),
                  ((2, 0, 3), ["m:2,0", "i:1"]), ((0, 3, 2), ["n", "m:0,3", "s"])]
    for xshape, terms in mask_cases:
        x = np.zeros(xshape, np.float32)
        idx = []
        for t in terms:
            if t == "s":
                idx.append(slice(None))
            elif t == "e":
                idx.append(Ellipsis)
            elif t == "n":
                idx.append(None)
            elif t.startswith("i:"):
                idx.append(int(t[2:]))
            else:
                idx.append(np.zeros(tuple(int(d) for d in t[2:].split(",")), bool))
        head = f"getitem_mask {fs(xshape)} {';'.join(terms)} ->"
        try:
            lines.append(f"{head} ok {res(x[tuple(idx)])}")
        except IndexError as e:
            lines.append(f"{head} err {e}")
    def attempt(head, f):
        try:
            r = f()
            r = r if isinstance(r, tuple) else (r,)
            lines.append(f"{head} -> ok {res(*r)}")
        except (ValueError, TypeError, np.exceptions.AxisError) as e:
            lines.append(f"{head} -> err {e}")

    # bincount <dtype> <shape> <weights dtype or -> <weights length> <minlength>
    for dt, shape, wdt, wn, ml in [("int64", (0,), "-", 0, 0), ("int32", (0,), "-", 0, 5),
                                   ("uint8", (0,), "float32", 0, 3), ("int64", (2, 2), "-", 0, 0),
                                   ("int64", (), "-", 0, 0), ("float64", (3,), "-", 0, 0),
                                   ("float32", (3,), "-", 0, 0), ("int64", (3,), "-", 0, -1),
                                   ("int64", (3,), "float64", 2, 0),
                                   ("int64", (3,), "complex128", 3, 0)]:
        w = None if wdt == "-" else np.ones(wn, wdt)
        attempt(f"bincount {dt} {fs(shape)} {wdt} {wn} {ml}",
                lambda: np.bincount(np.zeros(shape, dt), weights=w, minlength=ml))
    # histogram <dtype> <n> <bins> <range lo,hi or -> <weights dtype or -> <density 0/1>
    for dt in DTYPES:
        for wdt in ("-", "float32", "float64", "int32"):
            for density in (0, 1):
                w = None if wdt == "-" else np.ones(5, wdt)
                attempt(f"histogram {dt} 5 3 0,2 {wdt} {density}",
                        lambda: np.histogram(np.zeros(5, dt), bins=3, range=(0, 2), weights=w,
                                             density=bool(density)))
        attempt(f"histogram {dt} 0 4 - - 0", lambda: np.histogram(np.zeros(0, dt), bins=4))
    for dt in ("complex64", "complex128"):  # with a range: real edges as complex, real weights
        for wdt in ("-", "float32", "int16"):
            for density in (0, 1):
                w = None if wdt == "-" else np.ones(5, wdt)
                attempt(f"histogram {dt} 5 3 0,2 {wdt} {density}",
                        lambda: np.histogram(np.zeros(5, dt), bins=3, range=(0, 2), weights=w,
                                             density=bool(density)))
        attempt(f"histogram_edges {dt} 6 0,1,2.5,4 - 0",
                lambda: np.histogram(np.zeros(6, dt), bins=[0, 1, 2.5, 4])[0])
        attempt(f"histogram_edges {dt} 6 -1,0,1 float64 1",
                lambda: np.histogram(np.zeros(6, dt), bins=[-1, 0, 1], weights=np.ones(6),
                                     density=True)[0])
    for bins, rng_, wn in [(0, "0,1", 5), (-2, "0,1", 5), (3, "2,1", 5), (3, "0,inf", 5),
                           (3, "nan,1", 5), (3, "0,1", 4)]:
        lo, hi = (float(v) for v in rng_.split(","))
        attempt(f"histogram float64 5 {bins} {rng_} float64:{wn} 0",
                lambda: np.histogram(np.zeros(5), bins=bins, range=(lo, hi), weights=np.ones(wn)))
    # histogram_edges <dtype> <n> <edges comma-separated> <weights dtype or -> <density>
    for dt, edges, wdt, density in [("int32", "0,1,2.5,4", "-", 0), ("float32", "0,1", "float32", 1),
                                    ("uint8", "0,1,1,3", "float64", 0), ("float64", "0,2,1", "-", 0),
                                    ("float16", "-1,0,1", "-", 1)]:
        e = [float(v) for v in edges.split(",")]
        w = None if wdt == "-" else np.ones(6, wdt)
        attempt(f"histogram_edges {dt} 6 {edges} {wdt} {density}",
                lambda: np.histogram(np.zeros(6, dt), bins=e, weights=w, density=bool(density))[0])
    # unique along an axis where no length is read back (nothing along the axis, or slices of
    # no element), and its axis errors
    for dt in ("float64", "int8", "bool", "complex64"):
        for shape, axes in [((0, 3), (0, 1, -1)), ((3, 0), (0, 1)), ((2, 0, 3), (0, 1, 2)),
                            ((0,), (0, -1)), ((4, 0, 0), (0, -3))]:
            for axis in axes:
                for flags in range(8):
                    ri, rv, rc = bool(flags & 1), bool(flags & 2), bool(flags & 4)
                    attempt(f"unique_axis {dt} {fs(shape)} {axis} {flags}",
                            lambda: np.unique(np.zeros(shape, dt), return_index=ri,
                                              return_inverse=rv, return_counts=rc, axis=axis))
    for shape, axis in [((), 0), ((), -1), ((2, 3), 2), ((2, 3), -3), ((5,), 1)]:
        try:
            np.unique(np.zeros(shape), axis=axis)
        except np.exceptions.AxisError as e:
            lines.append(f"unique_axis float64 {fs(shape)} {axis} 0 -> err {e}")
    return lines


def c_double(v):
    if math.isnan(v):
        return "NAN"
    if math.isinf(v):
        return "INFINITY" if v > 0 else "-INFINITY"
    return repr(float(v))


def arr(name, ctype, values):
    values = list(values)
    if not values:
        return f"static const {ctype} *const {name} = NULL;\n"
    body = ", ".join(c_double(v) if ctype == "double" else str(int(v)) for v in values)
    return f"static const {ctype} {name}[] = {{{body}}};\n"


def gpu_cases():
    rng = np.random.default_rng(13)
    special = [np.nan, -np.nan, 0.0, -0.0, np.inf, -np.inf, 1.5, 1.5, -2.0, 0.0, 3.0, np.nan]
    inputs = [
        ("float64", np.array(special + [7.0, -2.0, 1.5, 0.0, -0.0, 9.0, np.inf, np.nan]).reshape(4, 5),
         "float64", np.array([1.5, np.nan, 0.0, 9.0, 100.0, -np.inf])),
        ("float32", rng.integers(-4, 5, 23).astype(np.float32) / 2, "float32",
         np.array([0.5, 0.5, -2.0, 3.0, 11.0], np.float32)),
        ("int32", rng.integers(-3, 4, (3, 7)).astype(np.int32), "int64",
         np.array([2, -3, 2, 8, 0], np.int64)),
        ("uint8", rng.integers(0, 3, (2, 3, 4)).astype(np.uint8), "uint8",
         np.array([1, 7], np.uint8)),
        ("bool", rng.integers(0, 2, 9).astype(bool), "bool", np.array([True])),
        ("int64", np.array([5], np.int64), "int64", np.array([5, 5], np.int64)),
        ("float16", np.array([0.0, -0.0, np.nan, 1.0, np.nan, 1.0], np.float16), "float16",
         np.array([np.nan, -0.0], np.float16)),
    ]
    out = [f"/* Generated by tools/gen_unique_cases.py from NumPy {np.__version__}. Do not edit. */\n"]
    entries = []
    for k, (dt, a, dtb, b) in enumerate(inputs):
        a = a.astype(dt)
        b = b.astype(dtb)
        p = f"uq{k}_"
        nz = np.nonzero(a)
        u = np.unique(a, return_index=True, return_inverse=True, return_counts=True)
        u2 = np.unique(a, return_counts=True, equal_nan=False)
        isin = np.isin(a, b)
        isin_inv = np.isin(a, b, invert=True)
        ua, ub = np.unique(a), np.unique(b)
        isin_u = np.isin(ua, ub, assume_unique=True)
        inter = np.intersect1d(a, b, return_indices=True)
        uni = np.union1d(a, b)
        diff = np.setdiff1d(a, b)
        xor = np.setxor1d(a, b)
        mask = a > a.flat[0] if a.dtype != bool else a
        sel = a[mask]
        for name, ctype, vals in [
                ("a", "double", a.ravel()), ("b", "double", b), ("nz", "int64_t", np.concatenate(nz)),
                ("flat", "int64_t", np.flatnonzero(a)),
                ("uv", "double", u[0]), ("ui", "int64_t", u[1]), ("uinv", "int64_t", u[2].ravel()),
                ("uc", "int64_t", u[3]), ("uv2", "double", u2[0]), ("uc2", "int64_t", u2[1]),
                ("isin", "uint8_t", isin.ravel()), ("isinv", "uint8_t", isin_inv.ravel()),
                ("isu", "uint8_t", isin_u), ("iv", "double", inter[0]), ("i1", "int64_t", inter[1]),
                ("i2", "int64_t", inter[2]), ("un", "double", uni), ("df", "double", diff),
                ("xr", "double", xor), ("mask", "uint8_t", mask.ravel()), ("sel", "double", sel)]:
            out.append(arr(p + name, ctype, vals))
        shape = ", ".join(str(d) for d in a.shape)
        entries.append(
            f"    {{\"{dt}\", {a.ndim}, {{{shape}}}, {a.size}, {p}a, \"{dtb}\", {b.size}, {p}b, "
            f"{len(nz[0])}, {p}nz, {p}flat, {len(u[0])}, {p}uv, {p}ui, {p}uinv, {p}uc, "
            f"{len(u2[0])}, {p}uv2, {p}uc2, {p}isin, {p}isinv, {len(ua)}, {p}isu, "
            f"{len(inter[0])}, {p}iv, {p}i1, {p}i2, {len(uni)}, {p}un, {len(diff)}, {p}df, "
            f"{len(xor)}, {p}xr, {p}mask, {len(sel)}, {p}sel}},")
    out.append("static const unique_case unique_cases[] = {\n" + "\n".join(entries) + "\n};\n")
    # bincount and histogram
    x = rng.integers(0, 9, 50)
    w = rng.standard_normal(50)
    hx = np.concatenate([rng.standard_normal(60), [0.0, 1.0, -1.0, 2.5, -2.5, 0.5]])
    hw = rng.random(66)
    edges = np.array([-2.0, -0.5, 0.0, 0.5, 1.0, 2.5])
    out.append(arr("bc_x", "int64_t", x) + arr("bc_w", "double", w))
    out.append(arr("bc_counts", "int64_t", np.bincount(x, minlength=12)))
    out.append(arr("bc_weighted", "double", np.bincount(x, weights=w)))
    out.append(f"static const int64_t bc_n = {x.size}, bc_len = {np.bincount(x).size};\n")
    out.append(arr("hx", "double", hx) + arr("hw", "double", hw) + arr("hedges", "double", edges))
    h1, e1 = np.histogram(hx, bins=7)
    h2, e2 = np.histogram(hx, bins=5, range=(-1.0, 1.0))
    h3, _ = np.histogram(hx, bins=edges)
    h4, _ = np.histogram(hx, bins=6, range=(-1.0, 2.0), weights=hw, density=True)
    h5, _ = np.histogram(hx, bins=edges, density=True)
    h6, _ = np.histogram(hx, bins=4, weights=hw)
    out.append(arr("h1", "int64_t", h1) + arr("e1", "double", e1) + arr("h2", "int64_t", h2) +
               arr("e2", "double", e2) + arr("h3", "int64_t", h3) + arr("h4", "double", h4) +
               arr("h5", "double", h5) + arr("h6", "double", h6))
    out.append(f"static const int64_t hn = {hx.size};\n")
    return "".join(out)


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..")
    with open(os.path.join(root, "tests", "data", "unique.txt"), "w") as f:
        f.write("\n".join(cpu_table()) + "\n")
    with open(os.path.join(root, "tests", "gpu", "unique_cases.inc"), "w") as f:
        f.write(gpu_cases())


if __name__ == "__main__":
    main()
