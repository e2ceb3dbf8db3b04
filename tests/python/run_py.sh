#!/bin/sh
# SPDX-License-Identifier: MIT
# run_py.sh - runs one program under the recorder against the fake driver, then a checker.
#
#   run_py.sh DIR --vramtrace BIN --lib LIB --fakedir DIR [options] -- PROGRAM... [--check CHECKER...]
#     DIR               the case folder (emptied first); the trace is DIR/trace.vtrace and
#                       $VT_EXPECT is DIR/expect.json
#     --env K=V         extra environment for the program (repeatable)
#     --via-run ARGS    start the program with `vramtrace run ARGS --` (word-split) instead of
#                       LD_PRELOAD (which also sets NVTX_INJECTION64_PATH)
#     --no-nvtx         do not set NVTX_INJECTION64_PATH (LD_PRELOAD mode)
#     --stderr-any      the program may write to stderr (default: it must not)
#   In CHECKER's arguments, @TRACE@ and @EXPECT@ stand for the trace and the expect file.
# Exits 0 when the program exits 0 and the checker passes. VT_EMU (cross builds) runs the
# program, as tests/preload/run_case.sh says.
set -u
export PYTHONDONTWRITEBYTECODE=1  # no __pycache__ in the source tree
dir=$1; shift
vramtrace= lib= fakedir= via_run= nvtx=1 stderr_any=0
envs=
while [ $# -gt 0 ]; do
    case $1 in
    --vramtrace) vramtrace=$2; shift 2 ;;
    --lib) lib=$2; shift 2 ;;
    --fakedir) fakedir=$2; shift 2 ;;
    --env) envs="$envs
$2"; shift 2 ;;
    --via-run) via_run=$2; shift 2 ;;
    --no-nvtx) nvtx=0; shift ;;
    --stderr-any) stderr_any=1; shift ;;
    --) shift; break ;;
    *) echo "run_py.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
rm -rf "$dir" && mkdir -p "$dir" || exit 2
trace=$dir/trace.vtrace
expect=$dir/expect.json
# split PROGRAM and CHECKER at --check
n=0
for a in "$@"; do [ "$a" = --check ] && break; n=$((n + 1)); done
prog_n=$n

(
    export LD_LIBRARY_PATH="$fakedir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    export VT_EXPECT="$expect"
    IFS='
'
    for kv in $envs; do [ -n "$kv" ] && export "$kv"; done
    unset IFS
    i=0
    for a in "$@"; do
        [ $i -lt $prog_n ] && set -- "$@" "$a"
        i=$((i + 1))
    done
    shift $i
    if [ -n "$via_run" ]; then
        # shellcheck disable=SC2086
        VRAMTRACE_LIB="$lib" exec "$vramtrace" run $via_run -o "$trace" --no-summary -- "$@"
    fi
    if [ -n "${VT_EMU:-}" ]; then export VT_EMU_PRELOAD="$lib"; else export LD_PRELOAD="$lib"; fi
    export VRAMTRACE_OUTPUT="$trace"
    [ $nvtx = 1 ] && export NVTX_INJECTION64_PATH="$lib"
    # shellcheck disable=SC2086
    exec ${VT_EMU:-} "$@"
) > "$dir/stdout.txt" 2> "$dir/stderr.txt"
rc=$?
cat "$dir/stdout.txt"
fail=0
if [ $rc -ne 0 ]; then echo "run_py: the program exited $rc"; fail=1; fi
if [ -n "$via_run" ]; then  # vramtrace run says where the trace went
    grep -v '^vramtrace: trace written to ' "$dir/stderr.txt" > "$dir/stderr.rest"
    mv "$dir/stderr.rest" "$dir/stderr.txt"
fi
if [ $stderr_any = 0 ] && [ -s "$dir/stderr.txt" ]; then echo "run_py: unexpected stderr:"; fail=1; fi
cat "$dir/stderr.txt"
[ -f "$trace" ] || { echo "run_py: no trace at $trace"; exit 1; }
[ $fail = 0 ] || exit 1

# the checker: what follows --check
i=0 found=0
for a in "$@"; do
    i=$((i + 1))
    [ "$a" = --check ] && { found=1; break; }
done
[ $found = 1 ] || exit 0
shift $i
for a in "$@"; do
    case $a in
    @TRACE@) a=$trace ;;
    @EXPECT@) a=$expect ;;
    esac
    set -- "$@" "$a"
    shift
done
exec "$@"
