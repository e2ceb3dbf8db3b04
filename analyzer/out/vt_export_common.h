// SPDX-License-Identifier: MIT
/* vt_export_common.h - the small helpers of the pictures and the interchange formats:
 * JSON strings, the output file, --device, default names and titles. */
#ifndef VT_EXPORT_COMMON_H
#define VT_EXPORT_COMMON_H

#include <stddef.h>
#include <stdio.h>

#include "vt_analysis.h"

/* A compact JSON string: UTF-8 passes through (invalid bytes become U+FFFD), '<' is
 * written \u003c so the JSON can sit inside an HTML <script>. */
void vt_export_jstr(FILE *f, const char *s);

/* Opens the output: "-" is stdout. Prints a line and returns NULL on failure. */
FILE *vt_export_open(const char *path, int binary);
/* Closes it (not stdout), reporting a write error; returns 0 or 2. */
int vt_export_close(FILE *f, const char *path);

/* --device: "all" or a CUDA ordinal; prints the error itself and returns -1. */
int vt_export_parse_device(const char *cmd, const char *v, int *out);
/* Whether the output path names an SVG file (ends in ".svg", any case). */
int vt_export_is_svg(const char *path);

/* The default output of a picture when -o is not given: TRACE's base name without
 * ".vtrace", then ".WHAT.html" or ".WHAT.svg", in the working directory (next to where
 * the user stands, not next to a trace that may sit in a read-only folder). */
void vt_export_default_out(char *out, size_t n, const char *trace, const char *what, int svg);

/* The base name of the traced program, for titles. */
const char *vt_export_program(const vt_analysis *a);

#endif /* VT_EXPORT_COMMON_H */
