# SPDX-License-Identifier: MIT
"""Writes the first 1 KiB of this interpreter's _PyRuntime (where 3.13+ keep their
_Py_DebugOffsets) to the file named by argv[1], and its version to stdout, for
py_offsets_check (tests/python/CMakeLists.txt: python_offsets_*)."""
import ctypes
import sys

try:
    rt = ctypes.c_char.in_dll(ctypes.pythonapi, "_PyRuntime")
    blob = ctypes.string_at(ctypes.addressof(rt), 1024)
except (ValueError, AttributeError):
    blob = b""  # not exported: the recorder cannot see it either
with open(sys.argv[1], "wb") as f:
    f.write(blob)
print("%d.%d" % sys.version_info[:2])
