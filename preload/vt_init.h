// SPDX-License-Identifier: MIT
/* vt_init.h - the recorder's life cycle: the constructor starts it, the first event opens the
 * trace (vt_start), an I/O error or the exit ends it. */
#ifndef VT_INIT_H
#define VT_INIT_H


/* The first event of the process: opens the file, starts the writer. Returns 1 when
 * tracing is active afterwards. */
int vt_start(void);

/* Turns tracing off after an I/O error (called by the writer thread). */
void vt_disable(void);
/* _exit's end of the trace (async-signal-safe). */
void vt_finish_now(void);

#endif /* VT_INIT_H */
