// SPDX-License-Identifier: MIT
/* vt_pycut.h - where a native stack under Python frames stops saying anything (vt_pycut.c). */
#ifndef VT_PYCUT_H
#define VT_PYCUT_H

/* The index of the first of ips[0..n) that returns into the interpreter loop, when it
 * and every frame outside it are the interpreter's own code; else n (nothing to cut). */
int vt_pycut_at(void *const *ips, int n);

#endif /* VT_PYCUT_H */
