# SPDX-License-Identifier: MIT
"$VRAMTRACE" frobnicate
