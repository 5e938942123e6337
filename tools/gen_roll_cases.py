#!/usr/bin/env python3
"""Writes tests/data/roll_cases.txt: NumPy 2's np.roll, np.fft.fftshift and np.fft.ifftshift
of arange(size).reshape(shape), or their refusal. One case a line:

    func ndim dims... nshift shifts... naxes axes... => OK values...   (or => ERR message)

naxes -1 is axis=None; fftshift and ifftshift have nshift 0. values are the result's elements
in C order (the result has the input's shape). Then fused programs on a = arange(30).reshape(5, 6)
(int64), which tests/gpu/test_roll.c builds by name:

    prog name => OK values..."""
import os
import numpy as np

assert np.__version__.split(".")[0] >= "2", "NumPy 2 is required"

ROLLS = [
    ((7,), [3], [0]), ((7,), [-3], [0]), ((7,), [10], [-1]), ((7,), [7], [0]), ((7,), [0], None),
    ((3, 4), [5], None), ((3, 4), [-1], None), ((3, 4), [1], [0]), ((3, 4), [-5], [1]),
    ((3, 4), [1, 2], [0, 1]), ((3, 4), [2], [0, 1]), ((3, 4), [1, 2], [1]),
    ((3, 4), [1, 1], [1, 1]), ((3, 4), [1, 2], None), ((2, 3, 4), [1, -1, 2], [0, 1, 2]),
    ((2, 3, 4), [5], [-2]), ((2, 3, 4), [7], None), ((2, 1, 5), [2], [1]), ((2, 1, 5), [3], None),
    ((1,), [3], None), ((0,), [3], None), ((2, 0), [1], [0]), ((), [2], None),
    ((3, 4), [1], [2]), ((3, 4), [1], [-3]), ((3, 4), [1, 2, 3], [0, 1]), ((), [1], [0]),
    ((4, 6), [2 ** 62], [1]), ((4, 6), [-(2 ** 63)], None), ((3, 4), [], [0]), ((3, 4), [1], []),
    ((3, 4), [], None),
]
SHIFTS = [
    ((8,), None), ((7,), None), ((3, 4), None), ((5, 6), [0]), ((5, 6), [-1]), ((5, 6), [1, 1]),
    ((2, 3, 5), None), ((2, 3, 5), [0, 2]), ((4,), [1]), ((1,), None), ((), None), ((0, 3), None),
]


def fmt(func, shape, shifts, axes, out):
    return "%s %d %s %d %s %d %s => %s" % (
        func, len(shape), " ".join(map(str, shape)), len(shifts), " ".join(map(str, shifts)),
        -1 if axes is None else len(axes), "" if axes is None else " ".join(map(str, axes)), out)


def result(f):
    try:
        r = f()
        return "OK " + " ".join(str(int(v)) for v in r.ravel())
    except Exception as e:  # NumPy's message, minus the exception type
        return "ERR " + str(e)


def main():
    lines = []
    for shape, shifts, axes in ROLLS:
        a = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)
        sh = shifts[0] if len(shifts) == 1 else tuple(shifts)
        ax = None if axes is None else axes[0] if len(axes) == 1 else tuple(axes)
        lines.append(fmt("roll", shape, shifts, axes, result(lambda: np.roll(a, sh, ax))))
    for shape, axes in SHIFTS:
        a = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)
        ax = None if axes is None else tuple(axes)
        for func in ("fftshift", "ifftshift"):
            f = getattr(np.fft, func)
            lines.append(fmt(func, shape, [], axes, result(lambda: f(a, ax))))
    a = np.arange(30, dtype=np.int64).reshape(5, 6)
    programs = [
        ("fftshift_abs", np.fft.fftshift(np.abs(a - 10))),
        ("abs_fftshift", np.abs(np.fft.fftshift(a) - 10)),
        ("roll_twice_plus", a + np.roll(np.roll(a, 5) * 2, 3, 0)),
        ("roll_transposed", np.roll(a.T, 2, 1)),
        ("roll_minus_self", np.roll(a, 1, 0) - a),
        ("sum_of_roll", np.sum(np.roll(a, 2, 1) * np.arange(6), axis=1)),
        ("roll_of_arange", np.roll(np.arange(30, dtype=np.int64).reshape(5, 6), 4, None)),
        ("ifftshift_sliced", np.fft.ifftshift(a[1:, ::2] * 3)),
    ]
    for name, v in programs:
        lines.append("prog %s => OK %s" % (name, " ".join(str(int(x)) for x in v.ravel())))
    path = os.path.join(os.path.dirname(__file__), "..", "tests", "data", "roll_cases.txt")
    with open(path, "w") as fh:
        fh.write("# np.roll / fftshift / ifftshift, written by tools/gen_roll_cases.py (NumPy %s)\n"
                 % np.__version__)
        fh.write("\n".join(lines) + "\n")
    print("%d cases" % len(lines))


if __name__ == "__main__":
    main()
