# Shallow water over 2 MPI ranks on the CPU backend (label mpi): the split solver against one
# device, and `mpirun -np 2 silt run` against `silt run` (identical files). CI runs as root.
if(SILT_MPI)
  set(silt_mpi_env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
      OMP_WAIT_POLICY=PASSIVE)
  add_executable(swe_mpi_test swe_mpi_test.cpp)
  target_include_directories(swe_mpi_test PRIVATE ${PROJECT_SOURCE_DIR}/tests/verification)
  target_link_libraries(swe_mpi_test PRIVATE silt_test_support silt::swe)
  add_test(NAME swe_mpi_test
           COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 2 --oversubscribe
                   $<TARGET_FILE:swe_mpi_test> --backend=cpu)
  set_tests_properties(swe_mpi_test PROPERTIES LABELS mpi TIMEOUT 120
                       ENVIRONMENT "${silt_mpi_env}")
  add_test(NAME silt_run_mpi_test
           COMMAND ${CMAKE_COMMAND} -DSILT=$<TARGET_FILE:silt> -DMPIEXEC=${MPIEXEC_EXECUTABLE}
                   -DSCENE=${CMAKE_CURRENT_SOURCE_DIR}/swe_mpi_scene.json
                   -DOUT=${CMAKE_CURRENT_BINARY_DIR}/silt_run_mpi_out
                   -P ${CMAKE_CURRENT_SOURCE_DIR}/scripts/silt_run_compare.cmake)
  set_tests_properties(silt_run_mpi_test PROPERTIES LABELS mpi TIMEOUT 180
                       ENVIRONMENT "${silt_mpi_env}")
endif()
