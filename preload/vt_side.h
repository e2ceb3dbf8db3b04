// SPDX-License-Identifier: MIT
/* vt_side.h - the side buffer (vt_side.c): rare variable-length records, under a mutex. */
#ifndef VT_SIDE_H
#define VT_SIDE_H

#include <stddef.h>
#include <stdint.h>

#include "vt_format.h"

void   vt_side_push(const vt_rec *r);
/* Writer: takes what was queued; hands back the previous buffer for reuse. */
size_t vt_side_take(uint8_t **buf);
/* Writer: iterates a taken buffer. Returns the next record or NULL at the end. */
const uint8_t *vt_side_next(const uint8_t *p, const uint8_t *end, vt_rec *r);
uint64_t vt_side_dropped(void);   /* records refused because the buffer hit its cap */

#endif /* VT_SIDE_H */
