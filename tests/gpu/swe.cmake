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
# The isolated-building validation on the CUDA backend (docs/verification-swe.md): the first order
# at 0.1 m within the CPU's bounds (--check), and both schemes at 0.05 and 0.025 m printed.
find_package(Python3 COMPONENTS Interpreter QUIET)
if(SILT_CUDA AND Python3_FOUND AND TARGET silt)
  set(silt_ib ${PROJECT_SOURCE_DIR}/tests/verification/swe_isolated_building_test.py)
  add_test(NAME swe_isolated_building_gpu_test
           COMMAND ${Python3_EXECUTABLE} ${silt_ib} $<TARGET_FILE:silt>
                   ${CMAKE_CURRENT_BINARY_DIR}/swe_isolated_building_gpu --backend cuda --check)
  add_test(NAME swe_isolated_building_gpu_table
           COMMAND ${Python3_EXECUTABLE} ${silt_ib} $<TARGET_FILE:silt>
                   ${CMAKE_CURRENT_BINARY_DIR}/swe_isolated_building_gpu_table --backend cuda
                   --dx 0.05 0.025 --scheme first_order muscl)
  set_tests_properties(swe_isolated_building_gpu_test swe_isolated_building_gpu_table
                       PROPERTIES LABELS gpu TIMEOUT 300)
endif()
