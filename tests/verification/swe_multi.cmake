# Shallow water split into subdomains (src/silt/partition/) against one device: bit for bit on
# the CPU (1 to 4 partitions, strips and blocks, halos of 1 to 3 layers), within a stated
# tolerance on CUDA (label gpu; several GPUs when visible).
silt_add_test(NAME swe_multi_test SOURCES swe_multi_test.cpp LABEL verification
              LIBS silt::swe CUDA TIMEOUT 300)
target_include_directories(swe_multi_test PRIVATE ${PROJECT_SOURCE_DIR}/tests/unit)
# Passive OpenMP waits: many short parallel loops per step stay fast when CI runs two tests at
# once on two cores (spinning threads otherwise wait for a descheduled partner).
set_tests_properties(swe_multi_test PROPERTIES ENVIRONMENT OMP_WAIT_POLICY=PASSIVE)
