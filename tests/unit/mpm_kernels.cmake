# MPM physics kernels (src/silt/mpm/kernels, src/silt/core/math): pure SILT_HD functions run in
# double (and float where the device precision matters) on the host.
silt_add_test(NAME mpm_kernels_test LABEL unit
  SOURCES mpm_math_test.cpp mpm_pack_test.cpp mpm_transfer_test.cpp mpm_material_test.cpp
          mpm_grid_test.cpp mpm_contact_k_test.cpp
  LIBS silt::mpm)
# The float kernels through parallel_for: on the GPU machine (label gpu) this checks the native
# device intrinsics against double references.
silt_add_test(NAME mpm_kernels_device_test LABEL unit CUDA
  SOURCES mpm_kernels_device_test.cpp)
