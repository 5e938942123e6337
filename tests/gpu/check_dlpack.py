#!/usr/bin/env python3
"""DLPack exchange between Loom and real consumers (PyTorch, CuPy), through ctypes:

- Loom -> framework: an array of every dtype the framework shares (and a view, which Loom
  materialises) is exported with loom_to_dlpack / loom_to_dlpack_legacy on the framework's
  current stream, wrapped in a PyCapsule and taken by torch.from_dlpack / cupy.from_dlpack;
  its values must be NumPy's, the versioned tensor must be flagged read-only, and the Loom
  array may be released first (the capsule keeps the memory).
- framework -> Loom: contiguous, transposed, sliced (negative steps) and broadcast tensors of
  every shared dtype are imported with loom_from_dlpack(_legacy) after the producer made them
  ready on Loom's current stream; Loom reads them back (loom_get) and computes on them (x + x);
  the producer's deleter must run when the Loom array is released.
- the stream handshake: a framework kernel still running on its stream when Loom imports, with
  the producer told Loom's stream, is waited for (the value read is the final one).

Usage: check_dlpack.py LIBLOOM.so   (exits 77, SKIP, without a device, PyTorch and CuPy, or
with a sanitizer build of the library, which Python cannot load)
"""
import ctypes
import sys

import numpy as np

SKIP = 77


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [("version", DLPackVersion), ("manager_ctx", ctypes.c_void_p),
                ("deleter", ctypes.c_void_p), ("flags", ctypes.c_uint64), ("dl_tensor", DLTensor)]


LOOM_DTYPES = {"bool": 0, "int8": 1, "int16": 2, "int32": 3, "int64": 4, "uint8": 5,
               "uint16": 6, "uint32": 7, "uint64": 8, "float16": 9, "bfloat16": 10,
               "float32": 11, "float64": 12, "complex64": 13, "complex128": 14}

py = ctypes.pythonapi
py.PyCapsule_New.restype = ctypes.py_object
py.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
py.PyCapsule_GetPointer.restype = ctypes.c_void_p
py.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
py.PyCapsule_SetName.restype = ctypes.c_int
py.PyCapsule_SetName.argtypes = [ctypes.py_object, ctypes.c_char_p]
py.PyCapsule_IsValid.restype = ctypes.c_int
py.PyCapsule_IsValid.argtypes = [ctypes.py_object, ctypes.c_char_p]

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAILED:", what)


def load(path):
    # PyDLL keeps the GIL across calls: the frameworks' deleters, which loom_release may call,
    # can touch Python objects.
    lib = ctypes.PyDLL(path)
    lib.loom_device_count.restype = ctypes.c_int
    lib.loom_asarray.restype = ctypes.c_void_p
    lib.loom_asarray.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int,
                                 ctypes.POINTER(ctypes.c_int64)]
    lib.loom_transpose.restype = ctypes.c_void_p
    lib.loom_transpose.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
    lib.loom_add.restype = ctypes.c_void_p
    lib.loom_add.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
    lib.loom_release.argtypes = [ctypes.c_void_p]
    lib.loom_get.restype = ctypes.c_int
    lib.loom_get.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t]
    lib.loom_ndim.restype = ctypes.c_int
    lib.loom_ndim.argtypes = [ctypes.c_void_p]
    lib.loom_shape.restype = ctypes.POINTER(ctypes.c_int64)
    lib.loom_shape.argtypes = [ctypes.c_void_p]
    lib.loom_last_error.restype = ctypes.c_char_p
    for name in ("loom_to_dlpack", "loom_to_dlpack_legacy"):
        getattr(lib, name).restype = ctypes.c_void_p
        getattr(lib, name).argtypes = [ctypes.c_void_p, ctypes.c_void_p]
    for name in ("loom_from_dlpack", "loom_from_dlpack_legacy"):
        getattr(lib, name).restype = ctypes.c_void_p
        getattr(lib, name).argtypes = [ctypes.c_void_p]
    lib.loom_stream_handle.restype = ctypes.c_void_p
    lib.loom_stream_handle.argtypes = [ctypes.c_void_p]
    lib.loom_stream_synchronize.argtypes = [ctypes.c_void_p]
    return lib


def loom_array(lib, a):
    a = np.ascontiguousarray(a)
    shape = (ctypes.c_int64 * max(a.ndim, 1))(*a.shape)
    return lib.loom_asarray(a.ctypes.data, LOOM_DTYPES[a.dtype.name], a.ndim, shape)


