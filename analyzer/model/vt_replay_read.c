// SPDX-License-Identifier: MIT
/* vt_replay_read.c - a reader's records into a replay (vt_replay_read.h). */
#include "vt_replay_read.h"

void vt_replay_read(vt_replay *rp, vt_reader *rd)
{
    const vt_ev *ev;
    vt_rec rec;
    for (;;) {
        size_t n = vt_reader_events(rd, &ev);
        if (n) {
            vt_replay_events(rp, ev, n);
            continue;
        }
        if (!vt_reader_next(rd, &rec)) break;
        vt_replay_rec(rp, &rec);
    }
}
