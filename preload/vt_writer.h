// SPDX-License-Identifier: MIT
/* vt_writer.h - the writer thread (vt_writer.c): drains, encodes, compresses and writes. */
#ifndef VT_WRITER_H
#define VT_WRITER_H

#include "vt_format.h"

int  vt_writer_start(void);      /* the file is open (vt_out.h) */
/* Drains, writes the trailer, closes; waits while chunks go out (join: then joins). */
void vt_writer_stop(int join);
/* Any thread: write out everything queued so far and wait (async-signal-safe; -1 when
 * the writer is gone, is the caller, or stalled). */
int  vt_writer_sync(void);
/* Writer thread only: encodes one record into the current chunk. */
void vt_writer_emit(const vt_rec *r);

#endif /* VT_WRITER_H */
