// SPDX-License-Identifier: MIT
/* vt_stack.h - the caller's stack as a stack id (vt_stack.c): native, Python and scope frames. */
#ifndef VT_STACK_H
#define VT_STACK_H

#include <stdint.h>

int      vt_stack_init(void);
uint32_t vt_stack_capture(void);   /* id of the caller's stack, 0 = none */
uint64_t vt_stack_dropped(void);   /* stacks recorded as 0 because the tables were full */

#endif /* VT_STACK_H */
