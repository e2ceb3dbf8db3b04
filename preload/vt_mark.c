// SPDX-License-Identifier: MIT
/* vt_mark.c - vramtrace_mark(name): a moment the program names ("epoch 2"), written as a
 * MARK record. Timelines draw it and `top --at mark:NAME` replays up to it. Called
 * through dlsym/ctypes (the vramtrace Python package's mark()), so a program that is not
 * traced finds no such function and does nothing. */
#include "vt_global.h"
#include "vt_side.h"

#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Longer names are cut: a mark is a label on a picture, not a log line. */
#define VT_MARK_MAX 256

/* Returns 0, or -1 when this process is not being traced (or name is NULL). Marks are
 * written while recording is paused too: they name time, not allocations. */
VT_EXPORT int vramtrace_mark(const char *name)
{
    if (!name || atomic_load_explicit(&vt_g.state, memory_order_acquire) < VT_ST_IDLE) return -1;
    size_t n = strnlen(name, VT_MARK_MAX);
    vt_rec r = { .type = VT_REC_MARK, .device = -1, .tid = (uint32_t)syscall(SYS_gettid), .time_ns = vt_now(),
                 .str = name, .str_len = (uint32_t)n };
    vt_side_push(&r);
    return 0;
}
