#!/usr/bin/env python3
"""Loom's elementwise ufuncs against NumPy, the oracle.

    check_ufuncs.py UFUNC_DUMP TMPDIR
        Runs UFUNC_DUMP (tests/gpu/ufunc_dump.c: every ufunc on every dtype, fused and with
        LOOM_FUSE=0, which must agree bit for bit) into a fresh directory under TMPDIR, then
        checks every case of its manifest against NumPy. The directory is removed when all
        agree and kept for inspection otherwise.
    check_ufuncs.py --check DIR
        Checks a directory that ufunc_dump already wrote.
    check_ufuncs.py --devices UFUNC_DUMP TMPDIR
        Needs a GPU: runs UFUNC_DUMP --raw twice on the same inputs (one seed), on the GPU and
        on the host device (LOOM_TEST_DEVICE=cpu), checks the host's results against NumPy and
        compares the two devices case by case (bfloat16 cases too): bit for bit where the op is
        exact (a NaN's sign and payload aside), within the NumPy tolerances of the GPU's value
        elsewhere. Prints the largest difference per op.
    check_ufuncs.py --self-test UFUNC_DUMP TMPDIR
        Needs no GPU: takes the manifest of `UFUNC_DUMP --manifest-only` (Loom's rejections
        and result dtypes, which NumPy must share), makes NumPy's own answers the outputs and
        requires them to pass, then corrupts outputs one way at a time (beyond the tolerance,
        a flipped zero sign, a NaN, a wrong dtype, ...) and requires each to fail.

Exit status: 0 when everything agrees, 1 on any failure, 77 (ctest SKIP) without a GPU or
without NumPy 2. docs/testing.md describes the tolerances.
"""

import os
import platform
import shutil
import subprocess
import sys
import tempfile
import warnings

try:
    import numpy as np
except ImportError:
    np = None

SKIP = 77

# ---------------------------------------------------------------------------------------------
# Tolerances, in units in the last place of the result dtype
# ---------------------------------------------------------------------------------------------

# Exact, or correctly rounded on both sides: bit for bit (signed zeros included).
EXACT = {
    "negative", "positive", "absolute", "sign", "reciprocal", "square", "sqrt", "floor", "ceil",
    "trunc", "rint", "conj", "real", "imag", "add", "subtract", "multiply", "true_divide",
    "fmod", "copysign", "maximum", "minimum", "fmax", "fmin", "clip", "where",
}
# A few correctly rounded steps that both sides take alike: 1 ulp for safety.
ONE_ULP = {"floor_divide", "remainder", "deg2rad", "rad2deg", "round"}
# Every other real function: CUDA's documented error (up to 4 ulps: tanf, powf, acoshf) plus
# NumPy's (its AVX-512 SVML code: up to 4 ulps).
TRANSCENDENTAL = 8
# A float16 result is computed in float32 and rounded once, which moves it by at most one
# float16 ulp; NumPy's AVX512-FP16 functions (Sapphire Rapids) are up to 3 float16 ulps off.
FLOAT16_TRANSCENDENTAL = 4

# Complex: the parts of these are exact like the real ops (each part compared by itself).
COMPLEX_PARTWISE = {
    "negative", "positive", "conj", "real", "imag", "add", "subtract", "rint", "round",
    "maximum", "minimum", "fmax", "fmin", "clip", "where",
}
# Others are compared norm-wise: each part within tol ulps of max(|re|, |im|) of NumPy's value.
# Complex arithmetic rounds several times, with or without fused multiply-adds depending on
# NumPy's build and CPU; the elementary functions are Loom's own (C99 Annex G, Kahan) built on
# CUDA's real functions, against glibc's.
COMPLEX_ARITHMETIC = {"multiply", "square", "true_divide", "reciprocal"}
COMPLEX_ARITHMETIC_TOL = 4
COMPLEX_TRANSCENDENTAL = 16
# Complex power is exp(b log a), which turns the absolute error of b log a into a relative one:
# COMPLEX_TRANSCENDENTAL * max(1, |b log a|) ulps. Where |b log a| passes the log of the largest
# value the result overflows or underflows, and which of inf, NaN and 0 each part becomes is
# the library's choice: those elements are not compared.

