# Shared by the `silt run` comparison scripts (mpm_run_compare.cmake, silt_run_compare.cmake,
# silt_run_gpu_compare.cmake), which name each run (one, three, mpi, ...) and set its command line
# in cmd_<run> before calling these.

# The comparison scripts lie next to this file.
set(silt_compare_scripts ${CMAKE_CURRENT_LIST_DIR})

# silt_run_all(<run>...): runs ${cmd_<run>} for every run named, in order, and fails on the first
# that exits non-zero, with its output; the output of each (standard output, then standard error,
# where the progress log goes) is left in out_<run>.
function(silt_run_all)
  foreach(run IN LISTS ARGN)
    execute_process(COMMAND ${cmd_${run}} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "'${cmd_${run}}' failed (${rc}):\n${out}\n${err}")
    endif()
    set(out_${run} "${out}${err}" PARENT_SCOPE)
  endforeach()
endfunction()

# silt_compare_runs(<script.py> <what> <run>...): compares ${OUT}/<run> against ${OUT}/one with
# ${PYTHON} <script.py> (a script next to this file) for every run named, prints its summary and
# fails with "<run> <what>:" and the script's output when it finds a difference.
function(silt_compare_runs script what)
  foreach(run IN LISTS ARGN)
    execute_process(COMMAND ${PYTHON} ${silt_compare_scripts}/${script} ${OUT}/one ${OUT}/${run}
                    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
    message(STATUS "${run}: ${out}")
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "${run} ${what}:\n${out}\n${err}")
    endif()
  endforeach()
endfunction()
