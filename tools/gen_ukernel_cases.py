#!/usr/bin/env python3
"""Writes tests/data/ukernel_dtypes.txt: what NumPy 2 makes of each type name a user kernel's
parameter list may hold, for tests/test_ukernel.c.

Each line is `NAME DTYPE`, DTYPE being NumPy's dtype name, or `-` where NumPy raises
TypeError ("data type ... not understood") or gives a dtype Loom lacks. One-letter names are
placeholders in CuPy's language and are left out.

    python3 tools/gen_ukernel_cases.py > tests/data/ukernel_dtypes.txt
"""
import numpy as np

LOOM = {"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
        "float16", "float32", "float64", "complex64", "complex128"}

NAMES = sorted(LOOM) + [
    "float", "double", "single", "half", "int", "uint", "long", "ulong", "longlong",
    "ulonglong", "intc", "uintc", "short", "ushort", "byte", "ubyte", "intp", "uintp",
    "complex", "csingle", "cdouble", "f2", "f4", "f8", "i1", "i2", "i4", "i8", "u1", "u2",
    "u4", "u8", "c8", "c16", "b1",
    # not understood, or not Loom's
    "float128", "longdouble", "clongdouble", "object", "str", "floot32", "int3", "Float32",
    "uint128", "float8", "bool8", "f16", "datetime64", "int_", "bool_", "float_",
]


def main():
    assert np.__version__.startswith("2."), "NumPy 2 is the reference"
    print("# NumPy %s: type name -> dtype ('-': not understood or not Loom's)" % np.__version__)
    for name in NAMES:
        try:
            dt = np.dtype(name).name
        except TypeError:
            dt = "-"
        print(name, dt if dt in LOOM else "-")


if __name__ == "__main__":
    main()