# A +0/-0 tie may pick either zero (NumPy's choice depends on its SIMD path).
ZERO_SIGN_FREE = {"maximum", "minimum", "fmax", "fmin", "clip"}
# Cancellation: the error scales with the inputs, not with the (possibly tiny) result.
INPUT_SCALED = {"logaddexp", "logaddexp2"}
COMPARISONS = {"equal", "not_equal", "less", "less_equal", "greater", "greater_equal"}


def tolerance(op, part_dtype, complex_loop):
    """(ulps, norm-wise) for op with results of the real dtype part_dtype."""
    if complex_loop and op not in COMPLEX_PARTWISE:
        tol = COMPLEX_ARITHMETIC_TOL if op in COMPLEX_ARITHMETIC else COMPLEX_TRANSCENDENTAL
        return tol, True
    if op in EXACT:
        return 0, False
    if op in ONE_ULP:
        return 1, False
    return (FLOAT16_TRANSCENDENTAL if part_dtype == np.float16 else TRANSCENDENTAL), False


# ---------------------------------------------------------------------------------------------
# The manifest
# ---------------------------------------------------------------------------------------------

class Case:
    def __init__(self, tokens, note):
        self.id = int(tokens[1])
        self.status, self.op, self.out, self.dtype, self.shape = tokens[2:7]
        self.args = tokens[7:]
        self.note = note

    def describe(self):
        return f"case {self.id} {self.op}({', '.join(operand_name(a) for a in self.args)})"


def operand_name(token):
    kind, _, v = token.partition(":")
    if kind == "a":
        return v[:-len(".npy")]
    if kind == "d":
        return "decimals=" + v
    return "None" if token == "none" else v


def read_manifest(d):
    seed, inputs, cases = None, [], []
    with open(os.path.join(d, "manifest.txt")) as f:
        for line in f:
            text, _, note = line.rstrip("\n").partition(" # ")
            t = text.split()
            if not t:
                continue
            if t[0] == "seed":
                seed = t[1]
            elif t[0] == "input":
                inputs.append((t[1], t[2], parse_shape(t[3])))
            elif t[0] == "case":
                cases.append(Case(t, note))
            else:
                raise ValueError(f"manifest: unknown line {line!r}")
    return seed, inputs, cases


def parse_shape(s):
    return () if s == "()" else tuple(int(x) for x in s.split("x"))


class Loader:
    def __init__(self, d):
        self.d, self.cache = d, {}

    def array(self, name):
        if name not in self.cache:
            self.cache[name] = np.load(os.path.join(self.d, name))
        return self.cache[name]

    def arg(self, token):
        if token == "none":
            return None
        kind, _, v = token.partition(":")
        if kind == "a":
            return self.array(v)
        if kind == "f":
            return float(v)  # a Python float: weak under NEP 50, as loom_scalar
        if kind in "id":
            return int(v)
        raise ValueError(f"manifest: unknown operand {token!r}")


def numpy_result(op, args):
    if op == "round":
        return np.round(args[0], args[1])
    if op == "clip":
        return np.clip(*args)
    if op == "where":
        return np.where(*args)
    return getattr(np, op)(*args)


# ---------------------------------------------------------------------------------------------
# Comparison
# ---------------------------------------------------------------------------------------------

def power_exponent(args, shape):
    """|b log a| of complex power's operands (0 where a is 0: npy_cpow's special cases)."""
    a, b = (np.broadcast_to(np.asarray(x, dtype=np.complex128), shape) for x in args)
    with np.errstate(all="ignore"):
        return np.where(a == 0, 0.0, np.abs(b) * np.abs(np.log(a)))


