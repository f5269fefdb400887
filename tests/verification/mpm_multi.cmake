# MPM on several partitions (src/silt/mpm/solver.hpp, mpm/exchange/exchange.hpp) against one
# partition: integrals and moments within the tolerances stated in mpm_multi_scene.hpp, on 1 to 4
# CPU partitions; CUDA (label gpu): one part per GPU, the cases needing more GPUs than present skip.
silt_add_test(NAME mpm_multi_test SOURCES mpm_multi_test.cpp LABEL verification
              LIBS silt::mpm CUDA TIMEOUT 300)
set_tests_properties(mpm_multi_test PROPERTIES ENVIRONMENT OMP_WAIT_POLICY=PASSIVE)
