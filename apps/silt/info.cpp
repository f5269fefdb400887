#include <fmt/format.h>

#include "build_info.hpp"
#include "commands.hpp"
#include "silt/core/exec.hpp"

namespace silt::app {

std::string build_id() {
  return fmt::format("silt {} ({}, {}, {}, CUDA arch {})", kVersion, kGitRevision, kBuildType,
                     kCompiler, kCudaArchitectures);
}

int cmd_info() {
  fmt::print("{}\n", build_id());
  fmt::print("backends: cpu ({} OpenMP threads){}\n", host_thread_count(),
             cuda_compiled() ? ", cuda" : "");
  fmt::print("rasters: ESRI ASCII{}\n", kWithGdal ? ", GeoTIFF and NetCDF (GDAL)" : "");
  fmt::print("images: {}\n", kWithPng ? "PNG" : "none (built without libpng)");
  fmt::print("MPI: {}\n", kWithMpi ? "yes" : "no");
  const int n = cuda_device_count();
  if (!cuda_compiled())
    fmt::print("CUDA devices: none (built without the CUDA backend)\n");
  else if (n == 0)
    fmt::print("CUDA devices: none visible\n");
  for (int d = 0; d < n; ++d) fmt::print("CUDA device {}: {}\n", d, cuda_device_name(d));
  return 0;
}

}  // namespace silt::app
