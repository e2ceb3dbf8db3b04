// SPDX-License-Identifier: MIT
/* bench_replay.c - the analyzer's replay alone: events already decoded in memory.
 *
 *   bench_replay TRACE [-n MAX_EVENTS] [-r REPS]
 *
 * `vramtrace report` decodes on one thread and replays on another, so its wall time is
 * the slower of the two plus what follows; this times the replay's side by itself, to
 * tell a change to vt_replay.c from the noise of the whole pipeline. The trace's STACK
 * records and its first MAX_EVENTS ALLOC/FREE events (default 20M, 32 bytes each in
 * memory) are read once; each repetition replays them into a fresh vt_replay set up as
 * `report` sets it (a global tracker, the category log). Prints the best and median
 * thread CPU ns per event and the peak found (the same in every repetition, or it
 * fails). */
#define _POSIX_C_SOURCE 200809L
#include "vt_reader.h"
#include "vt_replay.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);  /* this thread alone: the program has no other */
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    const char *path = NULL;
    size_t max = 20000000;
    int reps = 5;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-n") && i + 1 < argc) max = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "-r") && i + 1 < argc) reps = atoi(argv[++i]);
        else path = argv[i];
    }
    if (!path || reps < 1 || reps > 100) {
        fprintf(stderr, "usage: bench_replay TRACE [-n MAX_EVENTS] [-r REPS]\n");
        return 2;
    }
    vt_reader rd;
    char msg[512];
    if (vt_reader_open(&rd, path, msg, sizeof msg) != VT_READ_OK) {
        fprintf(stderr, "bench_replay: %s\n", msg);
        return 1;
    }
    vt_ev *ev = malloc(max * sizeof *ev);
    size_t nst = 0, stcap = 1 << 16;
    vt_rec *st = malloc(stcap * sizeof *st);
    if (!ev || !st) { fprintf(stderr, "bench_replay: out of memory\n"); return 1; }
    size_t n = 0;
    vt_reader_start_events(&rd);
    while (n < max) {
        const vt_ev *e;
        size_t k = vt_reader_events(&rd, &e);
        if (k) {
            if (k > max - n) k = max - n;
            memcpy(ev + n, e, k * sizeof *e);
            n += k;
            continue;
        }
        vt_rec r;
        if (!vt_reader_next(&rd, &r)) break;
        if (r.type != VT_REC_STACK) continue;
        if (nst == stcap) {
            stcap *= 2;
            if (!(st = realloc(st, stcap * sizeof *st))) { fprintf(stderr, "bench_replay: out of memory\n"); return 1; }
        }
        st[nst++] = r;
    }
    vt_reader_close(&rd);

    double t[100];
    uint64_t peak0 = 0;
    for (int r = 0; r < reps; r++) {
        vt_replay *rp = vt_replay_new(0, 0);
        vt_tracker global = { .trace = -1 };
        vt_replay_set_global(rp, &global);
        vt_replay_keep_catlog(rp);
        for (size_t i = 0; i < nst; i++) vt_replay_rec(rp, &st[i]);
        double t0 = now_s();
        /* in slices the size of a chunk's events, as the reader hands them over */
        for (size_t i = 0; i < n; i += 65536) vt_replay_events(rp, ev + i, n - i < 65536 ? n - i : 65536);
        t[r] = now_s() - t0;
        vt_replay_finish(rp);
        if (r == 0) peak0 = global.peak;
        if (global.peak != peak0) { fprintf(stderr, "bench_replay: peaks differ\n"); return 1; }
        vt_replay_free(rp);
    }
    qsort(t, (size_t)reps, sizeof *t, cmp_double);
    printf("events=%zu stacks=%zu reps=%d best_ns=%.2f median_ns=%.2f peak=%llu\n", n, nst, reps,
           t[0] / (double)n * 1e9, t[reps / 2] / (double)n * 1e9, (unsigned long long)peak0);
    free(ev);
    free(st);
    return 0;
}
