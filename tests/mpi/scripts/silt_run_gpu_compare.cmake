# cmake -DSILT=<silt> -DMPIEXEC=<mpirun or empty> -DPYTHON=<python3> -DSCENE=<scene.json>
#       -DOUT=<dir> [-DKIND=mpm] -P silt_run_gpu_compare.cmake
# The same scene with `silt run --backend cuda` on one GPU, split over two GPUs of one process
# (--devices 0,1, when two are visible) and over two MPI ranks with one GPU each (when MPI is
# built), with the defaults a user gets.
# Shallow water (tile kernel, halo of 4 layers): fails unless every raster and table agrees with
# the one-GPU run within 1e-3 of each field's largest value (round-off of the tile kernel's fast
# float math; byte equality holds on the CPU, silt_run_compare.cmake).
# KIND=mpm (3 frames, no previews): fails unless every particle file holds the same ids in the
# same order and the integrals (centre of mass, mean velocity, kinetic energy) agree within the
# tolerances of mpm_ply_compare.py (the P2G sums add in another order on several GPUs).
include(${CMAKE_CURRENT_LIST_DIR}/run_and_compare.cmake)
file(REMOVE_RECURSE ${OUT})
set(compare swe_outputs_close.py)
set(extra "")
if(KIND STREQUAL "mpm")
  set(compare mpm_ply_compare.py)
  set(extra --set run.frames=3 --set outputs.png=false)
endif()
execute_process(COMMAND nvidia-smi -L OUTPUT_VARIABLE gpus RESULT_VARIABLE rc)
string(REGEX MATCHALL "GPU [0-9]+:" gpu_list "${gpus}")
list(LENGTH gpu_list n_gpus)
set(runs one)
set(cmd_one ${SILT} run ${SCENE} --backend cuda --quiet ${extra} --out ${OUT}/one)
if(n_gpus GREATER_EQUAL 2)
  list(APPEND runs two)
  set(cmd_two ${SILT} run ${SCENE} --backend cuda --devices 0,1 --quiet ${extra} --out ${OUT}/two)
endif()
if(MPIEXEC)
  list(APPEND runs mpi)
  set(cmd_mpi ${MPIEXEC} -np 2 --oversubscribe ${SILT} run ${SCENE} --backend cuda --quiet
      ${extra} --out ${OUT}/mpi)
endif()
silt_run_all(${runs})
list(REMOVE_ITEM runs one)
silt_compare_runs(${compare} "against one GPU" ${runs})
message(STATUS "one GPU against: ${runs} (${n_gpus} GPUs visible)")
