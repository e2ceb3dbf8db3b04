# SPDX-License-Identifier: MIT
# Every record; load addresses, build-ids and (so) compressed sizes change from build to
# build: they are masked.
"$VT_GEN" simple t.vtrace && "$VRAMTRACE" dump t.vtrace | sed -E "s/(bias|value)=0x[0-9a-f]+/\1=ADDR/; s/build_id=[0-9a-f]+/build_id=ID/; s/size=0x[0-9a-f]+ /size=SIZE /" | sed -E "s/(byte |offset=)[0-9]+/\\1N/g; s/\\([0-9]+ of [0-9]+ bytes\\)/(N of M bytes)/"
