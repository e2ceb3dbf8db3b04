/* vt_main.c - `vramtrace COMMAND ...`: dispatch to the subcommands. */
#include "vt_cmds.h"

#include <stdio.h>
#include <string.h>

#ifndef VT_VERSION_STRING
#define VT_VERSION_STRING "0.1.0"
#endif

static const char usage[] =
    "usage: vramtrace COMMAND [ARGS...]\n"
    "\n"
    "  run [-o PATTERN] [--depth N] [--per-tensor] [--torch-modules] [--no-summary] -- CMD ARGS...\n"
    "                 run CMD with the recorder; say where the trace went and sum it up\n"
    "  report TRACE... [--top N] [--frames user|all|python|native|N] [--json]\n"
    "                 peak per device and what made it (the op, your line), leaks,\n"
    "                 OOMs, NVML and the driver pools' slack\n"
    "  top TRACE --by site|function|module|kind|category|layer [--at peak|end|TIME]\n"
    "             [--top N] [--frames ...] [--json]\n"
    "                 the largest holders at one moment\n"
    "  diff BASE NEW [--top N] [--frames ...] [--json]\n"
    "                 which sites grew between two runs\n"
    "  check TRACE --max-peak SIZE [--max-leak SIZE]\n"
    "                 exit 1 when a bound is broken (for CI)\n"
    "  timeline TRACE -o FILE.html|FILE.svg [--by category|site|kind|layer]\n"
    "                 memory over time, stacked; the peak marked; zoom and hover\n"
    "  flamegraph TRACE -o FILE.html|FILE.svg [--what peak|allocated|leaked] [--native]\n"
    "                 bytes by call stack, as a flame (icicle) graph\n"
    "  export --format folded|pprof|perfetto|speedscope|csv TRACE [-o FILE]\n"
    "                 the trace for other tools\n"
    "  dump TRACE     every record, one line each\n"
    "\n"
    "  vramtrace COMMAND --help for more; docs/cli.md has it all.\n";

int main(int argc, char **argv)
{
    static const struct { const char *name; int (*fn)(int, char **); } cmds[] = {
        { "run", vt_cmd_run }, { "report", vt_cmd_report }, { "top", vt_cmd_top },
        { "diff", vt_cmd_diff }, { "check", vt_cmd_check }, { "dump", vt_cmd_dump },
        { "timeline", vt_cmd_timeline }, { "flamegraph", vt_cmd_flamegraph }, { "export", vt_cmd_export },
    };
    if (argc < 2) {
        fputs(usage, stderr);
        return 2;
    }
    const char *c = argv[1];
    if (!strcmp(c, "-h") || !strcmp(c, "--help") || !strcmp(c, "help")) {
        fputs(usage, stdout);
        return 0;
    }
    if (!strcmp(c, "-V") || !strcmp(c, "--version") || !strcmp(c, "version")) {
        printf("vramtrace %s (trace format 1)\n", VT_VERSION_STRING);
        return 0;
    }
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
        if (!strcmp(c, cmds[i].name)) return cmds[i].fn(argc - 2, argv + 2);
    fprintf(stderr, "vramtrace: unknown command '%s' (try 'vramtrace --help')\n", c);
    return 2;
}
