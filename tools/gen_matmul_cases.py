#!/usr/bin/env python3
"""Generates tests/data/matmul.txt: the result dtype and shape (or the error) of Loom's matrix
products (include/loom.h, "Matrix products") with NumPy as the oracle. tests/test_matmul.c and
tests/test_einsum.c read it.

    python3 tools/gen_matmul_cases.py [outdir]     (default: tests/data next to this script)

One case per line:

    <fn> <extra> <n> <operand>... -> ok <dtype> <shape> [v:<c1>,<c2>]
    <fn> <extra> <n> <operand>... -> err <message>

An operand is "<dtype>:<shape>" ("float32:2,3"; "float32:" is 0-d); a result shape is
"s:2,3". extra: "-"; tensordot "a:<axes_a>|<axes_b>"; trace and diagonal
"o:<offset>,<axis1>,<axis2>"; linalg_matrix_power "n:<power>"; einsum "s:<subscripts>" with
every space written as '~'.

Operand t (0-based) holds small integers, element i (C order) being (7i + 3t) % 5 - 1 (unsigned
dtypes (7i + 3t) % 4, bool (i + t) % 3 != 0, complex ones also the imaginary part
(3i + t) % 4 - 2). Where NumPy's result equals the exact one (the same case computed in float64
or complex128, != 0 for bool results), "v:" gives two checksums of its values r (flattened):
c1 = sum(re(r[i]) * (i % 13 + 1) + im(r[i]) * (i % 11 + 2)) and
c2 = sum((|re(r[i])| + 3 |im(r[i])|) * (i % 5 + 1)), which the tests compare with the values of
the recorded graph (tests/graph_eval.h).

NumPy has no bfloat16, so no case here has one: tests/test_matmul.c checks bfloat16 against
Loom's promotion rules (docs/dtypes.md) instead.

Messages are NumPy's, except where docs/linalg.md says Loom words them differently; the
generator then writes Loom's message (loom_message() and the *_error() helpers below).
"""
import os
import random
import sys
import warnings

import numpy as np

SEED = 7
DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "float32", "float64", "complex64", "complex128"]


def fmt_operand(dt, shape):
    return "%s:%s" % (dt, ",".join(map(str, shape)))


def fmt_shape(s):
    return "s:" + ",".join(map(str, s))


def fmt_list(v):
    return ",".join(map(str, v))


def values(dt, shape, t):
    """Operand t's elements (the module docstring's formula)."""
    i = np.arange(int(np.prod(shape, dtype=np.int64)))
    if dt == "bool":
        v = (i + t) % 3 != 0
    elif dt.startswith("uint"):
        v = (7 * i + 3 * t) % 4
    else:
        v = (7 * i + 3 * t) % 5 - 1
    if dt.startswith("complex"):
        v = v + 1j * ((3 * i + t) % 4 - 2)
    return v.astype(dt).reshape(shape)


def exact(dt):
    return "complex128" if dt.startswith("complex") else "float64"


