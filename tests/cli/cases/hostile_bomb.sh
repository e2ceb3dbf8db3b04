# A decompression bomb (issue 17: a 56 KB trace inflated to 1.6 GB of records): chunks
# of 16 MiB of records in ~1.4 KiB each. The reader refuses a chunk over 1024:1, says
# so in one line and reports the chunk read before it.
"$VT_GEN_HOSTILE" bomb b.vtrace && "$VRAMTRACE" report b.vtrace | head -n 4
