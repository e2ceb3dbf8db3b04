# SPDX-License-Identifier: MIT
# Device 0: NVML says the process used 900 MiB while 300 MiB were traced; device 1
# has no UUIDs (matched by index) and no per-process figure (device used instead).
"$VT_GEN" nvml t.vtrace && "$VRAMTRACE" report --frames 1 t.vtrace
