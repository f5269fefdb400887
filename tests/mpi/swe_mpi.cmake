# Shallow water over 2 MPI ranks on the CPU backend (label mpi): the split solver against one
# device, and `mpirun -np 2 silt run` against `silt run` (identical files; the rain scene's mass
# balance too). CI runs as root.
if(SILT_MPI)
  silt_add_mpi_test(swe_mpi_test silt::swe 120)
  add_test(NAME silt_run_mpi_test
           COMMAND ${CMAKE_COMMAND} -DSILT=$<TARGET_FILE:silt> -DMPIEXEC=${MPIEXEC_EXECUTABLE}
                   -DSCENE=${CMAKE_CURRENT_SOURCE_DIR}/swe_mpi_scene.json
                   -DOUT=${CMAKE_CURRENT_BINARY_DIR}/silt_run_mpi_out
                   -P ${CMAKE_CURRENT_SOURCE_DIR}/scripts/silt_run_compare.cmake)
  set_tests_properties(silt_run_mpi_test PROPERTIES LABELS mpi TIMEOUT 180
                       ENVIRONMENT "${silt_mpi_env}")
  # Rain rasters and Green-Ampt soil (scenes/rain_plane.json) split the same way: the same files
  # (depth, speed, maximum depth, infiltrated depth, gauges, and the hazard rasters with every
  # frame) and a mass balance closing to 1e-7 of its largest term on every split.
  add_test(NAME silt_run_mpi_rain_test
           COMMAND ${CMAKE_COMMAND} -DSILT=$<TARGET_FILE:silt> -DMPIEXEC=${MPIEXEC_EXECUTABLE}
                   -DSCENE=${PROJECT_SOURCE_DIR}/scenes/rain_plane.json
                   "-DSET=outputs.hazard={\"every_frame\":true}" -DBALANCE_EXP=7
                   -DOUT=${CMAKE_CURRENT_BINARY_DIR}/silt_run_mpi_rain_out
                   -P ${CMAKE_CURRENT_SOURCE_DIR}/scripts/silt_run_compare.cmake)
  set_tests_properties(silt_run_mpi_rain_test PROPERTIES LABELS mpi TIMEOUT 300
                       ENVIRONMENT "${silt_mpi_env}")
endif()
