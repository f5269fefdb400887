# Faults during `silt run` on the CPU (label verification): a full disk (a file size limit; with
# GDAL also a small tmpfs for NetCDF and GeoTIFF), the output folder removed mid-run, SIGINT and
# SIGTERM (silt_run_faults.py says what each checks).
find_package(Python3 COMPONENTS Interpreter QUIET)
if(Python3_FOUND AND TARGET silt)
  set(cases full_disk full_disk_start folder_removed folder_removed_mpm sigint sigterm)
  if(SILT_VDB)
    list(APPEND cases full_disk_vdb sigterm_setup)
  endif()
  if(SILT_GDAL)
    list(APPEND cases full_disk_nc full_disk_tif)
  endif()
  foreach(case IN LISTS cases)
    add_test(NAME silt_run_fault_${case}
             COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/silt_run_faults.py
                     $<TARGET_FILE:silt> ${PROJECT_SOURCE_DIR}
                     ${CMAKE_CURRENT_BINARY_DIR}/silt_run_fault_${case} ${case})
    set_tests_properties(silt_run_fault_${case} PROPERTIES LABELS verification TIMEOUT 600
                         ENVIRONMENT OMP_WAIT_POLICY=PASSIVE SKIP_RETURN_CODE 77)
  endforeach()
endif()
