// SPDX-License-Identifier: MIT
/* vt_cmds.h - the subcommands. Each takes the arguments after its name and returns
 * the process exit status: 0 fine, 1 a check failed, 2 bad usage or unreadable input
 * (`run` returns the traced command's status). */
#ifndef VT_CMDS_H
#define VT_CMDS_H

/* The one table of commands, in the order `vramtrace --help` lists them:
 * X(name, function, synopsis, what it does). vt_main.c dispatches and writes its usage
 * from it; each function is defined in vt_cmd_<name>.c. */
#define VT_COMMANDS(X) \
    X("run", vt_cmd_run, "run [-o PATTERN] [--depth N] [--per-tensor] [--no-summary] -- CMD ARGS...", \
      "run CMD with the recorder and say where the trace went") \
    X("report", vt_cmd_report, "report TRACE... [--top N] [--frames user|all|python|native|N] [--json]", \
      "peak per device and what made it (the op, your line), leaks, OOMs, NVML, pool slack") \
    X("top", vt_cmd_top, "top TRACE --by site|function|module|kind|category|layer [--at peak|end|TIME|mark:NAME] [--frames ...] [--json]", \
      "the largest holders at one moment") \
    X("diff", vt_cmd_diff, "diff BASE NEW [--top N] [--frames ...] [--json]", \
      "which sites grew between two runs") \
    X("check", vt_cmd_check, "check TRACE --max-peak SIZE [--max-leak SIZE] [--json]", \
      "exit 1 when a bound is broken (for CI)") \
    X("timeline", vt_cmd_timeline, "timeline TRACE [-o FILE.html|FILE.svg] [--by category|site|kind|layer]", \
      "memory over time, stacked; the peak marked; zoom, hover, click for the sites then") \
    X("flamegraph", vt_cmd_flamegraph, "flamegraph TRACE [-o FILE.html|FILE.svg] [--what peak|allocated|leaked] [--native]", \
      "bytes by call stack, as a flame (icicle) graph; search, inverted") \
    X("export", vt_cmd_export, "export --format folded[-classes]|pprof|perfetto[-json]|speedscope|csv[-stacks] TRACE [-o FILE]", \
      "the trace for other tools") \
    X("fit", vt_cmd_fit, "fit TRACE [--allocator exact|caching|expandable|async] [--memory SIZE]... [--json]", \
      "will it fit? the trace through a model of the allocator, per card size") \
    X("forecast", vt_cmd_forecast, "forecast --vary NAME VALUE:TRACE VALUE:TRACE [VALUE:TRACE...] [--memory SIZE]...", \
      "the peak at other batch sizes or lengths, and the largest that fits") \
    X("symbolize", vt_cmd_symbolize, "symbolize TRACE...", \
      "resolve the frames with this host's binaries into the trace") \
    X("dump", vt_cmd_dump, "dump TRACE", \
      "every record, one line each")

#define VT_CMD_DECL_(name, fn, synopsis, what) int fn(int argc, char **argv);
VT_COMMANDS(VT_CMD_DECL_)
#undef VT_CMD_DECL_

/* Symbolizes one trace in place (vt_trace_symbols.h), saying so on stderr; `run` calls it as
 * the program exits. Returns 0 or 2. */
int vt_symbolize_one(const char *path, int quiet);

#endif /* VT_CMDS_H */