def checksums(r, call, ops):
    """" v:c1,c2" when r is the exact answer, else ""."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            e = np.asarray(call(*[values(dt, s, t).astype(exact(dt))
                                  for t, (dt, s) in enumerate(ops)]))
    except (ValueError, TypeError, IndexError, np.linalg.LinAlgError):
        return ""
    if r.dtype == bool:
        e = e != 0
    if e.shape != r.shape or not np.array_equal(e.astype(r.dtype), r) or \
            not np.array_equal(np.asarray(r, dtype=np.complex128), np.asarray(e, np.complex128)):
        return ""
    flat = np.asarray(r, dtype=np.complex128).ravel()
    if flat.size and np.max(np.abs(flat)) >= 2 ** 40:
        return ""
    re = [int(x) for x in flat.real]
    im = [int(x) for x in flat.imag]
    c1 = sum(x * (i % 13 + 1) + y * (i % 11 + 2) for i, (x, y) in enumerate(zip(re, im)))
    c2 = sum((abs(x) + 3 * abs(y)) * (i % 5 + 1) for i, (x, y) in enumerate(zip(re, im)))
    return " v:%d,%d" % (c1, c2)


def run(fn, extra_txt, ops, call, loom_error=None, values_known=True):
    """One line: call(*arrays) is NumPy's answer; loom_error(shapes, numpy_message) may return
    Loom's message where Loom words an error otherwise or fails where NumPy does not (None:
    NumPy's answer stands). numpy_message is None when NumPy succeeded. values_known false:
    no checksums (call's values are not the case's)."""
    arrays = [values(dt, shape, t) for t, (dt, shape) in enumerate(ops)]
    head = "%s %s %d %s ->" % (fn, extra_txt, len(ops),
                               " ".join(fmt_operand(dt, shape) for dt, shape in ops))
    shapes = [s for _, s in ops]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = np.asarray(call(*arrays))
    except (ValueError, TypeError, IndexError, np.linalg.LinAlgError) as e:
        msg = loom_error(shapes, str(e)) if loom_error else None
        return head + " err " + (msg or str(e))
    msg = loom_error(shapes, None) if loom_error else None
    if msg:
        return head + " err " + msg
    sums = checksums(r, call, ops) if values_known else ""
    return head + " ok %s %s%s" % (r.dtype, fmt_shape(r.shape), sums)


# ---- Loom's own wording (docs/linalg.md, "Differences from NumPy") ----

def tensordot_error(shapes, np_msg, axes_a, axes_b):
    """Loom names an out-of-range axis (NumPy: IndexError 'tuple index out of range') and calls
    an axis given twice under two names a duplicate (NumPy: 'axes don't match array')."""
    if np_msg not in ("tuple index out of range", "axes don't match array"):
        return None
    (sa, sb) = shapes
    if len(set(axes_a)) != len(axes_a) or len(set(axes_b)) != len(axes_b):
        return None
    seen_a, seen_b = set(), set()
    for x, y in zip(axes_a, axes_b):
        for what, ax, nd in (("axes_a", x, len(sa)), ("axes_b", y, len(sb))):
            if not -nd <= ax < nd:
                return "%s: axis %d is out of bounds for array of dimension %d" % (what, ax, nd)
        if sa[x] != sb[y]:
            return None
        x, y = x % len(sa), y % len(sb)
        if x in seen_a or y in seen_b:
            return "duplicate axes are not allowed in tensordot"
        seen_a.add(x)
        seen_b.add(y)
    return None


def multi_dot_error(shapes, np_msg):
    """Loom checks the whole chain before choosing its order and names the first pair that does
    not align; NumPy names the pair its chosen order multiplies first."""
    if not np_msg or "not aligned" not in np_msg:
        return None
    n = len(shapes)
    if n == 2 or any(len(s) != 2 and not (len(s) == 1 and i in (0, n - 1))
                     for i, s in enumerate(shapes)):
        return None
    mats = [tuple(s) for s in shapes]
    if len(mats[0]) == 1:
        mats[0] = (1,) + mats[0]
    if len(mats[-1]) == 1:
        mats[-1] = mats[-1] + (1,)
    for x, y in zip(mats, mats[1:]):
        if x[1] != y[0]:
            return "shapes (%d,%d) and (%d,%d) not aligned: %d (dim 1) != %d (dim 0)" % (
                x + y + (x[1], y[0]))
    return None


def negative_power(a, n):
    """np.linalg.matrix_power(a, n) for n < 0 as Loom records it: the inverse's dtype and shape
    come from an identity of a's dtype and shape (a singular operand is NumPy's LinAlgError at
    the call, Loom's when the result is read: docs/linalg.md); NumPy's own errors otherwise."""
    if a.ndim >= 2 and a.shape[-1] == a.shape[-2]:
        a = np.broadcast_to(np.eye(a.shape[-1], dtype=a.dtype), a.shape)
    return np.linalg.matrix_power(a, n)


def einsum_error(subscripts, shapes, np_msg):
    """Loom's message where NumPy's c_einsum swaps 'more' and 'fewer' operands, and where its
    iterator reports mismatched label sizes as a broadcast error."""
    if not np_msg:
        return None
    if "operands provided to einstein sum function" in np_msg:
        return "Number of einsum subscripts must be equal to the number of operands."
    if not np_msg.startswith("operands could not be broadcast together"):
        return None
    terms = subscripts.split("->")[0].split(",")
    # Label sizes, as Loom's label_sizes() assigns them (extent-1 axes broadcast).
    parsed = []
    nb = 0
    for t, s in zip(terms, shapes):
        t = t.replace(" ", "")
        if "..." in t:
            left, right = t.split("...")
            e = len(s) - len(left) - len(right)
            nb = max(nb, e)
            parsed.append((left, e, right))
        else:
            parsed.append((t, 0, ""))
    sizes = {}
    for iop, ((left, e, right), s) in enumerate(zip(parsed, shapes)):
        labels = list(left) + [("...", nb - e + k) for k in range(e)] + list(right)
        for lab, d in zip(labels, s):
            old = sizes.get(lab)
            if old is None or old == 1:
                sizes[lab] = d
            elif d not in (1, old):
                if isinstance(lab, tuple):
                    return ("Size of '...' dimension %d for operand %d (%d) does not match "
                            "previous terms (%d)." % (lab[1], iop, d, old))
                return ("Size of label '%s' for operand %d (%d) does not match previous "
                        "terms (%d)." % (lab, iop, d, old))
    return None


# ---- the cases ----

MATMUL_SHAPES = [
    ((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4)), ((0, 3), (3, 4)),
    ((2, 0), (0, 4)), ((0,), (0,)), ((2, 3), (3, 0)), ((5, 2, 3), (3, 4)), ((2, 3), (5, 3, 4)),
    ((5, 2, 3), (5, 3, 4)), ((5, 1, 2, 3), (4, 3, 2)), ((1, 2, 3), (7, 3, 1)), ((3,), (5, 3, 4)),
    ((5, 2, 3), (3,)), ((0, 2, 3), (3, 4)), ((4, 2, 3), (5, 3, 4)), ((2, 3), (4, 5)),
    ((3,), (4,)), ((), (3,)), ((3,), ()), ((), ()), ((2, 3), (4,)), ((4,), (2, 3)),
    ((1, 1), (1, 1)), ((6, 1, 3), (1, 5, 3, 2)), ((2, 3, 0), (0,)), ((4, 2, 3), (5, 4, 5)),
    ((4, 2, 3), (1, 5, 3, 5)), ((2, 1, 2, 3), (3, 3, 5)), ((3, 1, 1, 4), (2, 1, 4, 2)),
    ((1,), (1, 7)), ((7, 1), (1,)), ((2, 2, 2, 2, 2, 3), (3, 2)), ((0, 0), (0, 0)),
]

DOT_SHAPES = [
    ((), ()), ((), (3,)), ((2, 3), ()), ((3,), (3,)), ((3,), (4,)), ((2, 3), (3,)),
    ((3,), (3, 4)), ((2, 3), (3, 4)), ((2, 3), (4, 5)), ((2, 3, 4), (4,)), ((2, 3, 4), (5,)),
    ((4,), (5, 4, 3)), ((2, 3, 4), (5, 4, 6)), ((2, 3, 4), (5, 6, 3)), ((0, 3), (3, 2)),
    ((2, 0), (0, 2)), ((2, 3, 4), (1, 2, 4, 5)), ((1,), (1,)), ((0,), (0, 3)),
]

INNER_SHAPES = [
    ((), ()), ((), (2, 3)), ((3,), ()), ((3,), (3,)), ((3,), (4,)), ((2, 3), (3,)),
    ((2, 3), (4, 3)), ((2, 3), (3, 4)), ((2, 3, 4), (5, 4)), ((2, 3, 4), (5, 6, 3)),
    ((2, 3, 4), (5, 6, 4)), ((0, 3), (2, 3)), ((2, 0), (3, 0)), ((4,), (2, 3, 4)),
]

VDOT_SHAPES = [
    ((3,), (3,)), ((2, 3), (6,)), ((2, 3), (3, 2)), ((3,), (4,)), ((), ()), ((), (1,)),
    ((0,), (0, 5)), ((2, 2, 2), (8,)), ((1, 3), (2,)),
]

OUTER_SHAPES = [((3,), (4,)), ((), ()), ((2, 3), (4,)), ((0,), (3,)), ((2, 2), (3, 1, 2)),
                ((5,), ())]

KRON_SHAPES = [
    ((2,), (3,)), ((2, 3), (4, 5)), ((2, 3), (4, 5, 6)), ((4, 5, 6), (2, 3)), ((), (4, 5)),
    ((2,), ()), ((), ()), ((2, 0), (3,)), ((1, 2, 1), (3, 1, 2)), ((2, 2), (2, 2)),
]

TENSORDOT = [
    ((2, 3), (3, 4), [1], [0]), ((2, 3), (3, 4), [-1], [-2]),
    ((2, 3, 4), (4, 3, 5), [1, 2], [1, 0]),
    ((2, 3), (3, 2), [0, 1], [1, 0]), ((2, 3), (2, 3), [0, 1], [1, 0]), ((2, 3), (3, 4), [], []),
    ((), (), [], []), ((2, 3), (3, 4), [5], [0]), ((2, 3), (3, 4), [1], [-3]),
    ((3, 3), (3, 3), [0, 0], [1, 0]), ((3, 3), (3, 3), [1, -1], [0, 1]),
    ((2, 3), (3, 4), [1], [1]), ((2, 3, 4), (3, 4), [-2, -1], [0, 1]),
    ((0, 3), (3, 0), [1], [0]), ((2, 3, 4, 5), (5, 4, 3, 2), [0, 3], [3, 0]),
    ((2, 3), (4,), [], []), ((2, 3, 4), (4, 2), [0, 2], [1, 0]),
]

DIAG_SHAPES = [(3,), (), (3, 3), (3, 4), (4, 3), (0, 3), (2, 3, 4), (3, 1, 4, 2), (1, 1)]

MATRIX_POWER_SHAPES = [(2, 2), (3, 3), (0, 0), (2, 3, 3), (4, 1, 1), (2, 3), (3,), ()]

MULTI_DOT = [
    [(3,), (3,)], [(2, 3), (3, 4)], [(2, 3, 4), (5, 4, 3)], [(3,)],
    [(3,), (3, 4), (4,)], [(2, 3), (3, 4), (4,)], [(3,), (3, 4), (4, 5)],
    [(2, 3), (3, 4), (4, 5)], [(2, 3), (2, 3, 4), (4,)], [(2, 3), (5, 4), (4,)],
    [(10, 2), (2, 30), (30, 3), (3, 40)], [(3,), (3, 1), (1, 5), (5, 2), (2,)],
    [(4, 5), (5, 6), (6, 7), (7, 8), (8, 9)], [(1, 2), (2, 3), (4, 5), (5, 6)],
    [(), (3, 4), (4, 5)], [(2, 3), (3, 4), ()], [(0, 3), (3, 4), (4, 2)],
]

# (subscripts, shapes): explicit and implicit outputs, '...', repeated labels, both cases of
# letters, spaces, and the errors of the subscript language.
EINSUM = [
    ("ij,jk->ik", [(2, 3), (3, 4)]), ("ij,jk", [(2, 3), (3, 4)]), ("ij,kj->ik", [(2, 3), (4, 3)]),
    ("ij,jk->ki", [(2, 3), (3, 4)]), ("ij->ji", [(2, 3)]), ("ji", [(2, 3)]), ("ij", [(2, 3)]),
    ("ba", [(2, 3)]), ("ii", [(3, 3)]), ("ii->i", [(3, 3)]), ("ii->", [(3, 3)]),
    ("iij->j", [(3, 3, 4)]), ("iji->ij", [(3, 4, 3)]), ("iii->i", [(2, 2, 2)]),
    ("ij->", [(2, 3)]), ("ij->i", [(2, 3)]), ("ij->j", [(2, 3)]), ("i->", [(5,)]),
    ("i", [(5,)]), ("", [()]), ("->", [()]), (",->", [(), ()]), ("i,->i", [(3,), ()]),
    ("i,i", [(3,), (3,)]), ("i,i->i", [(3,), (3,)]), ("i,j", [(3,), (4,)]),
    ("i,j->ij", [(3,), (4,)]), ("i,j->ji", [(3,), (4,)]), ("ij,ij->ij", [(2, 3), (2, 3)]),
    ("ij,ij->", [(2, 3), (2, 3)]), ("ij,ij", [(2, 3), (2, 3)]), ("ij,ji", [(2, 3), (3, 2)]),
    ("bij,bjk->bik", [(5, 2, 3), (5, 3, 4)]), ("bij,bjk", [(5, 2, 3), (5, 3, 4)]),
    ("bij,bjk->ik", [(5, 2, 3), (5, 3, 4)]), ("bij,bjk->bk", [(5, 2, 3), (5, 3, 4)]),
    ("ijk,jkl->il", [(2, 3, 4), (3, 4, 5)]), ("ijk,kji->", [(2, 3, 4), (4, 3, 2)]),
    ("abc,cd,de->abe", [(2, 3, 4), (4, 5), (5, 6)]), ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]),
    ("ij,jk,kl", [(2, 3), (3, 4), (4, 5)]), ("ij,jk,kl->", [(2, 3), (3, 4), (4, 5)]),
    ("ij,jk,ki->", [(2, 3), (3, 4), (4, 2)]), ("i,i,i->", [(3,), (3,), (3,)]),
    ("i,j,k->ijk", [(2,), (3,), (4,)]), ("ij,jk,kl,lm->im", [(2, 3), (3, 4), (4, 5), (5, 6)]),
    ("ab,bc,cd,de,ef->af", [(2, 3), (3, 4), (4, 5), (5, 6), (6, 7)]),
    ("ea,fb,abcd,gc,hd->efgh", [(2, 3), (2, 3), (3, 3, 3, 3), (2, 3), (2, 3)]),
    ("...ij,...jk->...ik", [(5, 2, 3), (5, 3, 4)]), ("...ij,...jk", [(5, 2, 3), (3, 4)]),
    ("...ij,...jk", [(2, 2, 3), (3, 1, 3, 5)]), ("...,...", [(2, 3), (3,)]),
    ("...,...", [(2, 3), (4,)]), ("...i,...i", [(2, 3), (3,)]), ("i...->...", [(2, 3, 4)]),
    ("...i->...", [(2, 3)]), ("...i->i", [(2, 3)]), ("i...", [(2, 3, 4)]),
    ("...ii->...i", [(4, 3, 3)]), ("i...i", [(3, 4, 3)]), ("i...j,j...", [(2, 5, 3), (3, 4, 1)]),
    ("...", [(2, 3)]), ("...->", [(2, 3)]), ("ij->...", [(2, 3)]), ("ij...->...ji", [(2, 3)]),
    ("Ab,bA", [(2, 3), (3, 2)]), ("Ab,bA->Ab", [(2, 3), (3, 2)]), ("aA", [(2, 3)]),
    ("Zz->zZ", [(2, 3)]), ("i j -> j", [(2, 3)]), (" i j , j k ", [(2, 3), (3, 4)]),
    ("ij,jk", [(2, 1), (4, 5)]), ("ij,jk", [(2, 3), (1, 5)]), ("ij,jk->ik", [(2, 3), (4, 5)]),
    ("i,i", [(0,), (1,)]), ("i,i", [(0,), (0,)]), ("ij,jk", [(0, 3), (3, 4)]),
    ("ij,jk", [(2, 0), (0, 4)]), ("ij,jk,kl", [(2, 3), (3, 4), (5, 6)]),
    ("ii", [(2, 3)]), ("ii,i", [(2, 3), (2,)]), ("ii->i", [(1, 3)]), ("iji,j", [(2, 3, 3), (3,)]),
    ("ijk", [(2, 3)]), ("ij", [(2, 3, 4)]), ("i", [()]), ("i,j", [(2,)]), ("i", [(2,), (3,)]),
    ("ij,jk->", [(2, 3)]), ("i->j,k", [(2,), (3,)]), ("i1", [(2, 3)]), ("ij->k", [(2, 3)]),
    ("ij->ii", [(2, 3)]), ("ij->kk", [(2, 3)]), ("ij->i->j", [(2, 3)]), ("..i", [(2, 3)]),
    ("...i...", [(2, 3)]), ("i...->", [(2, 3)]), ("ij-", [(2, 3)]), ("ij>", [(2, 3)]),
    ("i-j", [(2, 3)]), ("i.j", [(2, 3)]), ("i->i..", [(2,)]), ("...i->...i...", [(2, 3)]),
    ("i,i->i_", [(2,), (2,)]), ("ij->j", [(0, 3)]), ("ij,j->i", [(4, 3), (3,)]),
]


