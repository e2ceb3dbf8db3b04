// SPDX-License-Identifier: MIT
/* vt_pylayout.h - where CPython keeps what vt_py.c reads, per minor version (64-bit
 * Linux: x86-64 and aarch64 lay these structs out alike;
 * release builds with a GIL, no Py_TRACE_REFS). Measured with offsetof() against each
 * version's own headers (Include/internal with Py_BUILD_CORE); tests/python/py_layout.c
 * checks this table against the headers of every interpreter it finds. Internal
 * layouts do not change within a minor version (debuggers and profilers depend on
 * that), so the minor version picks the row. */
#ifndef VT_PYLAYOUT_H
#define VT_PYLAYOUT_H

typedef struct {
    int minor;
    int ts_frame;          /* 3.9/3.10: PyThreadState.frame */
    int ts_cframe;         /* 3.10-3.12: PyThreadState.cframe */
    int cf_current;        /* 3.11/3.12: _PyCFrame.current_frame */
    int cf_previous;       /* 3.10-3.12: _PyCFrame.previous */
    int ts_current;        /* 3.13: PyThreadState.current_frame */
    int fr_back, fr_code;
    int fr_instr;          /* 3.9/3.10: f_lasti (int); 3.11+: prev_instr / instr_ptr */
    int fr_owner;          /* 3.11+ */
    int fr_is_entry;       /* 3.11 */
    int co_code;           /* 3.11+: co_code_adaptive */
    int co_firsttraceable; /* 3.11+ */
    int co_filename, co_name, co_qualname;
    int co_firstlineno;
    int lasti_unit;        /* 3.9: f_lasti counts bytes; 3.10: code units (2 bytes) */
    int str_ascii;         /* sizeof(PyASCIIObject): where an ASCII string's text is */
    int str_compact;       /* sizeof(PyCompactUnicodeObject): where other text is */
    unsigned str_ready;    /* 3.9-3.11: the "ready" bit of the state (0: none) */
} vt_pylayout;

enum { VT_PY_OWNED_GENERATOR = 1, VT_PY_OWNED_CSTACK = 3 };

static const vt_pylayout vt_pylayouts[] = {
    { 9,  24, -1, -1, -1, -1, 24, 32, 104, -1, -1, -1, -1, 104, 112, -1, 40, 1, 48, 72, 0x80 },
    { 10, 24, 48, -1, 8, -1, 24, 32, 96, -1, -1, -1, -1, 104, 112, -1, 40, 2, 48, 72, 0x80 },
    { 11, -1, 56, 8, 16, -1, 48, 32, 56, 69, 68, 184, 168, 112, 120, 128, 72, 0, 48, 72, 0x80 },
    { 12, -1, 56, 0, 8, -1, 8, 0, 56, 70, -1, 192, 176, 112, 120, 128, 68, 0, 40, 56, 0 },
    { 13, -1, -1, -1, -1, 72, 8, 0, 56, 70, -1, 200, 184, 112, 120, 128, 68, 0, 40, 56, 0 },
};

/* PyASCIIObject.state bits, the same from 3.9 to 3.13 */
#define VT_STR_KIND(st)   (((st) >> 2) & 7)
#define VT_STR_COMPACT    0x20u
#define VT_STR_ASCII      0x40u
#define VT_STR_LENGTH_OFF 16
#define VT_STR_STATE_OFF  32

#endif /* VT_PYLAYOUT_H */
