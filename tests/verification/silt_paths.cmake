# Data files named from any folder (label verification; silt_paths.py says what each case
# checks): a shipped scene with data files run from the source folder by its relative path, then
# `silt view` of its output and a rerun of its resolved_scene.json from another folder.
find_package(Python3 COMPONENTS Interpreter QUIET)
if(Python3_FOUND AND TARGET silt)
  set(cases river_spill jacksboro_flood rain_plane)
  if(SILT_VDB)
    list(APPEND cases mpm_paddle_sand)  # mesh colliders need OpenVDB
  endif()
  set(viewer noview)
  if(TARGET silt_view)
    set(viewer view)  # `silt view` needs the live viewer (civetweb)
  endif()
  foreach(case IN LISTS cases)
    add_test(NAME silt_paths_${case}
             COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/silt_paths.py
                     $<TARGET_FILE:silt> ${PROJECT_SOURCE_DIR}
                     ${CMAKE_CURRENT_BINARY_DIR}/silt_paths_${case} ${case} ${viewer})
    set_tests_properties(silt_paths_${case} PROPERTIES LABELS verification TIMEOUT 600
                         ENVIRONMENT OMP_WAIT_POLICY=PASSIVE)
  endforeach()
endif()
