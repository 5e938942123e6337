#!/usr/bin/env python3
"""Generates tests/data/linalg.txt: the result dtypes and shapes (or the error) of Loom's
numpy.linalg functions built on the LU factorisation (inv, solve, det, slogdet) and the SVD
(svd with full_matrices true and false, svdvals), QR (every mode), eig and eigvals, and the
functions composed from them (matrix_rank, pinv, cond, tensorinv, tensorsolve, lstsq), with
NumPy 2 as the oracle. tests/test_linalg_solvers.c reads it.

    python3 tools/gen_linalg_cases.py [outdir]     (default: tests/data next to this script)

One case per line:

    <fn> <n> <operand>... -> ok <dtype> <shape> [<dtype> <shape>]...
    <fn> <n> <operand>... -> err <message>

An operand is "<dtype>:<shape>" ("float32:2,3"; "float32:" is 0-d); a result shape is
"s:2,3" ("s:" for 0-d). Operands are identity matrices broadcast to their shape (plus 1 on
the diagonal of stacked ones: never singular), so only shapes, dtypes and argument errors are
compared here; values are checked on the GPU (tests/gpu/test_linalg_lu.c).
"""
import os
import re
import sys

import numpy as np

DTYPES = ["bool", "int8", "uint8", "int32", "int64", "uint64", "float16", "float32", "float64",
          "complex64", "complex128"]


TENSORSOLVE_AXES = (0, 2)


def operand(dt, shape, tensor, moved=False):
    size = int(np.prod(shape))
    root = int(round(size ** 0.5))
    if tensor and root * root == size:
        # a tensor of P^2 elements: an identity reshaped, so tensorinv and tensorsolve see an
        # invertible matrix (for tensorsolve with axes: once those axes are moved last)
        if not moved or len(shape) <= max(TENSORSOLVE_AXES):
            return np.eye(root).reshape(shape).astype(dt)
        perm = [i for i in range(len(shape)) if i not in TENSORSOLVE_AXES] + list(TENSORSOLVE_AXES)
        t = np.eye(root).reshape([shape[i] for i in perm])
        return t.transpose(np.argsort(perm)).astype(dt)
    a = np.zeros(shape, dtype=np.float64)
    if len(shape) >= 2:
        n = min(shape[-2], shape[-1])
        idx = np.arange(n)
        a[..., idx, idx] = 1.0
    elif len(shape) == 1:
        a[...] = 1.0
    return a.astype(dt)


def fmt_shape(shape):
    return "s:" + ",".join(str(d) for d in shape)


def fmt_operand(dt, shape):
    return f"{dt}:" + ",".join(str(d) for d in shape)


def result(r):
    rs = r if isinstance(r, tuple) else (r,)
    return " ".join(f"{np.asarray(x).dtype.name} {fmt_shape(np.shape(x))}" for x in rs)


FUNCS = {
    "inv": lambda a: np.linalg.inv(a),
    "det": lambda a: np.linalg.det(a),
    "slogdet": lambda a: tuple(np.linalg.slogdet(a)),
    "solve": lambda a, b: np.linalg.solve(a, b),
    "svd_full": lambda a: tuple(np.linalg.svd(a, full_matrices=True)),
    "svd_reduced": lambda a: tuple(np.linalg.svd(a, full_matrices=False)),
    "svdvals": lambda a: np.linalg.svdvals(a),
    "qr_reduced": lambda a: tuple(np.linalg.qr(a, mode="reduced")),
    "qr_complete": lambda a: tuple(np.linalg.qr(a, mode="complete")),
    "qr_r": lambda a: np.linalg.qr(a, mode="r"),
    "qr_raw": lambda a: tuple(np.linalg.qr(a, mode="raw")),
    "matrix_rank": lambda a: np.linalg.matrix_rank(a),
    "pinv": lambda a: np.linalg.pinv(a),
    "pinv_hermitian": lambda a: np.linalg.pinv(a, hermitian=True),
    "matrix_rank_hermitian": lambda a: np.linalg.matrix_rank(a, hermitian=True),
    "svd_hermitian": lambda a: tuple(np.linalg.svd(a, hermitian=True)),
    "svd_hermitianvals": lambda a: np.linalg.svd(a, compute_uv=False, hermitian=True),
    "cond_none": lambda a: np.linalg.cond(a),
    "cond_m2": lambda a: np.linalg.cond(a, -2),
    "cond_1": lambda a: np.linalg.cond(a, 1),
    "cond_inf": lambda a: np.linalg.cond(a, np.inf),
    "cond_fro": lambda a: np.linalg.cond(a, "fro"),
    "cond_nuc": lambda a: np.linalg.cond(a, "nuc"),
    "tensorinv_1": lambda a: np.linalg.tensorinv(a, ind=1),
    "tensorinv_2": lambda a: np.linalg.tensorinv(a, ind=2),
    "tensorsolve": lambda a, b: np.linalg.tensorsolve(a, b),
    "tensorsolve_axes": lambda a, b: np.linalg.tensorsolve(a, b, axes=TENSORSOLVE_AXES),
    "lstsq": lambda a, b: tuple(np.asarray(x) for x in np.linalg.lstsq(a, b)),
    "eig": lambda a: tuple(always_complex(x) for x in np.linalg.eig(a)),
    "eigvals": lambda a: always_complex(np.linalg.eigvals(a)),
}


