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


def values():
    """tests/data/fft_values.txt: NumPy's results on the (6, 17) inputs that
    tests/gpu/test_fft.c builds (f the flat index: complex cos(0.7 f) + i sin(0.3 f), real
    cos(0.7 f)). One case a line: its name, the count of values, then re im pairs."""
    f = np.arange(6 * 17, dtype=np.float64).reshape(6, 17)
    c = np.cos(0.7 * f) + 1j * np.sin(0.3 * f)
    r = np.cos(0.7 * f)
    F = np.fft
    cases = [
        ("fft_last", F.fft(c)), ("fft_axis0", F.fft(c, axis=0)), ("fft_pad20", F.fft(c, 20)),
        ("fft_crop5_axis0_ortho", F.fft(c, 5, 0, "ortho")), ("ifft_forward", F.ifft(c, norm="forward")),
        ("ifft_axis0", F.ifft(c, axis=0)),
        ("rfft_last", F.rfft(r)), ("rfft_pad8_axis0", F.rfft(r, 8, 0)), ("irfft_last", F.irfft(c)),
        ("irfft_pad30", F.irfft(c, 30)), ("hfft_axis0", F.hfft(c, axis=0)), ("ihfft_last", F.ihfft(r)),
        ("fft2", F.fft2(c)), ("ifftn", F.ifftn(c)), ("rfftn", F.rfftn(r)),
        ("irfftn_s6_32", F.irfftn(c, s=(6, 32))), ("fftn_repeated", F.fftn(c, axes=(0, 0))),
        ("fft_transposed", F.fft(c.T, axis=-1)), ("fftfreq", F.fftfreq(17, 0.1)),
        ("rfftfreq", F.rfftfreq(17, 0.1)),
        ("fftshift_fft2", F.fftshift(F.fft2(c))),
        ("ifftshift_power_rfft_axis0", np.abs(F.ifftshift(F.rfft(r, axis=0), axes=0)) ** 2),
        ("fftshift_ifft_ortho_last", F.fftshift(F.ifft(c, norm="ortho"), axes=-1)),
        ("ifft_pad24_ortho", F.ifft(c, 24, norm="ortho")),
        ("rfft_pad40_axis0_forward", F.rfft(r, 40, 0, norm="forward")),
        ("fft_last_times2", F.fft(c) * 2), ("fft_last_times3", F.fft(c) * 3),
        ("ifft_last", F.ifft(c)),
    ]
    path = os.path.join(os.path.dirname(__file__), "..", "tests", "data", "fft_values.txt")
    with open(path, "w") as fh:
        fh.write("# numpy.fft results, written by tools/gen_fft_cases.py (NumPy %s)\n" % np.__version__)
        for name, v in cases:
            v = np.asarray(v).astype(np.complex128).ravel()
            fh.write("%s %d %s\n" % (name, v.size, " ".join("%r %r" % (float(z.real), float(z.imag)) for z in v)))


values()
