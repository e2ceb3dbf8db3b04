// SPDX-License-Identifier: MIT
/* vt_args.h - command-line options of one subcommand: short (-o X), long (--top N,
 * --top=N), operands anywhere, and "--" to end options. Errors print one line,
 * "vramtrace: CMD: ...", and the caller exits 2. */
#ifndef VT_ARGS_H
#define VT_ARGS_H

#include <stdint.h>

typedef struct {
    const char *name;  /* long name without "--"; NULL ends the table */
    char shortc;       /* 0 when none */
    int has_arg;
    int id;            /* > 0, returned by vt_args_next */
} vt_opt;

typedef struct {
    int argc;
    char **argv;
    int i;
    const char *cmd;        /* subcommand name, for messages */
    int stop_at_operand;    /* `run`: the first operand starts the command */
    int done;               /* options have ended ("--" seen or stop_at_operand hit) */
} vt_args;

#define VT_ARGS_END     0   /* no more arguments */
#define VT_ARGS_OPERAND (-1)/* *val is an operand */
#define VT_ARGS_ERROR   (-2)/* message printed */

void vt_args_init(vt_args *a, const char *cmd, int argc, char **argv);
int vt_args_next(vt_args *a, const vt_opt *opts, const char **val);

/* Prints "vramtrace: CMD: msg (try 'vramtrace CMD --help')" to stderr. */
void vt_args_error(const vt_args *a, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Takes the operand v as the command's one TRACE; prints an error and returns -1 when
 * *path is already set. */
int vt_args_one_trace(const vt_args *a, char **path, const char *v);

/* Converters that print an error themselves and return -1 on bad text. */
int vt_args_uint(const vt_args *a, const char *opt, const char *s, uint64_t max, uint64_t *out);
int vt_args_size(const vt_args *a, const char *opt, const char *s, uint64_t *out);

#endif /* VT_ARGS_H */
