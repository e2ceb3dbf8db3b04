// SPDX-License-Identifier: MIT
/* vt_progress.h - a progress bar on stderr, shown only when stderr is a terminal and
 * the work has already taken more than a second (short runs stay quiet). */
#ifndef VT_PROGRESS_H
#define VT_PROGRESS_H

#include <stdint.h>

typedef struct vt_progress {
    int enabled;        /* stderr is a TTY and VRAMTRACE_NO_PROGRESS is unset */
    int shown;          /* something was drawn and must be erased */
    uint64_t start_ns;
    uint64_t last_ns;
    uint64_t total;     /* bytes to read, over all inputs */
    uint64_t done;      /* bytes read in inputs already finished */
} vt_progress;

void vt_progress_init(vt_progress *p, uint64_t total_bytes);
/* done = bytes read of the current input; cheap enough to call once per chunk. */
void vt_progress_update(vt_progress *p, uint64_t done);
/* Moves the base on after one input is finished. */
void vt_progress_next_input(vt_progress *p, uint64_t input_bytes);
/* Erases the bar. */
void vt_progress_done(vt_progress *p);

#endif /* VT_PROGRESS_H */
