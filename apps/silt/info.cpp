#include <fmt/format.h>

#include "build_info.hpp"
#include "commands.hpp"
#include "silt/core/exec.hpp"
#include "silt/core/module_loader.hpp"
#include "silt/io/particles/vdb_module.hpp"
#include "silt/io/raster/gdal_module.hpp"
#include "silt/run/devices.hpp"

namespace silt::app {

namespace {
// What a module-backed feature gives: its module's path, or why the module cannot be loaded
// (loading it here is the check).
std::string module_state(const std::string& module, const std::string& problem) {
  if (problem.empty()) return fmt::format("module {}", module_path(module));
  return fmt::format("built, but its module cannot be loaded: {}", problem);
}
}  // namespace

int cmd_info() {
  fmt::print("{}\n", run::build_id());
  fmt::print("backends: cpu ({} OpenMP threads){}\n", host_thread_count(),
             cuda_compiled() ? ", cuda" : "");
  fmt::print("rasters: ESRI ASCII{}\n",
             io::gdal_available()
                 ? fmt::format(", GeoTIFF and NetCDF (GDAL, {})",
                               module_state(io::kGdalModuleName, io::gdal_problem()))
                 : "");
  fmt::print("VDB outputs and mesh colliders: {}\n",
             io::vdb_available() ? fmt::format("yes (OpenVDB, {})",
                                               module_state(io::kVdbModuleName, io::vdb_problem()))
                                 : "no (built without OpenVDB)");
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
