// libsilt_gdal.so's boundary: the entry point that hands gdal_rasters.cpp's functions to the core,
// and the core functions gdal_rasters.cpp calls, forwarded to the core's own
// (io/raster/gdal_module.hpp).
#include "silt/io/disk_space.hpp"
#include "silt/io/memory_limit.hpp"
#include "silt/io/raster/gdal_module.hpp"

namespace silt::io {

namespace {
const GdalHost* host = nullptr;
}  // namespace

std::unique_lock<std::mutex> lock_netcdf() {
  return host->lock_netcdf();
}
void require_room(const std::string& path, std::uintmax_t bytes, const std::string& shown) {
  host->require_room(path, bytes, shown);
}
std::string full_disk_reason(const std::string& path) {
  return host->full_disk_reason(path);
}
bool fits_in_memory(double count, double bytes_per_item) {
  return host->fits_in_memory(count, bytes_per_item);
}
std::string memory_text(double count, double bytes_per_item) {
  return host->memory_text(count, bytes_per_item);
}
bool Raster::is_nodata(Index k) const {
  return host->is_nodata(*this, k);
}

}  // namespace silt::io

extern "C" __attribute__((visibility("default"))) const silt::io::GdalModule* silt_gdal_module(
    int abi, const silt::io::GdalHost* h) {
  using namespace silt::io;
  if (abi != kGdalModuleAbi || !h) return nullptr;
  host = h;
  static const GdalModule table{read_gdal_raster,     read_raster_bands, write_gdal_raster,
                                create_netcdf_series, crs_to_wkt,        prj_to_crs,
                                crs_to_prj,           same_crs,          crs_name};
  return &table;
}
