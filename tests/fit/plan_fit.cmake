# plan_fit.cmake - one vt-bert configuration: `vramtrace fit --allocator exact` of its
# real trace against `vt-bert --plan`, which must be equal to the byte (the exact model's
# peak is the workload's own allocations; cuBLAS's own workspaces, which the plan does
# not count, are outside the allocator: docs/fit.md).
#   cmake -DVT=vramtrace -DBERT=vt-bert -DTRACE=t.vtrace "-DARGS=--model base ..." -P plan_fit.cmake
cmake_minimum_required(VERSION 3.20)
foreach(v VT BERT TRACE)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "usage: cmake -DVT= -DBERT= -DTRACE= -DARGS= -P plan_fit.cmake")
  endif()
endforeach()
separate_arguments(args UNIX_COMMAND "${ARGS}")
execute_process(COMMAND ${BERT} --plan --quiet --steps 3 ${args}
  OUTPUT_VARIABLE plan ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "vt-bert --plan ${ARGS} exited ${rc}:\n${err}")
endif()
execute_process(COMMAND ${VT} fit --allocator exact --json ${TRACE}
  OUTPUT_VARIABLE fit ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "vramtrace fit exited ${rc}:\n${err}")
endif()
string(JSON want GET "${plan}" peak_bytes)
string(JSON got GET "${fit}" predicted_peak_bytes)
string(JSON outside GET "${fit}" outside_allocator_peak_bytes)
if(NOT want STREQUAL got)
  message(FATAL_ERROR "${TRACE}: fit --allocator exact predicts ${got} bytes, the plan's peak is ${want}")
endif()
message(STATUS "${TRACE}: ${got} bytes = the plan's peak (cuBLAS's own ${outside} apart)")
