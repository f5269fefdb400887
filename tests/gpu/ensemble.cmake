# Ensemble members in flight at once on one GPU and spread over `--devices 0,0` (label gpu, the
# GPU machine only): every member file byte for byte as with members one after another
# (shallow water in float64; MPM in performance.deterministic mode); shallow-water members stepping
# together (--batch-members on, one tile launch a step for all) and alone (off), stopped and
# restarted both ways.
find_package(Python3 COMPONENTS Interpreter QUIET)
if(SILT_CUDA AND Python3_FOUND AND TARGET silt)
  add_test(NAME ensemble_batch_gpu_test
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/ensemble_batch_test.py
                   $<TARGET_FILE:silt> ${CMAKE_CURRENT_BINARY_DIR}/ensemble_batch_gpu cuda)
  set_tests_properties(ensemble_batch_gpu_test PROPERTIES LABELS gpu TIMEOUT 600)
endif()