def skip_mask(case, args, shape, complex_loop):
    """Elements whose inputs hit a documented difference from NumPy (not compared)."""
    mask = np.zeros(shape, bool)
    arrays = [a for a in args if isinstance(a, np.ndarray)]
    if complex_loop and case.op == "power":
        part = np.result_type(*args).type(0).real.dtype
        mask |= ~(power_exponent(args, shape) <= np.log(np.finfo(part).max))
    # docs/dtypes.md: int64 against uint64 compares in float64, so values that float64 cannot
    # tell apart compare equal.
    if (case.op in COMPARISONS and len(arrays) == 2
            and {arrays[0].dtype, arrays[1].dtype} == {np.dtype(np.int64), np.dtype(np.uint64)}):
        a, b = np.broadcast_arrays(*arrays)
        same_float = a.astype(np.float64) == b.astype(np.float64)
        mask |= same_float & (a.astype(object) != b.astype(object))
    # Integer round with decimals < 0 computes in float64 (as NumPy does); where the rounded
    # value lies outside the dtype, NumPy's float-to-int cast is undefined (x86 gives INT_MIN,
    # Loom wraps: docs/semantics.md), so those elements are not compared.
    if case.op == "round" and arrays and arrays[0].dtype.kind in "iu":
        decimals = next((int(t[2:]) for t in case.args if t.startswith("d:")), 0)
        if decimals < 0:
            info = np.iinfo(arrays[0].dtype)
            with np.errstate(all="ignore"):
                scale = 10.0 ** -decimals
                r = np.rint(arrays[0].astype(np.float64) / scale) * scale
            # Bounds as exact floats: float(INT64_MAX) rounds up to 2**63.
            mask |= np.broadcast_to((r < float(info.min)) | (r >= float(info.max) + 1.0), shape)
    # kernels/loom_ops.cuh: integer 1/0 is what x86-64's float-to-int conversion gives.
    if (case.op == "reciprocal" and arrays and arrays[0].dtype.kind in "iu"
            and platform.machine().lower() not in ("x86_64", "amd64")):
        mask |= np.broadcast_to(arrays[0] == 0, shape)
    return mask


def real_mismatch(g, e, tol, scale, zero_sign):
    """Where the real arrays g (Loom) and e (NumPy) disagree beyond tol ulps of scale."""
    g64, e64 = g.astype(np.float64), e.astype(np.float64)
    gn, en = np.isnan(g64), np.isnan(e64)
    bad = gn != en
    both = ~gn & ~en
    inf = np.isinf(g64) | np.isinf(e64)
    bad |= both & inf & (g64 != e64)
    fin = both & ~inf
    if np.isscalar(tol) and tol == 0:
        bad |= fin & (g64 != e64)
    else:
        top = float(np.finfo(e.dtype).max)
        ulp = np.spacing(np.minimum(np.abs(scale), top).astype(e.dtype)).astype(np.float64)
        with np.errstate(all="ignore"):
            bad |= fin & ~(np.abs(g64 - e64) <= tol * ulp)
    if zero_sign:
        bad |= fin & (g64 == 0) & (e64 == 0) & (np.signbit(g64) != np.signbit(e64))
    return bad


def finite_abs(x):
    x = np.asarray(x, dtype=np.float64)
    return np.where(np.isfinite(x), np.abs(x), 0.0)


def mismatch(case, got, exp, args, complex_loop):
    """Boolean array of disagreeing elements, and the tolerance used (ulps)."""
    kind = exp.dtype.kind
    if kind in "biu":
        return got != exp, 0
    part = exp.real.dtype if kind == "c" else exp.dtype
    tol, normwise = tolerance(case.op, part, complex_loop)
    zero_sign = case.op not in ZERO_SIGN_FREE and (tol == 0 or kind == "f" and not complex_loop)
    if complex_loop and case.op == "power":
        w = np.nan_to_num(power_exponent(args, exp.shape))
        tol = COMPLEX_TRANSCENDENTAL * np.maximum(1.0, w)
    if kind == "f":
        scale = finite_abs(exp)
        if case.op in INPUT_SCALED:
            for a in args:
                scale = np.maximum(scale, np.broadcast_to(finite_abs(a), exp.shape))
        return real_mismatch(got, exp, tol, scale, zero_sign), tol
    if normwise:
        scale = np.maximum(finite_abs(exp.real), finite_abs(exp.imag))
        return (real_mismatch(got.real, exp.real, tol, scale, zero_sign)
                | real_mismatch(got.imag, exp.imag, tol, scale, zero_sign)), tol
    return (real_mismatch(got.real, exp.real, tol, finite_abs(exp.real), zero_sign)
            | real_mismatch(got.imag, exp.imag, tol, finite_abs(exp.imag), zero_sign)), tol


