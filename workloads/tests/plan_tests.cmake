# SPDX-License-Identifier: MIT
# Registers the `vt-bert --plan` tests (included from workloads/CMakeLists.txt). Each runs
# plan_check.cmake with one CHECK; none needs a GPU, and CUDA_VISIBLE_DEVICES is emptied so
# that a CUDA call that slipped into plan mode fails even where a GPU is present.
set(VT_PLAN_CHECKS
  params_base params_large params_formula
  peak_is_sum end_state recompute_lowers precision_sizes
  optimizer_state batch_growth seq_quadratic events_replay first_step_schedule)
foreach(check ${VT_PLAN_CHECKS})
  add_test(NAME workloads_plan_${check}
    COMMAND ${CMAKE_COMMAND} -DBIN=$<TARGET_FILE:vt-bert> -DCHECK=${check}
            -DWORK=${CMAKE_CURRENT_BINARY_DIR}/plan_${check}
            -P ${CMAKE_CURRENT_LIST_DIR}/plan_check.cmake)
  set_tests_properties(workloads_plan_${check} PROPERTIES
    ENVIRONMENT "CUDA_VISIBLE_DEVICES=" TIMEOUT 120 LABELS workloads)
endforeach()
