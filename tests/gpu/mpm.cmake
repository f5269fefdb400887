# `silt run` of an MPM scene on one GPU, two GPUs of one process and two MPI ranks with one GPU
# each (label gpu): the same particles in every particle file, integrals within round-off
# (tests/mpi/scripts/silt_run_gpu_compare.cmake, KIND=mpm).
find_package(Python3 COMPONENTS Interpreter QUIET)
if(SILT_CUDA AND Python3_FOUND AND TARGET silt)
  set(silt_mpm_gpu_mpiexec "")
  if(SILT_MPI)
    set(silt_mpm_gpu_mpiexec ${MPIEXEC_EXECUTABLE})
  endif()
  add_test(NAME silt_run_mpm_gpu_test
           COMMAND ${CMAKE_COMMAND} -DSILT=$<TARGET_FILE:silt> -DMPIEXEC=${silt_mpm_gpu_mpiexec}
                   -DPYTHON=${Python3_EXECUTABLE} -DKIND=mpm
                   -DSCENE=${PROJECT_SOURCE_DIR}/scenes/mpm_sand_column.json
                   -DOUT=${CMAKE_CURRENT_BINARY_DIR}/silt_run_mpm_gpu_out
                   -P ${PROJECT_SOURCE_DIR}/tests/mpi/scripts/silt_run_gpu_compare.cmake)
  set_tests_properties(silt_run_mpm_gpu_test PROPERTIES LABELS gpu TIMEOUT 300
                       ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
endif()
