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
int vt_cmd_fit(int argc, char **argv);
int vt_cmd_forecast(int argc, char **argv);

#endif /* VT_CMDS_H */
