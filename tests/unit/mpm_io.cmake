# MPM inputs and outputs: particle sampling of sources, MPM scene files, particle files (PLY, VTP)
# read back by VTK's Python reader, PNG splat previews.
silt_add_test(NAME mpm_sampling_test SOURCES mpm_sampling_test.cpp LABEL unit LIBS silt::mpm)
silt_add_test(NAME mpm_scene_test SOURCES mpm_scene_test.cpp LABEL unit LIBS silt::io)
target_compile_definitions(mpm_scene_test PRIVATE SILT_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
# Reads the files back with VTK's Python module (Debian: python3-vtk9, run by /usr/bin/python3; or
# SILT_VTK_PYTHON=<interpreter>); the test fails, saying so, when no interpreter has it.
silt_add_test(NAME mpm_particles_io_test SOURCES mpm_particles_io_test.cpp LABEL unit LIBS silt::io)
target_compile_definitions(mpm_particles_io_test PRIVATE SILT_TEST_DIR="${CMAKE_CURRENT_SOURCE_DIR}")