def show(x):
    return repr(x.item()) if isinstance(x, np.generic) else repr(x)


def check_case(loader, case):
    """The failure messages of one case (empty when it agrees with NumPy)."""
    try:
        args = [loader.arg(a) for a in case.args]
    except (OSError, ValueError) as err:
        return [f"cannot read an input: {err}"]
    try:
        exp = numpy_result(case.op, args)
        numpy_error = None
    except (TypeError, ValueError, OverflowError) as err:
        exp, numpy_error = None, err
    if case.status == "rejected":
        if numpy_error is None:
            return [f"Loom rejects it ({case.note}) but NumPy computes a {exp.dtype} result"]
        return []
    if case.status != "ok":
        return [f"unknown status {case.status}"]
    if numpy_error is not None:
        return [f"Loom computes a {case.dtype} result but NumPy raises "
                f"{type(numpy_error).__name__}: {numpy_error}"]
    exp = np.asarray(exp)
    if str(exp.dtype) != case.dtype or exp.shape != parse_shape(case.shape):
        return [f"Loom's result is {case.dtype} {parse_shape(case.shape)}, "
                f"NumPy's {exp.dtype} {exp.shape}"]
    try:
        got = np.load(os.path.join(loader.d, case.out))
    except OSError as err:
        return [f"no output: {err}"]
    if got.dtype != exp.dtype or got.shape != exp.shape:
        return [f"the output file holds {got.dtype} {got.shape}, expected {exp.dtype} {exp.shape}"]
    complex_loop = any(isinstance(a, np.ndarray) and a.dtype.kind == "c" for a in args)
    bad, tol = mismatch(case, got, exp, args, complex_loop)
    bad &= ~skip_mask(case, args, exp.shape, complex_loop)
    if not bad.any():
        return []
    where = np.argwhere(bad) if bad.ndim else [()]
    tol_text = f"{tol}" if np.isscalar(tol) else f"{COMPLEX_TRANSCENDENTAL} x max(1, |b log a|)"
    lines = [f"{int(bad.sum())} of {bad.size} elements differ (tolerance {tol_text} ulps)"]
    for idx in where[:3]:
        idx = tuple(int(i) for i in idx)
        ins = []
        for a in args:
            if isinstance(a, np.ndarray):
                ins.append(show(np.broadcast_to(a, exp.shape)[idx]))
            elif a is not None:
                ins.append(repr(a))
        lines.append(f"  at {list(idx)}: inputs ({', '.join(ins)}) got {show(got[idx])} "
                     f"expected {show(exp[idx])}")
    return lines


def check_dir(d):
    """Checks every case in d; returns (seed, number of cases, {case id: messages})."""
    seed, inputs, cases = read_manifest(d)
    loader = Loader(d)
    failed = {}
    for name, dtype, shape in inputs:
        try:
            a = loader.array(name)
        except OSError as err:
            failed[f"input {name}"] = [f"cannot read: {err}"]
            continue
        if str(a.dtype) != dtype or a.shape != shape:
            failed[f"input {name}"] = [f"holds {a.dtype} {a.shape}, not {dtype} {shape}"]
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for case in cases:
            try:
                msgs = check_case(loader, case)
            except Exception as err:  # one broken case must not hide the others
                msgs = [f"the checker failed: {type(err).__name__}: {err}"]
            if msgs:
                failed[case.id] = msgs
                print(f"FAIL {case.describe()}: {msgs[0]}")
                for m in msgs[1:]:
                    print(m)
    return seed, len(cases), failed


# ---------------------------------------------------------------------------------------------
# Modes
# ---------------------------------------------------------------------------------------------

