// SPDX-License-Identifier: MIT
/* vt_pyoffsets.c - a vt_pylayout from CPython's _Py_DebugOffsets (3.13+).
 *
 * Since 3.13 the interpreter publishes where its structures keep each field, for
 * debuggers and profilers that read it from outside: _PyRuntime starts with the cookie
 * "xdebugpy", PY_VERSION_HEX, a free-threaded flag, then the offsets. Reading the frame
 * layout from there instead of a table compiled in here keeps the recorder right for a
 * patch release or a distribution build that moved a field, and it is how 3.14 is read
 * at all. The struct itself changes between minor versions (3.14 added fields in the
 * middle), so each known minor version has a row of slot indexes (vt_pyoffsets.h); a
 * later version is refused rather than guessed.
 *
 * Not every field the walk uses is published: _co_firsttraceable sits 16 bytes before
 * co_code_adaptive in every GIL build from 3.11 to 3.14 (an int, padding, the co_extra
 * pointer), and PyCompactUnicodeObject is PyASCIIObject plus utf8_length and utf8 since
 * 3.12; tests/python/py_layout.c checks both against each installed interpreter. */
#include "vt_pyoffsets.h"

#include <stdint.h>
#include <string.h>

static uint64_t slot(const unsigned char *b, unsigned i)
{
    uint64_t v;
    memcpy(&v, b + 8 + 8 * (size_t)i, 8);
    return v;
}

int vt_pyoffsets_layout(const void *blob, size_t len, vt_pylayout *out, int *minor)
{
    const unsigned char *b = blob;
    *minor = -1;
    if (len < 16 || memcmp(b, "xdebugpy", 8) != 0) return VT_PYOFF_NONE;
    uint64_t hex = slot(b, 0);
    if ((hex >> 24 & 0xff) != 3) return VT_PYOFF_VERSION;
    *minor = (int)(hex >> 16 & 0xff);
    const vt_pyoff_slots *S = NULL;
    for (size_t i = 0; i < sizeof vt_pyoff_versions / sizeof vt_pyoff_versions[0]; i++)
        if (vt_pyoff_versions[i].minor == *minor) S = &vt_pyoff_versions[i];
    if (!S) return VT_PYOFF_VERSION;
    if (len < 8 + 8 * (size_t)(S->str_ascii_size + 1)) return VT_PYOFF_BAD;
    if (slot(b, S->free_threaded)) return VT_PYOFF_FREE_THREADED;

    /* Offsets into small structs: anything large means the blob is not what its version
     * says. The object header and the str fields vt_py.c reads at fixed places must be
     * where a GIL build has them. */
    const unsigned offs[] = { S->ts_current_frame, S->fr_previous, S->fr_executable, S->fr_instr_ptr,
                              S->fr_owner, S->co_filename, S->co_name, S->co_qualname, S->co_firstlineno,
                              S->co_code_adaptive, S->str_ascii_size };
    for (size_t i = 0; i < sizeof offs / sizeof offs[0]; i++)
        if (slot(b, offs[i]) >= 4096 || (i != 4 && i != 8 && slot(b, offs[i]) % 4)) return VT_PYOFF_BAD;
    if (slot(b, S->ob_type) != 8 || slot(b, S->str_state) != VT_STR_STATE_OFF ||
        slot(b, S->str_length) != VT_STR_LENGTH_OFF || slot(b, S->co_code_adaptive) < 32)
        return VT_PYOFF_BAD;

    vt_pylayout L = {
        .minor = *minor,
        .ts_frame = -1, .ts_cframe = -1, .cf_current = -1, .cf_previous = -1,
        .ts_current = (int)slot(b, S->ts_current_frame),
        .fr_back = (int)slot(b, S->fr_previous),
        .fr_code = (int)slot(b, S->fr_executable),
        .fr_instr = (int)slot(b, S->fr_instr_ptr),
        .fr_owner = (int)slot(b, S->fr_owner),
        .fr_is_entry = -1,
        .co_code = (int)slot(b, S->co_code_adaptive),
        .co_firsttraceable = (int)slot(b, S->co_code_adaptive) - 16,
        .co_filename = (int)slot(b, S->co_filename),
        .co_name = (int)slot(b, S->co_name),
        .co_qualname = (int)slot(b, S->co_qualname),
        .co_firstlineno = (int)slot(b, S->co_firstlineno),
        .lasti_unit = 0,
        .str_ascii = (int)slot(b, S->str_ascii_size),
        .str_compact = (int)slot(b, S->str_ascii_size) + 16,
        .str_ready = 0,
    };
    *out = L;
    return VT_PYOFF_OK;
}
