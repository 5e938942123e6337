#!/usr/bin/env python3
"""Generates tests/host_library_cases.inc: NumPy's answers for the host device's CUB steps
(exec/host_sort.c, exec/host_select.c, exec/host_bincount.c), which tests/test_host_library.c
runs one step at a time.

    python3 tools/gen_host_library_cases.py > tests/host_library_cases.inc

- sort: rows of keys of every real dtype and bool (duplicates, +-0, +-inf, the positive NaN
  the plan's keys carry, and for integers their extremes) with NumPy's stable argsort of each
  row; the sorted keys are the input taken in that order. With `bits`, keys with random high
  bits, ordered by NumPy on `keys & (2**bits - 1)`. bfloat16 (ml_dtypes) is ordered as float32,
  which holds each of its values exactly.
- select: masks with np.flatnonzero.
- bincount: bins with np.bincount, counts and weighted sums (float64, every value a NumPy sum).
"""
import numpy as np

try:
    import ml_dtypes
except ImportError:  # bfloat16 cases need it
    ml_dtypes = None

rng = np.random.default_rng(20261124)

DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "bfloat16", "float32", "float64"]
SHAPES = [(1, 1), (1, 2), (1, 200), (3, 50)]


def np_dtype(dt):
    return ml_dtypes.bfloat16 if dt == "bfloat16" else np.dtype(dt)


def keys_of(dt, n):
    if dt == "bool":
        return rng.integers(0, 2, n).astype(bool)
    if dt.startswith(("int", "uint")):
        info = np.iinfo(dt)
        v = rng.integers(-4 if info.min < 0 else 0, 5, n).astype(dt)  # duplicates
        wide = rng.integers(info.min, info.max, n, dtype=dt, endpoint=True)
        v[::3] = wide[::3]
        v[::11] = info.min
        v[5::13] = info.max
        return v
    v = (rng.integers(-12, 13, n) / 4).astype(np.float64)
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 0.5, -0.0])
    pick = rng.random(n) < 0.3
    v[pick] = rng.choice(special, pick.sum())
    return v.astype(np_dtype(dt))


def bits_of(a):
    """The array's elements as unsigned integers of its width."""
    return a.view(np.dtype(f"u{a.dtype.itemsize}"))


def order_key(a, dt):
    if dt == "bfloat16":
        return a.astype(np.float32)
    return a


def c_u64(values):
    return "{" + ", ".join(f"0x{int(v):x}ull" for v in values) + "}"


def c_i64(values):
    return "{" + ", ".join(f"{int(v)}LL" for v in values) + "}"


def c_f64(values):
    return "{" + ", ".join(float(v).hex() if np.isfinite(v) else ("NAN" if np.isnan(v) else ("INFINITY" if v > 0 else "-INFINITY")) for v in values) + "}"


def sort_cases(out):
    cases = []
    k = 0
    for dt in DTYPES:
        if dt == "bfloat16" and ml_dtypes is None:
            continue
        for rows, n in SHAPES:
            a = keys_of(dt, rows * n).reshape(rows, n)
            arg = np.argsort(order_key(a, dt), axis=1, kind="stable")
            cases.append((dt, 0, rows, n, bits_of(a).ravel(), arg.ravel(), k))
            k += 1
    # the low bits only: keys with random high bits
    for dt, bits in (("int64", 12), ("uint16", 5), ("uint32", 16), ("int32", 9)):
        n = 300
        a = rng.integers(np.iinfo(dt).min, np.iinfo(dt).max, n, dtype=dt, endpoint=True)
        low = bits_of(a) & np.array((1 << bits) - 1, dtype=bits_of(a).dtype)
        arg = np.argsort(low, kind="stable")
        cases.append((dt, bits, 1, n, bits_of(a), arg, k))
        k += 1
    for dt, bits, rows, n, keys, arg, i in cases:
        out.append(f"static const uint64_t sort_keys_{i}[] = {c_u64(keys)};")
        out.append(f"static const int64_t sort_arg_{i}[] = {c_i64(arg)};")
    out.append("static const host_sort_case sort_cases[] = {")
    for dt, bits, rows, n, keys, arg, i in cases:
        out.append(f'    {{"{dt}", {bits}, {rows}, {n}, sort_keys_{i}, sort_arg_{i}}},')
    out.append("};")


def select_cases(out):
    cases = []
    for i, (n, p) in enumerate(((1, 1.0), (1, 0.0), (7, 0.5), (300, 0.3), (300, 0.0),
                                (300, 1.0), (1000, 0.05))):
        flags = (rng.random(n) < p).astype(np.uint8)
        flags[flags == 1] = rng.integers(1, 256, int(flags.sum()))  # any nonzero byte is set
        cases.append((n, flags, np.flatnonzero(flags), i))
    for n, flags, pos, i in cases:
        out.append(f"static const uint64_t select_flags_{i}[] = {c_u64(flags)};")
        out.append(f"static const int64_t select_pos_{i}[] = {c_i64(pos) if len(pos) else '{-1}'};")
    out.append("static const host_select_case select_cases[] = {")
    for n, flags, pos, i in cases:
        out.append(f"    {{{n}, {len(pos)}, select_flags_{i}, select_pos_{i}}},")
    out.append("};")


def bincount_cases(out):
    cases = []
    for i, (n, top, extra) in enumerate(((1, 1, 0), (10, 3, 2), (500, 17, 0), (3000, 100, 5))):
        x = rng.integers(0, top, n)
        length = int(x.max()) + 1 + extra
        w = rng.normal(0, 10, n) * 10.0 ** rng.integers(-3, 4, n)
        w[::17] = -0.0
        counts = np.bincount(x, minlength=length)
        sums = np.bincount(x, weights=w, minlength=length)
        order = np.argsort(x, kind="stable")  # the step takes the bins sorted, weights with them
        x, w = x[order], w[order]
        cases.append((n, length, x, w, counts, sums, i))
    for n, length, x, w, counts, sums, i in cases:
        out.append(f"static const int64_t bincount_x_{i}[] = {c_i64(x)};")
        out.append(f"static const double bincount_w_{i}[] = {c_f64(w)};")
        out.append(f"static const int64_t bincount_counts_{i}[] = {c_i64(counts)};")
        out.append(f"static const double bincount_sums_{i}[] = {c_f64(sums)};")
    out.append("static const host_bincount_case bincount_cases[] = {")
    for n, length, x, w, counts, sums, i in cases:
        out.append(f"    {{{n}, {length}, bincount_x_{i}, bincount_w_{i}, bincount_counts_{i}, "
                   f"bincount_sums_{i}}},")
    out.append("};")


def main():
    out = ["/* Generated by tools/gen_host_library_cases.py (NumPy "
           f"{np.__version__}); do not edit. */"]
    sort_cases(out)
    select_cases(out)
    bincount_cases(out)
    print("\n".join(out))


if __name__ == "__main__":
    main()
