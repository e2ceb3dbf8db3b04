#!/bin/sh
# SPDX-License-Identifier: MIT
# run_case.sh - runs one test program under the recorder against the fake driver, then
# checks what it left behind.
#
#   run_case.sh NAME [options] -- COMMAND [ARGS...]
#     --root DIR        where case folders go (required); the case runs in DIR/NAME, emptied first
#     --tools DIR       folder of vt_tracecheck (required unless --untraced)
#     --fakedir DIR     folder of the fake libcuda.so.1 (required)
#     --preload LIB     the recorder (required unless --untraced)
#     --untraced        run without the recorder (the program still checks the fake's counters)
#     --output PATTERN  VRAMTRACE_OUTPUT, relative to the case folder unless absolute
#                       (default trace.vtrace)
#     --env K=V         extra environment (repeatable)
#     --rc N            expected exit status (default 0)
#     --signal N        the program must die of signal N
#     --warnings N      stderr must be exactly N lines, each starting "vramtrace: " (default 0)
#     --stderr-any      do not check stderr (VRAMTRACE_DEBUG=1 runs)
#     --no-trace        no trace file may appear
#     --check ARGS      extra arguments for vt_tracecheck verify (repeatable)
#     --allow FILE      a file the program itself writes in the case folder (repeatable)
#     --no-verify       the traces must exist, but their events are checked by --post
#                       (a run cut short on purpose: a full disk)
#     --post CMD        a shell command run in the case folder at the end; must succeed
#
# Every traced process of the program writes DIR/NAME/<pid>.expect (tp.c) naming the
# trace it must have produced; each is verified, and no other trace file may exist.
#
# VT_EMU (cross builds: tests/aarch64/qemu-run.sh) runs the program and vt_tracecheck;
# the recorder then goes to the program as VT_EMU_PRELOAD, which the emulator hands to
# the guest as its LD_PRELOAD.
set -u

name=$1; shift
root= tools= fakedir= preload= untraced=0 output=trace.vtrace rc_want=0 sig_want=
warn_want=0 stderr_any=0 no_trace=0 check= post= verify=1 allow=
envs=
while [ $# -gt 0 ]; do
    case $1 in
    --root) root=$2; shift 2 ;;
    --tools) tools=$2; shift 2 ;;
    --fakedir) fakedir=$2; shift 2 ;;
    --preload) preload=$2; shift 2 ;;
    --untraced) untraced=1; shift ;;
    --output) output=$2; shift 2 ;;
    --env) envs="$envs
$2"; shift 2 ;;
    --rc) rc_want=$2; shift 2 ;;
    --signal) sig_want=$2; shift 2 ;;
    --warnings) warn_want=$2; shift 2 ;;
    --no-trace) no_trace=1; shift ;;
    --stderr-any) stderr_any=1; shift ;;
    --check) check="$check $2"; shift 2 ;;
    --no-verify) verify=0; shift ;;
    --allow) allow="$allow $2"; shift 2 ;;
    --post) post=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "run_case.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
[ -n "$root" ] && [ -n "$fakedir" ] && [ $# -gt 0 ] || { echo "run_case.sh: missing arguments" >&2; exit 2; }

dir=$root/$name
rm -rf "$dir"
mkdir -p "$dir" || exit 2
fail=0
say() { echo "run_case[$name]: $*"; }
bad() { say "FAIL: $*"; fail=1; }

case $output in /*) out=$output ;; *) out=$dir/$output ;; esac

# The environment of the run, written as a script so that every value stays one word.
pre_var=LD_PRELOAD
[ -z "${VT_EMU:-}" ] || pre_var=VT_EMU_PRELOAD
{
    echo "export LD_LIBRARY_PATH='$fakedir'\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
    echo "export TP_EXPECT_DIR='$dir'"
    if [ $untraced = 0 ]; then
        echo "export $pre_var='$preload'"
        echo "export VRAMTRACE_OUTPUT='$out'"
    fi
    echo "$envs" | while IFS= read -r kv; do
        [ -n "$kv" ] && echo "export ${kv%%=*}='${kv#*=}'"
    done
} > "$dir/env.sh"
[ -n "$envs" ] && say "env:$(echo "$envs" | tr '\n' ' ')"

# Run in a subshell, in the case folder; stdout and stderr kept apart.
# shellcheck disable=SC2086
( cd "$dir" && . ./env.sh && exec ${VT_EMU:-} "$@" ) > "$dir/stdout.txt" 2> "$dir/stderr.txt"
rc=$?

if [ -n "$sig_want" ]; then
    [ $rc = $((128 + sig_want)) ] || bad "exit status $rc, expected death by signal $sig_want ($((128 + sig_want)))"
else
    [ $rc = "$rc_want" ] || bad "exit status $rc, expected $rc_want"
fi

# stderr: exactly the recorder's warnings asked for, and nothing else.
nlines=$(wc -l < "$dir/stderr.txt")
nwarn=$(grep -c '^vramtrace: ' "$dir/stderr.txt")
if [ $stderr_any = 0 ] && { [ "$nlines" != "$warn_want" ] || [ "$nwarn" != "$warn_want" ]; }; then
    bad "stderr has $nlines line(s), $nwarn starting 'vramtrace: '; expected exactly $warn_want warning line(s):"
    sed 's/^/    | /' "$dir/stderr.txt" | head -20
fi

# Trace files: those the expect files name, no others.
listed=$dir/.listed
: > "$listed"
for e in "$dir"/*.expect; do
    [ -f "$e" ] || continue
    sed -n 's/^T //p' "$e" >> "$listed"
done
found=$(cd "$dir" && ls -A | grep -v -e '\.expect$' -e '^stdout\.txt$' -e '^stderr\.txt$' -e '^env\.sh$' -e '^\.listed$')
if [ $untraced = 1 ]; then
    [ -z "$found" ] || bad "untraced run left files: $found"
elif [ $no_trace = 1 ]; then
    [ -z "$found" ] || bad "no trace expected, found: $found"
    case $out in "$dir"/*) ;; *) ls -d "${out%/*}" >/dev/null 2>&1 && [ -e "$out" ] && bad "no trace expected, found $out" ;; esac
else
    for f in $found; do
        case " $allow " in *" $f "*) continue ;; esac
        grep -qxF "$dir/$f" "$listed" || bad "unexpected file in the case folder: $f"
    done
    nexp=0
    for e in "$dir"/*.expect; do
        [ -f "$e" ] || continue
        nexp=$((nexp + 1))
        t=$(sed -n 's/^T //p' "$e")
        if [ ! -f "$t" ]; then
            bad "no trace at $t (expected by ${e##*/}); files: $(echo $found)"
            continue
        fi
        [ $verify = 1 ] || continue
        say "verify ${e##*/} -> ${t##*/}"
        # shellcheck disable=SC2086
        ${VT_EMU:-} "$tools/vt_tracecheck" verify $check "$e" "$t" || bad "vt_tracecheck verify $check ${e##*/} ${t##*/}"
    done
    [ $nexp -gt 0 ] || bad "the program wrote no expect file"
fi

if [ -n "$post" ]; then
    ( cd "$dir" && . ./env.sh && unset LD_PRELOAD && sh -c "$post" ) || bad "post check failed: $post"
fi

if [ $fail != 0 ]; then
    say "stdout of the program:"
    sed 's/^/    | /' "$dir/stdout.txt" | head -20
    exit 1
fi
say "ok"
exit 0
