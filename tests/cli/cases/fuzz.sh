# SPDX-License-Identifier: MIT
# Every truncation and a byte flip every other byte of three traces, through report,
# report --json, dump and top (built with sanitizers when available): nothing may crash.
"$VT_GEN" simple s.vtrace && "$VT_GEN" vmm v.vtrace && "$VT_GEN" compat c.vtrace &&
"$VT_FUZZ" --step 2 s.vtrace v.vtrace c.vtrace | sed -E "s/[0-9]+/N/g"
