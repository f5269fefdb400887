# cmake -DSILT=<silt> -DMPIEXEC=<mpirun> -DSCENE=<scene.json> -DOUT=<dir> -P silt_run_compare.cmake
# Runs the scene with `silt run` on one CPU partition, on three CPU partitions of one process
# (--devices 0,1,2 on the CPU backend), and with `mpirun -np 2 silt run`, and fails unless every
# output file (rasters, frames.csv, gauges.csv; not resolved_scene.json, which names the backend)
# is byte for byte the same.
include(${CMAKE_CURRENT_LIST_DIR}/run_and_compare.cmake)
file(REMOVE_RECURSE ${OUT})
set(runs one three mpi)
set(cmd_one ${SILT} run ${SCENE} --backend cpu --quiet --out ${OUT}/one)
set(cmd_three ${SILT} run ${SCENE} --backend cpu --devices 0,1,2 --quiet --out ${OUT}/three)
set(cmd_mpi ${MPIEXEC} -np 2 --oversubscribe ${SILT} run ${SCENE} --backend cpu --quiet
    --out ${OUT}/mpi)
silt_run_all(${runs})
file(GLOB files RELATIVE ${OUT}/one ${OUT}/one/*)
list(REMOVE_ITEM files resolved_scene.json)
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
