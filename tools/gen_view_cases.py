#!/usr/bin/env python3
"""Generates tests/data/views.txt and tests/data/views_broadcast.txt with NumPy as the oracle.

    python3 tools/gen_view_cases.py [outdir]     (default: tests/data next to this script)

views.txt: one chain of view ops per line, applied to a C-contiguous int64 array:

    <base shape> | <op> ; <op> ; ... | ok <ndim> <shape> <strides> <offset> <orig|copy>
    <base shape> | <op> ; <op> ; ... | err <loom function>: <message>

Strides and offset are in elements (NumPy's bytes / itemsize), offset from the start of the
buffer the result reads: the original array ("orig") or the copy a reshape had to make
("copy"). Strides of extent-1 axes are never stepped, so tests ignore them; offsets and bases
mean nothing for 0-size results, so tests ignore those too. Ops (N is None, * is axes=None):

    reshape d... | ravel | transpose * | transpose p... | swapaxes a b | moveaxis s d
    expand_dims ax | squeeze * | squeeze ax... | flip * | flip ax... | slice ax start stop step
    index ax i | broadcast_to d...

On failure the line names the first op's error; the ops after it must leave that error alone.
Loom's messages are NumPy's, except where noted in expected_error().

views_broadcast.txt: n shapes broadcast together, and np.broadcast_arrays' strides:

    <shape> ; <shape> ; ... | ok <ndim> <shape> | <strides> ; <strides> ; ...
    <shape> ; <shape> ; ... | err <message>
"""
import os
import random
import sys

import numpy as np
from numpy.lib.array_utils import normalize_axis_index

SEED = 20240611
N_CHAINS = 1500
N_BROADCAST = 300


def fmt_shape(shape):
    """Loom's shape format (loom__fmt_shape): (3,4), (5,), ()."""
    if len(shape) == 1:
        return "(%d,)" % shape[0]
    return "(" + ",".join(str(d) for d in shape) + ")"


def owner(a):
    while a.base is not None:
        a = a.base
    return a


