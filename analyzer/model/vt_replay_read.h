// SPDX-License-Identifier: MIT
/* vt_replay_read.h - feeds a reader's records to a replay: the one place that knows
 * both, so that the replay stands on the record types alone (vt_codec.h). */
#ifndef VT_REPLAY_READ_H
#define VT_REPLAY_READ_H

#include "vt_reader.h"
#include "vt_replay.h"

/* Applies every record rd has left, through the fast path where it can. */
void vt_replay_read(vt_replay *rp, vt_reader *rd);

/* What also sees the ALLOC and FREE records as the replay takes them (all of them,
 * whatever the replay's stop), with their streams: the reader must have been started
 * with vt_reader_start_events_streams. `fit` replays them through its allocator models
 * in the same pass (vt_fit_early.h). */
typedef struct vt_replay_tap {
    void (*events)(void *ctx, const vt_ev *ev, const uint64_t *stream, size_t n);
    void (*rec)(void *ctx, const vt_rec *r);  /* one read on its own (vt_reader_next) */
    void *ctx;
} vt_replay_tap;

/* vt_replay_read, and tap (NULL: none) sees the ALLOC and FREE records. */
void vt_replay_read_tap(vt_replay *rp, vt_reader *rd, const vt_replay_tap *tap);

#endif /* VT_REPLAY_READ_H */
