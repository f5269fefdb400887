# CUDA against CPU on the same scene: registered for the CUDA backend only (label gpu).
add_executable(swe_backends_test swe_backends_test.cpp)
target_include_directories(swe_backends_test PRIVATE ${PROJECT_SOURCE_DIR}/tests/unit)
target_link_libraries(swe_backends_test PRIVATE silt_test_support silt::swe)
silt_backend_sources(swe_backends_test)
if(SILT_CUDA)
  add_test(NAME swe_backends_test_cuda COMMAND swe_backends_test --backend=cuda)
  set_tests_properties(swe_backends_test_cuda PROPERTIES LABELS gpu TIMEOUT 300)
endif()

# `silt run` of one scene on one GPU, two GPUs and two MPI ranks (label gpu): the files agree.
find_package(Python3 COMPONENTS Interpreter QUIET)
if(SILT_CUDA AND Python3_FOUND AND TARGET silt)
  set(silt_gpu_mpiexec "")
  if(SILT_MPI)
    set(silt_gpu_mpiexec ${MPIEXEC_EXECUTABLE})
  endif()
  add_test(NAME silt_run_gpu_test
           COMMAND ${CMAKE_COMMAND} -DSILT=$<TARGET_FILE:silt> -DMPIEXEC=${silt_gpu_mpiexec}
                   -DPYTHON=${Python3_EXECUTABLE}
                   -DSCENE=${PROJECT_SOURCE_DIR}/tests/mpi/swe_mpi_scene.json
                   -DOUT=${CMAKE_CURRENT_BINARY_DIR}/silt_run_gpu_out
                   -P ${PROJECT_SOURCE_DIR}/tests/mpi/scripts/silt_run_gpu_compare.cmake)
  set_tests_properties(silt_run_gpu_test PROPERTIES LABELS gpu TIMEOUT 300
                       ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
endif()
