# MPM inputs and outputs: particle sampling of sources, MPM scene files, particle files (PLY, VTP)
# read back by VTK's Python reader, PNG splat previews.
silt_add_test(NAME mpm_sampling_test SOURCES mpm_sampling_test.cpp LABEL unit LIBS silt::mpm)
silt_add_test(NAME mpm_scene_test SOURCES mpm_scene_test.cpp LABEL unit LIBS silt::io)
target_compile_definitions(mpm_scene_test PRIVATE SILT_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
