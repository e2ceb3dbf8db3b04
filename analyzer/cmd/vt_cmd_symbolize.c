/* SPDX-License-Identifier: MIT */
/* vt_cmd_symbolize.c - `vramtrace symbolize TRACE...`: makes traces self-contained with
 * this host's binaries (vt_trace_symbols.h); `run` does it when the program exits. */
#include "vt_cmds.h"

#include "vt_args.h"
#include "vt_trace_symbols.h"
#include "vt_units.h"

#include <inttypes.h>
#include <stdio.h>
#include <time.h>

static const char usage[] =
    "usage: vramtrace symbolize TRACE...\n"
    "  Resolves every native frame of the traces' stacks (function, file, line, inlined\n"
    "  calls) with the binaries of this host and appends the answers to each trace, so\n"
    "  that it reads the same on any machine. `vramtrace run` does this itself when the\n"
    "  program exits; this is for traces recorded without it (run --no-symbolize, or\n"
    "  LD_PRELOAD). Run it where the program ran. Addresses already symbolized are kept.\n";

int vt_symbolize_one(const char *path, int quiet)
{
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    vt_trace_symbols_stats st;
    char msg[512];
    if (vt_trace_symbols_write(path, &st, msg, sizeof msg)) {
        fprintf(stderr, "vramtrace: symbolize: %s\n", msg);
        return 2;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (quiet) return 0;
    for (size_t i = 0; i < st.nwarn && i < 4; i++) fprintf(stderr, "vramtrace: symbolize: %s\n", st.warn[i]);
    char b[VT_UNITS_BUF], tb[VT_UNITS_BUF];
    uint64_t ns = (uint64_t)(t1.tv_sec - t0.tv_sec) * 1000000000ull + (uint64_t)t1.tv_nsec - (uint64_t)t0.tv_nsec;
    fprintf(stderr, "vramtrace: symbolized %s: %" PRIu64 " of %" PRIu64 " addresses resolved here", path, st.resolved,
            st.addresses);
    if (st.already) fprintf(stderr, ", %" PRIu64 " already were", st.already);
    fprintf(stderr, " (+%s, %s)\n", vt_units_size(b, st.bytes), vt_units_time(tb, ns));
    return 0;
}

int vt_cmd_symbolize(int argc, char **argv)
{
    enum { O_HELP = 1 };
    static const vt_opt opts[] = { { "help", 'h', 0, O_HELP }, { NULL, 0, 0, 0 } };
    vt_args a;
    vt_args_init(&a, "symbolize", argc, argv);
    const char *v;
    int id, n = 0, rc = 0;
    /* Options first (--help), then every operand in turn. */
    while ((id = vt_args_next(&a, opts, &v)) != VT_ARGS_END) {
        switch (id) {
        case VT_ARGS_ERROR: return 2;
        case O_HELP: fputs(usage, stdout); return 0;
        case VT_ARGS_OPERAND:
            n++;
            if (vt_symbolize_one(v, 0)) rc = 2;
            break;
        }
    }
    if (!n) { vt_args_error(&a, "missing TRACE operand"); return 2; }
    return rc;
}
