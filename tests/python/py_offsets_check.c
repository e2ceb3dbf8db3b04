// SPDX-License-Identifier: MIT
/* py_offsets_check.c - the layout the recorder reads from a live interpreter's
 * _Py_DebugOffsets (preload/vt_pyoffsets.c) against its table (preload/vt_pylayout.h).
 *
 *     py_offsets_check BLOB MINOR
 *
 * BLOB holds the first bytes of the interpreter's _PyRuntime (py_offsets.py writes it).
 * 3.13 and later: the blob must give a layout, and where the table has a row for that
 * version (3.13), every field must agree with it. Before 3.13: the blob must hold no
 * cookie, so the recorder takes the table's row. Exits 0 on agreement, 1 otherwise. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vt_pyoffsets.h"

static int bad;

static void eq(const char *what, int a, int b)
{
    if (a == b) return;
    printf("py_offsets_check: %s is %d from _Py_DebugOffsets, %d in vt_pylayout.h\n", what, a, b);
    bad = 1;
}

int main(int argc, char **argv)
{
    if (argc != 3) { fprintf(stderr, "usage: py_offsets_check BLOB MINOR\n"); return 2; }
    static unsigned char blob[4096];
    FILE *f = fopen(argv[1], "rb");
    if (!f) { perror(argv[1]); return 2; }
    size_t n = fread(blob, 1, sizeof blob, f);
    fclose(f);
    int want_minor = atoi(strchr(argv[2], '.') ? strchr(argv[2], '.') + 1 : argv[2]);
    vt_pylayout L;
    int minor;
    int rc = vt_pyoffsets_layout(blob, n, &L, &minor);
    if (want_minor < 13) {
        if (rc != VT_PYOFF_NONE) { printf("py_offsets_check: 3.%d has a cookie? rc %d\n", want_minor, rc); return 1; }
        printf("py_offsets_check: 3.%d publishes no _Py_DebugOffsets: the table's row is used\n", want_minor);
        return 0;
    }
    if (rc != VT_PYOFF_OK || minor != want_minor) {
        printf("py_offsets_check: 3.%d: no layout from _Py_DebugOffsets (rc %d, minor %d)\n", want_minor, rc, minor);
        return 1;
    }
    const vt_pylayout *T = NULL;
    for (size_t i = 0; i < sizeof vt_pylayouts / sizeof vt_pylayouts[0]; i++)
        if (vt_pylayouts[i].minor == minor) T = &vt_pylayouts[i];
    printf("py_offsets_check: 3.%d: current_frame %d previous %d executable %d instr_ptr %d owner %d "
           "filename %d qualname %d firstlineno %d co_code_adaptive %d ascii %d\n", minor, L.ts_current,
           L.fr_back, L.fr_code, L.fr_instr, L.fr_owner, L.co_filename, L.co_qualname, L.co_firstlineno,
           L.co_code, L.str_ascii);
    if (!T) { printf("py_offsets_check: no table row for 3.%d to compare with\n", minor); return 0; }
    eq("PyThreadState.current_frame", L.ts_current, T->ts_current);
    eq("_PyInterpreterFrame.previous", L.fr_back, T->fr_back);
    eq("_PyInterpreterFrame.f_executable", L.fr_code, T->fr_code);
    eq("_PyInterpreterFrame.instr_ptr", L.fr_instr, T->fr_instr);
    eq("_PyInterpreterFrame.owner", L.fr_owner, T->fr_owner);
    eq("PyCodeObject.co_code_adaptive", L.co_code, T->co_code);
    eq("PyCodeObject._co_firsttraceable", L.co_firsttraceable, T->co_firsttraceable);
    eq("PyCodeObject.co_filename", L.co_filename, T->co_filename);
    eq("PyCodeObject.co_name", L.co_name, T->co_name);
    eq("PyCodeObject.co_qualname", L.co_qualname, T->co_qualname);
    eq("PyCodeObject.co_firstlineno", L.co_firstlineno, T->co_firstlineno);
    eq("sizeof(PyASCIIObject)", L.str_ascii, T->str_ascii);
    eq("sizeof(PyCompactUnicodeObject)", L.str_compact, T->str_compact);
    eq("ready bit", (int)L.str_ready, (int)T->str_ready);
    eq("lasti unit", L.lasti_unit, T->lasti_unit);
    if (!bad) printf("py_offsets_check: 3.%d: _Py_DebugOffsets and the table agree\n", minor);
    return bad;
}
