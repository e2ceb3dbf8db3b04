// SPDX-License-Identifier: MIT
/* vt_main.c - `vramtrace COMMAND ...`: dispatch to the subcommands. */
#include "vt_cmds.h"

#include <stdio.h>
#include <string.h>

#ifndef VT_VERSION_STRING
#define VT_VERSION_STRING "0.1.0"
#endif

#define VT_CMD_ROW_(name, fn, synopsis, what) { name, fn, synopsis, what },
static const struct {
    const char *name;
    int (*fn)(int, char **);
    const char *synopsis, *what;
} vt_commands[] = { VT_COMMANDS(VT_CMD_ROW_) };
#undef VT_CMD_ROW_
#define VT_NCOMMANDS (sizeof vt_commands / sizeof vt_commands[0])

/* A synopsis short enough has its explanation on the same line, at the column where
 * the others' start on the next one. */
static void usage(FILE *f)
{
    fputs("usage: vramtrace COMMAND [ARGS...]\n\n", f);
    for (size_t i = 0; i < VT_NCOMMANDS; i++) {
        if (strlen(vt_commands[i].synopsis) < 15)
            fprintf(f, "  %-15s%s\n", vt_commands[i].synopsis, vt_commands[i].what);
        else
            fprintf(f, "  %s\n%17s%s\n", vt_commands[i].synopsis, "", vt_commands[i].what);
    }
    fputs("\n  vramtrace COMMAND --help for more; docs/cli.md has it all.\n", f);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char *c = argv[1];
    if (!strcmp(c, "-h") || !strcmp(c, "--help") || !strcmp(c, "help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(c, "-V") || !strcmp(c, "--version") || !strcmp(c, "version")) {
        printf("vramtrace %s (trace format 1)\n", VT_VERSION_STRING);
        return 0;
    }
    for (size_t i = 0; i < VT_NCOMMANDS; i++)
        if (!strcmp(c, vt_commands[i].name)) return vt_commands[i].fn(argc - 2, argv + 2);
    fprintf(stderr, "vramtrace: unknown command '%s' (try 'vramtrace --help')\n", c);
    return 2;
}
