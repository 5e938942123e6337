#!/usr/bin/env python3
"""Generates the tests of NumPy's histogram bin estimators (docs/unique.md, "Bin estimators")
with NumPy 2 as the oracle:

- tests/data/histogram_bins.txt, read by tests/test_histogram_bins.c: for each data set and
  estimator the statistics Loom reads back (computed here by NumPy, in the dtypes NumPy uses)
  and NumPy's number of bins, so the host arithmetic is checked without a device; and NumPy's
  errors. One case a line:

    bins <name> <dtype> <n> <range lo,hi or -> <first> <last> <widened> <lo> <hi> <min> <max>
         <std> <g1> <q0> <q1> <q2> <q3> <iq0> <iq1> <iq2> <iq3> <nstone> <sq...> -> <nbins>
    edges <dtype> <first> <last> <nbins> -> <edges...>
    narrow <dtype> <first> <last> <nbins> -> <message>   (edges that do not increase)
    err <name> <dtype> <n> <range or -> <weights 0/1> -> <message>

- tests/gpu/histogram_bins_cases.inc, read by tests/gpu/test_histogram_bins.c: the data sets
  and NumPy's histogram (counts and edges) for each estimator, with and without a range.

    python3 tools/gen_histogram_bins_cases.py [repo root]
"""
import math
import os
import sys

import numpy as np

from gen_unique_cases import arr, c_double
from numpy.lib import _histograms_impl as hist_impl

NAMES = ["auto", "fd", "doane", "scott", "stone", "rice", "sturges", "sqrt"]


def datasets():
    rng = np.random.default_rng(1303)
    return [
        ("normal", rng.standard_normal(1000), None),
        ("normal_range", rng.standard_normal(700), (-1.0, 1.5)),
        ("arange_f32", np.arange(100, dtype=np.float32), None),
        ("arange_f64", np.arange(64, dtype=np.float64) * 0.1, None),
        ("exp_f32", rng.exponential(2.0, 500).astype(np.float32), None),
        ("f16", (rng.standard_normal(300) * 3).astype(np.float16), None),
        ("int8", rng.integers(-100, 101, 400).astype(np.int8), None),
        ("int16_range", rng.integers(-50, 50, 300).astype(np.int16), (-20.0, 30.0)),
        ("int32_small", rng.integers(0, 4, 200).astype(np.int32), None),
        ("int64_big", (rng.integers(0, 1000, 300) * (1 << 50) + (1 << 60)).astype(np.int64),
         None),
        ("uint64", rng.integers(0, 1 << 40, 300, dtype=np.uint64), None),
        ("uint8", rng.integers(0, 256, 300).astype(np.uint8), None),
        ("bool", rng.integers(0, 2, 50).astype(bool), None),
        ("const_f32", np.full(20, 2.5, np.float32), None),
        ("const_int", np.full(10, 7, np.int32), None),
        ("one", np.array([3.0]), None),
        ("two", np.array([1.0, 4.0]), None),
        ("three_f32", np.array([1.0, 2.0, 10.0], np.float32), None),
        ("iqr0", np.concatenate([np.zeros(90), np.arange(10.0)]), None),
        ("uniform_stone", rng.uniform(-3, 3, 2000), None),
        ("range_all_out", np.arange(10.0), (20.0, 30.0)),
        ("range_equal", np.arange(10.0), (4.0, 4.0)),
    ]


def outer(a, rng_):
    """Loom's first, last (doubles) and whether they were widened."""
    if rng_ is not None:
        first, last = rng_
    elif a.size == 0:
        first, last = 0.0, 1.0
    else:
        first, last = float(a.min()), float(a.max())
    widened = first == last
    if widened:
        first, last = first - 0.5, last + 0.5
    return first, last, widened


def fmt(v):
    return repr(float(v))