def random_einsum(rng):
    """A random valid (or size-mismatched, now and then) einsum of 1 to 4 operands."""
    pool = "abcdefAB"
    sizes = {c: rng.randint(1, 4) for c in pool}
    n = rng.randint(1, 4)
    nb = rng.randint(0, 2)
    ell = [rng.randint(1, 3) for _ in range(nb)]
    terms, shapes, seen = [], [], []
    for _ in range(n):
        labels = [rng.choice(pool) for _ in range(rng.randint(0, 4))]
        shape = [sizes[c] if rng.random() < 0.85 else 1 for c in labels]
        for k, c in enumerate(labels):  # a repeated label needs equal extents
            shape[k] = shape[labels.index(c)]
        term = "".join(labels)
        if nb and rng.random() < 0.5:
            e = rng.randint(0, nb)
            pos = rng.randint(0, len(labels))
            term = term[:pos] + "..." + term[pos:]
            shape = shape[:pos] + [d if rng.random() < 0.8 else 1 for d in ell[nb - e:]] + \
                shape[pos:]
        if rng.random() < 0.05 and shape:
            shape[rng.randrange(len(shape))] += 2
        terms.append(term)
        shapes.append(tuple(shape))
        seen += labels
    sub = ",".join(terms)
    if rng.random() < 0.6:
        out = sorted(set(seen))  # sorted first: set order varies from run to run
        rng.shuffle(out)
        out = "".join(out[:rng.randint(0, len(out))])
        if any("..." in t for t in terms):
            pos = rng.randint(0, len(out))
            out = out[:pos] + "..." + out[pos:]
        sub += "->" + out
    return sub, shapes


