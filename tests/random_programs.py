#!/usr/bin/env python3
"""Random programs: seeded random expression graphs over every NumPy dtype (views, broadcasts,
elementwise ops, casts, reductions, scans), run by Loom (tests/random_run.c) and checked against
NumPy 2, the oracle. docs/testing.md, "Random programs", describes the design.

    random_programs.py --record RANDOM_RUN DIR [COUNT]   (no GPU) every step's dtype and shape,
        or its refusal, must be NumPy's
    random_programs.py --eval RANDOM_RUN DIR [COUNT]     (GPU; 77 without one) also values:
        each step against NumPy applied to Loom's own inputs of that step, with the per-op
        tolerances of docs/testing.md; the last step fused and with LOOM_FUSE=0 bit for bit
        (where no float reduction or scan is involved, whose summation order may differ)
    random_programs.py --devices RANDOM_RUN DIR [COUNT]  (GPU; 77 without one) --eval on the
        GPU and on the host device (LOOM_TEST_DEVICE=cpu) with the same programs and inputs:
        the host's values against NumPy, and every step whose inputs the two devices computed
        the same compared: bit for bit (a NaN's sign and payload aside) unless it is a
        transcendental function (the NumPy tolerances, around the GPU's value)

The seed is printed; LOOM_TEST_SEED=<seed> repeats a run, and every failure prints its program
(the reproducer: the directory holds programs.txt and the inputs as .npy). DIR is made afresh,
removed when everything agrees and kept otherwise. Exit status: 0, 1 on any failure, 77 without
NumPy 2 (or, for --eval, without a GPU).
"""
import os
import random
import shutil
import subprocess
import sys
import warnings

try:
    import numpy as np
except ImportError:
    np = None

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "gpu"))

SKIP = 77
# loom_dtype order (include/loom.h); bfloat16 is left out: NumPy has none.
DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "bfloat16", "float32", "float64", "complex64", "complex128"]
USED = [d for d in DTYPES if d != "bfloat16"]
UNARY = ["negative", "positive", "absolute", "sign", "square", "sqrt", "exp", "log", "sin",
         "cos", "tanh", "arctan", "floor", "ceil", "rint", "expm1", "log1p", "invert",
         "logical_not", "isnan", "signbit", "conj", "real", "imag"]
BINARY = ["add", "subtract", "multiply", "true_divide", "floor_divide", "remainder", "maximum",
          "minimum", "fmax", "fmin", "equal", "less", "greater_equal", "logical_and",
          "logical_xor", "bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift",
          "arctan2", "hypot", "copysign", "power"]
REDUCE = ["sum", "prod", "amax", "amin", "mean", "any", "all", "nansum", "nanmax", "nanmin"]
STATS = ["var", "std"]
ARG = ["argmax", "argmin"]
SCAN = ["cumsum", "cumprod"]
NP_NAME = {"amax": "max", "amin": "min"}
MAX_SIZE = 3000


def rand_shape(rng):
    nd = rng.choice([0, 1, 1, 2, 2, 3, 3, 4])
    shape = [rng.choice([1, 1, 2, 3, 4, 5, 7, 8, 16, 33]) for _ in range(nd)]
    if nd and rng.random() < 0.05:
        shape[rng.randrange(nd)] = 0
    while np.prod(shape, dtype=np.int64) > MAX_SIZE:
        shape[shape.index(max(shape))] //= 2
    return tuple(shape)


def rand_values(rng, dt, shape):
    g = np.random.default_rng(rng.randrange(2**32))
    dt = np.dtype(dt)
    if dt.kind == "b":
        return g.random(shape) < 0.5
    if dt.kind in "iu":
        info = np.iinfo(dt)
        small = g.integers(max(info.min, -12), 13, shape)
        big = g.integers(info.min, info.max, shape, endpoint=True, dtype=dt)
        return np.where(g.random(shape) < 0.5, small.astype(dt), big).astype(dt)
    part = np.float32 if dt in (np.float32, np.complex64) else np.float16 if dt == np.float16 else np.float64
    def real():
        x = np.round(g.uniform(-4, 4, shape) * 2) / 2
        x = np.where(g.random(shape) < 0.7, g.uniform(-4, 4, shape), x)
        x = np.where(g.random(shape) < 0.03, np.nan, x)
        x = np.where(g.random(shape) < 0.03, -0.0, x)
        return x.astype(part)
    return (real() + 1j * real()).astype(dt) if dt.kind == "c" else real().astype(dt)


