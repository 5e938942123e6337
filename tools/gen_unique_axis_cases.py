#!/usr/bin/env python3
"""Generates tests/gpu/unique_axis_cases.inc, read by tests/gpu/test_unique_axis.c, with NumPy 2
as the oracle (docs/unique.md):

- unique along an axis (np.unique(a, axis=k) with every return) on inputs with NaN, +-0, +-inf
  and repeated slices, in real, bool and complex dtypes, 0-size and 1-element inputs;
- complex unique (every return, both equal_nan, the values alone), isin, intersect1d,
  union1d, setdiff1d and setxor1d with NaN and signed-zero parts.

Before writing anything it checks that Loom's algorithm (a stable lexsort of the columns, each
in sort's order; a row starts a run where any field differs under !=) gives NumPy's answer on
every case, so the tables test the implementation, not a different reading of NumPy.

    python3 tools/gen_unique_axis_cases.py [repo root]
"""
import math
import os
import sys

import numpy as np

from gen_unique_cases import arr, c_double

NAN, INF = np.nan, np.inf


def parts(name, a):
    """name_re and name_im (NULL for real a) of a flattened."""
    flat = np.asarray(a).ravel()
    if np.iscomplexobj(flat):
        return arr(name + "_re", "double", flat.real) + arr(name + "_im", "double", flat.imag)
    return arr(name + "_re", "double", flat.astype(np.float64)) + \
        f"static const double *const {name}_im = NULL;\n"


def loom_axis_model(a, axis):
    """Loom's unique along an axis, in NumPy: values, index, inverse, counts."""
    rows = np.moveaxis(a, axis, 0)
    n = rows.shape[0]
    m = math.prod(rows.shape[1:])
    rows = rows.reshape(n, m)
    keys = []
    for j in reversed(range(m)):  # least significant first
        col = rows[:, j]
        if col.dtype == np.float16:  # NumPy compares float16 fields with NaN first
            keys += [np.where(np.isnan(col), 0, col), ~np.isnan(col)]
        else:
            keys.append(col)
    perm = np.lexsort(keys) if m else np.arange(n)
    s = rows[perm]
    starts = np.ones(n, bool)
    if m:
        starts[1:] = np.any(s[1:] != s[:-1], axis=1)
    else:
        starts[1:] = False
    pos = np.flatnonzero(starts)
    vals = np.moveaxis(s[pos].reshape((len(pos),) + np.moveaxis(a, axis, 0).shape[1:]), 0, axis)
    inverse = np.empty(n, np.int64)
    inverse[perm] = np.cumsum(starts) - 1
    return vals, perm[pos], inverse, np.diff(np.append(pos, n))


def same(x, y):
    x, y = np.asarray(x), np.asarray(y)
    if x.shape != y.shape or x.dtype != y.dtype:
        return False
    if np.iscomplexobj(x):
        return same(x.real, y.real) and same(x.imag, y.imag)
    if x.dtype.kind == "f":
        return np.array_equal(np.signbit(x), np.signbit(y)) and np.array_equal(x, y, equal_nan=True)
    return np.array_equal(x, y)


def complex_values(rng, n, dtype):
    pool = [NAN, -0.0, 0.0, 1.0, -1.5, 2.0, INF]
    re = rng.choice(pool, n)
    im = rng.choice(pool, n)
    return np.array([complex(x, y) for x, y in zip(re, im)], dtype)


