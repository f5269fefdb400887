silt_add_test(NAME core_test SOURCES core_test.cpp LABEL unit CUDA)