def random_matmul_shapes(rng):
    def batch():
        return tuple(rng.choice([1, 2, 3]) for _ in range(rng.randint(0, 3)))
    m, k, n = rng.randint(0, 4), rng.randint(0, 4), rng.randint(1, 4)
    a = batch() + (m, k) if rng.random() < 0.8 else (k,)
    b = batch() + (k if rng.random() < 0.95 else k + 1, n) if rng.random() < 0.8 else (k,)
    return a, b


def random_tensordot(rng):
    na, nb, nc = rng.randint(0, 2), rng.randint(0, 2), rng.randint(0, 3)
    common = [rng.randint(1, 4) for _ in range(nc)]
    sa = [rng.randint(1, 3) for _ in range(na)] + common
    sb = common + [rng.randint(1, 3) for _ in range(nb)]
    pa = list(range(len(sa)))
    pb = list(range(len(sb)))
    rng.shuffle(pa)
    rng.shuffle(pb)
    shape_a = tuple(sa[i] for i in pa)
    shape_b = tuple(sb[i] for i in pb)
    axes_a = [pa.index(na + k) - (len(sa) if rng.random() < 0.3 else 0) for k in range(nc)]
    axes_b = [pb.index(k) - (len(sb) if rng.random() < 0.3 else 0) for k in range(nc)]
    return shape_a, shape_b, axes_a, axes_b