class Program:
    def __init__(self, pid, rng, data_dependent=False):
        self.id, self.rng = pid, rng
        self.data_dependent = data_dependent  # ops whose length is read back: a device needed
        self.lines, self.values, self.inputs = [], [], {}
        self.ops = []          # op name per step (None for inputs)
        self.fns = []          # NumPy's function of each step's inputs
        self.error = None      # the step NumPy refused, if any
        self.float_order = False

    def add_input(self, dt=None, shape=None):
        rng = self.rng
        dt = dt or rng.choice(USED)
        shape = rand_shape(rng) if shape is None else shape
        k = len(self.values)
        self.inputs[k] = rand_values(rng, dt, shape)
        self.values.append(self.inputs[k])
        self.ops.append(None)
        self.fns.append(None)
        self.lines.append("in %d %s" % (k, dt))
        return k

    def add_op(self, name, ins, attrs, fn):
        """Records step name(ins; attrs); fn computes NumPy's value. False when NumPy refused."""
        k = len(self.values)
        text = "op %d %s %s" % (k, name, " ".join("-" if i is None else str(i) for i in ins))
        if attrs:
            text += " : " + " ".join("none" if a is None else str(a) for a in attrs)
        self.lines.append(text)
        self.ops.append(name)
        self.fns.append(fn)
        try:
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                v = np.asarray(fn(*[None if i is None else self.values[i] for i in ins]))
        except (TypeError, ValueError, IndexError, np.exceptions.AxisError) as e:
            self.values.append(None)
            self.error = (k, str(e))
            return False
        self.values.append(v)
        return True


def pick_axes(rng, nd):
    if rng.random() < 0.2:
        return None
    n = rng.randint(0, nd)
    return sorted(rng.sample(range(nd), n)) if nd else []


PAD_MODES = ["constant", "edge", "wrap", "reflect", "symmetric", "maximum", "minimum"]


def grow_index(p, k):
    """pad (every mode but the float statistics, reflect_type odd, stat_length) and, with a
    device, the selections whose length is read back: compress, extract, a[mask] = values."""
    rng = p.rng
    x = p.values[k]
    nd, kind = x.ndim, x.dtype.kind
    name = rng.choice(["pad", "pad"] + (["compress", "extract", "setitem_mask"] if p.data_dependent else []))
    if name == "pad":
        m = rng.randrange(len(PAD_MODES))
        mode = PAD_MODES[m]
        if kind == "c" and mode in ("maximum", "minimum"):
            return True  # docs/indexing.md: LOOM_ERR_UNSUPPORTED
        odd = int(mode in ("reflect", "symmetric") and rng.random() < 0.5)
        w = []
        for n in x.shape:
            # odd float reflections past the first are NumPy's to rounding only (docs/indexing.md)
            top = 3 if kind in "biu" or not odd else max(0, min(3, n - 1 if mode == "reflect" else n))
            w += [rng.randint(0, top), rng.randint(0, top)]
        stat = []
        if mode in ("maximum", "minimum") and rng.random() < 0.5:
            stat = [rng.randint(1, 4) for _ in range(rng.choice([1, 2]))]
        kw = {}
        if odd:
            kw["reflect_type"] = "odd"
        if stat:
            kw["stat_length"] = stat[0] if len(stat) == 1 else tuple(stat)
        pw = np.array(w, dtype=np.int64).reshape(-1, 2) if nd else 0
        if not nd:
            return True
        return p.add_op("pad", [k], [m, odd, len(stat)] + stat + w,
                        lambda a: np.pad(a, pw, mode=mode, **kw))
    if name == "compress":
        axis = None if not nd or rng.random() < 0.3 else rng.randrange(-nd, nd)
        n = x.size if axis is None else x.shape[axis]
        c = p.add_input("bool", (max(0, n + rng.choice([0, 0, -1, 1])),))
        return p.add_op("compress", [c, k], [axis], lambda cond, a: np.compress(cond, a, axis=axis))
    if name == "extract":
        c = p.add_input("bool", x.shape)
        return p.add_op("extract", [c, k], [], np.extract)
    mask = p.add_input("bool", x.shape)
    count = int(np.sum(p.values[mask]))
    v = p.add_input(x.dtype.name, rng.choice([(count,), ()]))

    def setitem(a, m, vals):
        r = np.array(a, copy=True)
        r[m] = vals
        return r
    return p.add_op("setitem_mask", [k, mask, v], [], setitem)


