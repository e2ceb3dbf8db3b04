# SPDX-License-Identifier: MIT
: > t.vtrace; "$VRAMTRACE" dump t.vtrace