def run(dump, tmpdir):
    os.makedirs(tmpdir, exist_ok=True)
    d = tempfile.mkdtemp(prefix="ufuncs-", dir=tmpdir)
    rc = subprocess.run([dump, d]).returncode
    if rc == SKIP:
        shutil.rmtree(d)
        return SKIP
    if not os.path.exists(os.path.join(d, "manifest.txt")):
        print(f"check_ufuncs: {dump} exited with {rc} and wrote no manifest")
        return 1
    seed, n, failed = check_dir(d)
    ok = not failed and rc == 0
    print(f"check_ufuncs: {n} cases, {len(failed)} failed against NumPy {np.__version__}"
          + ("" if rc == 0 else f"; ufunc_dump exited with {rc} (its FAIL lines are above)"))
    if ok:
        shutil.rmtree(d)
    else:
        print(f"check_ufuncs: seed {seed} (LOOM_TEST_SEED={seed} repeats it); files kept in {d}")
    return 0 if ok else 1


# ---------------------------------------------------------------------------------------------
# The host device against the GPU
# ---------------------------------------------------------------------------------------------

def read_raw(d):
    """{case id: (op, result dtype name, file, operand tokens)} of ufunc_dump --raw's raw.txt."""
    cases = {}
    with open(os.path.join(d, "raw.txt")) as f:
        for line in f:
            t = line.split()
            cases[int(t[1])] = (t[2], t[3], t[4], t[5:])
    return cases


def raw_values(d, file, dtype):
    """The raw result as a NumPy array; bfloat16 as the float32 values it holds (exactly)."""
    data = open(os.path.join(d, file), "rb").read()
    if dtype == "bfloat16":
        bits = np.frombuffer(data, np.uint16).astype(np.uint32) << 16
        return bits.view(np.float32)
    return np.frombuffer(data, np.dtype(dtype))


def ulps_apart(h, g, unit_dtype, scale):
    """|h - g| in ulps of scale in unit_dtype (bfloat16: 2^16 float32 ulps): 0 where they are
    the same number or both NaN, 0.5 for zeros of opposite signs, inf where only one is NaN
    or infinite."""
    h64, g64 = h.astype(np.float64), g.astype(np.float64)
    same = (h64 == g64) & (np.signbit(h64) == np.signbit(g64)) | np.isnan(h64) & np.isnan(g64)
    finite = np.isfinite(h64) & np.isfinite(g64)
    bf16 = unit_dtype == "bfloat16"
    as_dtype = np.float32 if bf16 else unit_dtype
    top = float(np.finfo(as_dtype).max)
    mag = np.minimum(np.where(np.isfinite(scale), np.abs(scale), 0.0), top).astype(as_dtype)
    unit = np.spacing(mag).astype(np.float64) * (65536 if bf16 else 1)
    apart = np.where(h64 == g64, 0.5, np.abs(h64 - g64) / unit)
    return np.where(same, 0.0, np.where(finite, apart, np.inf))


def device_difference(op, dtype, host, gpu, complex_args, input_scale=None):
    """(largest difference in ulps, allowed ulps) between the host's and the GPU's result of
    op: none allowed where the op is exact (tolerance() 0, integer and bool results). Where
    input_scale is given (INPUT_SCALED ops), ulps of the larger of it and the result."""
    if host.shape != gpu.shape:
        return np.inf, 0
    if dtype != "bfloat16" and np.dtype(dtype).kind in "biu":
        return (0.0 if np.array_equal(host, gpu) else np.inf), 0
    unit = "bfloat16" if dtype == "bfloat16" else np.dtype(dtype).type(0).real.dtype
    tol, normwise = tolerance(op, np.float32 if dtype == "bfloat16" else unit, complex_args)
    if dtype == "bfloat16" and tol:
        tol = 1  # computed in float32 (a few float32 ulps apart) and rounded once
    if gpu.dtype.kind == "c":
        norm = np.maximum(np.abs(gpu.real), np.abs(gpu.imag))
        parts = [(host.real, gpu.real), (host.imag, gpu.imag)]
    else:
        norm, parts = None, [(host, gpu)]
    worst = 0.0
    for h, g in parts:
        scale = norm if normwise and norm is not None else g.astype(np.float64)
        if input_scale is not None:
            scale = np.maximum(np.abs(scale), input_scale)
        apart = ulps_apart(h, g, unit, scale)
        if apart.size:
            worst = max(worst, float(apart.max()))
    return worst, tol


