# SPDX-License-Identifier: MIT
# Under srun (SLURM_PROCID), with no change to the launcher: the program and the copy of
# itself it spawns write r3.vtrace and r3.vtrace.<pid>, both rank 3 in their headers; the
# summary's first line compares the ranks, and each trace's line names its rank.
export VRAMTRACE_LIB="$VT_PLUMB_LIB" SLURM_PROCID=3
"$VRAMTRACE" run -o r%r.vtrace -- "$VT_GEN" as-recorder --spawn 2> err
echo "exit $?"
sed -E "s/pid [0-9]+/pid PID/g; s/r3\\.vtrace\\.[0-9]+/r3.vtrace.PID/g; s/, [0-9.]+ [KMG]?i?B\\)/, SIZE)/; s/at [0-9.]+ [mun]?s of [0-9.]+ [mun]?s/at T of T/" err | head -4
ls r3.vtrace* | sed -E 's/[0-9]+$/PID/'