def always_complex(x):
    """eig's results as Loom gives them: complex even when every eigenvalue is real (NumPy then
    returns real arrays; docs/linalg.md)."""
    return x.astype(np.result_type(x.dtype, np.complex64))


def loom_message(msg):
    """NumPy's message as Loom words it: tensorsolve's carries the indentation of NumPy's
    source ("requirement             prod(...)"), which Loom leaves out (docs/linalg.md)."""
    if msg.startswith("Input arrays must satisfy the requirement"):
        return re.sub(r" +", " ", msg)
    return msg


def case(fn, ops):
    arrays = [operand(dt, shape, fn.startswith("tensor") and i == 0, fn == "tensorsolve_axes")
              for i, (dt, shape) in enumerate(ops)]
    head = f"{fn} {len(ops)} " + " ".join(fmt_operand(dt, s) for dt, s in ops) + " -> "
    try:
        with np.errstate(all="ignore"):
            return head + "ok " + result(FUNCS[fn](*arrays))
    except Exception as e:  # NumPy's LinAlgError, ValueError, TypeError
        return head + "err " + loom_message(str(e))


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..",
                                                            "tests", "data")
    lines = [f"# Generated by tools/gen_linalg_cases.py (NumPy {np.__version__}); do not edit."]
    square = [(3, 3), (1, 1), (0, 0), (2, 4, 4), (5, 1, 3, 3), (0, 2, 2), (3, 0, 0), (10, 8, 8)]
    bad = [(3,), (), (2, 3), (4, 3, 2)]
    for fn in ("inv", "det", "slogdet", "eig", "eigvals"):
        for dt in DTYPES:
            for s in square + bad:
                lines.append(case(fn, [(dt, s)]))
    rect = [(3, 3), (4, 3), (3, 5), (1, 1), (1, 4), (6, 1), (2, 4, 3), (2, 3, 4), (5, 1, 2, 2),
            (0, 3), (3, 0), (2, 0, 3), (0, 2, 2), (3,), ()]
    for fn in ("svd_full", "svd_reduced", "svdvals", "qr_reduced", "qr_complete", "qr_r",
               "qr_raw"):
        for dt in DTYPES:
            for s in rect:
                lines.append(case(fn, [(dt, s)]))
    for fn in ("matrix_rank", "pinv", "cond_none", "cond_m2", "cond_1", "cond_inf", "cond_fro",
               "cond_nuc"):
        for dt in DTYPES:
            for s in rect + [(2, 2, 2)]:
                lines.append(case(fn, [(dt, s)]))
    for fn in ("pinv_hermitian", "matrix_rank_hermitian", "svd_hermitian", "svd_hermitianvals"):
        for dt in DTYPES:
            for s in square + bad + [(0, 3), (2, 0, 3)]:
                lines.append(case(fn, [(dt, s)]))
    tensors = [(2, 3, 6), (6, 2, 3), (4, 4), (2, 2, 2, 2), (3, 2, 2, 3), (2, 3, 4), (1, 1), (5,)]
    for fn in ("tensorinv_1", "tensorinv_2"):
        for dt in ("int8", "float16", "float32", "complex64"):
            for s in tensors:
                lines.append(case(fn, [(dt, s)]))
    for sa, sb in [((2, 3, 6), (2, 3)), ((6, 2, 3), (6,)), ((2, 2, 2, 2), (2, 2)),
                   ((3, 2, 3, 2), (3, 2)), ((4, 4), (4,)), ((2, 3, 5), (2, 3)), ((4,), (4,)),
                   ((2, 2, 2, 2), (4,))]:
        for fn in ("tensorsolve", "tensorsolve_axes"):
            lines.append(case(fn, [("float64", sa), ("float32", sb)]))
    # lstsq evaluates (it reads the rank): CPU tests check its errors, GPU tests the rest.
    for sa, sb in [((3, 2), (3,)), ((3, 2), (3, 4)), ((2, 3), (2,)), ((3, 2), (4,)),
                   ((2, 2, 2), (2,)), ((3,), (3,)), ((0, 2), (0,)), ((3, 0), (3, 2)),
                   ((3, 2), (3, 0)), ((3, 2), (3, 2, 1)), ((3, 2), ())]:
        for da, db in [("float64", "float64"), ("float32", "int8"), ("complex64", "float32"),
                       ("float16", "float32"), ("float32", "float16")]:
            lines.append(case("lstsq", [(da, sa), (db, sb)]))
    pairs = [((3, 3), (3,)), ((3, 3), (3, 2)), ((3, 3), (3, 1)), ((2, 3, 3), (3,)),
             ((2, 3, 3), (2, 3)), ((2, 3, 3), (3, 5)), ((2, 3, 3), (2, 3, 4)),
             ((4, 1, 3, 3), (2, 3, 1)), ((1, 3, 3), (6, 3, 2)), ((3, 3), (4,)), ((3, 3), (4, 2)),
             ((3, 3), ()), ((2, 3, 3), (4, 3, 2)), ((3, 4), (3,)), ((3,), (3,)),
             ((0, 0), (0,)), ((0, 0), (0, 3)), ((2, 0, 0), (2, 0, 1)), ((3, 3), (3, 0)),
             ((2, 2, 2), (0, 2, 2))]
    for sa, sb in pairs:
        lines.append(case("solve", [("float64", sa), ("float64", sb)]))
    for da in DTYPES:
        for db in DTYPES:
            lines.append(case("solve", [(da, (2, 3, 3)), (db, (3, 2))]))
    with open(os.path.join(out, "linalg.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
