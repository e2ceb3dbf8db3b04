#!/bin/sh
# SPDX-License-Identifier: MIT
# hot_page.sh LIB: the process-wide words every event reads (VT_HOT_DATA: vt_g, the ring's,
# the stack tables' and the unwinder's state, the interpreter's layout) lie on one 4 KiB
# page of libvramtrace.so (docs/design-recorder.md, "The hot path").
set -eu
nm "$1" | awk '
  $3 == "vt_g" || $3 == "vt_r" || $3 == "vt_st" || $3 == "vt_rules" || $3 == "vt_py_found" || $3 == "vt_api" {
    page = substr($1, 1, length($1) - 3); n++; pages[page] = pages[page] " " $3
  }
  END {
    k = 0; for (p in pages) k++
    for (p in pages) printf "page 0x%s000:%s\n", p, pages[p]
    if (n != 6) { printf "hot_page: %d of the 6 hot symbols found\n", n; exit 1 }
    if (k != 1) { print "hot_page: the hot globals span " k " pages"; exit 1 }
    print "hot_page: the 6 hot globals share one page"
  }'
