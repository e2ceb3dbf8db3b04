/* SPDX-License-Identifier: MIT */
/* vt_ctrl.h - names from a trace made safe to print: control bytes (C0, DEL, C1) and
 * bytes that are not UTF-8 become "\xNN", so that a trace cannot drive the terminal
 * that shows a report (clear it, retitle it, hide lines, plant links). */
#ifndef VT_CTRL_H
#define VT_CTRL_H

#include <stddef.h>

/* 1 when s[0..n) prints as it is. */
int vt_ctrl_safe(const char *s, size_t n);

/* Bytes at s (of n) that print as they are: a printable ASCII byte or a well-formed
 * UTF-8 sequence other than a C1 control; 0 when s[0] must be escaped. */
size_t vt_ctrl_ok_len(const char *s, size_t n);

/* Writes s[0..n), escaped, and a NUL to out (4 * n + 1 bytes); returns its length. */
size_t vt_ctrl_escape(char *out, const char *s, size_t n);

/* s[0..n) escaped, in a new NUL-terminated string (free it); NULL when out of memory. */
char *vt_ctrl_dup(const char *s, size_t n);

#endif /* VT_CTRL_H */
