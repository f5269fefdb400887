# Ensemble members over MPI ranks (label mpi): `mpirun -np 2`, `-np 3` and more ranks than members
# write every file of the one-process run (shallow water and MPM), and an error on one rank ends
# every rank (tests/mpi/ensemble_mpi_test.py).
find_package(Python3 COMPONENTS Interpreter QUIET)
if(SILT_MPI AND TARGET silt AND Python3_FOUND AND SILT_NETCDF
   AND EXISTS ${PROJECT_SOURCE_DIR}/src/silt/mpm/CMakeLists.txt)
  add_test(NAME ensemble_mpi_test
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/ensemble_mpi_test.py
                   $<TARGET_FILE:silt> ${MPIEXEC_EXECUTABLE}
                   ${CMAKE_CURRENT_BINARY_DIR}/ensemble_mpi)
  set_tests_properties(ensemble_mpi_test PROPERTIES LABELS mpi TIMEOUT 120
                       ENVIRONMENT "${silt_mpi_env}")
endif()
# The same on GPUs (label gpu, the GPU machine only): each rank on the GPU of its local rank; the
# GPU's atomic sums (mass balance, kinetic energies) compared within 1e-12 of each row's largest.
# Without netCDF (the GPU machine carries none) the ensembles ask for no NetCDF file.
if(SILT_MPI AND SILT_CUDA AND TARGET silt AND Python3_FOUND
   AND EXISTS ${PROJECT_SOURCE_DIR}/src/silt/mpm/CMakeLists.txt)
  if(SILT_NETCDF)
    set(silt_ensemble_nc nc)
  else()
    set(silt_ensemble_nc no-nc)
  endif()
  add_test(NAME ensemble_mpi_gpu_test
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/ensemble_mpi_test.py
                   $<TARGET_FILE:silt> ${MPIEXEC_EXECUTABLE}
                   ${CMAKE_CURRENT_BINARY_DIR}/ensemble_mpi_gpu cuda ${silt_ensemble_nc})
  set_tests_properties(ensemble_mpi_gpu_test PROPERTIES LABELS gpu TIMEOUT 300
                       ENVIRONMENT "${silt_mpi_env}")
endif()
