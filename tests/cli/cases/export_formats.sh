# SPDX-License-Identifier: MIT
# Every format of `vramtrace export` on a trace with Python frames and a scope, and the
# stack of an OOM: frames keep their class (folded-classes, speedscope, pprof's
# system_name, Perfetto's kind_str, csv-stacks); the Perfetto protobuf decoded with
# protoc against analyzer/out/perfetto_trace.proto. Load addresses, build-ids and the
# components of the modules' paths vary from build to build: masked.
"$VT_GEN" python t.vtrace && "$VT_GEN" oom o.vtrace || exit 1
proto="$SRC_DIR/analyzer/out"
mask() {
    cat > dec.txt
    paths=$(sed -n 's/^ *path_string_ids: //p' dec.txt | sort -u | tr '\n' ' ')
    awk -v paths=" $paths" '
        /^ *iid: / { iid = $2 }
        /^ *str: / && iid >= 4294967296 { sub(/str: .*/, "str: <build-id>") }
        /^ *str: / && index(paths, " " iid " ") && !/str: "\[/ { sub(/str: .*/, "str: <path component>") }
        { print }' dec.txt |
        sed -E -e 's/^( *)(start|end|rel_pc): [0-9]+$/\1\2: <addr>/' |
        # how many components a module's path has depends on where the tree was built:
        # drop those strings and their references, and number interned ids by position
        awk '/^ *strings \{$/ { blk = $0 "\n"; inb = 1; next }
             inb { blk = blk $0 "\n"; if ($0 ~ /^ *\}$/) { inb = 0; if (blk !~ /<path component>/) printf "%s", blk } next }
             /^ *path_string_ids: / { next }
             { print }' |
        sed -E -e 's/^( *)(iid|[a-z_]*_id): [0-9]+$/\1\2: <id>/'
}
for f in folded folded-classes speedscope csv csv-stacks perfetto-json; do
    echo "## $f"; "$VRAMTRACE" export --format "$f" t.vtrace
done
echo "## csv-stacks of the OOM trace (the failed request's stack too)"
"$VRAMTRACE" export --format csv-stacks o.vtrace
echo "## perfetto, decoded"
"$VRAMTRACE" export --format perfetto t.vtrace -o t.pftrace &&
    protoc --decode=perfetto.protos.Trace --proto_path="$proto" perfetto_trace.proto < t.pftrace | mask
echo "## perfetto: the OOM instant and its stack"
"$VRAMTRACE" export --format perfetto o.vtrace -o o.pftrace &&
    protoc --decode=perfetto.protos.Trace --proto_path="$proto" perfetto_trace.proto < o.pftrace |
    awk '/^packet/ { buf = ""; inst = 0 } { buf = buf $0 "\n" } /TYPE_INSTANT/ { inst = 1 } /^}/ && inst { printf "%s", buf }'
echo "## pprof: the functions' system names carry the class"
"$VRAMTRACE" export --format pprof t.vtrace -o t.pb.gz &&
    gzip -dc t.pb.gz | protoc --decode=perftools.profiles.Profile --proto_path="$proto" profile.proto |
    grep -F ' [' | grep string_table
echo "## a bad format names them all"
"$VRAMTRACE" export --format perfetto-pb t.vtrace
