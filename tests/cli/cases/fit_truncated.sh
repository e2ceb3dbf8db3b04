# A trace cut short is fitted as far as it goes, with the reader's one warning (its byte
# offsets, which follow compressed sizes, masked).
"$VT_GEN" truncated t.vtrace && "$VRAMTRACE" fit t.vtrace --memory 1GiB 2> err
sed -E "s/(byte )[0-9]+/\\1N/g; s/\\([0-9]+ of [0-9]+ bytes\\)/(N of M bytes)/" err >&2
