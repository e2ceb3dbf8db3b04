// SPDX-License-Identifier: MIT
/* vt_global.h - the recorder's process and thread state, the clock, and the wrappers' gate.
 * Nothing here is exported from libvramtrace.so: the library is built with
 * -fvisibility=hidden and only the interposed driver/loader names (VT_EXPORT) are visible. */
#ifndef VT_GLOBAL_H
#define VT_GLOBAL_H

#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "vt_config.h"

#define VT_EXPORT __attribute__((visibility("default")))
#define VT_LIKELY(x)   __builtin_expect(!!(x), 1)
#define VT_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define VT_TLS __thread __attribute__((tls_model("initial-exec")))

enum {
    VT_ST_OFF = 0,      /* never traced: bad config, VRAMTRACE_DISABLE, fork child, write error */
    VT_ST_STOPPED = 1,  /* was tracing; the exit path has taken over */
    VT_ST_IDLE = 2,     /* enabled, no event yet: no file, no thread, no ring */
    VT_ST_STARTING = 3, /* the first event is opening the file */
    VT_ST_ACTIVE = 4    /* events go to the ring */
};

/* What every event reads comes first (state, paused, the clock's base, the first fields
 * of cfg), so that it lies in the first two cache lines; the paths last. */
typedef struct {
    _Atomic int state;
    _Atomic int paused;            /* the program paused recording (vt_control.c); next to
                                    * state, so every event's check reads one line */
    int         tsc;               /* event times are TSC ticks, the writer converts (vt_tsc.c) */
    int         lookups_on;        /* identify/swap looked-up pointers (off with DISABLE/bad config) */
    uint64_t    start_mono_ns;     /* CLOCK_MONOTONIC at the constructor; event times count from it */
    uintptr_t   self_lo, self_hi;  /* our own text+data: frames and pointers inside are ours */
    vt_config   cfg;
    uint64_t    start_real_ns;
    pid_t       pid;
    _Atomic int forked;            /* this is a fork child: never touch the parent's trace */
    char        path[VT_PATH_MAX]; /* the expanded output path, once the file is open */
} vt_global;

/* The process-wide words that every event reads (vt_g's first lines, the stack tables',
 * the ring's and the unwinder's pointers, the interpreter's layout) are gathered in one
 * section of their own, which starts on a page (vt_ring.c), so that they lie on one page
 * rather than on five: between two allocations a training step's working set evicts the
 * TLB, and each page an event reads is then a page walk (docs/design-recorder.md, "The hot
 * path"; test preload_hot_page). */
#define VT_HOT_DATA __attribute__((section("vt_hot")))

/* The one global: a preloaded recorder is a process singleton by nature. */
extern vt_global vt_g;

/* Per thread. in_hook: inside recorder code (wrappers called from there pass through).
 * Initial-exec TLS: the library is LD_PRELOADed, so static TLS is there and the
 * access is a single %fs-relative load. */
typedef struct {
    uint32_t tid;
    uint8_t  in_hook;
    uint8_t  announced;  /* THREAD record queued */
} vt_tls_t;
extern VT_TLS vt_tls_t vt_tls;

static inline uint64_t vt_now_abs(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Nanoseconds since the constructor ran (the trace's time base). */
static inline uint64_t vt_now(void) { return vt_now_abs() - vt_g.start_mono_ns; }

/* The hash step of the recorder's tables (wyhash's multiply-fold): the 128-bit product
 * folded to 64 bits. */
static inline uint64_t vt_mix(uint64_t a, uint64_t b)
{
    __uint128_t r = (__uint128_t)a * b;
    return (uint64_t)r ^ (uint64_t)(r >> 64);
}

static inline int vt_is_self(uintptr_t a) { return a >= vt_g.self_lo && a < vt_g.self_hi; }

/* A wrapper's gate: returns 1 (and sets in_hook) when this call is to be recorded. */
static inline int vt_enter(void)
{
    if (vt_tls.in_hook) return 0;
    if (atomic_load_explicit(&vt_g.state, memory_order_acquire) < VT_ST_IDLE) return 0;
    vt_tls.in_hook = 1;
    return 1;
}
static inline void vt_leave(void) { vt_tls.in_hook = 0; }

/* Writes "vramtrace: <msg>\n" to stderr with one write(). */
void vt_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* VT_GLOBAL_H */
