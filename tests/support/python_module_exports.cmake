# cmake -DMODULE=<_silt...so> -DNM=<nm> -P python_module_exports.cmake
# The Python module exports PyInit__silt and, besides it, only the weak inline templates of its
# own sources: no strong symbol of silt's static libraries or of a statically linked C++ runtime
# (python/CMakeLists.txt says why: issue 35's segfault on the GPU machine).
execute_process(COMMAND "${NM}" -D --defined-only "${MODULE}" OUTPUT_VARIABLE table
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${NM} -D failed on ${MODULE}")
endif()
string(REPLACE "\n" ";" lines "${table}")
set(strong "")
foreach(line IN LISTS lines)
  # "<address> <type> <name>": weak (W, V) and unique (u) definitions are inline templates.
  if(line MATCHES "^[0-9a-f]+ ([A-Za-z]) (.+)$")
    set(type "${CMAKE_MATCH_1}")
    set(name "${CMAKE_MATCH_2}")
    if(NOT type MATCHES "^[WVu]$" AND NOT name STREQUAL "PyInit__silt")
      list(APPEND strong "${type} ${name}")
    endif()
  endif()
endforeach()
list(LENGTH strong n)
if(n GREATER 0)
  list(SUBLIST strong 0 20 shown)
  list(JOIN shown "\n  " shown)
  message(FATAL_ERROR "${MODULE} exports ${n} strong symbols besides PyInit__silt, e.g.\n  ${shown}")
endif()
message(STATUS "${MODULE}: PyInit__silt and weak inline templates only")
