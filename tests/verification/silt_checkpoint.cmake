# Checkpoint and restart of `silt run` on the CPU (label verification; silt_checkpoint.py says
# what each case checks). The GPU case is in tests/gpu/silt_checkpoint.cmake.
find_package(Python3 COMPONENTS Interpreter QUIET)
if(Python3_FOUND AND TARGET silt)
  set(cases swe_extend swe_split swe_rain swe_signal mpm_extend mpm_split refuse out_folder)
  if(SILT_VDB)
    list(APPEND cases mpm_mesh)  # mesh colliders need OpenVDB
  endif()
  foreach(case IN LISTS cases)
    add_test(NAME silt_checkpoint_${case}
             COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/silt_checkpoint.py
                     $<TARGET_FILE:silt> ${PROJECT_SOURCE_DIR}
                     ${CMAKE_CURRENT_BINARY_DIR}/silt_checkpoint_${case} ${case})
    set_tests_properties(silt_checkpoint_${case} PROPERTIES LABELS verification TIMEOUT 600)
  endforeach()
endif()
