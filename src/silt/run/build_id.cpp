#include <fmt/format.h>

#include "silt/run/devices.hpp"
#include "silt_run_build_info.hpp"

namespace silt::run {

std::string build_id() {
  return fmt::format("silt {} ({}, {}, {}, CUDA arch {})", kVersion, kGitRevision, kBuildType,
                     kCompiler, kCudaArchitectures);
}

}  // namespace silt::run
