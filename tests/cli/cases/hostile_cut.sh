# A trace cut in the middle of its second chunk (a full disk, a kill mid-write): the
# first chunk is read whole, and the second's complete zstd blocks (128 KiB of records
# each) by streaming decode; the report says how many of its records were read. Byte
# offsets are masked (they follow libzstd's output), the record counts are not.
"$VT_GEN_HOSTILE" cut c.vtrace && "$VRAMTRACE" report --frames 1 c.vtrace 2> err | head -n 4 |
    sed -E "s/(byte )[0-9]+/\\1N/g; s/\\([0-9]+ of [0-9]+ bytes\\)/(N of M bytes)/"
"$VRAMTRACE" dump c.vtrace 2> /dev/null | tail -n 1 | sed -E "s/offset=[0-9]+/offset=N/"
sed -E "s/(byte )[0-9]+/\\1N/g; s/\\([0-9]+ of [0-9]+ bytes\\)/(N of M bytes)/" err >&2