def grow(p):
    """Appends one random step; False when the program should end."""
    rng = p.rng
    k = rng.randrange(len(p.values))
    x = p.values[k]
    nd, kind = x.ndim, x.dtype.kind
    if rng.random() < 0.06:
        return grow_index(p, k)
    r = rng.random()
    if r < 0.22:
        name = rng.choice(UNARY)
        if kind in "iu" and name in ("reciprocal",):
            return True
        return p.add_op(name, [k], [], getattr(np, name))
    if r < 0.5:
        name = rng.choice(BINARY)
        if rng.random() < 0.5:
            j = rng.randrange(len(p.values))
        else:
            shape = list(x.shape)
            for d in range(len(shape)):
                if rng.random() < 0.3:
                    shape[d] = 1
            shape = tuple(shape[rng.randint(0, len(shape)):]) if shape else ()
            j = p.add_input(None, shape)
        y = p.values[j]
        kinds = {x.dtype.kind, y.dtype.kind}
        if name == "power" and kinds & set("biu"):
            return True  # integer powers with negative exponents: NumPy raises, Loom differs
        if {x.dtype, y.dtype} == {np.dtype(np.int64), np.dtype(np.uint64)}:
            return True  # docs/dtypes.md: compared in float64
        return p.add_op(name, [k, j], [], getattr(np, name))
    if r < 0.6:
        dt = rng.choice(USED)
        if kind in "fc" and np.dtype(dt).kind in "iub":
            if kind == "c" or np.dtype(dt).kind != "b":
                return True  # float -> integer of NaN/out of range: docs/semantics.md
        if kind == "c" and np.dtype(dt).kind == "f":
            return True
        return p.add_op("astype", [k], [DTYPES.index(dt)], lambda a: a.astype(dt))
    if r < 0.75:
        v = rng.choice(["transpose", "slice", "broadcast_to", "reshape", "flip", "swapaxes",
                        "expand_dims"])
        if v == "transpose":
            axes = list(range(nd))
            rng.shuffle(axes)
            axes = [a - nd if rng.random() < 0.3 else a for a in axes]
            return p.add_op(v, [k], axes, lambda a: np.transpose(a, axes))
        if v == "slice" and nd:
            ax = rng.randrange(nd)
            n = x.shape[ax]
            step = rng.choice([1, 1, 2, 3, -1, -2])
            lo = rng.choice([None, rng.randint(-n - 1, n + 1)])
            hi = rng.choice([None, rng.randint(-n - 1, n + 1)])
            sl = [slice(None)] * nd
            sl[ax] = slice(lo, hi, step)
            return p.add_op(v, [k], [ax, lo, hi, step], lambda a: a[tuple(sl)])
        if v == "broadcast_to":
            shape = [rng.choice([2, 3]) if s == 1 and rng.random() < 0.5 else s for s in x.shape]
            shape = [rng.choice([1, 2, 3]) for _ in range(rng.randint(0, 2))] + shape
            if np.prod(shape, dtype=np.int64) > MAX_SIZE:
                return True
            return p.add_op(v, [k], shape, lambda a: np.broadcast_to(a, shape))
        if v == "reshape":
            shape = [x.size] if rng.random() < 0.5 or x.size == 0 else [-1, 1] if x.size > 1 else [1]
            if x.size > 1 and x.size % 2 == 0 and rng.random() < 0.5:
                shape = [2, x.size // 2]
            return p.add_op(v, [k], shape, lambda a: np.reshape(a, shape))
        if v == "flip" and nd:
            ax = rng.randrange(-nd, nd)
            return p.add_op(v, [k], [ax], lambda a: np.flip(a, ax))
        if v == "swapaxes" and nd:
            a1, a2 = rng.randrange(nd), rng.randrange(nd)
            return p.add_op(v, [k], [a1, a2], lambda a: np.swapaxes(a, a1, a2))
        if v == "expand_dims" and nd < 4:
            ax = rng.randint(-nd - 1, nd)
            return p.add_op(v, [k], [ax], lambda a: np.expand_dims(a, ax))
        return True
    if r < 0.9:
        fam = rng.choice(["reduce", "reduce", "stats", "arg", "scan"])
        keep = int(rng.random() < 0.3)
        if kind == "c" and fam in ("arg", "scan"):
            return True
        if fam == "reduce":
            name = rng.choice(REDUCE)
            if kind == "c" and name.startswith("nan"):
                return True  # docs/semantics.md: all-NaN complex slices
            if name == "prod" and kind in "fc" and not np.all(np.isfinite(x)):
                return True  # docs/semantics.md: the order of 0 * inf
            axes = pick_axes(rng, nd)
            p.float_order |= kind in "fc" and name not in ("amax", "amin", "any", "all", "nanmax", "nanmin")
            f = getattr(np, NP_NAME.get(name, name))
            ax = None if axes is None else tuple(axes)
            return p.add_op(name, [k], [keep] + ([None] if axes is None else axes),
                            lambda a: f(a, axis=ax, keepdims=bool(keep)))
        if fam == "stats":
            name, axes = rng.choice(STATS), pick_axes(rng, nd)
            p.float_order = True
            ax = None if axes is None else tuple(axes)
            return p.add_op(name, [k], [keep, 0] + ([None] if axes is None else axes),
                            lambda a: getattr(np, name)(a, axis=ax, keepdims=bool(keep)))
        if fam == "arg":
            name = rng.choice(ARG)
            ax = None if not nd or rng.random() < 0.2 else rng.randrange(-nd, nd)
            return p.add_op(name, [k], [ax, keep],
                            lambda a: getattr(np, name)(a, axis=ax, keepdims=bool(keep)))
        name = rng.choice(SCAN)
        if name == "cumprod" and kind in "fc" and not np.all(np.isfinite(x)):
            return True
        ax = None if not nd or rng.random() < 0.2 else rng.randrange(-nd, nd)
        p.float_order |= kind in "fc"
        return p.add_op(name, [k], [ax], lambda a: getattr(np, name)(a, axis=ax))
    if r < 0.95:
        lo = p.add_input(None, ())
        hi = p.add_input(None, ()) if rng.random() < 0.5 else None
        if {x.dtype.kind} | {p.values[lo].dtype.kind} & set("c"):
            return True
        return p.add_op("clip", [k, lo, hi], [], lambda a, l, h: np.clip(a, l, h))
    c = p.add_input("bool", x.shape)
    j = rng.randrange(len(p.values))
    return p.add_op("where", [c, k, j], [], np.where)


def generate(seed, count, data_dependent):
    rng = random.Random(seed)
    programs = []
    for pid in range(count):
        p = Program(pid, random.Random(rng.randrange(2**63)), data_dependent)
        p.add_input()
        for _ in range(p.rng.randint(1, 8)):
            if not grow(p):
                break
            if p.values[-1] is not None and p.values[-1].size > MAX_SIZE:
                break
        # the program computes its last step
        programs.append(p)
    return programs


def write(programs, d):
    with open(os.path.join(d, "programs.txt"), "w") as f:
        for p in programs:
            f.write("program %d\n%s\nend\n" % (p.id, "\n".join(p.lines)))
            for k, v in p.inputs.items():
                np.save(os.path.join(d, "p%d_in%d.npy" % (p.id, k)), v)


def reproducer(p):
    return "program %d:\n  %s" % (p.id, "\n  ".join(p.lines))


def check_record(programs, out):
    got = {}
    for line in out.splitlines():
        t = line.split(" ", 4)
        if len(t) >= 4 and t[0] == "p":
            got[(int(t[1]), int(t[2]))] = t[3:]
    failures = 0
    for p in programs:
        for k, v in enumerate(p.values):
            g = got.get((p.id, k))
            if v is None:
                ok = g is not None and g[0] == "error"
                want = "an error (NumPy: %s)" % p.error[1]
            else:
                shape = ",".join(map(str, v.shape)) or "()"
                want = "%s %s" % (v.dtype, shape)
                ok = g is not None and " ".join(g) == want
            if not ok:
                failures += 1
                print("step %d: Loom %s, NumPy %s\n%s" % (k, " ".join(g) if g else "nothing", want,
                                                          reproducer(p)))
            if v is None or not ok:
                break
    return failures


def step_tolerance_mismatch(p, k, got, want, args):
    """Elements of step k that disagree with NumPy beyond the op's tolerance."""
    import check_ufuncs as cu
    name = p.ops[k]
    exact = ("astype", "transpose", "slice", "broadcast_to", "reshape", "flip", "swapaxes",
             "expand_dims", "where")
    ties = ("clip", "amax", "amin", "nanmax", "nanmin", "argmax", "argmin", "any", "all", "pad",
            "compress", "extract", "setitem_mask")
    if want.dtype.kind in "biu":
        return got != want
    if name in exact or name in ties:
        parts = [(got.real, want.real), (got.imag, want.imag)] if want.dtype.kind == "c" else [(got, want)]
        bad = np.zeros(want.shape, bool)
        for g, w in parts:
            same = (g == w) | (np.isnan(g) & np.isnan(w))
            if name in exact:  # zero signs too (a +-0 tie of the others may pick either)
                same &= np.isnan(w) | (np.signbit(g) == np.signbit(w))
            bad |= ~same
        if want.dtype.kind == "c" and name in ties:
            # several complex NaNs in a slice: NumPy's max is the first, Loom's one of them
            # (docs/reductions.md); any complex NaN matches
            bad &= ~(np.isnan(got) & np.isnan(want))
        return bad
    if name in UNARY or name in BINARY:
        class Case:
            op, args = name, []
        complex_loop = np.result_type(*args).kind == "c"
        bad, _ = cu.mismatch(Case, got, want, args, complex_loop)
        return bad & ~cu.skip_mask(Case, args, want.shape, complex_loop)
    # reductions and scans: the error bound of a sum of n terms in the result dtype
    x = np.asarray(args[0])
    n = max(1, x.size // max(1, want.size)) if name not in SCAN else x.size
    part = want.real.dtype if want.dtype.kind == "c" else want.dtype
    eps = float(np.finfo(part).eps)
    mag = float(np.nanmax(np.abs(x.astype(np.complex128)))) if x.size else 0.0
    if not np.isfinite(mag):
        mag = 0.0
    scale = {"sum": n * mag, "nansum": n * mag, "mean": mag, "cumsum": n * mag,
             "var": 4 * mag * mag, "std": 2 * mag}.get(name, 0.0)
    tol = 2 * n * eps * scale + 4 * eps * np.abs(want.astype(np.complex128))
    with np.errstate(all="ignore"):
        g, w = got.astype(np.complex128), want.astype(np.complex128)
        close = (np.abs(g - w) <= tol) | (g == w)
        same_nan = np.isnan(g) & np.isnan(w)
    if name in ("prod", "cumprod"):
        close |= np.isclose(g, w, rtol=8 * n * eps, atol=0)
    return ~(close | same_nan)


def same_nans(a):
    """a with every NaN made the one quiet NaN: a NaN's sign and payload are unspecified (on
    the host, x86 makes -NaN and fusion may pass it through another instruction), so the
    bitwise fused-versus-unfused comparison looks at which elements are NaN, not their bits."""
    if a.dtype.kind not in "fc":
        return a
    a = a.copy()
    flat = a.reshape(-1)  # a view of the copy (0-d arrays cannot change their dtype)
    parts = flat.view(flat.real.dtype) if a.dtype.kind == "c" else flat
    parts[np.isnan(parts)] = np.nan
    return a


def check_eval(programs, d):
    failures = 0
    for p in programs:
        last = len(p.values) - 1
        if p.values[last] is None:
            continue
        saved = {}
        for k in range(last + 1):
            path = os.path.join(d, "p%d_s%d.npy" % (p.id, k))
            saved[k] = np.load(path) if os.path.exists(path) else None
        problem = None
        for k in range(last + 1):
            got = saved[k]
            if got is None:
                problem = "step %d was not written" % k
                break
            if p.ops[k] is None:
                continue
            line = p.lines[k].split(" : ")[0].split()[3:]
            ins = [None if t == "-" else saved[int(t)] for t in line]
            try:
                with warnings.catch_warnings(), np.errstate(all="ignore"):
                    warnings.simplefilter("ignore")
                    want = np.asarray(p.fns[k](*ins))
            except Exception as e:  # NumPy refused Loom's own inputs: a dtype or shape drift
                problem = "step %d: NumPy cannot apply it to Loom's inputs (%s)" % (k, e)
                break
            if got.dtype != want.dtype or got.shape != want.shape:
                problem = "step %d: Loom %s %s, NumPy %s %s" % (k, got.dtype, got.shape, want.dtype, want.shape)
                break
            bad = step_tolerance_mismatch(p, k, got, want, [a for a in ins if a is not None])
            if np.any(bad):
                i = np.argwhere(bad)[0]
                problem = "step %d (%s): %d of %d elements differ; at %s Loom %r, NumPy %r" % (
                    k, p.ops[k], int(np.sum(bad)), bad.size, tuple(i), got[tuple(i)], want[tuple(i)])
                break
        fused = os.path.join(d, "p%d_fused.npy" % p.id)
        unfused = os.path.join(d, "p%d_unfused.npy" % p.id)
        if problem is None and not (os.path.exists(fused) and os.path.exists(unfused)):
            problem = "the fused or unfused result was not written"
        if problem is None and not p.float_order:
            a, b = same_nans(np.load(fused)), same_nans(np.load(unfused))
            if a.dtype != b.dtype or a.shape != b.shape or a.tobytes() != b.tobytes():
                diff = np.argwhere((a != b) & ~(np.isnan(a) & np.isnan(b))) if a.shape == b.shape else []
                problem = "fused and LOOM_FUSE=0 results differ (%d elements%s)" % (
                    len(diff), "; first at %s: %r vs %r" % (tuple(diff[0]), a[tuple(diff[0])], b[tuple(diff[0])]) if len(diff) else "")
        if problem:
            failures += 1
            print("%s\n%s" % (problem, reproducer(p)))
    return failures


def device_exact(name, value, args):
    """Whether a step must give the same bits on the host device and the GPU from the same
    inputs args: all but the transcendental functions (glibc's against CUDA's; complex
    absolute is hypot)."""
    import check_ufuncs as cu
    if name not in UNARY and name not in BINARY or value.dtype.kind in "biu":
        return True
    complex_loop = any(a.dtype.kind == "c" for a in args)
    part = value.real.dtype if value.dtype.kind == "c" else value.dtype
    return cu.tolerance(name, part, complex_loop)[0] == 0


def compare_devices(programs, gpu_dir, cpu_dir, counts):
    """Failures where the host's step values leave the GPU's; counts what was compared."""
    failures = 0
    for p in programs:
        same = {}  # step -> the two devices computed it the same
        for k, name in enumerate(p.ops):
            paths = [os.path.join(d, "p%d_s%d.npy" % (p.id, k)) for d in (gpu_dir, cpu_dir)]
            if not all(os.path.exists(path) for path in paths):
                break  # both stop where NumPy refused; check_eval reports a missing step
            gpu, cpu = (np.load(path) for path in paths)
            identical = (gpu.dtype == cpu.dtype and gpu.shape == cpu.shape
                         and same_nans(gpu).tobytes() == same_nans(cpu).tobytes())
            same[k] = identical
            if name is None:
                if not identical:
                    failures += 1
                    print("input %d differs between the devices\n%s" % (k, reproducer(p)))
                continue
            line = p.lines[k].split(" : ")[0].split()[3:]
            ins = [int(t) for t in line if t != "-"]
            if not all(same.get(i) for i in ins):
                counts["not compared (inputs differ)"] += 1
                continue
            args = [np.load(os.path.join(gpu_dir, "p%d_s%d.npy" % (p.id, i))) for i in ins]
            if device_exact(name, gpu, args):
                counts["bit for bit"] += 1
                bad = not identical
            else:
                counts["within tolerance"] += 1
                with warnings.catch_warnings(), np.errstate(all="ignore"):
                    warnings.simplefilter("ignore")
                    bad = gpu.shape != cpu.shape or np.any(step_tolerance_mismatch(p, k, cpu, gpu, args))
            if bad:
                failures += 1
                diff = np.argwhere((gpu != cpu) & ~(np.isnan(gpu) & np.isnan(cpu))) if gpu.shape == cpu.shape else []
                at = "; first at %s: host %r, GPU %r" % (tuple(diff[0]), cpu[tuple(diff[0])], gpu[tuple(diff[0])]) if len(diff) else ""
                print("step %d (%s): the host device and the GPU differ%s\n%s" % (k, name, at, reproducer(p)))
                break
    return failures


def run_all(driver, mode, dirs, env=None):
    """(exit status, stdout, stderr) of the driver on each directory, all running at once."""
    procs = [subprocess.Popen([driver, mode, sub], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, env=env) for sub in dirs]
    results = []
    for p in procs:
        out, err = p.communicate()
        results.append((p.returncode, out, err))
    return results


def main(argv):
    if np is None or int(np.__version__.split(".")[0]) < 2:
        print("random_programs: NumPy 2 is not available, skipped")
        return SKIP
    if len(argv) not in (4, 5) or argv[1] not in ("--record", "--eval", "--devices"):
        print(__doc__)
        return 2
    mode, driver, d = argv[1], argv[2], argv[3]
    count = int(argv[4]) if len(argv) == 5 else (3000 if mode == "--record" else 2000)
    count = int(os.environ.get("LOOM_RANDOM_PROGRAMS", count))
    seed = int(os.environ.get("LOOM_TEST_SEED", random.SystemRandom().randrange(2**31)))
    print("random_programs: %d programs, seed %d (LOOM_TEST_SEED=%d repeats them)" % (count, seed, seed))
    # The selections read their length back (a device evaluation): --eval only.
    programs = generate(seed, count, mode != "--record")
    # The programs are split over several driver processes (LOOM_TEST_JOBS, default: the
    # cores, at most 8): each compiles its own kernels, which bounds a run's time.
    jobs = max(1, min(int(os.environ.get("LOOM_TEST_JOBS", min(8, os.cpu_count() or 1))), count))
    shutil.rmtree(d, ignore_errors=True)
    parts = [programs[j::jobs] for j in range(jobs)]
    devices = ["gpu", "cpu"] if mode == "--devices" else [""]
    dirs = {dev: [os.path.join(d, dev, "part%d" % j) for j in range(jobs)] for dev in devices}
    runs, envs = {}, {}
    for dev in devices:
        for part, sub in zip(parts, dirs[dev]):
            os.makedirs(sub)
            write(part, sub)
        env = dict(os.environ)
        if dev:
            env.pop("LOOM_TEST_DEVICE", None)
        if dev == "cpu":
            env["LOOM_TEST_DEVICE"] = "cpu"
        envs[dev] = env
        runs[dev] = run_all(driver, "--record" if mode == "--record" else "--eval", dirs[dev], env)
        if any(r[0] == SKIP for r in runs[dev]):
            print(runs[dev][0][1].strip())
            shutil.rmtree(d, ignore_errors=True)
            return SKIP
    failures = 0
    for dev in devices:
        for part, sub, (code, out, err) in zip(parts, dirs[dev], runs[dev]):
            sys.stderr.write(err)
            if mode == "--record":
                failures += check_record(part, out)
            else:
                record = subprocess.run([driver, "--record", sub], capture_output=True, text=True,
                                        env=envs[dev])
                failures += check_record(part, record.stdout)
                failures += check_eval(part, sub)
            if code != 0:
                print("random_run exited with %d (%s)" % (code, sub))
                failures += 1
    if mode == "--devices":
        counts = {"bit for bit": 0, "within tolerance": 0, "not compared (inputs differ)": 0}
        for part, gpu_sub, cpu_sub in zip(parts, dirs["gpu"], dirs["cpu"]):
            failures += compare_devices(part, gpu_sub, cpu_sub, counts)
        print("random_programs --devices: steps %s" % ", ".join("%s %d" % kv for kv in counts.items()))
    if failures:
        print("random_programs: %d failures (seed %d); programs and inputs kept in %s" % (failures, seed, d))
        return 1
    shutil.rmtree(d, ignore_errors=True)
    print("random_programs: all %d programs agree with NumPy%s" % (
        count, " on both devices, and the devices with each other" if mode == "--devices" else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
