#!/bin/bash
# SPDX-License-Identifier: MIT
# completion_test.sh COMPLETION - the generated bash completion answers what a user types.
set -u
source "$1"
fail=0
# expect "WORDS" "EXPECTED" : completes the last word of WORDS (a trailing space means a
# new empty word) and compares the sorted answer.
expect() {
    read -r -a COMP_WORDS <<< "$1"
    [[ "$1" == *" " ]] && COMP_WORDS+=("")
    COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
    COMPREPLY=()
    _vramtrace
    got=$(printf "%s\n" "${COMPREPLY[@]}" | sort -u | tr "\n" " ")
    if [ "$got" != "$2 " ]; then echo "FAIL: '$1' -> '$got', want '$2 '"; fail=1; fi
}
cd "$(mktemp -d)" && touch a.vtrace b.txt && mkdir sub
expect "vramtrace ti" "timeline"
expect "vramtrace f" "fit flamegraph forecast"
expect "vramtrace check --j" "--json"
expect "vramtrace top --by " "category function kind layer module site"
expect "vramtrace top --at " "end mark: peak"
expect "vramtrace export --format p" "perfetto perfetto-json pprof"
expect "vramtrace flamegraph --what l" "leaked"
expect "vramtrace report " "a.vtrace sub"
expect "vramtrace run -- pytho" "$(compgen -c -- pytho | sort -u | tr '\n' ' ' | sed 's/ $//')"
expect "vramtrace timeline --f" "--format --from"
[ $fail = 0 ] && echo "ok: completion"
exit $fail
