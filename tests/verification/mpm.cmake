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
# Snow that packs: the shipped snowball-on-a-post scene against its header (restitution, what
# the sticky post holds, compaction).
silt_add_test(NAME mpm_snow_test LABEL verification CUDA
  SOURCES mpm_snow_test.cpp LIBS silt::io silt::mpm)
target_compile_definitions(mpm_snow_test PRIVATE SILT_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
# The paddle example scene (a keyframed mesh collider through sand) from the CLI at low resolution:
# a smoke test that the scene, its mesh and the collider run end to end (needs OpenVDB).
if(TARGET silt AND SILT_VDB)
  add_test(NAME silt_run_paddle_sand
           COMMAND silt run ${PROJECT_SOURCE_DIR}/scenes/mpm_paddle_sand.json --backend cpu
                   --set run.end_time=0.0667 --overwrite
                   --out ${CMAKE_CURRENT_BINARY_DIR}/silt_run_paddle_sand)
  set_tests_properties(silt_run_paddle_sand PROPERTIES LABELS verification TIMEOUT 600
                       ENVIRONMENT "OMP_WAIT_POLICY=PASSIVE;OMP_NUM_THREADS=1")
endif()
# Contact between bodies: the shipped jelly-on-sand scene digs a crater, and a block dropped on a
# bed rests within a cell of it (the single grid's limit).
silt_add_test(NAME mpm_contact_test LABEL verification CUDA
  SOURCES mpm_contact_test.cpp LIBS silt::mpm silt::io)
target_compile_definitions(mpm_contact_test PRIVATE SILT_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
# `silt run --deterministic --hash` as a user compares runs: the same hashes over thread counts,
# CPU partitions and a restart (issue 38).
if(TARGET silt)
  add_test(NAME silt_hash_test
           COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/silt_hash_test.py $<TARGET_FILE:silt>
                   ${PROJECT_SOURCE_DIR}/scenes ${CMAKE_CURRENT_BINARY_DIR}/silt_hash)
  set_tests_properties(silt_hash_test PROPERTIES LABELS verification TIMEOUT 120
                       ENVIRONMENT "OMP_WAIT_POLICY=PASSIVE")
endif()
# The column-collapse sweep of docs/ensembles.md (an MPM ensemble, issue 37) end to end at
# dx = 2 cm (200 particles a column): 15 members to rest and their measures written.
if(TARGET silt)
  add_test(NAME silt_run_column_sweep_ensemble
           COMMAND silt run ${PROJECT_SOURCE_DIR}/scenes/mpm_column_sweep_2d.json --backend cpu
                   --overwrite --set domain.dx=0.02
                   --ensemble ${PROJECT_SOURCE_DIR}/scenes/column_sweep_ensemble.json
                   --out ${CMAKE_CURRENT_BINARY_DIR}/silt_run_column_sweep_ensemble)
  set_tests_properties(silt_run_column_sweep_ensemble PROPERTIES LABELS verification TIMEOUT 120
    ENVIRONMENT OMP_WAIT_POLICY=PASSIVE
    PASS_REGULAR_EXPRESSION "member +15/15 .*\nensemble: 4 files of measures")
endif()