def loom_values(lib, arr, dtype):
    nd = lib.loom_ndim(arr)
    shape = tuple(lib.loom_shape(arr)[i] for i in range(nd))
    out = np.empty(shape, dtype)
    rc = lib.loom_get(arr, out.ctypes.data, out.nbytes)
    check(rc == 0, f"loom_get: {lib.loom_last_error()}")
    return out


def sample(dtype, shape, rng):
    if dtype == "bool":
        return rng.random(shape) > 0.5
    if dtype.startswith("complex"):
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    if dtype.startswith("float"):
        return rng.standard_normal(shape).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(max(info.min, -100), min(info.max, 100), shape, endpoint=True).astype(dtype)


def export_capsule(lib, arr, stream, versioned):
    fn = lib.loom_to_dlpack if versioned else lib.loom_to_dlpack_legacy
    ptr = fn(arr, stream)
    check(ptr, f"export: {lib.loom_last_error()}")
    if versioned:
        m = DLManagedTensorVersioned.from_address(ptr)
        check(m.flags & 1, "a versioned export is flagged read-only")
        check(m.version.major == 1, "version 1.x")
    return py.PyCapsule_New(ptr, b"dltensor_versioned" if versioned else b"dltensor", None)


def import_capsule(lib, capsule, versioned):
    name = b"dltensor_versioned" if versioned else b"dltensor"
    ptr = py.PyCapsule_GetPointer(capsule, name)
    arr = (lib.loom_from_dlpack if versioned else lib.loom_from_dlpack_legacy)(ptr)
    check(arr, f"import: {lib.loom_last_error()}")
    if arr:  # the capsule no longer owns the tensor
        py.PyCapsule_SetName(capsule, b"used_dltensor_versioned" if versioned else b"used_dltensor")
    return arr


def sent_strides(capsule, versioned):
    """The element strides a producer's capsule holds (None: compact)."""
    ptr = py.PyCapsule_GetPointer(capsule, b"dltensor_versioned" if versioned else b"dltensor")
    t = (DLManagedTensorVersioned.from_address(ptr).dl_tensor if versioned
         else DLTensor.from_address(ptr))
    return [t.strides[k] for k in range(t.ndim)] if t.strides else None


