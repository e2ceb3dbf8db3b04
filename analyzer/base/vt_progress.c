// SPDX-License-Identifier: MIT
/* vt_progress.c - a progress bar on stderr for long analyses. */
#include "vt_progress.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void vt_progress_init(vt_progress *p, uint64_t total_bytes)
{
    memset(p, 0, sizeof *p);
    const char *off = getenv("VRAMTRACE_NO_PROGRESS");
    p->enabled = isatty(2) && !(off && *off && strcmp(off, "0") != 0);
    p->total = total_bytes;
    p->start_ns = p->last_ns = now_ns();
}

void vt_progress_update(vt_progress *p, uint64_t done)
{
    if (!p || !p->enabled) return;
    uint64_t t = now_ns();
    /* Redraw at most 10 times a second, and only after the first second. */
    if (t - p->start_ns < 1000000000u || t - p->last_ns < 100000000u) return;
    p->last_ns = t;
    uint64_t d = p->done + done;
    double frac = p->total ? (double)d / (double)p->total : 0;
    if (frac > 1) frac = 1;
    int width = 30, fill = (int)(frac * width);
    char bar[64];
    for (int i = 0; i < width; i++) bar[i] = i < fill ? '#' : '.';
    bar[width] = 0;
    double secs = (double)(t - p->start_ns) / 1e9;
    fprintf(stderr, "\rvramtrace: reading [%s] %3d%%  %.0f MiB  %.1f s ", bar,
            (int)(frac * 100), (double)d / 1048576.0, secs);
    fflush(stderr);
    p->shown = 1;
}

void vt_progress_next_input(vt_progress *p, uint64_t input_bytes)
{
    if (p) p->done += input_bytes;
}

void vt_progress_done(vt_progress *p)
{
    if (p && p->shown) {
        fprintf(stderr, "\r%*s\r", 79, "");
        fflush(stderr);
        p->shown = 0;
    }
}
