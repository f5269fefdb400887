# cmake -DSILT=<silt> -DMPIEXEC=<mpirun> -DSCENE=<scene.json> -DOUT=<dir> [-DSET=<path=value;...>]
#       [-DBALANCE_EXP=<e>] -P silt_run_compare.cmake
# Runs the scene with `silt run` on one CPU partition, on three CPU partitions of one process
# (--devices 0,1,2 on the CPU backend), and with `mpirun -np 2 silt run`, and fails unless every
# output file (rasters, frames.csv, gauges.csv, hydrograph.csv; not resolved_scene.json, which
# names the backend, nor mass_balance.csv, whose sums follow the split) is byte for byte the same. SET: overrides (--set) for every run. BALANCE_EXP: each run must print
# its mass balance with a residual below 10^-e of its largest term.
include(${CMAKE_CURRENT_LIST_DIR}/run_and_compare.cmake)
file(REMOVE_RECURSE ${OUT})
set(runs one three mpi)
set(common --backend cpu)
foreach(s IN LISTS SET)
  list(APPEND common --set ${s})
endforeach()
# The mass balance is part of the progress output, which --quiet leaves out.
if(NOT DEFINED BALANCE_EXP)
  list(APPEND common --quiet)
endif()
set(cmd_one ${SILT} run ${SCENE} ${common} --out ${OUT}/one)
set(cmd_three ${SILT} run ${SCENE} ${common} --devices 0,1,2 --out ${OUT}/three)
set(cmd_mpi ${MPIEXEC} -np 2 --oversubscribe ${SILT} run ${SCENE} ${common} --out ${OUT}/mpi)
silt_run_all(${runs})
if(DEFINED BALANCE_EXP)
  foreach(run IN LISTS runs)
    string(REGEX MATCH "mass balance [^\n]*residual [-0-9.e+]+ m\\^3 \\(([0-9.e+-]+) of the largest term\\)"
           line "${out_${run}}")
    if(NOT line)
      message(FATAL_ERROR "${run}: no mass balance line in the output of '${cmd_${run}}':\n${out_${run}}")
    endif()
    set(fraction ${CMAKE_MATCH_1})
    # CMake does not compare numbers with exponents: the fraction as printed ({:.2g}, below 1) is
    # below 10^-e exactly when its exponent is -(e + 1) or less (or it is 0).
    if(fraction MATCHES "e-0*([0-9]+)$")
      set(small_exp ${CMAKE_MATCH_1})
    else()
      set(small_exp 0)
    endif()
    message(STATUS "${run}: ${line}")
    if(NOT (fraction STREQUAL "0" OR small_exp GREATER BALANCE_EXP))
      message(FATAL_ERROR "${run}: the mass balance residual is ${fraction} of the largest term, "
                          "not below 1e-${BALANCE_EXP}: ${line}")
    endif()
  endforeach()
endif()
file(GLOB files RELATIVE ${OUT}/one ${OUT}/one/*)
list(REMOVE_ITEM files resolved_scene.json)
# mass_balance.csv sums the rain, the infiltrated depth and the stored water part by part, in
# another order on each split: equal to round-off only (silt_checkpoint.py's swe_split compares it
# numerically). hydrograph.csv is exact on every split (each edge cell's volume is its owner's).
list(REMOVE_ITEM files mass_balance.csv)
list(LENGTH files n)
if(n LESS 10)
  message(FATAL_ERROR "only ${n} output files in ${OUT}/one: ${files}")
endif()
foreach(run three mpi)
  foreach(f IN LISTS files)
    execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${OUT}/one/${f} ${OUT}/${run}/${f}
                    RESULT_VARIABLE same)
    if(NOT same EQUAL 0)
      message(FATAL_ERROR "${run}: ${f} differs from the single-partition run")
    endif()
  endforeach()
endforeach()
message(STATUS "${n} files identical on 1 partition, 3 partitions and 2 MPI ranks")
