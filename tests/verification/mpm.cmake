# MPM verification (src/silt/mpm pipeline and solver): analytic checks on small scenes, each
# program well under a minute on a 2-core CPU. CUDA: the same programs on the GPU (label gpu).
silt_add_test(NAME mpm_free_fall_test LABEL verification CUDA
  SOURCES mpm_free_fall_test.cpp LIBS silt::mpm)
silt_add_test(NAME mpm_hydrostatic_test LABEL verification CUDA
  SOURCES mpm_hydrostatic_test.cpp LIBS silt::mpm)
silt_add_test(NAME mpm_elastic_bar_test LABEL verification CUDA
  SOURCES mpm_elastic_bar_test.cpp LIBS silt::mpm)
silt_add_test(NAME mpm_sand_collapse_test LABEL verification CUDA
  SOURCES mpm_sand_collapse_test.cpp LIBS silt::mpm)
silt_add_test(NAME mpm_consistency_test LABEL verification CUDA
  SOURCES mpm_consistency_test.cpp LIBS silt::mpm)
silt_add_test(NAME mpm_walls_test LABEL verification CUDA
  SOURCES mpm_walls_test.cpp LIBS silt::mpm)
silt_add_test(NAME mpm_cantilever_test LABEL verification CUDA
  SOURCES mpm_cantilever_test.cpp LIBS silt::mpm)
silt_add_test(NAME mpm_mesh_collider_test LABEL verification CUDA
  SOURCES mpm_mesh_collider_test.cpp LIBS silt::mpm)