def main():
    outdir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")
    rng = random.Random(SEED)
    lines = []

    def dtypes2():
        return rng.choice(DTYPES), rng.choice(DTYPES)

    # matmul: every pair of dtypes on one shape pair, then every shape pair with a few.
    for da in DTYPES:
        for db in DTYPES:
            lines.append(run("matmul", "-", [(da, (2, 3)), (db, (3, 4))], np.matmul))
    for sa, sb in MATMUL_SHAPES:
        for _ in range(3):
            da, db = dtypes2()
            lines.append(run("matmul", "-", [(da, sa), (db, sb)], np.matmul))

    for _ in range(150):
        sa, sb = random_matmul_shapes(rng)
        lines.append(run("matmul", "-", [(rng.choice(DTYPES), sa), (rng.choice(DTYPES), sb)],
                         np.matmul))

    for fn, shapes, call in (("dot", DOT_SHAPES, np.dot), ("inner", INNER_SHAPES, np.inner),
                             ("vdot", VDOT_SHAPES, np.vdot), ("outer", OUTER_SHAPES, np.outer),
                             ("kron", KRON_SHAPES, np.kron)):
        for sa, sb in shapes:
            for _ in range(3):
                da, db = dtypes2()
                lines.append(run(fn, "-", [(da, sa), (db, sb)], call))
    for da in DTYPES:  # vdot conjugates complex a: every dtype on the left once
        lines.append(run("vdot", "-", [(da, (3,)), (rng.choice(DTYPES), (3,))], np.vdot))

    for sa, sb, xa, xb in TENSORDOT:
        for _ in range(2):
            da, db = dtypes2()
            lines.append(run("tensordot", "a:%s|%s" % (fmt_list(xa), fmt_list(xb)),
                             [(da, sa), (db, sb)],
                             lambda a, b, xa=xa, xb=xb: np.tensordot(a, b, (xa, xb)),
                             lambda shapes, m, xa=xa, xb=xb: tensordot_error(shapes, m, xa, xb)))

    for _ in range(100):
        sa, sb, xa, xb = random_tensordot(rng)
        da, db = dtypes2()
        lines.append(run("tensordot", "a:%s|%s" % (fmt_list(xa), fmt_list(xb)),
                         [(da, sa), (db, sb)],
                         lambda a, b, xa=xa, xb=xb: np.tensordot(a, b, (xa, xb)),
                         lambda shapes, m, xa=xa, xb=xb: tensordot_error(shapes, m, xa, xb)))

    offsets = [0, 1, -1, 2, -2, 5, -5, (1 << 31) - 1, -(1 << 31) + 1]
    axis_pairs = [(0, 1), (1, 0), (0, -1), (-1, 1), (2, 0), (-1, -2), (0, 0), (1, -2), (3, 1),
                  (0, -4), (1, 2), (-3, -1)]
    for shape in DIAG_SHAPES:
        for off in offsets:
            for a1, a2 in rng.sample(axis_pairs, 3):
                extra = "o:%d,%d,%d" % (off, a1, a2)
                for fn, call in (("diagonal", np.diagonal), ("trace", np.trace)):
                    dt = rng.choice(DTYPES)
                    lines.append(run(fn, extra, [(dt, shape)],
                                     lambda a, off=off, a1=a1, a2=a2, call=call:
                                     call(a, off, a1, a2)))
    for dt in DTYPES:  # trace's dtype is sum's
        lines.append(run("trace", "o:0,0,1", [(dt, (3, 3))], np.trace))

    for shape in MATRIX_POWER_SHAPES:
        for n in [0, 1, 2, 3, 4, 5, 6, 13, -1, -2]:
            dt = rng.choice(DTYPES)
            if n < 0:  # no checksums: the values need the device's inverse
                lines.append(run("linalg_matrix_power", "n:%d" % n, [(dt, shape)],
                                 lambda a, n=n: negative_power(a, n), values_known=False))
            else:
                lines.append(run("linalg_matrix_power", "n:%d" % n, [(dt, shape)],
                                 lambda a, n=n: np.linalg.matrix_power(a, n)))
    for dt in DTYPES:
        lines.append(run("linalg_matrix_power", "n:5", [(dt, (2, 2))],
                         lambda a: np.linalg.matrix_power(a, 5)))
    for dt in DTYPES:  # an inverse first: NumPy's linalg dtypes
        lines.append(run("linalg_matrix_power", "n:-3", [(dt, (2, 3, 3))],
                         lambda a: negative_power(a, -3), values_known=False))

    for shapes in MULTI_DOT:
        for _ in range(3):
            ops = [(rng.choice(DTYPES), s) for s in shapes]
            lines.append(run("linalg_multi_dot", "-", ops,
                             lambda *a: np.linalg.multi_dot(list(a)), multi_dot_error))

    for sub, shapes in EINSUM:
        for k in range(2):
            ops = [(rng.choice(DTYPES) if k else "float64", s) for s in shapes]
            lines.append(run("einsum", "s:" + sub.replace(" ", "~"), ops,
                             lambda *a, sub=sub: np.einsum(sub, *a),
                             lambda shp, m, sub=sub: einsum_error(sub, shp, m)))

    for _ in range(300):
        sub, shapes = random_einsum(rng)
        ops = [(rng.choice(DTYPES), sh) for sh in shapes]
        lines.append(run("einsum", "s:" + sub, ops, lambda *a, sub=sub: np.einsum(sub, *a),
                         lambda shp, m, sub=sub: einsum_error(sub, shp, m)))

    # einsum's dtype is NumPy's n-ary result_type, which is not a fold of the pairwise one.
    for _ in range(250):
        n = rng.randint(3, 5)
        ops = [(rng.choice(DTYPES), ()) for _ in range(n)]
        lines.append(run("einsum", "s:" + "," * (n - 1), ops,
                         lambda *a, n=n: np.einsum("," * (n - 1), *a)))

    header = ("# Generated by tools/gen_matmul_cases.py (NumPy %s); do not edit.\n"
              % np.__version__)
    with open(os.path.join(outdir, "matmul.txt"), "w") as f:
        f.write(header)
        f.write("\n".join(lines) + "\n")
    print(len(lines), "cases")


if __name__ == "__main__":
    main()
