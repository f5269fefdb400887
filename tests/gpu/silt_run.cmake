# `silt run` of one scene on one GPU, two GPUs of one process and two MPI ranks with one GPU each
# (label gpu), compared by tests/mpi/scripts/silt_run_gpu_compare.cmake: shallow water (every
# raster and table within 1e-3 of each field's largest value) and MPM (KIND=mpm: the same
# particles in every file, integrals within round-off).
find_package(Python3 COMPONENTS Interpreter QUIET)
if(SILT_CUDA AND Python3_FOUND AND TARGET silt)
  set(silt_gpu_mpiexec "")
  if(SILT_MPI)
    set(silt_gpu_mpiexec ${MPIEXEC_EXECUTABLE})
  endif()
  set(silt_gpu_scene_swe ${PROJECT_SOURCE_DIR}/tests/mpi/swe_mpi_scene.json)
  set(silt_gpu_scene_mpm ${PROJECT_SOURCE_DIR}/scenes/mpm_sand_column.json)
  set(silt_gpu_test_swe silt_run_gpu_test)
  set(silt_gpu_test_mpm silt_run_mpm_gpu_test)
  foreach(kind IN ITEMS swe mpm)
    set(name ${silt_gpu_test_${kind}})
    add_test(NAME ${name}
             COMMAND ${CMAKE_COMMAND} -DSILT=$<TARGET_FILE:silt> -DMPIEXEC=${silt_gpu_mpiexec}
                     -DPYTHON=${Python3_EXECUTABLE} -DKIND=${kind} -DSCENE=${silt_gpu_scene_${kind}}
                     -DOUT=${CMAKE_CURRENT_BINARY_DIR}/${name}_out
                     -P ${PROJECT_SOURCE_DIR}/tests/mpi/scripts/silt_run_gpu_compare.cmake)
    set_tests_properties(${name} PROPERTIES LABELS gpu TIMEOUT 300
                         ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
  endforeach()
endif()
