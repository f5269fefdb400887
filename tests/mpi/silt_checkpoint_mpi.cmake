# A signal to one rank of `mpirun -np 2 silt run` stops every rank with a checkpoint, and the
# printed restart command completes the run byte for byte (label mpi; case mpi_signal of
# tests/verification/silt_checkpoint.py). CI runs as root.
find_package(Python3 COMPONENTS Interpreter QUIET)
if(SILT_MPI AND Python3_FOUND AND TARGET silt)
  add_test(NAME silt_checkpoint_mpi_test
           COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tests/verification/silt_checkpoint.py
                   $<TARGET_FILE:silt> ${PROJECT_SOURCE_DIR}
                   ${CMAKE_CURRENT_BINARY_DIR}/silt_checkpoint_mpi mpi_signal ${MPIEXEC_EXECUTABLE})
  set_tests_properties(silt_checkpoint_mpi_test PROPERTIES LABELS mpi TIMEOUT 600
                       ENVIRONMENT "${silt_mpi_env}")
endif()
