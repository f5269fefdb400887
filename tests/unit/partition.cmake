# Domain decomposition, halo exchange and the per-step reduction (src/silt/partition/): CPU
# partitions (label unit) and CUDA buffers (label gpu).
silt_add_test(NAME partition_test SOURCES partition_test.cpp LABEL unit LIBS silt::partition CUDA
              TIMEOUT 120)
