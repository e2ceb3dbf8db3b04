/* SPDX-License-Identifier: MIT */
/* vt_mark_cmd.h - `--at mark:NAME` of the commands: the error when the trace has no such
 * mark. */
#ifndef VT_MARK_CMD_H
#define VT_MARK_CMD_H

#include "vt_analyze.h"

/* After an analysis with vt_analyze_opts.stop_mark = name: 0 when trace t has the mark,
 * else prints "vramtrace: CMD: no mark 'NAME' in TRACE (its marks: ...)" and returns -1. */
int vt_mark_missing(const char *cmd, const vt_trace *t, const char *name);

#endif /* VT_MARK_CMD_H */
