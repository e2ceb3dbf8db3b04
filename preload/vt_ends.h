/* SPDX-License-Identifier: MIT */
/* vt_ends.h - the trace's durable ends: fatal signals, _exit/_Exit and exec write out
 * what is queued before the process (or its image) goes (vt_ends.c). */
#ifndef VT_ENDS_H
#define VT_ENDS_H

/* Constructor, before anything can return early: finds the real sigaction and exec
 * functions (the hooks need them even when tracing is off). */
void vt_ends_init(void);

/* Constructor, when tracing is on: installs the fatal-signal handlers (SIGSEGV, SIGBUS,
 * SIGABRT, SIGFPE, SIGILL), keeping the program's own as the ones to chain to. */
void vt_ends_arm(void);

#endif /* VT_ENDS_H */
