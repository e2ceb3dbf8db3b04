# SPDX-License-Identifier: MIT
echo "hello, world" > t.vtrace; "$VRAMTRACE" report t.vtrace
