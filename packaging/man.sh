#!/bin/sh
# SPDX-License-Identifier: MIT
# man.sh VRAMTRACE OUT.1 VERSION - writes the man page vramtrace(1) from the CLI's own
# help text (`vramtrace --help`, then `vramtrace CMD --help` for each command it lists), so
# the page can never disagree with the binary it is installed with.
set -eu
exe=$1 out=$2 version=$3

# troff: a backslash is \e; a line starting with . or ' would be a request.
esc() { sed -e 's/\\/\\e/g' -e "s/^\([.']\)/\\\\\&\1/" -e 's/-/\\-/g'; }

# The commands: the usage's two-space-indented lines that start with a word (not the
# closing "vramtrace COMMAND --help" hint).
cmds=$("$exe" --help | sed -n 's/^  \([a-z][a-z-]*\)\( .*\)\{0,1\}$/\1/p' | grep -vx vramtrace)
[ -n "$cmds" ] || { echo "man.sh: no commands in '$exe --help'" >&2; exit 1; }
tmp=$out.tmp
{
    printf '.TH VRAMTRACE 1 "" "vramtrace %s" "User Commands"\n' "$version"
    printf '.SH NAME\nvramtrace \\- GPU memory profiler: record CUDA device memory with call stacks, then analyze it\n'
    printf '.SH SYNOPSIS\n.nf\n'
    for c in $cmds; do "$exe" "$c" --help | sed -n '/^usage: /,/^  [^ ]/p' | sed '$d' | sed -e 's/^usage: //' -e 's/^  *\([[-]\)/    \1/' | esc; done
    printf '.fi\n.SH DESCRIPTION\n'
    printf 'vramtrace records every CUDA driver allocation of a program (\\fBvramtrace run\\fR preloads the recorder, libvramtrace.so) with its call stack, then answers offline what held device memory at the peak, what leaked, what grew between two runs, and draws it.\n'
    printf '.SH COMMANDS\n'
    for c in $cmds; do
        printf '.SS %s\n.nf\n' "$c"
        "$exe" "$c" --help | esc
        printf '.fi\n'
    done
    printf '.SH EXIT STATUS\n0 success; 1 \\fBcheck\\fR found a bound broken; 2 bad usage or an unreadable trace. \\fBrun\\fR exits with the command'"'"'s status (128 + the signal number when a signal killed it).\n'
    printf '.SH ENVIRONMENT\nVRAMTRACE_OUTPUT, VRAMTRACE_DEPTH and the other VRAMTRACE_* variables configure the recorder; VRAMTRACE_LIB names the recorder library \\fBrun\\fR preloads.\n'
    printf '.SH FILES\n.TP\nlib/libvramtrace.so\nthe recorder, found next to the binary (../lib).\n'
    printf '.SH SEE ALSO\nThe documentation installed in share/doc/vramtrace (cli.md, configuration.md, trace-format.md).\n'
} > "$tmp"
mv "$tmp" "$out"
