# MPM pipeline data structures (src/silt/mpm: block hash, rebuild, counting sort), on the CPU and,
# with label gpu, on CUDA.
silt_add_test(NAME mpm_sparse_grid_test LABEL unit CUDA
  SOURCES mpm_sparse_grid_test.cpp LIBS silt::mpm)
silt_add_test(NAME mpm_solver_test LABEL unit CUDA
  SOURCES mpm_solver_test.cpp LIBS silt::mpm)
# The scene builders of the MPM verification tests (mpm_scene_util.hpp).
target_include_directories(mpm_solver_test PRIVATE ${PROJECT_SOURCE_DIR}/tests/verification)
silt_add_test(NAME mpm_solver_edit_test LABEL unit CUDA
  SOURCES mpm_solver_edit_test.cpp LIBS silt::mpm)
target_include_directories(mpm_solver_edit_test PRIVATE ${PROJECT_SOURCE_DIR}/tests/verification)
# The host P2G and G2P on packs of particles against the per-particle bodies, bit for bit (CPU).
silt_add_test(NAME mpm_host_transfer_test LABEL unit
  SOURCES mpm_host_transfer_test.cpp LIBS silt::mpm)
# The deterministic mode (fixed-point P2G): state hashes equal over repeated runs, thread counts,
# part counts and restarts; out-of-range shares named (CPU; CUDA with label gpu).
silt_add_test(NAME mpm_deterministic_test LABEL unit CUDA TIMEOUT 300
  SOURCES mpm_deterministic_test.cpp LIBS silt::mpm)
target_include_directories(mpm_deterministic_test PRIVATE ${PROJECT_SOURCE_DIR}/tests/verification)
set_tests_properties(mpm_deterministic_test PROPERTIES ENVIRONMENT OMP_WAIT_POLICY=PASSIVE)