def compare_dirs(gpu_dir, cpu_dir):
    """The host's results (cpu_dir) against the GPU's (gpu_dir), case by case: the problems."""
    gpu, cpu = read_raw(gpu_dir), read_raw(cpu_dir)
    numpy_cases = {c.id: c for c in read_manifest(cpu_dir)[2]}
    loader = Loader(cpu_dir)
    problems = [f"case {i} ran on one device only" for i in sorted(set(gpu) ^ set(cpu))]
    worst_by_op, counts = {}, {"bit for bit": 0, "within tolerance": 0, "not compared": 0}
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i in sorted(set(gpu) & set(cpu)):
            op, dtype, file, args = gpu[i]
            if cpu[i][:2] != (op, dtype):
                problems.append(f"case {i}: {op} {dtype} on the GPU, {cpu[i][0]} {cpu[i][1]} on the host")
                continue
            complex_args = any(a.startswith("a:complex") for a in args)
            input_scale = None
            if op in INPUT_SCALED and i in numpy_cases:
                shape = parse_shape(numpy_cases[i].shape)
                input_scale = np.zeros(shape)
                for a in (loader.arg(t) for t in args):
                    input_scale = np.maximum(input_scale, np.broadcast_to(finite_abs(a), shape))
                input_scale = input_scale.reshape(-1)
            worst, tol = device_difference(op, dtype, raw_values(cpu_dir, file, dtype),
                                           raw_values(gpu_dir, file, dtype), complex_args,
                                           input_scale)
            if complex_args and op == "power" or op in INPUT_SCALED and input_scale is None:
                # exp(b log a) and cancellations: their tolerances need the inputs (bfloat16
                # ones are not saved); compared against NumPy and fused against unfused only
                tol = None
            counts["not compared" if tol is None else "bit for bit" if tol == 0 else "within tolerance"] += 1
            key = (op, dtype)
            worst_by_op[key] = max(worst_by_op.get(key, 0.0), worst)
            if tol is not None and worst > tol:
                problems.append(f"case {i} {op}({', '.join(operand_name(a) for a in args)}) -> "
                                f"{dtype}: host and GPU {worst:.3g} ulps apart (allowed {tol})")
    for p in problems:
        print(f"FAIL {p}")
    differing = sorted(((w, k) for k, w in worst_by_op.items() if w > 0), reverse=True)
    print(f"check_ufuncs --devices: cases {', '.join(f'{k} {v}' for k, v in counts.items())}; "
          f"{len(differing)} (op, dtype) pairs not bit for bit, the largest differences (ulps):")
    for w, (op, dtype) in differing[:40]:
        print(f"  {op} {dtype}: {w:.3g}")
    return problems


def compare_devices(dump, tmpdir):
    os.makedirs(tmpdir, exist_ok=True)
    seed = int(os.environ.get("LOOM_TEST_SEED") or np.random.SeedSequence().entropy % 2**63)
    dirs = {}
    for device in ("gpu", "cpu"):
        d = dirs[device] = tempfile.mkdtemp(prefix=f"ufuncs-{device}-", dir=tmpdir)
        env = dict(os.environ, LOOM_TEST_SEED=str(seed))
        env.pop("LOOM_TEST_DEVICE", None)
        if device == "cpu":
            env["LOOM_TEST_DEVICE"] = "cpu"
        rc = subprocess.run([dump, "--raw", d], env=env).returncode
        if rc == SKIP and device == "gpu":
            shutil.rmtree(d)
            return SKIP
        if rc != 0 or not os.path.exists(os.path.join(d, "raw.txt")):
            print(f"check_ufuncs --devices: {dump} --raw on the {device} exited with {rc}; "
                  f"seed {seed}, files kept in {d}")
            return 1
    _, n, failed = check_dir(dirs["cpu"])
    print(f"check_ufuncs --devices: the host device against NumPy: {n} cases, {len(failed)} failed")
    problems = compare_dirs(dirs["gpu"], dirs["cpu"])
    ok = not problems and not failed
    print(f"check_ufuncs --devices: {len(problems)} host/GPU differences beyond tolerance, "
          f"{len(failed)} host failures against NumPy; seed {seed}")
    if ok:
        for d in dirs.values():
            shutil.rmtree(d)
    else:
        print(f"check_ufuncs --devices: files kept in {dirs['gpu']} and {dirs['cpu']}")
    return 0 if ok else 1


