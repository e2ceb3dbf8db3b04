# SPDX-License-Identifier: MIT
# plan_check.cmake - one vt-bert configuration: the categories `vramtrace report --json`
# finds at the peak of a real trace against `vt-bert --plan`'s ground truth.
#   cmake -DVT=vramtrace -DBERT=vt-bert -DTRACE=t.vtrace "-DARGS=--model base ..." -DMODE=rules|infer
#         -P plan_check.cmake
# (VRAMTRACE_SYM_PATH must let the analyzer find the traced vt-bert's symbols.)
#
# The comparison (docs/categories.md, "Accuracy"):
#  - The plan counts what vt-bert itself allocates. The trace also holds what cuBLAS
#    allocates for itself (cublasCreate): the plan does not know those bytes. They are
#    reported apart (by_rule: rules "cuda-libraries", category workspace) and the traced
#    peak must be exactly the plan's peak plus them.
#  - rules: per category, the bytes the [workloads] rules decided == the plan's, exactly;
#    by_category equals the plan with cuBLAS's own bytes added to workspace; nothing else.
#  - infer (--no-default-rules, lifetimes alone): gradients and optimizer state exact;
#    weights == plan weights + plan workspace + cuBLAS's own (lifetimes cannot tell a
#    buffer made at start-up and kept for library scratch from one kept for weights);
#    activations + temporary exact, and activations alone exact unless --recompute (a
#    recomputed activation is made and freed within the backward: lifetimes see a
#    temporary); nothing in workspace or other.
cmake_minimum_required(VERSION 3.20)
foreach(v VT BERT TRACE MODE)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "usage: cmake -DVT= -DBERT= -DTRACE= -DARGS= -DMODE=rules|infer -P plan_check.cmake")
  endif()
endforeach()
set(CATS weights activations gradients optimizer_state workspace temporary)
separate_arguments(args UNIX_COMMAND "${ARGS}")

execute_process(COMMAND ${BERT} --plan --quiet --steps 3 ${args}
  OUTPUT_VARIABLE plan ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "vt-bert --plan ${ARGS} exited ${rc}:\n${err}")
endif()
set(extra_args)
if(MODE STREQUAL "infer")
  set(extra_args --no-default-rules)
endif()
execute_process(COMMAND ${VT} report --json ${TRACE} ${extra_args}
  OUTPUT_VARIABLE rep ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "vramtrace report ${TRACE} exited ${rc}:\n${err}")
endif()

function(jget var json)
  string(JSON v ERROR_VARIABLE e GET "${json}" ${ARGN})
  if(e)
    message(FATAL_ERROR "no ${ARGN}: ${e}")
  endif()
  set(${var} "${v}" PARENT_SCOPE)
endfunction()

set(failed 0)
function(expect what got want)
  if(NOT "${got}" STREQUAL "${want}")
    message(SEND_ERROR "${what}: got ${got}, expected ${want}")
    set(failed 1 PARENT_SCOPE)
  else()
    message(STATUS "ok: ${what} = ${got}")
  endif()
endfunction()

jget(dev "${rep}" devices 0)
jget(peak "${dev}" peak_bytes)
jget(plan_peak "${plan}" peak_bytes)

# Bytes at the peak by (rules section, category), and per category.
jget(byrule "${dev}" categories by_rule)
string(JSON nrule LENGTH "${byrule}")
foreach(c ${CATS} other)
  set(wl_${c} 0)
  set(got_${c} 0)
endforeach()
set(outside 0)   # what the [workloads] rules did not decide
set(cublas 0)    # cuBLAS's own allocations
math(EXPR last "${nrule} - 1")
if(nrule GREATER 0)
  foreach(i RANGE ${last})
    jget(row "${byrule}" ${i})
    jget(rules "${row}" rules)
    jget(cat "${row}" category)
    jget(how "${row}" how)
    jget(b "${row}" bytes)
    if(rules STREQUAL "workloads" AND how STREQUAL "rule")
      math(EXPR wl_${cat} "${wl_${cat}} + ${b}")
    else()
      math(EXPR outside "${outside} + ${b}")
      if(rules STREQUAL "cuda-libraries" AND cat STREQUAL "workspace")
        math(EXPR cublas "${cublas} + ${b}")
      endif()
    endif()
  endforeach()
endif()
jget(bycat "${dev}" by_category)
string(JSON ncat LENGTH "${bycat}")
math(EXPR last "${ncat} - 1")
foreach(i RANGE ${last})
  jget(row "${bycat}" ${i})
  jget(cat "${row}" category)
  jget(b "${row}" bytes)
  set(got_${cat} ${b})
endforeach()

if(MODE STREQUAL "rules")
  expect("cuBLAS's own bytes are all the rest" "${outside}" "${cublas}")
  math(EXPR want "${plan_peak} + ${cublas}")
  expect("traced peak = plan peak + cuBLAS's own (${cublas})" "${peak}" "${want}")
  foreach(c ${CATS})
    jget(p "${plan}" at_peak ${c})
    expect("${c} by the [workloads] rules" "${wl_${c}}" "${p}")
    if(c STREQUAL "workspace")
      math(EXPR p "${p} + ${cublas}")
    endif()
    expect("by_category ${c}" "${got_${c}}" "${p}")
  endforeach()
  expect("by_category other" "${got_other}" "0")
else()
  # cuBLAS's own: the traced peak minus the plan's (checked against the rules run).
  math(EXPR cublas "${peak} - ${plan_peak}")
  jget(pw "${plan}" at_peak weights)
  jget(pws "${plan}" at_peak workspace)
  math(EXPR want "${pw} + ${pws} + ${cublas}")
  expect("weights (+ workspace + cuBLAS's own)" "${got_weights}" "${want}")
  foreach(c gradients optimizer_state)
    jget(p "${plan}" at_peak ${c})
    expect("${c}" "${got_${c}}" "${p}")
  endforeach()
  jget(pa "${plan}" at_peak activations)
  jget(pt "${plan}" at_peak temporary)
  math(EXPR want "${pa} + ${pt}")
  math(EXPR got "${got_activations} + ${got_temporary}")
  expect("activations + temporary" "${got}" "${want}")
  if(NOT ARGS MATCHES "--recompute")
    expect("activations" "${got_activations}" "${pa}")
  endif()
  expect("workspace" "${got_workspace}" "0")
  expect("other" "${got_other}" "0")
endif()
if(failed)
  message(FATAL_ERROR "${TRACE} (${ARGS}), ${MODE}: categories differ from the plan")
endif()
