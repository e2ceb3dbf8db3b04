// SPDX-License-Identifier: MIT
/* vt_replay_read.c - a reader's records into a replay (vt_replay_read.h). */
#include "vt_replay_read.h"

void vt_replay_read_tap(vt_replay *rp, vt_reader *rd, const vt_replay_tap *tap)
{
    const vt_ev *ev;
    vt_rec rec;
    for (;;) {
        size_t n = vt_reader_events(rd, &ev);
        if (n) {
            vt_replay_events(rp, ev, n);
            if (tap) tap->events(tap->ctx, ev, vt_reader_event_streams(rd), n);
            continue;
        }
        if (!vt_reader_next(rd, &rec)) break;
        vt_replay_rec(rp, &rec);
        if (tap && (rec.type == VT_REC_ALLOC || rec.type == VT_REC_FREE)) tap->rec(tap->ctx, &rec);
    }
}

void vt_replay_read(vt_replay *rp, vt_reader *rd)
{
    vt_replay_read_tap(rp, rd, NULL);
}
