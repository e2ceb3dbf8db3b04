/* SPDX-License-Identifier: MIT */
/* vt_trace_symbols.h - makes a trace self-contained: resolves every distinct native return
 * address of its stacks with the binaries of this host and appends the answers as
 * SYMBOL records (docs/trace-format.md, docs/symbols.md). */
#ifndef VT_TRACE_SYMBOLS_H
#define VT_TRACE_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint64_t addresses;   /* distinct native addresses in the stacks */
    uint64_t already;     /* of them, with SYMBOL records already (not written again) */
    uint64_t resolved;    /* written: resolved to a function here */
    uint64_t unresolved;  /* no module covers them, or no symbol: not written */
    uint64_t records;     /* SYMBOL records written */
    uint64_t bytes;       /* bytes appended to the file */
    size_t nwarn;         /* modules that could not be read here (missing, other build-id) */
    char warn[4][320];    /* the first of those lines */
} vt_trace_symbols_stats;

/* Appends the SYMBOL records to the trace at path. Returns 0, or -1 with a one-line
 * reason in msg: unreadable, not a whole trace (it must end cleanly; a trace cut
 * short is left as it is), or a write error (the file is then cut back to its size
 * before). */
int vt_trace_symbols_write(const char *path, vt_trace_symbols_stats *st, char *msg, size_t msglen);

#endif /* VT_TRACE_SYMBOLS_H */
