# SPDX-License-Identifier: MIT
"$VRAMTRACE" --help && for c in run report top diff check dump; do "$VRAMTRACE" $c --help; done
