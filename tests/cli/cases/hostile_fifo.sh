# A module path naming a FIFO (issue 17): the symbolizer opens only regular files, and
# without blocking, so every command finishes (each is given 60 s; it takes
# milliseconds) and says the module is not an ELF file.
mkfifo m.so && "$VT_GEN_HOSTILE" fifo "$PWD/m.so" f.vtrace || exit 1
for cmd in "report f.vtrace" "top f.vtrace --by function" "timeline f.vtrace -o t.svg" \
           "flamegraph f.vtrace -o f.svg" "export --format pprof f.vtrace -o p.pb.gz" \
           "export --format folded f.vtrace -o f.txt" "check f.vtrace --max-leak 2MiB"; do
    timeout 60 "$VRAMTRACE" $cmd > out 2> err
    echo "$cmd: exit $?; $(grep -c "not an ELF file: .*m.so" err) warning"
done
