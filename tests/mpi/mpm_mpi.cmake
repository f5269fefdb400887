# MPM over 2 MPI ranks on the CPU backend (label mpi): mpm::Solver with one part per rank against
# one partition (integrals within the tolerances of tests/verification/mpm_multi_scene.hpp), and
# `mpirun -np 2 silt run` on an MPM scene against `silt run` (scripts/mpm_run_compare.cmake).
if(SILT_MPI)
  silt_add_mpi_test(mpm_mpi_test silt::mpm 180)
endif()
# `silt run` on an MPM scene: one CPU partition against three (label verification) and, with MPI,
# also against `mpirun -np 2 silt run` (label mpi).
find_package(Python3 COMPONENTS Interpreter QUIET)
if(Python3_FOUND AND TARGET silt)
  set(silt_mpm_run_args -DSILT=$<TARGET_FILE:silt> -DPYTHON=${Python3_EXECUTABLE}
      -DSCENE=${PROJECT_SOURCE_DIR}/scenes/mpm_sand_column.json)
  add_test(NAME silt_run_mpm_parts_test
           COMMAND ${CMAKE_COMMAND} ${silt_mpm_run_args}
                   -DOUT=${CMAKE_CURRENT_BINARY_DIR}/silt_run_mpm_parts_out
                   -P ${CMAKE_CURRENT_SOURCE_DIR}/scripts/mpm_run_compare.cmake)
  set_tests_properties(silt_run_mpm_parts_test PROPERTIES LABELS verification TIMEOUT 180
                       ENVIRONMENT OMP_WAIT_POLICY=PASSIVE)
  # A fixed dt above the CFL limit is reported by `silt run`, on one partition and on two.
  foreach(parts IN ITEMS 0 0,1)
    string(REPLACE "," "_" tag "${parts}")
    add_test(NAME silt_run_mpm_warns_test_${tag}
             COMMAND silt run ${PROJECT_SOURCE_DIR}/scenes/mpm_sand_column.json --backend cpu
                     --devices ${parts} --set physics.fixed_dt=0.0008 --set run.frames=1
                     --set outputs.png=false --overwrite
                     --out ${CMAKE_CURRENT_BINARY_DIR}/silt_run_mpm_warns_${tag})
    set_tests_properties(silt_run_mpm_warns_test_${tag} PROPERTIES LABELS verification TIMEOUT 120
                         PASS_REGULAR_EXPRESSION "exceeds the CFL-stable dt 0.000455 s"
                         ENVIRONMENT OMP_WAIT_POLICY=PASSIVE)
  endforeach()
  if(SILT_MPI)
    add_test(NAME silt_run_mpm_mpi_test
             COMMAND ${CMAKE_COMMAND} ${silt_mpm_run_args} -DMPIEXEC=${MPIEXEC_EXECUTABLE}
                     -DOUT=${CMAKE_CURRENT_BINARY_DIR}/silt_run_mpm_mpi_out
                     -P ${CMAKE_CURRENT_SOURCE_DIR}/scripts/mpm_run_compare.cmake)
    set_tests_properties(silt_run_mpm_mpi_test PROPERTIES LABELS mpi TIMEOUT 180
                         ENVIRONMENT "${silt_mpi_env}")
  endif()
endif()
