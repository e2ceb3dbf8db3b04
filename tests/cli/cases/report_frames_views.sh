# --frames views on one trace (docs/cli.md, "Frames"): user (default), all, python,
# native; a class: rule of a --rules file reclasses frames (the Python function forward
# as library: the user frame is then the next one out), and a bad class is an error.
"$VT_GEN" python t.vtrace
for v in user all python native; do
    echo "## --frames $v"
    "$VRAMTRACE" report --frames $v --top 1 t.vtrace | sed -n '/top sites at the peak/,/live at the end/p'
done
cat > lib.rules <<'R'
class:library  frame=python function=forward
R
echo "## class:library for forward"
"$VRAMTRACE" report --rules lib.rules --top 1 t.vtrace | sed -n '/top sites at the peak/,/live at the end/p'
echo "## JSON: the class of each frame"
"$VRAMTRACE" report --rules lib.rules --json t.vtrace | grep -m 4 '"class"'
printf 'class:kernel  module=x\n' > bad.rules
"$VRAMTRACE" report --rules bad.rules t.vtrace
echo "exit $?"
"$VRAMTRACE" report --frames everything t.vtrace