def fabricate(d, inputs, cases, rng):
    """Random inputs and NumPy's own answers as the outputs, for the self-test."""
    for name, dtype, shape in inputs:
        dt = np.dtype(dtype)
        if dt.kind == "b":
            a = rng.integers(0, 2, shape).astype(bool)
        elif dt.kind in "iu":
            a = rng.integers(0, 6, shape).astype(dt)  # nonnegative: valid integer exponents
        else:
            a = rng.uniform(-4, 4, shape)
            if dt.kind == "c":
                a = a + 1j * rng.uniform(-4, 4, shape)
            else:
                a.flat[:6] = [0.0, -0.0, np.nan, np.inf, -np.inf, 2.5]
            a = a.astype(dt)
        np.save(os.path.join(d, name), a)
    loader = Loader(d)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for case in cases:
            if case.status == "ok":
                try:
                    np.save(os.path.join(d, case.out),
                            np.asarray(numpy_result(case.op, [loader.arg(a) for a in case.args])))
                except (TypeError, ValueError, OverflowError):
                    pass  # check_dir reports it


def self_test(dump, tmpdir):
    os.makedirs(tmpdir, exist_ok=True)
    d = tempfile.mkdtemp(prefix="ufuncs-self-test-", dir=tmpdir)
    rc = subprocess.run([dump, "--manifest-only", d]).returncode
    if rc != 0:
        print(f"self-test: {dump} --manifest-only exited with {rc}")
        return 1
    _, inputs, cases = read_manifest(d)
    fabricate(d, inputs, cases, np.random.default_rng(12345))
    _, n, failed = check_dir(d)
    problems = []
    if failed:
        problems.append(f"NumPy's own answers fail {len(failed)} of {n} cases")
    by_name = {}
    for c in cases:
        by_name.setdefault((c.op, tuple(c.args)), c)

    def find(op, *args):
        c = by_name.get((op, args))
        if c is None:
            raise SystemExit(f"self-test: no case {op}{args} in the manifest")
        return c

    def expect(label, case, should_fail, corrupt):
        path = os.path.join(d, case.out)
        saved = np.load(path)
        corrupt(path, saved.copy())
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            msgs = check_case(Loader(d), case)
        np.save(path, saved)
        if bool(msgs) != should_fail:
            problems.append(f"{label}: expected {'a failure' if should_fail else 'a pass'}, got "
                            + (msgs[0] if msgs else "a pass"))
        else:
            print(f"self-test: {label}: {'fails' if msgs else 'passes'} as it should"
                  + (f" ({msgs[0]})" if msgs else ""))

    def first(arr, pred):
        idx = np.flatnonzero(pred(arr))
        if not idx.size:
            raise SystemExit("self-test: no element to corrupt")
        return idx[0]

    def nudge(ulps, away, part="real"):
        """Moves one element ulps ulps away from zero (the error is then at least ulps ulps)
        or towards it (then at most ulps ulps). Complex: ulps of max(|re|, |im|), on a part at
        most half that size, so the steps stay exact."""
        def corrupt(path, a):
            if a.dtype.kind == "c":
                scale = np.maximum(np.abs(a.real), np.abs(a.imag))
                view = a.imag if part == "imag" else a.real
                i = first(view, lambda v: np.isfinite(v) & (np.abs(v) > 0.1 * scale)
                          & (np.abs(v) <= 0.5 * scale))
                step = ulps * np.spacing(view.dtype.type(scale.flat[i]))
                v = view.flat[i]
                view.flat[i] = v + step if (v > 0) == away else v - step
            else:
                i = first(a, lambda v: np.isfinite(v) & (np.abs(v) > 0.1))
                v = a.flat[i]
                target = np.copysign(np.inf, v) if away else a.dtype.type(0)
                for _ in range(ulps):
                    v = np.nextafter(v, target, dtype=a.dtype)
                a.flat[i] = v
            np.save(path, a)
        return corrupt

    def put(pred, value):
        def corrupt(path, a):
            a.flat[first(a, pred)] = value
            np.save(path, a)
        return corrupt

    sin32 = find("sin", "a:float32_a.npy")
    expect("sin float32 off by 8 ulps (the tolerance)", sin32, False, nudge(8, False))
    expect("sin float32 off by 9 ulps", sin32, True, nudge(9, True))
    add32 = find("add", "a:float32_a.npy", "a:float32_b.npy")
    expect("add float32 off by 1 ulp", add32, True, nudge(1, True))
    sin16 = find("sin", "a:float16_a.npy")
    expect("sin float16 off by 4 ulps", sin16, False, nudge(4, False))
    expect("sin float16 off by 5 ulps", sin16, True, nudge(5, True))
    exp128 = find("exp", "a:complex128_a.npy")
    expect("exp complex128 imag off by 16 ulps of |z|", exp128, False, nudge(16, False, "imag"))
    expect("exp complex128 imag off by 17 ulps of |z|", exp128, True, nudge(17, True, "imag"))
    mul64 = find("multiply", "a:complex64_a.npy", "a:complex64_b.npy")
    expect("multiply complex64 real off by 4 ulps of |z|", mul64, False, nudge(4, False))
    expect("multiply complex64 real off by 5 ulps of |z|", mul64, True, nudge(5, True))
    expect("add int32 off by one", find("add", "a:int32_a.npy", "a:int32_b.npy"), True,
           put(lambda v: v < 1000, 1000))
    neg64 = find("negative", "a:float64_a.npy")
    expect("negative float64 with a zero's sign flipped", neg64, True,
           put(lambda v: (v == 0) & np.signbit(v), 0.0))
    expect("maximum float64 with a zero's sign flipped",
           find("maximum", "a:float64_a.npy", "a:float64_b.npy"), False,
           put(lambda v: (v == 0) & np.signbit(v), 0.0))
    expect("sqrt float64 with a NaN for a number", find("sqrt", "a:float64_a.npy"), True,
           put(np.isfinite, np.nan))
    expect("exp float64 with -inf for +inf", find("exp", "a:float64_a.npy"), True,
           put(lambda v: v == np.inf, -np.inf))
    expect("less int8 with a bool flipped", find("less", "a:int8_a.npy", "a:int8_b.npy"), True,
           put(lambda v: v, False))
    expect("add float32 saved as float64", add32, True,
           lambda path, a: np.save(path, a.astype(np.float64)))
    expect("add float32 output missing", add32, True, lambda path, a: os.remove(path))
    fake = Case(["case", "999999", "rejected", "add", "-", "-", "-", "a:float32_a.npy",
                 "a:float32_b.npy"], "made up")
    if not check_case(Loader(d), fake):
        problems.append("a rejection of float32 + float32 passes")
    fake = Case(["case", "999998", "ok", "bitwise_and", "out_0.npy", "float32", "1037",
                 "a:float32_a.npy", "a:float32_b.npy"], "")
    if not check_case(Loader(d), fake):
        problems.append("bitwise_and of float32 accepted")
    for p in problems:
        print(f"self-test FAIL: {p}")
    print(f"check_ufuncs self-test: {n} cases, {len(problems)} problems")
    if not problems:
        shutil.rmtree(d)
    return 1 if problems else 0


def main(argv):
    if np is None or int(np.__version__.split(".")[0]) < 2:
        print("check_ufuncs: needs NumPy 2 (NEP 50 promotion), skipped")
        return SKIP
    if len(argv) == 3 and argv[0] == "--self-test":
        return self_test(argv[1], argv[2])
    if len(argv) == 3 and argv[0] == "--devices":
        return compare_devices(argv[1], argv[2])
    if len(argv) == 2 and argv[0] == "--check":
        seed, n, failed = check_dir(argv[1])
        print(f"check_ufuncs: {n} cases, {len(failed)} failed against NumPy {np.__version__}")
        return 1 if failed else 0
    if len(argv) == 2 and not argv[0].startswith("-"):
        return run(argv[0], argv[1])
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
