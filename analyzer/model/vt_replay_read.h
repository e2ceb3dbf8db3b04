// SPDX-License-Identifier: MIT
/* vt_replay_read.h - feeds a reader's records to a replay: the one place that knows
 * both, so that the replay stands on the record types alone (vt_codec.h). */
#ifndef VT_REPLAY_READ_H
#define VT_REPLAY_READ_H

#include "vt_reader.h"
#include "vt_replay.h"

/* Applies every record rd has left, through the fast path where it can. */
void vt_replay_read(vt_replay *rp, vt_reader *rd);

#endif /* VT_REPLAY_READ_H */
