/* vt_cmds.h - the subcommands. Each takes the arguments after its name and returns
 * the process exit status: 0 fine, 1 a check failed, 2 bad usage or unreadable input
 * (`run` returns the traced command's status). */
#ifndef VT_CMDS_H
#define VT_CMDS_H

int vt_cmd_run(int argc, char **argv);
int vt_cmd_dump(int argc, char **argv);
int vt_cmd_report(int argc, char **argv);
int vt_cmd_top(int argc, char **argv);
int vt_cmd_diff(int argc, char **argv);
int vt_cmd_check(int argc, char **argv);
int vt_cmd_timeline(int argc, char **argv);
int vt_cmd_flamegraph(int argc, char **argv);
int vt_cmd_export(int argc, char **argv);
int vt_cmd_symbolize(int argc, char **argv);
/* Symbolizes one trace in place (vt_trace_symbols.h), saying so on stderr; `run` calls it as
 * the program exits. Returns 0 or 2. */
int vt_symbolize_one(const char *path, int quiet);

#endif /* VT_CMDS_H */
