// The boundary between silt and its GDAL module (libsilt_gdal.so, src/silt/modules/gdal/): the
// module's entry point silt_gdal_module() returns a table of the functions that need GDAL, and
// receives a table of the core functions they call back (the core's, so that the module holds no
// state of its own: one NetCDF lock, one memory limit). Both sides are built by the same compiler
// in the same build (CMake builds the module with the library), so the tables pass silt's own C++
// types; kGdalModuleAbi guards against a module left from another build.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>

#include "silt/io/raster/raster.hpp"

namespace silt::io {

/// Raise when GdalModule, GdalHost or a type they pass changes.
inline constexpr int kGdalModuleAbi = 1;
inline constexpr const char* kGdalModuleName = "silt_gdal";
inline constexpr const char* kGdalModuleEntry = "silt_gdal_module";

/// What the module calls back in the core.
struct GdalHost {
  std::unique_lock<std::mutex> (*lock_netcdf)();
  void (*require_room)(const std::string& path, std::uintmax_t bytes, const std::string& shown);
  std::string (*full_disk_reason)(const std::string& path);
  bool (*fits_in_memory)(double count, double bytes_per_item);
  std::string (*memory_text)(double count, double bytes_per_item);
  bool (*is_nodata)(const Raster& r, Index k);
};

/// The functions of io/raster/raster.hpp that need GDAL, as the module implements them.
struct GdalModule {
  Raster (*read_raster)(const std::string& path);
  RasterBands (*read_raster_bands)(const std::string& path, const std::string& variable);
  void (*write_raster)(const std::string& path, const Raster& r, RasterFormat f);
  void (*create_netcdf_series)(const std::string& path, const RasterSeries& s);
  std::string (*crs_to_wkt)(const std::string& user_input);
  std::string (*prj_to_crs)(const std::string& text, const std::string& path);
  std::string (*crs_to_prj)(const std::string& crs);
  bool (*same_crs)(const std::string& a, const std::string& b);
  std::string (*crs_name)(const std::string& crs);
};

// The entry point: extern "C" const GdalModule* silt_gdal_module(int abi, const GdalHost* host),
// nullptr when abi is not the module's kGdalModuleAbi.

}  // namespace silt::io
