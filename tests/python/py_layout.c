// SPDX-License-Identifier: MIT
/* py_layout.c - checks preload/vt_pylayout.h (the offsets the recorder reads Python's
 * frames with) against the headers of the Python it is compiled with. Built once per
 * interpreter whose internal headers are installed (tests/python/CMakeLists.txt):
 *     cc -DPy_BUILD_CORE -I$INCLUDEPY -I$INCLUDEPY/internal py_layout.c
 * Exits 0 when every field matches, 1 (naming each mismatch) otherwise, 77 when this
 * version has no row (not supported: nothing to check). */
#define Py_BUILD_CORE 1
#include <Python.h>
#include <frameobject.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#if PY_VERSION_HEX >= 0x030b0000
#include "internal/pycore_code.h"
#include "internal/pycore_frame.h"
#endif
#if PY_VERSION_HEX >= 0x030d0000
#include "internal/pycore_runtime.h"
#endif

#include "vt_pylayout.h"
#include "vt_pyoffsets.h"

static int bad;

static void eq(const char *what, long table, long header)
{
    if (table == header) return;
    printf("py_layout: Python %s: %s is %ld in vt_pylayout.h, %ld in the headers\n", PY_VERSION, what, table, header);
    bad = 1;
}

static unsigned state_bit(int which)
{
    PyASCIIObject a;
    memset(&a, 0, sizeof a);
    switch (which) {
    case 0: a.state.kind = 7; break;
    case 1: a.state.compact = 1; break;
    case 2: a.state.ascii = 1; break;
#if PY_VERSION_HEX < 0x030c0000
    case 3: a.state.ready = 1; break;
#endif
    default: return 0;
    }
    unsigned v;
    memcpy(&v, &a.state, sizeof v);
    return v;
}

