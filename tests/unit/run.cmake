# silt::run, the run layer (docs/run-layer.md): the device choice both front ends call.
silt_add_test(NAME run_devices_test SOURCES run_devices_test.cpp LABEL unit LIBS silt::run)
# The frame loop every front end drives: frames in order, checkpoints, stops.
silt_add_test(NAME run_frame_loop_test SOURCES run_frame_loop_test.cpp LABEL unit LIBS silt::run)
# Ensembles: the ensemble file, members validated before anything runs, the statistics' formulae.
silt_add_test(NAME run_ensemble_test SOURCES run_ensemble_test.cpp LABEL unit LIBS silt::run)
# An MPM ensemble member's partial beside its solver checkpoint: a partial newer than its
# checkpoint (a kill between the two writes) cut to the checkpoint's frame, one behind refused.
if(EXISTS ${PROJECT_SOURCE_DIR}/src/silt/mpm/CMakeLists.txt)
  silt_add_test(NAME run_mpm_partial_test SOURCES run_mpm_partial_test.cpp LABEL unit
                LIBS silt::run)
  # MPM members' jobs: the scene file as read at the start, the member's values, its errors.
  silt_add_test(NAME run_mpm_ensemble_test SOURCES run_mpm_ensemble_test.cpp LABEL unit
                LIBS silt::run)
endif()
# The member pool's plan: members at once, their devices and threads, the memory cap.
silt_add_test(NAME run_member_plan_test SOURCES run_member_plan_test.cpp LABEL unit LIBS silt::run)
# Turns to step for the members a CUDA pool builds ahead: never more inside than turns, first
# asked first served, given back on an exception.
silt_add_test(NAME run_member_turns_test SOURCES run_member_turns_test.cpp LABEL unit
              LIBS silt::run)
# The threads beside the member pool: members checked at once (errors in member order), the
# saver of finished members.
silt_add_test(NAME run_member_workers_test SOURCES run_member_workers_test.cpp LABEL unit
              LIBS silt::run)
# Members on threads of their own stepping together at a device's group (member_batch.hpp): each
# to the bits of its own run, one ending early, one stopped, one throwing between its advances.
silt_add_test(NAME run_member_batch_test SOURCES run_member_batch_test.cpp LABEL unit
              LIBS silt::run CUDA)
# The member pool through the CLI: --members-at-once 4 writes every member file as 1 does (the
# GPU test's script, tests/gpu/ensemble_batch_test.py, on the CPU backend).
find_package(Python3 COMPONENTS Interpreter QUIET)
if(TARGET silt AND Python3_FOUND AND EXISTS ${PROJECT_SOURCE_DIR}/src/silt/mpm/CMakeLists.txt)
  add_test(NAME ensemble_batch_test
           COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tests/gpu/ensemble_batch_test.py
                   $<TARGET_FILE:silt> ${CMAKE_CURRENT_BINARY_DIR}/ensemble_batch cpu)
  set_tests_properties(ensemble_batch_test PROPERTIES LABELS unit TIMEOUT 120
                       ENVIRONMENT "OMP_WAIT_POLICY=passive")
endif()
# `silt run --ensemble`: members equal to their solo runs byte for byte, the statistics equal to
# NumPy's on the members' maxima, ensemble.nc through the CF checker, a bad member refused.
if(TARGET silt AND SILT_NETCDF)
  silt_add_script_test(NAME run_ensemble_cli_test SCRIPT run_ensemble_cli_test.py
                       DIR run_ensemble_cli LABEL unit TIMEOUT 120)
endif()
# MPM sweeps: members equal to their solo runs byte for byte (also in the deterministic mode over
# thread counts), the measures equal to NumPy's on the members' particle files, the statistics,
# measures.nc through the CF checker, a bad member refused.
if(TARGET silt AND SILT_NETCDF AND EXISTS ${PROJECT_SOURCE_DIR}/src/silt/mpm/CMakeLists.txt)
  silt_add_script_test(NAME run_ensemble_mpm_test SCRIPT run_ensemble_mpm_test.py
                       DIR run_ensemble_mpm LABEL unit TIMEOUT 120)
endif()
# An ensemble SIGKILLed after a member's periodic checkpoint (--checkpoint-every) continues with
# --restart and writes the uninterrupted run's files, shallow water and MPM.
if(TARGET silt AND SILT_NETCDF)
  silt_add_script_test(NAME run_ensemble_kill_swe_test SCRIPT run_ensemble_kill_test.py
                       DIR run_ensemble_kill_swe LABEL unit TIMEOUT 60 ARGS swe)
endif()
if(TARGET silt AND SILT_NETCDF AND EXISTS ${PROJECT_SOURCE_DIR}/src/silt/mpm/CMakeLists.txt)
  silt_add_script_test(NAME run_ensemble_kill_mpm_test SCRIPT run_ensemble_kill_test.py
                       DIR run_ensemble_kill_mpm LABEL unit TIMEOUT 60 ARGS mpm)
endif()
# The Python module exports nothing of the static libraries it carries (python/CMakeLists.txt).
if(TARGET _silt)
  add_test(NAME python_module_exports_test
           COMMAND ${CMAKE_COMMAND} -DMODULE=$<TARGET_FILE:_silt> -DNM=${CMAKE_NM}
                   -P ${PROJECT_SOURCE_DIR}/tests/support/python_module_exports.cmake)
  set_tests_properties(python_module_exports_test PROPERTIES LABELS unit TIMEOUT 60)
endif()