def exchange(lib, fw, name, dtypes, to_numpy, current_stream, from_dlpack, capsule_of):
    rng = np.random.default_rng(7)
    loom_stream = lib.loom_stream_handle(None)
    for dt in dtypes:
        for versioned in (True, False):
            a = sample(dt, (5, 7), rng)
            arr = loom_array(lib, a)
            view = lib.loom_transpose(arr, None)  # exported materialised
            t = None
            for src, want in ((arr, a), (view, a.T)):
                cap = export_capsule(lib, src, current_stream(), versioned)
                try:
                    t = from_dlpack(cap)
                except (TypeError, ValueError, RuntimeError) as e:
                    if not versioned:
                        raise
                    print(f"gpu_dlpack: {name} does not take versioned capsules ({e}), not checked")
                    t = None
                    break
                check(np.array_equal(to_numpy(t), want), f"{name} {dt} from Loom ({versioned})")
            lib.loom_release(view)
            lib.loom_release(arr)  # the framework's tensor keeps the memory
            if t is not None:
                check(np.array_equal(to_numpy(t), a.T), f"{name} {dt} outlives the Loom array")

            for make in ("contiguous", "transposed", "sliced", "broadcast"):
                base = sample(dt, (6, 8), rng)
                want = {"contiguous": base, "transposed": base.T, "sliced": base[::-2, 1::3],
                        "broadcast": np.broadcast_to(base[:1], (4, 8))}[make]
                t = fw(base, make)
                cap = capsule_of(t, loom_stream, versioned)
                if cap is None:
                    continue  # this framework cannot export that version
                strides = sent_strides(cap, versioned)
                if strides and max(abs(v) for v in strides) >= 2**40:
                    # CuPy before the fix of cupy#10172 divides a negative byte stride by an
                    # unsigned itemsize: the capsule reaches far outside memory, and Loom must
                    # refuse it with an error instead of reading there.
                    print(f"gpu_dlpack: {name} sent strides {strides} for a {make} {dt} tensor "
                          "(a producer bug); checking that Loom refuses it")
                    ptr = py.PyCapsule_GetPointer(cap, b"dltensor_versioned" if versioned
                                                  else b"dltensor")
                    bad = (lib.loom_from_dlpack if versioned else lib.loom_from_dlpack_legacy)(ptr)
                    check(not bad and lib.loom_last_error(),
                          f"{name} {dt} {make}: an out-of-range capsule is refused")
                    if bad:
                        lib.loom_release(bad)
                    del t, cap
                    continue
                got = import_capsule(lib, cap, versioned)
                if not got:
                    continue
                check(np.array_equal(loom_values(lib, got, want.dtype), want),
                      f"{name} {dt} {make} into Loom ({versioned})")
                if dt != "bool":
                    twice = lib.loom_add(got, got)
                    check(np.array_equal(loom_values(lib, twice, want.dtype),
                                         (want + want).astype(want.dtype)),
                          f"{name} {dt} {make}: x + x in Loom")
                    lib.loom_release(twice)
                lib.loom_release(got)
                del t, cap


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    try:
        lib = load(sys.argv[1])
    except OSError as e:
        print(f"gpu_dlpack: cannot load {sys.argv[1]} ({e}), skipped")
        return SKIP
    if lib.loom_device_count() == 0:
        print("gpu_dlpack: no CUDA device, skipped")
        return SKIP
    ran = 0
    try:
        import torch
    except ImportError:
        torch = None
        print("gpu_dlpack: PyTorch is missing, its half skipped")
    if torch is not None and torch.cuda.is_available():
        ran += 1
        tdt = {"bool": torch.bool, "int8": torch.int8, "int16": torch.int16, "int32": torch.int32,
               "int64": torch.int64, "uint8": torch.uint8, "float16": torch.float16,
               "float32": torch.float32, "float64": torch.float64,
               "complex64": torch.complex64, "complex128": torch.complex128}

        def torch_make(base, make):
            t = torch.from_numpy(np.ascontiguousarray(base)).cuda()
            return {"contiguous": t, "transposed": t.T, "sliced": t.flip(0)[::2, 1::3],
                    "broadcast": t[:1].expand(4, 8)}[make]

        def torch_capsule(t, loom_stream, versioned):
            # The producer makes the data ready on Loom's stream (the DLPack stream rule).
            ev = torch.cuda.Event()
            ev.record()
            ext = torch.cuda.ExternalStream(loom_stream) if loom_stream else None
            if ext is not None:
                ext.wait_event(ev)
            if versioned:
                try:
                    return t.__dlpack__(max_version=(1, 0))
                except TypeError:
                    return None
            return torch.utils.dlpack.to_dlpack(t)

        exchange(lib, torch_make, "torch", list(tdt), lambda t: t.cpu().numpy(),
                 lambda: ctypes.c_void_p(torch.cuda.current_stream().cuda_stream).value,
                 torch.from_dlpack, torch_capsule)

        # The handshake: a long kernel writes the tensor on torch's stream; Loom must see the
        # final value after the producer made Loom's stream wait.
        x = torch.zeros(1 << 24, device="cuda")
        for _ in range(20):
            x += 1
        cap = torch_capsule(x, lib.loom_stream_handle(None), False)
        got = import_capsule(lib, cap, False)
        if got:
            check(loom_values(lib, got, np.float32)[-1] == 20, "torch's pending kernels are waited for")
            lib.loom_release(got)
    try:
        import cupy
    except ImportError:
        cupy = None
        print("gpu_dlpack: CuPy is missing, its half skipped")
    if cupy is not None:
        ran += 1

        def cupy_make(base, make):
            t = cupy.asarray(base)
            return {"contiguous": t, "transposed": t.T, "sliced": t[::-2, 1::3],
                    "broadcast": cupy.broadcast_to(t[:1], (4, 8))}[make]

        def cupy_capsule(t, loom_stream, versioned):
            try:
                if versioned:
                    return t.__dlpack__(stream=loom_stream or 1, max_version=(1, 0))
                return t.__dlpack__(stream=loom_stream or 1)
            except TypeError:
                return None if versioned else t.toDlpack()

        cdts = [d for d in LOOM_DTYPES if d != "bfloat16"]
        exchange(lib, cupy_make, "cupy", cdts, cupy.asnumpy,
                 lambda: cupy.cuda.get_current_stream().ptr, cupy.from_dlpack, cupy_capsule)
    if not ran:
        print("gpu_dlpack: neither PyTorch (with CUDA) nor CuPy is installed, skipped")
        return SKIP
    print(f"gpu_dlpack: {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
