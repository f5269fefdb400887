# cmake -DSILT=<silt> [-DMPIEXEC=<mpirun>] -DPYTHON=<python3> -DSCENE=<scene.json> -DOUT=<dir>
#       -P mpm_run_compare.cmake
# Runs an MPM scene with `silt run` on one CPU partition, on three CPU partitions of one process
# (--backend cpu --devices 0,1,2) and, when MPIEXEC is given, with `mpirun -np 2 silt run`, and
# fails unless every run writes the same files with the same particles in the same (id) order and
# the integrals agree within the tolerances of mpm_ply_compare.py (float round-off only: the P2G
# sums add in another order on several partitions, so the files are not byte-identical).
include(${CMAKE_CURRENT_LIST_DIR}/run_and_compare.cmake)
file(REMOVE_RECURSE ${OUT})
set(args --backend cpu --quiet --set run.frames=3 --set outputs.png=false)
set(runs one three)
set(cmd_one ${SILT} run ${SCENE} ${args} --out ${OUT}/one)
set(cmd_three ${SILT} run ${SCENE} ${args} --devices 0,1,2 --out ${OUT}/three)
if(MPIEXEC)
  list(APPEND runs mpi)
  set(cmd_mpi ${MPIEXEC} -np 2 --oversubscribe ${SILT} run ${SCENE} ${args} --out ${OUT}/mpi)
endif()
silt_run_all(${runs})
list(REMOVE_ITEM runs one)
silt_compare_runs(mpm_ply_compare.py "differs from the single-partition run" ${runs})
