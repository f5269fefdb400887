# Faults during `silt run` on the CPU (label verification): a full disk (a file size limit), the
# output folder removed mid-run, SIGINT and SIGTERM (silt_run_faults.py says what each checks).
find_package(Python3 COMPONENTS Interpreter QUIET)
if(Python3_FOUND AND TARGET silt)
  foreach(case IN ITEMS full_disk folder_removed sigint sigterm)
    add_test(NAME silt_run_fault_${case}
             COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/silt_run_faults.py
                     $<TARGET_FILE:silt> ${PROJECT_SOURCE_DIR}
                     ${CMAKE_CURRENT_BINARY_DIR}/silt_run_fault_${case} ${case})
    set_tests_properties(silt_run_fault_${case} PROPERTIES LABELS verification TIMEOUT 600
                         ENVIRONMENT OMP_WAIT_POLICY=PASSIVE)
  endforeach()
endif()
