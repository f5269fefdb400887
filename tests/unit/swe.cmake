# Shallow water: kernel functions on the host (plain g++, no GPU needed).
silt_add_test(NAME swe_kernels_test SOURCES swe_kernels_test.cpp LABEL unit TIMEOUT 120)