def axis_inputs(rng):
    cases = []
    a0 = np.array([[1., NAN], [1., NAN], [0., 2.], [-0., 2.], [NAN, 1.], [NAN, 0.], [1., 3.],
                   [1., -INF], [INF, 0], [0., 2.], [-NAN, 1.]])
    cases += [(a0, 0), (a0, 1), (a0, -1)]
    pool = np.array([[0.0, -0.0, 1.5, INF], [-0.0, 0.0, 1.5, INF], [NAN, 1.0, 2.0, 3.0],
                     [-INF, 7.0, 7.0, -2.0], [1.5, 1.5, 1.5, 1.5]])
    cases.append((pool[rng.integers(0, 5, 14)], 0))
    cases.append((pool[rng.integers(0, 5, 14)].astype(np.float32).T.copy(), 1))
    base = rng.integers(-2, 3, (2, 3, 4)).astype(np.int32)
    i32 = np.concatenate([base, base[:, ::-1]], axis=1)
    i32 = np.concatenate([i32, i32[:, :, :2]], axis=2)
    cases += [(i32, 0), (i32, 1), (i32, 2), (i32, -2)]
    cases.append((rng.integers(0, 3, (40, 3)).astype(np.uint8), 0))
    cases.append((rng.integers(0, 2, (10, 2)).astype(bool), 0))
    cases.append((rng.integers(0, 2, (2, 9)).astype(bool), 1))
    f16 = np.array([[0.0, NAN, 1.0], [-0.0, NAN, 1.0], [NAN, 0.0, 2.0], [0.0, 1.0, 2.0],
                    [0.0, 1.0, 2.0], [-1.0, INF, -INF], [-0.0, 1.0, 2.0], [NAN, 0.0, 2.0]],
                   np.float16)
    cases += [(f16, 0), (f16, 1)]
    cases += [(np.array([[5]], np.int64), 0), (np.array([[5]], np.int64), 1),
              (np.array([[3, 1, 3, 2]], np.int64), 1), (np.array([[3, 1, 3, 2]], np.int64), 0)]
    cases += [(np.zeros((0, 3)), 0), (np.zeros((0, 3)), 1), (np.zeros((3, 0), np.int16), 0),
              (np.zeros((3, 0), np.int16), 1), (np.zeros((2, 0, 3), np.float32), 2)]
    cases.append((np.array([2.0, NAN, -0.0, 0.0, NAN, 2.0, -INF]), 0))  # 1-D: the flat path
    c = complex_values(rng, 24, np.complex128).reshape(8, 3)
    c[3] = c[0]
    c[5] = c[1]
    c[6] = [complex(-0.0, 0.0), complex(1.0, -0.0), 2.0]
    c[7] = [0j, complex(1.0, 0.0), 2.0]
    cases += [(c, 0), (c, 1)]
    c64 = complex_values(rng, 18, np.complex64).reshape(6, 3)
    c64[4] = c64[2]
    cases += [(c64, 0), (c64, 1)]
    wide = np.tile(rng.integers(-1, 2, (3, 300)).astype(np.int8), (2, 1))[[0, 3, 1, 4, 2, 5]]
    wide[4, 299] = 9
    cases.append((wide, 0))
    return cases


def axis_cases(rng):
    out, entries = [], []
    for k, (a, axis) in enumerate(axis_inputs(rng)):
        r = np.unique(a, return_index=True, return_inverse=True, return_counts=True, axis=axis)
        if a.ndim > 1 and a.shape[axis] > 0:
            model = loom_axis_model(a, axis)
            assert all(same(x, y) for x, y in zip(model, r)), (k, a, axis, model, r)
        transposed = k == 4  # given to Loom as the transpose of its transpose: a strided view
        stored = a.T if transposed else a
        p = f"ua{k}_"
        out.append(parts(p + "a", stored) + parts(p + "v", r[0]))
        out.append(arr(p + "index", "int64_t", r[1]) + arr(p + "inverse", "int64_t", r[2].ravel()) +
                   arr(p + "counts", "int64_t", r[3]))
        shape = ", ".join(str(d) for d in stored.shape) or "0"
        vshape = ", ".join(str(d) for d in r[0].shape) or "0"
        entries.append(
            f"    {{\"{a.dtype}\", {a.ndim}, {{{shape}}}, {int(transposed)}, {axis}, {p}a_re, "
            f"{p}a_im, {{{vshape}}}, {p}v_re, {p}v_im, {len(r[1])}, {p}index, {p}counts, "
            f"{r[2].size}, {p}inverse}},")
    out.append("static const unique_axis_case unique_axis_cases[] = {\n" + "\n".join(entries) +
               "\n};\n")
    return "".join(out)