def describe(r, orig):
    """The 'ok ...' field for result r of a chain on orig."""
    item = r.itemsize
    strides = [s // item for s in r.strides]
    off = (r.__array_interface__["data"][0] - owner(r).__array_interface__["data"][0]) // item
    where = "orig" if r.size and np.shares_memory(r, orig) else "copy"
    return "ok %d %s %s %d %s" % (r.ndim, " ".join(map(str, r.shape)),
                                  " ".join(map(str, strides)), off, where)


# ---- ops: each returns (text, function of a NumPy array, loom function name) ----

def rand_factors(size, rng):
    """A random shape with this many elements."""
    if size == 0:
        dims = [rng.choice([0, 1, 2, 3]) for _ in range(rng.randint(1, 4))]
        dims[rng.randrange(len(dims))] = 0
        return dims
    dims, left = [], size
    for p in range(2, size + 1):
        while left % p == 0:
            dims.append(p)
            left //= p
    rng.shuffle(dims)
    # Merge neighbours at random and sprinkle extent-1 axes.
    out = []
    for d in dims:
        if out and rng.random() < 0.4:
            out[-1] *= d
        else:
            out.append(d)
    for _ in range(rng.choice([0, 0, 1, 2])):
        out.insert(rng.randint(0, len(out)), 1)
    return out


def op_reshape(s, rng):
    size = int(np.prod(s))
    dims = rand_factors(size, rng)
    r = rng.random()
    if r < 0.35 and dims:
        dims[rng.randrange(len(dims))] = -1
    elif r < 0.40 and len(dims) >= 2:
        dims[0] = dims[1] = -1
    elif r < 0.48:
        dims = dims + [rng.choice([2, 3])]  # wrong size (unless size is 0)
    if rng.random() < 0.1:
        return "ravel", lambda a: a.reshape(-1), "loom_ravel"
    return ("reshape " + " ".join(map(str, dims)), lambda a: a.reshape(dims), "loom_reshape")


def rand_axis(nd, rng, extra=1):
    """An axis of an nd-dimensional array, or up to extra past either end."""
    extra = max(extra, 1) if nd == 0 else extra
    return rng.randint(-nd - extra, nd - 1 + extra)


def op_transpose(s, rng):
    nd = len(s)
    if rng.random() < 0.3:
        return "transpose *", lambda a: a.T, "loom_transpose"
    perm = list(range(nd))
    rng.shuffle(perm)
    perm = [p - nd if rng.random() < 0.3 else p for p in perm]
    if nd and rng.random() < 0.1:
        perm[rng.randrange(nd)] = rand_axis(nd, rng, 2)  # repeated or out of range
    return ("transpose " + " ".join(map(str, perm)), lambda a: a.transpose(perm),
            "loom_transpose")


def op_swapaxes(s, rng):
    nd = len(s)
    a1, a2 = rand_axis(nd, rng, 0 if rng.random() < 0.9 else 2), rand_axis(nd, rng, 0)
    return "swapaxes %d %d" % (a1, a2), lambda a: np.swapaxes(a, a1, a2), "loom_swapaxes"


def op_moveaxis(s, rng):
    nd = len(s)
    src, dst = rand_axis(nd, rng, 0), rand_axis(nd, rng, 0 if rng.random() < 0.9 else 2)
    return "moveaxis %d %d" % (src, dst), lambda a: np.moveaxis(a, src, dst), "loom_moveaxis"


def op_expand_dims(s, rng):
    ax = rand_axis(len(s) + 1, rng, 0 if rng.random() < 0.9 else 1)
    return "expand_dims %d" % ax, lambda a: np.expand_dims(a, ax), "loom_expand_dims"


def op_squeeze(s, rng):
    nd = len(s)
    if rng.random() < 0.3:
        return "squeeze *", lambda a: np.squeeze(a), "loom_squeeze"
    axes = [i for i in range(nd) if s[i] == 1 and rng.random() < 0.7]
    if rng.random() < 0.15 and nd:
        axes.append(rng.randrange(nd))  # maybe not extent 1, maybe repeated
    if rng.random() < 0.05:
        axes.append(rand_axis(nd, rng, 2))
    rng.shuffle(axes)
    axes = [x - nd if x >= 0 and x < nd and rng.random() < 0.3 else x for x in axes]
    return ("squeeze " + " ".join(map(str, axes)), lambda a: np.squeeze(a, tuple(axes)),
            "loom_squeeze")


def op_flip(s, rng):
    nd = len(s)
    if rng.random() < 0.3:
        # NumPy's flip of a 0-d array returns a scalar, not a view: a[...] is the view.
        return "flip *", lambda a: np.flip(a) if a.ndim else a[...], "loom_flip"
    axes = [i - nd if rng.random() < 0.3 else i for i in range(nd) if rng.random() < 0.5]
    r = rng.random()
    if r < 0.05 and axes:
        axes.append(axes[0])  # repeated
    elif r < 0.1:
        axes.append(rand_axis(nd, rng, 2))
    rng.shuffle(axes)
    return ("flip " + " ".join(map(str, axes)),
            lambda a: np.flip(a, tuple(axes)) if a.ndim or axes else a[...], "loom_flip")


def axis_then(ax, f):
    """Loom's slice and index take an axis; NumPy's indexing has none, so check it first."""
    def g(a):
        return f(a, normalize_axis_index(ax, a.ndim))
    return g


def rand_bound(n, rng):
    return None if rng.random() < 0.25 else rng.randint(-n - 3, n + 3)


def op_slice(s, rng):
    nd = len(s)
    ax = rand_axis(nd, rng, 0 if rng.random() < 0.95 else 1)
    n = s[ax] if -nd <= ax < nd else 3
    start, stop = rand_bound(n, rng), rand_bound(n, rng)
    step = None if rng.random() < 0.2 else rng.choice([1, 1, 2, 3, -1, -1, -2, -3, 7])
    step = 0 if rng.random() < 0.03 else step
    txt = "slice %d %s %s %s" % (ax, *("N" if v is None else str(v) for v in (start, stop, step)))

    def f(a, k):
        return a[(slice(None),) * k + (slice(start, stop, step),)]
    return txt, axis_then(ax, f), "loom_slice"


def op_index(s, rng):
    nd = len(s)
    ax = rand_axis(nd, rng, 0 if rng.random() < 0.95 else 1)
    n = s[ax] if -nd <= ax < nd else 3
    i = rng.randint(-n - 1, n) if rng.random() < 0.2 else rng.randint(-n, max(n - 1, 0))

    def f(a, k):
        return a[(slice(None),) * k + (i, Ellipsis)]  # the Ellipsis keeps 0-d results arrays
    return "index %d %d" % (ax, i), axis_then(ax, f), "loom_index"


def op_broadcast_to(s, rng):
    dims = [rng.choice([1, 2, 3]) for _ in range(rng.choice([0, 0, 1, 2]))]
    dims += [rng.choice([2, 3, 4]) if d == 1 and rng.random() < 0.6 else d for d in s]
    if rng.random() < 0.08 and dims:
        k = rng.randrange(len(dims))
        dims[k] += 1  # usually breaks the broadcast
    return ("broadcast_to " + " ".join(map(str, dims)),
            lambda a: np.broadcast_to(a, tuple(dims)), "loom_broadcast_to")


OPS = [op_reshape, op_reshape, op_transpose, op_swapaxes, op_moveaxis, op_expand_dims,
       op_squeeze, op_flip, op_slice, op_slice, op_index, op_broadcast_to]


def expected_error(text, exc, a):
    """Loom's message for the error NumPy raised on op text applied to a."""
    name, *args = text.split()
    msg = str(exc)
    if name in ("reshape", "ravel"):
        if msg.startswith("cannot reshape"):
            dims = [int(x) for x in args] if name == "reshape" else [-1]
            # NumPy writes the unknown extent as "newaxis"; Loom keeps the caller's -1.
            ours = "cannot reshape array of size %d into shape %s" % (a.size, fmt_shape(dims))
            assert -1 in dims or ours == msg, (ours, msg)
            return ours
    if name == "broadcast_to":
        # NumPy's wording names its internal "remapped shapes"; Loom's names the two shapes.
        return "cannot broadcast shape %s to %s" % (fmt_shape(a.shape),
                                                    fmt_shape([int(x) for x in args]))
    if name == "flip" and msg == "repeated axis" and any(
            not -a.ndim <= int(x) < a.ndim for x in args):
        return None  # NumPy checks every bound before repeats here, Loom goes axis by axis
    return msg


def gen_chains(rng):
    lines = []
    while len(lines) < N_CHAINS:
        base = [rng.choice([0, 1, 2, 3, 4, 5]) for _ in range(rng.choice([0, 1, 2, 3, 3, 4, 4]))]
        if rng.random() < 0.85 and 0 in base:
            base = [d or 2 for d in base]  # mostly non-empty
        orig = np.arange(int(np.prod(base)), dtype=np.int64).reshape(base)
        cur, ops, result = orig, [], None
        for _ in range(rng.randint(1, 6)):
            text, f, fn = rng.choice(OPS)(list(cur.shape), rng)
            ops.append(text)
            if result is not None:
                continue  # ops after a failure only check that the first error stays
            try:
                cur = f(cur)
                assert isinstance(cur, np.ndarray), text
                if cur.ndim > 32:
                    result = "skip"
            except (ValueError, IndexError, TypeError) as e:
                msg = expected_error(text, e, cur)
                result = "skip" if msg is None else "err %s: %s" % (fn, msg)
        if result == "skip":
            continue
        result = result or describe(cur, orig)
        lines.append("%s | %s | %s" % (" ".join(map(str, base)), " ; ".join(ops), result))
    return lines


def gen_broadcast(rng):
    lines = []
    while len(lines) < N_BROADCAST:
        nd = rng.randint(0, 4)
        target = [rng.choice([0, 1, 2, 3, 5]) for _ in range(nd)]
        shapes = []
        for _ in range(rng.randint(1, 5)):
            k = rng.randint(0, nd)
            s = [d if rng.random() < 0.6 else 1 for d in target[nd - k:]]
            if rng.random() < 0.06 and s:
                s[rng.randrange(len(s))] = rng.choice([2, 4, 7])
            shapes.append(s)
        arrays = [np.empty(s, dtype=np.int64) for s in shapes]
        head = " ; ".join(" ".join(map(str, s)) for s in shapes)
        try:
            outs = np.broadcast_arrays(*arrays)
        except ValueError:
            names = [fmt_shape(s) for s in shapes]
            joined = ", ".join(names[:-1]) + " and " + names[-1]
            lines.append("%s | err shapes %s cannot be broadcast" % (head, joined))
            continue
        shape = outs[0].shape if outs else ()
        assert tuple(np.broadcast_shapes(*shapes)) == tuple(shape)
        strides = " ; ".join(" ".join(str(x // 8) for x in o.strides) for o in outs)
        lines.append("%s | ok %d %s | %s" % (head, len(shape), " ".join(map(str, shape)),
                                              strides))
    return lines


def main():
    outdir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")
    rng = random.Random(SEED)
    header = "# Generated by tools/gen_view_cases.py (NumPy %s); do not edit.\n" % np.__version__
    with open(os.path.join(outdir, "views.txt"), "w") as f:
        f.write(header)
        f.write("\n".join(gen_chains(rng)) + "\n")
    with open(os.path.join(outdir, "views_broadcast.txt"), "w") as f:
        f.write(header)
        f.write("\n".join(gen_broadcast(rng)) + "\n")


if __name__ == "__main__":
    main()
