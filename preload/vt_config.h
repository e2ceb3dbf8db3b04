// SPDX-License-Identifier: MIT
/* vt_config.h - the recorder's configuration: read once from VRAMTRACE_* in the constructor
 * (vt_env.c), read-only after. */
#ifndef VT_CONFIG_H
#define VT_CONFIG_H

#include <stdint.h>

#define VT_DEPTH_MAX   256
#define VT_PATH_MAX    4096

/* The fields every event reads come first, the long path last, so that what an event
 * reads of vt_g lies in its first two cache lines (vt_global.h). */
typedef struct {
    int      depth;               /* frames per stack, 0 = none */
    int      flush_ms;
    int      nvml_ms;             /* 0 = NVML off */
    int      free_stacks;
    int      zstd_level;
    int      debug;
    int      disable;
    int      libunwind;           /* VRAMTRACE_LIBUNWIND=1: every stack through libunwind */
    int      python;              /* VRAMTRACE_PYTHON: Python frames in stacks (default 1) */
    int      interp_frames;       /* VRAMTRACE_INTERPRETER_FRAMES=1: no cut of the walk (vt_pycut.c) */
    int      stats;               /* VRAMTRACE_STATS=1: time the recorder's own parts (vt_stats.c) */
    uint32_t ring_slots;          /* power of two */
    int      rank;                /* VT_RANK_VARS, else local_rank (vt_format.h) */
    int      local_rank;          /* VT_LOCAL_RANK_VARS, else -1 */
    int      descendant;          /* started by exec from a traced process */
    int      drop_ms;             /* VRAMTRACE_DROP_MS: a full ring drops after this; 0 = never */
    int      readable;            /* VRAMTRACE_READABLE=1: the trace is created 0644, not 0600 */
    char     output[VT_PATH_MAX]; /* absolute output pattern (%p %h %r %%) */
} vt_config;

#endif /* VT_CONFIG_H */