def complex_cases(rng):
    out, entries = [], []
    inputs = []
    for dt in (np.complex128, np.complex64):
        a = complex_values(rng, 30, dt)
        a[7] = a[2]
        a[11] = complex(-0.0, -0.0)
        a[12] = 0j
        b = complex_values(rng, 9, dt)
        b[3] = a[5]
        b[4] = a[12]
        inputs.append((a, b))
    a = np.array([1 + 2j, 1 + 2j, complex(NAN, 1), complex(1, NAN), complex(NAN, NAN),
                  complex(NAN, 2), 0j, complex(-0.0, 0.0), complex(0, -0.0), 3 - 1j,
                  complex(1, NAN)]).reshape(11, 1)
    inputs.append((a, np.array([1 + 2j, complex(NAN, 0), 3 - 1j, 0j])))
    for k, (a, b) in enumerate(inputs):
        p = f"uc{k}_"
        u = np.unique(a, return_index=True, return_inverse=True, return_counts=True)
        u2 = np.unique(a, return_index=True, return_inverse=True, return_counts=True,
                       equal_nan=False)
        v = np.unique(a)  # the values alone: NumPy's hash table
        inter = np.intersect1d(a, b, return_indices=True)
        out.append(parts(p + "a", a) + parts(p + "b", b))
        out.append(parts(p + "uv", u[0]) + arr(p + "ui", "int64_t", u[1]) +
                   arr(p + "uinv", "int64_t", u[2].ravel()) + arr(p + "uc", "int64_t", u[3]))
        out.append(parts(p + "uv2", u2[0]) + arr(p + "ui2", "int64_t", u2[1]) +
                   arr(p + "uinv2", "int64_t", u2[2].ravel()) + arr(p + "uc2", "int64_t", u2[3]))
        out.append(parts(p + "v", v))
        out.append(arr(p + "isin", "uint8_t", np.isin(a, b).ravel()) +
                   arr(p + "isinv", "uint8_t", np.isin(a, b, invert=True).ravel()))
        out.append(parts(p + "iv", inter[0]) + arr(p + "i1", "int64_t", inter[1]) +
                   arr(p + "i2", "int64_t", inter[2]))
        un, df, xr = np.union1d(a, b), np.setdiff1d(a, b), np.setxor1d(a, b)
        out.append(parts(p + "un", un) + parts(p + "df", df) + parts(p + "xr", xr))
        shape = ", ".join(str(d) for d in a.shape)
        entries.append(
            f"    {{\"{a.dtype}\", {a.ndim}, {{{shape}}}, {a.size}, {p}a_re, {p}a_im, {b.size}, "
            f"{p}b_re, {p}b_im, {len(u[0])}, {p}uv_re, {p}uv_im, {p}ui, {p}uinv, {p}uc, "
            f"{len(u2[0])}, {p}uv2_re, {p}uv2_im, {p}ui2, {p}uinv2, {p}uc2, {len(v)}, {p}v_re, "
            f"{p}v_im, {p}isin, {p}isinv, {len(inter[0])}, {p}iv_re, {p}iv_im, {p}i1, {p}i2, "
            f"{len(un)}, {p}un_re, {p}un_im, {len(df)}, {p}df_re, {p}df_im, {len(xr)}, "
            f"{p}xr_re, {p}xr_im}},")
    out.append("static const complex_set_case complex_set_cases[] = {\n" + "\n".join(entries) +
               "\n};\n")
    return "".join(out)


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..")
    rng = np.random.default_rng(1313)
    text = (f"/* Generated by tools/gen_unique_axis_cases.py from NumPy {np.__version__}. "
            "Do not edit. */\n" + axis_cases(rng) + complex_cases(rng))
    with open(os.path.join(root, "tests", "gpu", "unique_axis_cases.inc"), "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
