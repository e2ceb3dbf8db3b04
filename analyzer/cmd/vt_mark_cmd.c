/* SPDX-License-Identifier: MIT */
/* vt_mark_cmd.c - `--at mark:NAME` of the commands: the error when the trace has no such
 * mark, naming the marks it has. */
#include "vt_mark_cmd.h"

#include <stdint.h>
#include <stdio.h>

int vt_mark_missing(const char *cmd, const vt_trace *t, const char *name)
{
    const vt_replay_result *res = vt_replay_result_of(t->rp);
    if (res->stop_time != UINT64_MAX) return 0;
    fprintf(stderr, "vramtrace: %s: no mark '%s' in %s", cmd, name, t->path);
    if (!res->nmarks) {
        fprintf(stderr, " (it has none: the program makes them with vramtrace.mark(NAME))\n");
        return -1;
    }
    fprintf(stderr, " (its marks:");
    for (size_t i = 0; i < res->nmarks && i < 8; i++) fprintf(stderr, " '%s'", res->marks[i].name);
    fprintf(stderr, "%s)\n", res->nmarks > 8 ? " ..." : "");
    return -1;
}
