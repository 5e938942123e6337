#!/usr/bin/env python3
"""Writes tests/data/fft_cases.txt: NumPy 2's result dtype and shape (or an error) of every
numpy.fft function over dtypes, shapes, n/s, axes and norm. One case a line:

    func dtype ndim dims... ns s... na axes... norm => OK dtype ndim dims...   (or => ERR)

ns/na are -1 for None; 1-d functions take ns 0 or 1 (n) and na 1 (axis). norm "-" is None."""
import os
import warnings
import numpy as np

warnings.simplefilter("ignore", DeprecationWarning)

assert np.__version__.split(".")[0] >= "2", "NumPy 2 is required"

DTYPES = ["bool", "int8", "uint32", "int64", "float16", "float32", "float64", "complex64",
          "complex128"]
ONE_D = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"]
N_D = ["fftn", "ifftn", "rfftn", "irfftn"]
TWO_D = ["fft2", "ifft2", "rfft2", "irfft2"]


def case(func, dtype, shape, s, axes, norm):
    a = np.ones(shape, dtype)
    f = getattr(np.fft, func)
    kw = {} if norm is None else {"norm": norm}
    try:
        if func in ONE_D:
            r = f(a, n=s, axis=axes, **kw)
        else:
            r = f(a, s=s, axes=axes, **kw) if func in N_D or axes is not None or s is not None \
                else f(a, **kw)
        out = "OK %s %d %s" % (r.dtype, r.ndim, " ".join(map(str, r.shape)))
    except Exception:
        out = "ERR"
    if func in ONE_D:
        sp = "0" if s is None else "1 %d" % s
        ap = "1 %d" % axes
    else:
        sp = "-1" if s is None else "%d %s" % (len(s), " ".join(map(str, s)))
        ap = "-1" if axes is None else "%d %s" % (len(axes), " ".join(map(str, axes)))
    return "%s %s %d %s %s %s %s => %s" % (func, dtype, len(shape), " ".join(map(str, shape)),
                                           sp, ap, norm or "-", out)


def main():
    lines = []
    for func in ONE_D:
        for dtype in DTYPES:
            for shape, n, axis in [((8,), None, -1), ((5, 6), None, 0), ((5, 6), 7, 1),
                                   ((5, 6), 3, -1), ((4, 3, 2), 9, 1), ((1,), None, 0),
                                   ((5,), 0, 0), ((5,), None, 1), ((2, 3), None, -3)]:
                lines.append(case(func, dtype, shape, n, axis, None))
        for norm in ["ortho", "forward", "bogus"]:
            lines.append(case(func, "float64", (6,), None, -1, norm))
    for func in N_D + TWO_D:
        for dtype in ["int64", "float32", "float64", "complex64", "complex128"]:
            cases = [((4, 6), None, None), ((3, 4, 5), None, None), ((3, 4, 5), (8, 6), None),
                     ((3, 4, 5), None, (0, 2)), ((3, 4, 5), (2, 7), (-1, 0)),
                     ((3, 4, 5), (4,), (0, 1)), ((3, 4, 5), None, (5,)),
                     ((2, 3, 4, 5), None, None), ((3, 4), (0, 4), None)]
            if func in N_D:
                cases += [((3, 4, 5), None, (1, 1)), ((2, 3, 4, 5), (3, 3, 3, 3), None)]
            for shape, s, axes in cases:
                if func in TWO_D and ((s is not None and len(s) != 2) or
                                      (axes is not None and len(axes) != 2)):
                    continue
                lines.append(case(func, dtype, shape, s, axes, None))
        lines.append(case(func, "float32", (4, 6), None, None, "ortho"))
    path = os.path.join(os.path.dirname(__file__), "..", "tests", "data", "fft_cases.txt")
    with open(path, "w") as fh:
        fh.write("# numpy.fft result dtypes and shapes, written by tools/gen_fft_cases.py (NumPy %s)\n"
                 % np.__version__)
        fh.write("\n".join(lines) + "\n")
    print("%d cases" % len(lines))


if __name__ == "__main__":
    main()
