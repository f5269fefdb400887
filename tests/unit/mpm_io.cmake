# MPM inputs and outputs: particle sampling of sources, MPM scene files, particle files (PLY, VTP)
# read back by VTK's Python reader, PNG splat previews.
silt_add_test(NAME mpm_sampling_test SOURCES mpm_sampling_test.cpp LABEL unit LIBS silt::mpm)
silt_add_test(NAME mpm_scene_test SOURCES mpm_scene_test.cpp LABEL unit LIBS silt::io)
target_compile_definitions(mpm_scene_test PRIVATE SILT_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
# Reads the files back with VTK's Python module (Debian: python3-vtk9, run by /usr/bin/python3; or
# SILT_VTK_PYTHON=<interpreter>); the test fails, saying so, when no interpreter has it.
silt_add_test(NAME mpm_particles_io_test SOURCES mpm_particles_io_test.cpp LABEL unit LIBS silt::io)
target_compile_definitions(mpm_particles_io_test PRIVATE SILT_TEST_DIR="${CMAKE_CURRENT_SOURCE_DIR}")
# VFX outputs (issue 18): OpenVDB points and volumes read back with OpenVDB's C++ API, z up, keys.
silt_add_test(NAME mpm_vfx_outputs_test SOURCES mpm_vfx_outputs_test.cpp LABEL unit LIBS silt::io)
if(SILT_VDB)
  target_link_libraries(mpm_vfx_outputs_test PRIVATE OpenVDB::openvdb)
endif()
# The same files of `silt run` read by OpenVDB's Python module and vdb_print, VTK and numpy; and
# imported in Blender headless through tools/blender/silt_import.py (skipped, saying so, without
# blender: exit 77).
if(TARGET silt AND SILT_VDB)
  add_test(NAME mpm_vfx_readers_test
           COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/mpm_vfx_readers.py
                   --silt $<TARGET_FILE:silt> --check readers
                   --work ${CMAKE_CURRENT_BINARY_DIR}/mpm_vfx_readers)
  add_test(NAME mpm_vfx_blender_test
           COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/mpm_vfx_readers.py
                   --silt $<TARGET_FILE:silt> --check blender
                   --work ${CMAKE_CURRENT_BINARY_DIR}/mpm_vfx_blender
                   --tools ${PROJECT_SOURCE_DIR}/tools/blender)
  set_tests_properties(mpm_vfx_readers_test PROPERTIES LABELS unit TIMEOUT 300
                       ENVIRONMENT "OMP_NUM_THREADS=1")
  set_tests_properties(mpm_vfx_blender_test PROPERTIES LABELS "unit;blender" TIMEOUT 300
                       SKIP_RETURN_CODE 77 ENVIRONMENT "OMP_NUM_THREADS=1")
endif()
