// SPDX-License-Identifier: MIT
/* vt_unwind.h - the frame-pointer walk of the caller's native stack (vt_unwind.c). */
#ifndef VT_UNWIND_H
#define VT_UNWIND_H

#include <stdint.h>

#include "vt_memo.h"

int      vt_unwind_init(void);
/* Return addresses from the caller of vt_unwind outwards (and, when sps is not NULL,
 * the stack pointer of each one's function): how many; -1 when libunwind must do this
 * stack; 0 with *hit set when the memo knows the walk. */
int      vt_unwind(void **ips, uintptr_t *sps, int max, vt_memo *m, const vt_walk **hit);
uintptr_t vt_unwind_stack_hi(void); /* this thread's stack top, 0 unknown */

#endif /* VT_UNWIND_H */
