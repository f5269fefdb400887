# CUDA against CPU on the same scene: registered for the CUDA backend only (label gpu).
add_executable(swe_backends_test swe_backends_test.cpp)
target_include_directories(swe_backends_test PRIVATE ${PROJECT_SOURCE_DIR}/tests/unit
                           ${PROJECT_SOURCE_DIR}/tests/verification)
target_link_libraries(swe_backends_test PRIVATE silt_test_support silt::swe)
silt_backend_sources(swe_backends_test)
if(SILT_CUDA)
  add_test(NAME swe_backends_test_cuda COMMAND swe_backends_test --backend=cuda)
  set_tests_properties(swe_backends_test_cuda PROPERTIES LABELS gpu TIMEOUT 300)
endif()
