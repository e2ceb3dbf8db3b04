// SPDX-License-Identifier: MIT
/* vt_pyoffsets.h - CPython's own description of its layout (_Py_DebugOffsets, the first
 * member of _PyRuntime since 3.13) turned into the vt_pylayout the frame walk reads. */
#ifndef VT_PYOFFSETS_H
#define VT_PYOFFSETS_H

#include <stddef.h>

#include "vt_pylayout.h"

/* What vt_pyoffsets_layout found. */
enum {
    VT_PYOFF_OK = 0,
    VT_PYOFF_NONE = -1,          /* no "xdebugpy" cookie: before 3.13, or not CPython */
    VT_PYOFF_VERSION = -2,       /* a minor version whose struct is not described here */
    VT_PYOFF_FREE_THREADED = -3, /* a build without the GIL */
    VT_PYOFF_BAD = -4,           /* a value no GIL build of that version has */
};

/* _Py_DebugOffsets is the cookie then a flat run of uint64 fields whose order changes
 * between minor versions (never within one). These are the indexes, in that run, of the
 * fields the walk needs, per version: counted from CPython's struct (3.13:
 * Include/internal/pycore_runtime.h; 3.14: Include/internal/pycore_debug_offsets.h) and,
 * for 3.13, checked against the installed headers by tests/python/py_layout.c. */
#define VT_PYOFF_FIELDS(X)                                                              \
    X(version) X(free_threaded) X(ts_current_frame) X(fr_previous) X(fr_executable)    \
    X(fr_instr_ptr) X(fr_owner) X(co_filename) X(co_name) X(co_qualname)               \
    X(co_firstlineno) X(co_code_adaptive) X(ob_type) X(str_state) X(str_length)        \
    X(str_ascii_size)

typedef struct {
    int minor;
#define VT_PYOFF_SLOT(f) unsigned char f;
    VT_PYOFF_FIELDS(VT_PYOFF_SLOT)
#undef VT_PYOFF_SLOT
} vt_pyoff_slots;

/* Rows in VT_PYOFF_FIELDS' order. */
static const vt_pyoff_slots vt_pyoff_versions[] = {
    { 13, 0, 1, 22, 28, 29, 30, 32, 34, 35, 36, 38, 42, 44, 67, 68, 69 },
    { 14, 0, 1, 25, 31, 32, 33, 35, 39, 40, 41, 43, 47, 50, 77, 78, 79 },
};

/* Fills *out from the bytes of a _Py_DebugOffsets (len of them readable at blob); *minor
 * gets the minor version the blob names (also on VT_PYOFF_VERSION). Only reads. */
int vt_pyoffsets_layout(const void *blob, size_t len, vt_pylayout *out, int *minor);

#endif /* VT_PYOFFSETS_H */
