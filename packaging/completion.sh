#!/bin/sh
# SPDX-License-Identifier: MIT
# completion.sh VRAMTRACE OUT - writes the bash completion of vramtrace from the CLI's own
# help text: the commands `vramtrace --help` lists, each command's options from its
# `--help`, and the values of an option written `--by a|b|c` (lower-case words) or
# `--format FORMAT` with a "FORMAT:" list below it.
set -eu
exe=$1 out=$2
cmds=$("$exe" --help | sed -n 's/^  \([a-z][a-z-]*\)\( .*\)\{0,1\}$/\1/p' | grep -vx vramtrace)
[ -n "$cmds" ] || { echo "completion.sh: no commands in '$exe --help'" >&2; exit 1; }

# One "case" arm per command: its options, then one arm per option that has values.
arms() {
    for c in $cmds; do
        "$exe" "$c" --help > "$out.help"
        opts=$({ grep -o -- '--[a-z][a-z-]*' "$out.help" || true; grep -o -- '\[-[a-z] ' "$out.help" | tr -d '[ ' || true
                 echo --help; } | sort -u | tr '\n' ' ')
        printf '    %s) opts="%s" ;;\n' "$c" "${opts% }"
    done
}
values() {
    for c in $cmds; do
        "$exe" "$c" --help > "$out.help"
        awk -v cmd="$c" '
            # --opt a|b|c: the lower-case words; --opt NAME: the list under "  NAME:".
            { line[NR] = $0 }
            END {
                for (i = 1; i <= NR; i++) {
                    s = line[i]
                    while (match(s, /--[a-z][a-z-]* [A-Za-z|:]+/)) {
                        m = substr(s, RSTART, RLENGTH); s = substr(s, RSTART + RLENGTH)
                        split(m, p, " "); opt = p[1]; val = p[2]
                        if (seen[opt]++) continue
                        if (val !~ /\|/ && val !~ /^[A-Z]+$/) continue
                        if (val ~ /^[A-Z]+$/) {
                            v = ""
                            for (k = 1; k <= NR; k++) if (line[k] == "  " val ":") {
                                for (j = k + 1; j <= NR && line[j] ~ /^    /; j++)
                                    if (line[j] ~ /^    [a-z]/) { split(line[j], w, " "); v = v " " w[1] }
                            }
                        } else {
                            n = split(val, w, "|"); v = ""
                            for (k = 1; k <= n; k++) {
                                if (w[k] ~ /^[a-z][a-z-]*$/) v = v " " w[k]
                                else if (w[k] ~ /^[a-z]+:[A-Z]+$/) v = v " " substr(w[k], 1, index(w[k], ":"))
                            }
                        }
                        if (v != "") printf "    \"%s %s\") COMPREPLY=($(compgen -W \"%s\" -- \"$cur\")); return ;;\n", cmd, opt, substr(v, 2)
                    }
                }
            }' "$out.help"
    done
}

{
    printf '# bash completion for vramtrace (generated from its help text by packaging/completion.sh)\n'
    printf '_vramtrace() {\n'
    printf '    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} cmd=${COMP_WORDS[1]} opts i\n'
    printf '    COMPREPLY=()\n'
    printf '    if [ "$COMP_CWORD" -eq 1 ]; then\n'
    printf '        COMPREPLY=($(compgen -W "%s --help --version" -- "$cur")); return\n' "$(echo $cmds)"
    printf '    fi\n'
    printf '    # run: after "--" (or the first operand) comes the command to trace.\n'
    printf '    if [ "$cmd" = run ]; then\n'
    printf '        for ((i = 2; i < COMP_CWORD; i++)); do\n'
    printf '            if [ "${COMP_WORDS[i]}" = -- ]; then\n'
    printf '                if [ $((i + 1)) -eq "$COMP_CWORD" ]; then COMPREPLY=($(compgen -c -- "$cur")); else COMPREPLY=($(compgen -f -- "$cur")); fi\n'
    printf '                return\n'
    printf '            fi\n'
    printf '        done\n'
    printf '    fi\n'
    printf '    case "$cmd $prev" in\n'
    values
    printf '    "run -o"|"run --output"|*" --rules"|*" --depth"|*" --top"|*" --frames"|*" --buckets"|*" --title"|*" --from"|*" --to"|*" --max-peak"|*" --max-leak"|*" --device") COMPREPLY=($(compgen -f -- "$cur")); return ;;\n'
    printf '    esac\n'
    printf '    case "$cmd" in\n'
    arms
    printf '    *) opts="--help" ;;\n'
    printf '    esac\n'
    printf '    if [[ "$cur" == -* ]]; then COMPREPLY=($(compgen -W "$opts" -- "$cur")); return; fi\n'
    printf '    # Operands: traces first, folders to walk into.\n'
    printf '    COMPREPLY=($(compgen -f -X "!*.vtrace*" -- "$cur") $(compgen -d -- "$cur"))\n'
    printf '}\n'
    printf 'complete -o filenames -F _vramtrace vramtrace\n'
} > "$out.tmp"
rm -f "$out.help"
mv "$out.tmp" "$out"
