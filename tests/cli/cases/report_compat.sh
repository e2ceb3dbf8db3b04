# SPDX-License-Identifier: MIT
# Minor version 9 with extra header bytes, an unknown record type (skipped), extra
# trailing fields in an ALLOC (ignored), 5 lost events and an unwrapped lookup.
"$VT_GEN" compat t.vtrace && "$VRAMTRACE" report --frames 1 t.vtrace
