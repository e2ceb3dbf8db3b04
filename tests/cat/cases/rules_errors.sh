# SPDX-License-Identifier: MIT
# Bad --rules files: one line on stderr naming the file and line, exit 2.
printf 'weights function=x\nactivation function=y\n' > bad1.rules
printf '[s]\nweights function~(unclosed\n' > bad2.rules
printf 'temporary\n' > bad3.rules
for f in bad1.rules bad2.rules bad3.rules missing.rules; do
  "$VRAMTRACE" report --rules $f "$SRC_DIR/tests/data/findings/tiny.vtrace"; echo "exit $?"
done
"$VRAMTRACE" diff --rules missing.rules a b; echo "exit $?"
