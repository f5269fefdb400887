#include <stdlib.h>

#include <cstddef>
#include <cstdint>

#include "fuzz_common.hpp"
#include "silt/core/error.hpp"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  ::setenv("SILT_MEMORY_LIMIT", "67108864", 1);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    silt::fuzz::one_input(std::string(reinterpret_cast<const char*>(data), size));
  } catch (const silt::Error&) {
    // The way a reader refuses input.
  }
  return 0;
}