def stat_line(name, a, rng_):
    x = a.ravel()
    if x.dtype == bool:
        x = x.astype(np.uint8)
    first, last, widened = outer(x, rng_)
    if rng_ is not None:
        x = x[(x >= first) & (x <= last)]
    n = x.size
    flt = x.dtype.kind == "f"
    lo = hi = 0
    mn = mx = std = g1 = 0.0
    q = [0.0] * 4
    iq = [0] * 4
    sq = []
    if n:
        if flt:
            mn, mx = x.min(), x.max()
        else:
            lo, hi = int(x.min()), int(x.max())
        with np.errstate(all="ignore"):
            std = np.std(x)
            temp = x - np.mean(x)
            np.true_divide(temp, std, temp)
            np.power(temp, 3, temp)
            g1 = np.mean(temp)
        s = np.sort(x)
        at = []
        for p in (0.75, 0.25):
            virt = (n - 1) * p
            prev = math.floor(virt)
            nxt = prev + 1
            if virt >= n - 1:
                prev = nxt = n - 1
            at += [prev, nxt]
        if flt:
            q = [s[k] for k in at]
        else:
            iq = [int(np.int64(s[k]) if s.dtype != np.uint64 else s[k].astype(np.int64))
                  for k in at]
        if name == "stone":  # NumPy's own call: its outer edges as scalars of x's dtype
            xa = a.ravel().astype(np.uint8) if a.dtype == bool else a.ravel()
            edges = hist_impl._get_outer_edges(xa, rng_)
            for k in range(1, max(100, int(np.sqrt(n))) + 1):
                c = np.histogram(x, bins=k, range=edges)[0]
                sq.append(float(np.sum(c.astype(np.int64) ** 2)))
    nbins = len(np.histogram_bin_edges(a, bins=name, range=rng_)) - 1
    r = "-" if rng_ is None else f"{fmt(rng_[0])},{fmt(rng_[1])}"
    fields = [name, str(a.dtype), str(n), r, fmt(first), fmt(last), str(int(widened)), str(lo),
              str(hi), fmt(mn), fmt(mx), fmt(std), fmt(g1)] + [fmt(v) for v in q] + \
        [str(v) for v in iq] + [str(len(sq))] + [fmt(v) for v in sq]
    return "bins " + " ".join(fields) + f" -> {nbins}"


def edge_lines():
    """NumPy's edges of an autodetected range of float16 and float32 data: its linspace of two
    scalars of that dtype, computed in it."""
    lines = []
    for dt, lo, hi, counts in [(np.float32, -3.7, 12.3, (1, 7, 10, 100, 1000)),
                               (np.float32, 1e8, 1e8 + 64, (3, 64)),
                               (np.float16, -7.13, 12.305, (5, 14, 37, 3000)),
                               (np.float16, 2.0, 3.0, (1, 2, 1000))]:
        first, last = dt(lo), dt(hi)
        for nb in counts:  # Loom is given the unrounded doubles, as its outer edges are
            e = np.linspace(first, last, nb + 1, endpoint=True, dtype=dt)
            if np.any(e[:-1] >= e[1:]):  # np.histogram refuses such edges
                lines.append(f"narrow {np.dtype(dt)} {fmt(lo)} {fmt(hi)} {nb} -> Too many bins "
                             f"for data range. Cannot create {nb} finite-sized bins.")
            else:
                lines.append(f"edges {np.dtype(dt)} {fmt(lo)} {fmt(hi)} {nb} -> " +
                             " ".join(fmt(v) for v in e))
    return lines


def error_lines():
    lines = []
    # a constant float32 array whose widened range its dtype cannot split
    try:
        np.histogram(np.full(4, 3e7, np.float32), bins=2)
    except ValueError as e:
        lines.append(f"narrow float32 {fmt(3e7 - 0.5)} {fmt(3e7 + 0.5)} 2 -> {e}")
    cases = [("foo", "float64", 5, None, False), ("'", "float64", 5, None, False),
             ("auto", "float64", 5, None, True), ("fd", "float64", 5, (2.0, 1.0), False),
             ("sqrt", "float64", 5, (0.0, math.inf), False), ("Auto", "int8", 3, None, False)]
    for name, dt, n, rng_, weighted in cases:
        a = np.zeros(n, dt)
        w = np.ones(n) if weighted else None
        r = "-" if rng_ is None else f"{fmt(rng_[0])},{fmt(rng_[1])}"
        try:
            np.histogram(a, bins=name, range=rng_, weights=w)
            msg = "ok"
        except (ValueError, TypeError) as e:
            msg = str(e)
        lines.append(f"err {name} {dt} {n} {r} {int(weighted)} -> {msg}")
    return lines


