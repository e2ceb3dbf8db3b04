#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# GPU checks of the bundled workloads; tests/gpu/run.sh calls this in its `workloads` section.
#   bash workloads/gpu_checks.sh BUILD_DIR [VRAMTRACE [WORK_DIR [RESULTS_TSV]]]
# BUILD_DIR holds bin/vt-bert etc. Without a usable VRAMTRACE the traced comparisons are
# skipped and only the workloads' own checks run. The work is in gpu_checks.py.
exec "${PYTHON:-python3}" "$(dirname "$0")/gpu_checks.py" "$@"
