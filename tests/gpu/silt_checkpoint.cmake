# Checkpoint and restart on one GPU (label gpu, the GPU machine only): shallow water and MPM
# continued from a checkpoint against the uninterrupted run, every value within GPU_TOL (1e-3 of
# each file's largest value; tests/verification/silt_checkpoint.py, case gpu).
find_package(Python3 COMPONENTS Interpreter QUIET)
if(SILT_CUDA AND Python3_FOUND AND TARGET silt)
  add_test(NAME silt_checkpoint_gpu_test
           COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tests/verification/silt_checkpoint.py
                   $<TARGET_FILE:silt> ${PROJECT_SOURCE_DIR}
                   ${CMAKE_CURRENT_BINARY_DIR}/silt_checkpoint_gpu gpu)
  set_tests_properties(silt_checkpoint_gpu_test PROPERTIES LABELS gpu TIMEOUT 600)
endif()
