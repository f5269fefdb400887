# The `silt` command line on the hostile inputs of issue 16: `silt validate` and `silt run` both end
# in one error naming the file and key (exit 1), never an internal error (exit 3) or a hang, and
# the MPM resolved_scene.json validates again. SILT_MEMORY_LIMIT makes the memory bounds the same
# on every machine.
if(TARGET silt)
  set(silt_cli_mpm OFF)
  if(TARGET silt_mpm)
    set(silt_cli_mpm ON)
  endif()
  add_test(NAME silt_cli_hostile_test
           COMMAND ${CMAKE_COMMAND} -DSILT=$<TARGET_FILE:silt> -DMPM=${silt_cli_mpm}
                   -DDIR=${CMAKE_CURRENT_BINARY_DIR}/silt_cli_hostile
                   -P ${CMAKE_CURRENT_SOURCE_DIR}/scripts/cli_hostile.cmake)
  set_tests_properties(silt_cli_hostile_test PROPERTIES LABELS unit TIMEOUT 300
                       ENVIRONMENT "SILT_MEMORY_LIMIT=1073741824;OMP_NUM_THREADS=1")
endif()
