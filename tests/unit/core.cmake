silt_add_test(NAME core_test SOURCES core_test.cpp LABEL unit CUDA)
silt_add_test(NAME core_staging_test SOURCES core_staging_test.cpp LABEL unit CUDA)
silt_add_test(NAME core_block_cache_test SOURCES core_block_cache_test.cpp LABEL unit CUDA)
silt_add_test(NAME core_copy_test SOURCES core_copy_test.cpp LABEL unit CUDA)
