# cmake -DSILT=<silt> [-DMPIEXEC=<mpirun>] -DPYTHON=<python3> -DSCENE=<scene.json> -DOUT=<dir>
#       -P mpm_run_compare.cmake
# Runs an MPM scene with `silt run` on one CPU partition, on three CPU partitions of one process
# (--backend cpu --devices 0,1,2) and, when MPIEXEC is given, with `mpirun -np 2 silt run`, and
# fails unless every run writes the same files with the same particles in the same (id) order and
# the integrals agree within the tolerances of mpm_ply_compare.py (float round-off only: the P2G
# sums add in another order on several partitions, so the files are not byte-identical).
file(REMOVE_RECURSE ${OUT})
set(args --backend cpu --quiet --set run.frames=3 --set outputs.png=false)
set(runs one three)
set(cmd_one ${SILT} run ${SCENE} ${args} --out ${OUT}/one)
set(cmd_three ${SILT} run ${SCENE} ${args} --devices 0,1,2 --out ${OUT}/three)
if(MPIEXEC)
  list(APPEND runs mpi)
  set(cmd_mpi ${MPIEXEC} -np 2 --oversubscribe ${SILT} run ${SCENE} ${args} --out ${OUT}/mpi)
endif()
foreach(run IN LISTS runs)
  execute_process(COMMAND ${cmd_${run}} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "'${cmd_${run}}' failed (${rc}):\n${out}\n${err}")
  endif()
endforeach()
list(REMOVE_ITEM runs one)
foreach(run IN LISTS runs)
  execute_process(COMMAND ${PYTHON} ${CMAKE_CURRENT_LIST_DIR}/mpm_ply_compare.py ${OUT}/one
                          ${OUT}/${run} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message(STATUS "${run}: ${out}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${run} differs from the single-partition run:\n${out}\n${err}")
  endif()
endforeach()
