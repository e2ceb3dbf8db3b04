// SPDX-License-Identifier: MIT
/* vt_frame_label.c - a frame's one-line text (vt_frame_label.h). */
#include "vt_frame_label.h"

#include <stdio.h>

const char *vt_export_frame_label(const vt_site_frame *f, char *buf, size_t n)
{
    if (f->kind == VT_FRAME_PYTHON && f->file_base) {
        if (f->line) snprintf(buf, n, "%s (%s:%u)", f->function, f->file_base, f->line);
        else snprintf(buf, n, "%s (%s)", f->function, f->file_base);
    } else if (f->kind == VT_FRAME_SCOPE) {
        snprintf(buf, n, "[%s]", f->function);
    } else {
        snprintf(buf, n, "%s", f->function);
    }
    /* ';' separates frames in folded stacks and a newline ends the line */
    for (char *p = buf; *p; p++) {
        if (*p == ';') *p = ':';
        else if (*p == '\n' || *p == '\r') *p = ' ';
    }
    return buf;
}
