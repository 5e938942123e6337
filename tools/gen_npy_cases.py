"""Writes the .npy files tests/test_npy.c loads (NumPy as the writer Loom must read).
Regenerate: python3 tools/gen_npy_cases.py  (NumPy 2.x; files are tiny and checked in)."""
import os
import numpy as np

out = os.path.join(os.path.dirname(__file__), "..", "tests", "data", "npy")
os.makedirs(out, exist_ok=True)
cases = {
    "f32_2x3": np.arange(6, dtype=np.float32).reshape(2, 3) * 0.5,
    "i64_1d": np.array([-3, 0, 7, 2**40], dtype=np.int64),
    "bool_4": np.array([True, False, False, True]),
    "u8_0d": np.array(200, dtype=np.uint8),
    "c64_3": np.array([1 + 2j, -3j, 0.5], dtype=np.complex64),
    "f16_2": np.array([1.5, -0.25], dtype=np.float16),
    "f64_fortran_2x3": np.asfortranarray(np.arange(6, dtype=np.float64).reshape(2, 3)),
    "i32_bigendian_3": np.array([1, -2, 65536], dtype=">i4"),
    "f32_empty_0x4": np.zeros((0, 4), dtype=np.float32),
}
for name, a in cases.items():
    np.save(os.path.join(out, name + ".npy"), a)