int main(void)
{
    const vt_pylayout *L = NULL;
    for (size_t i = 0; i < sizeof vt_pylayouts / sizeof vt_pylayouts[0]; i++)
        if (vt_pylayouts[i].minor == PY_MINOR_VERSION && PY_MAJOR_VERSION == 3) L = &vt_pylayouts[i];
    if (!L) {
        printf("py_layout: Python %s has no row (not supported)\n", PY_VERSION);
        return 77;
    }
#if PY_VERSION_HEX < 0x030b0000
    eq("PyThreadState.frame", L->ts_frame, offsetof(PyThreadState, frame));
    eq("PyFrameObject.f_back", L->fr_back, offsetof(PyFrameObject, f_back));
    eq("PyFrameObject.f_code", L->fr_code, offsetof(PyFrameObject, f_code));
    eq("PyFrameObject.f_lasti", L->fr_instr, offsetof(PyFrameObject, f_lasti));
#if PY_VERSION_HEX >= 0x030a0000
    eq("PyThreadState.cframe", L->ts_cframe, offsetof(PyThreadState, cframe));
    eq("CFrame.previous", L->cf_previous, offsetof(CFrame, previous));
#endif
#else
#if PY_VERSION_HEX < 0x030d0000
    eq("PyThreadState.cframe", L->ts_cframe, offsetof(PyThreadState, cframe));
    eq("_PyCFrame.current_frame", L->cf_current, offsetof(_PyCFrame, current_frame));
    eq("_PyCFrame.previous", L->cf_previous, offsetof(_PyCFrame, previous));
    eq("_PyInterpreterFrame.f_code", L->fr_code, offsetof(_PyInterpreterFrame, f_code));
    eq("_PyInterpreterFrame.prev_instr", L->fr_instr, offsetof(_PyInterpreterFrame, prev_instr));
#else
    eq("PyThreadState.current_frame", L->ts_current, offsetof(PyThreadState, current_frame));
    eq("_PyInterpreterFrame.f_executable", L->fr_code, offsetof(_PyInterpreterFrame, f_executable));
    eq("_PyInterpreterFrame.instr_ptr", L->fr_instr, offsetof(_PyInterpreterFrame, instr_ptr));
#endif
    eq("_PyInterpreterFrame.previous", L->fr_back, offsetof(_PyInterpreterFrame, previous));
    eq("_PyInterpreterFrame.owner", L->fr_owner, offsetof(_PyInterpreterFrame, owner));
#if PY_VERSION_HEX < 0x030c0000
    eq("_PyInterpreterFrame.is_entry", L->fr_is_entry, offsetof(_PyInterpreterFrame, is_entry));
#else
    eq("FRAME_OWNED_BY_CSTACK", VT_PY_OWNED_CSTACK, FRAME_OWNED_BY_CSTACK);
#endif
    eq("FRAME_OWNED_BY_GENERATOR", VT_PY_OWNED_GENERATOR, FRAME_OWNED_BY_GENERATOR);
    eq("PyCodeObject.co_code_adaptive", L->co_code, offsetof(PyCodeObject, co_code_adaptive));
    eq("PyCodeObject._co_firsttraceable", L->co_firsttraceable, offsetof(PyCodeObject, _co_firsttraceable));
    eq("PyCodeObject.co_qualname", L->co_qualname, offsetof(PyCodeObject, co_qualname));
    eq("sizeof(_Py_CODEUNIT)", 2, sizeof(_Py_CODEUNIT));
    /* what vt_pyoffsets.c assumes of the fields _Py_DebugOffsets does not publish */
    eq("co_code_adaptive - _co_firsttraceable", 16,
       offsetof(PyCodeObject, co_code_adaptive) - offsetof(PyCodeObject, _co_firsttraceable));
#endif
#if PY_VERSION_HEX >= 0x030c0000
    eq("sizeof(PyCompactUnicodeObject) - sizeof(PyASCIIObject)", 16,
       sizeof(PyCompactUnicodeObject) - sizeof(PyASCIIObject));
#endif
#if PY_VERSION_HEX >= 0x030d0000
    /* vt_pyoffsets.h's slot of each field it reads, against this version's struct */
    const vt_pyoff_slots *S = NULL;
    for (size_t i = 0; i < sizeof vt_pyoff_versions / sizeof vt_pyoff_versions[0]; i++)
        if (vt_pyoff_versions[i].minor == PY_MINOR_VERSION) S = &vt_pyoff_versions[i];
    if (!S) {
        printf("py_layout: Python %s: vt_pyoffsets.h has no row\n", PY_VERSION);
        bad = 1;
    } else {
#define SLOT(f) ((long)(offsetof(_Py_DebugOffsets, f) - 8) / 8)
        eq("slot of version", S->version, SLOT(version));
        eq("slot of free_threaded", S->free_threaded, SLOT(free_threaded));
        eq("slot of thread_state.current_frame", S->ts_current_frame, SLOT(thread_state.current_frame));
        eq("slot of interpreter_frame.previous", S->fr_previous, SLOT(interpreter_frame.previous));
        eq("slot of interpreter_frame.executable", S->fr_executable, SLOT(interpreter_frame.executable));
        eq("slot of interpreter_frame.instr_ptr", S->fr_instr_ptr, SLOT(interpreter_frame.instr_ptr));
        eq("slot of interpreter_frame.owner", S->fr_owner, SLOT(interpreter_frame.owner));
        eq("slot of code_object.filename", S->co_filename, SLOT(code_object.filename));
        eq("slot of code_object.name", S->co_name, SLOT(code_object.name));
        eq("slot of code_object.qualname", S->co_qualname, SLOT(code_object.qualname));
        eq("slot of code_object.firstlineno", S->co_firstlineno, SLOT(code_object.firstlineno));
        eq("slot of code_object.co_code_adaptive", S->co_code_adaptive, SLOT(code_object.co_code_adaptive));
        eq("slot of pyobject.ob_type", S->ob_type, SLOT(pyobject.ob_type));
        eq("slot of unicode_object.state", S->str_state, SLOT(unicode_object.state));
        eq("slot of unicode_object.length", S->str_length, SLOT(unicode_object.length));
        eq("slot of unicode_object.asciiobject_size", S->str_ascii_size, SLOT(unicode_object.asciiobject_size));
#undef SLOT
    }
#endif
    eq("PyCodeObject.co_filename", L->co_filename, offsetof(PyCodeObject, co_filename));
    eq("PyCodeObject.co_name", L->co_name, offsetof(PyCodeObject, co_name));
    eq("PyCodeObject.co_firstlineno", L->co_firstlineno, offsetof(PyCodeObject, co_firstlineno));
    eq("PyObject.ob_type", 8, offsetof(PyObject, ob_type));
    eq("PyASCIIObject.length", VT_STR_LENGTH_OFF, offsetof(PyASCIIObject, length));
    eq("PyASCIIObject.state", VT_STR_STATE_OFF, offsetof(PyASCIIObject, state));
    eq("sizeof(PyASCIIObject)", L->str_ascii, sizeof(PyASCIIObject));
    eq("sizeof(PyCompactUnicodeObject)", L->str_compact, sizeof(PyCompactUnicodeObject));
    eq("state.kind bits", 0x1c, state_bit(0));
    eq("state.compact bit", VT_STR_COMPACT, state_bit(1));
    eq("state.ascii bit", VT_STR_ASCII, state_bit(2));
    eq("state.ready bit", L->str_ready, state_bit(3));
    if (!bad) printf("py_layout: Python %s: all fields match\n", PY_VERSION);
    return bad;
}