def gpu_cases():
    out = [f"/* Generated by tools/gen_histogram_bins_cases.py from NumPy {np.__version__}. "
           "Do not edit. */\n"]
    sets, entries = [], []
    for d, (label, a, rng_) in enumerate(datasets()):
        # 64-bit integers beyond 2^53 do not pass through double: their int64 values instead
        if a.dtype in (np.int64, np.uint64):
            out.append(arr(f"hb{d}_data", "int64_t", a.astype(np.int64)))
            data_i, data_d = f"hb{d}_data", "NULL"
        else:
            out.append(arr(f"hb{d}_data", "double", a.astype(np.float64)))
            data_i, data_d = "NULL", f"hb{d}_data"
        r = "NULL" if rng_ is None else f"hb{d}_range"
        if rng_ is not None:
            out.append(arr(f"hb{d}_range", "double", rng_))
        sets.append(f"    {{\"{label}\", \"{a.dtype}\", {a.size}, {data_d}, {data_i}, {r}}},")
        for name in NAMES:
            h, e = np.histogram(a, bins=name, range=rng_)
            p = f"hb{d}_{name}_"
            out.append(arr(p + "hist", "int64_t", h) + arr(p + "edges", "double", e))
            entries.append(f"    {{{d}, \"{name}\", {len(h)}, {p}hist, {p}edges}},")
    out.append("static const bins_data bins_data_sets[] = {\n" + "\n".join(sets) + "\n};\n")
    out.append(complex_cases())
    out.append("static const bins_case bins_cases[] = {\n" + "\n".join(entries) + "\n};\n")
    return "".join(out)


def complex_cases():
    """Complex data (NumPy compares it with the edges lexicographically): equal bins over a
    range and explicit edges, values with real parts on the edges and imaginary parts of both
    signs, NaN parts, values outside; real weights and density."""
    re = [0.0, 0.0, 0.25, 0.25, 0.5, 0.5, 0.75, 1.0, 1.0, 1.0, -0.5, 2.0, np.nan, 0.3, 0.6, 2.5,
          2.5, 0.9]
    im = [-1.0, 1.0, 0.0, -2.0, 3.0, -0.5, 0.0, 0.0, -1.0, 1.0, 0.0, 5.0, 0.0, np.nan, 0.1, -1.0,
          0.0, -3.0]
    w = np.linspace(0.5, 2.0, len(re))
    out, entries = [], []
    for k, dt in enumerate((np.complex64, np.complex128)):
        a = np.array([complex(x, y) for x, y in zip(re, im)], dt)
        for j, (bins, rng_, weighted, density) in enumerate(
                [(4, (0.0, 1.0), False, False), (3, (0.25, 1.0), True, False),
                 (4, (0.0, 1.0), False, True), ([0.0, 0.5, 1.0, 2.5], None, False, False),
                 ([0.0, 0.5, 1.0, 2.5], None, True, True)]):
            h, e = np.histogram(a, bins=bins, range=rng_, weights=w if weighted else None,
                                density=density)
            p = f"hc{k}_{j}_"
            out.append(arr(p + "hist", "double", h.real) + arr(p + "edges", "double", e.real))
            nedges = len(bins) if isinstance(bins, list) else 0
            if nedges:
                out.append(arr(p + "bins", "double", bins))
            r = f"{{{rng_[0]!r}, {rng_[1]!r}}}" if rng_ else "{0, 0}"
            entries.append(f"    {{\"{np.dtype(dt)}\", {len(h)}, {int(rng_ is not None)}, {r}, "
                           f"{nedges}, {p + 'bins' if nedges else 'NULL'}, {int(weighted)}, "
                           f"{int(density)}, {p}hist, {p}edges}},")
    out.append(arr("hc_re", "double", re) + arr("hc_im", "double", im) + arr("hc_w", "double", w))
    out.append(f"static const int64_t hc_n = {len(re)};\n")
    out.append("static const complex_hist_case complex_hist_cases[] = {\n" + "\n".join(entries) +
               "\n};\n")
    return "".join(out)


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..")
    lines = []
    with np.errstate(all="ignore"):
        import warnings
        warnings.simplefilter("ignore")
        for label, a, rng_ in datasets():
            for name in NAMES:
                lines.append(stat_line(name, a, rng_))
        lines += edge_lines() + error_lines()
        inc = gpu_cases()
    with open(os.path.join(root, "tests", "data", "histogram_bins.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(os.path.join(root, "tests", "gpu", "histogram_bins_cases.inc"), "w") as f:
        f.write(inc)


if __name__ == "__main__":
    main()
