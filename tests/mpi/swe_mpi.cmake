# Shallow water over 2 MPI ranks on the CPU backend (label mpi): the split solver against one
# device, and `mpirun -np 2 silt run` against `silt run` (identical files). CI runs as root.
if(SILT_MPI)
  silt_add_mpi_test(swe_mpi_test silt::swe 120)
  add_test(NAME silt_run_mpi_test
           COMMAND ${CMAKE_COMMAND} -DSILT=$<TARGET_FILE:silt> -DMPIEXEC=${MPIEXEC_EXECUTABLE}
                   -DSCENE=${CMAKE_CURRENT_SOURCE_DIR}/swe_mpi_scene.json
                   -DOUT=${CMAKE_CURRENT_BINARY_DIR}/silt_run_mpi_out
                   -P ${CMAKE_CURRENT_SOURCE_DIR}/scripts/silt_run_compare.cmake)
  set_tests_properties(silt_run_mpi_test PROPERTIES LABELS mpi TIMEOUT 180
                       ENVIRONMENT "${silt_mpi_env}")
endif()
