// SPDX-License-Identifier: MIT
/* vt_py.h - Python frames of the calling thread (vt_py.c). */
#ifndef VT_PY_H
#define VT_PY_H

#include <stdatomic.h>
#include <stdint.h>

#define VT_PY_MAX    128          /* Python frames per stack (the innermost ones) */
#define VT_PY_GROUPS VT_PY_MAX    /* interpreter calls told apart per stack */
/* The Python frames of the calling thread, innermost first, in groups: the frames one
 * C-level call of the interpreter loop runs, [end[g-1], end[g]). anchor[g] is an
 * address on the C stack inside that call's native frame; 0 when the frame must be
 * found by its return address instead (vt_py_eval_ip). */
typedef struct {
    int       n, ngroups;
    int       by_ip;              /* 3.9: anchors are 0, match by return address */
    uint64_t  key;                /* hash of the ids, the groups' ends and their anchors */
    uint32_t  id[VT_PY_MAX];      /* PYFRAME ids */
    uint16_t  end[VT_PY_GROUPS];
    uintptr_t anchor[VT_PY_GROUPS];
} vt_pystack;
/* 1 once the interpreter's functions were found in the process. */
extern _Atomic int vt_py_found;
void vt_py_try_init(void);       /* looks the interpreter up (not on a hot path) */
int  vt_py_capture(vt_pystack *ps); /* how many frames; 0 for a thread Python never ran on */
int  vt_py_eval_ip(uintptr_t ip);   /* ip is inside the interpreter loop (0 when its extent is unknown) */
uintptr_t vt_py_eval_lo(void);      /* where the interpreter loop starts (0: not known) */
void vt_py_init(void);              /* constructor */

#endif /* VT_PY_H */
