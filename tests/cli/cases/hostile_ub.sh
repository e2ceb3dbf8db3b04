# Devices 126 to 237 (128 and up wrap to negative int8_t ordinals) and sizes near 2^64:
# what UBSan found in group_find and vt_cat_infer.c. They count on the unknown device,
# and the category inference's totals saturate; the sanitizer build runs this trace
# through every command (fuzz_hostile_traces).
"$VT_GEN_HOSTILE" ub u.vtrace && "$VRAMTRACE" report --frames 1 u.vtrace
