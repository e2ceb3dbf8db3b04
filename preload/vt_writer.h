// SPDX-License-Identifier: MIT
/* vt_writer.h - the writer thread (vt_writer.c): drains, encodes, compresses and writes. */
#ifndef VT_WRITER_H
#define VT_WRITER_H

#include "vt_format.h"

int  vt_writer_start(int fd);
void vt_writer_stop(void);
/* Writer thread only: encodes one record into the current chunk. */
void vt_writer_emit(const vt_rec *r);

#endif /* VT_WRITER_H */
