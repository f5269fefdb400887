#include <cstring>
#include <iostream>

#include "silt/core/exec.hpp"
#include "test_support.hpp"

namespace silt::test {
namespace {
Exec g_exec = Exec::host();
}
const Exec& exec() {
  return g_exec;
}
}  // namespace silt::test

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--backend=cuda") == 0) {
      if (silt::cuda_device_count() == 0) {
        std::cerr << "--backend=cuda: no CUDA device visible (or no CUDA backend built)\n";
        return 1;
      }
      silt::test::g_exec = silt::Exec::cuda(0);
    } else if (std::strcmp(argv[i], "--backend=cpu") != 0) {
      std::cerr << "unknown argument " << argv[i] << "\n";
      return 2;
    }
  }
  std::cout << "backend: " << silt::to_string(silt::test::g_exec.backend) << "\n";
  return RUN_ALL_TESTS();
}
