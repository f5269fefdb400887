#include "silt/io/raster/raster.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <filesystem>

#include "silt/core/error.hpp"
#include "silt/io/input_file.hpp"

namespace silt::io {

bool Raster::is_nodata(Index k) const {
  const double v = values[static_cast<size_t>(k)];
  return std::isnan(v) || v == nodata;
}

namespace {
std::string lower_extension(const std::string& path) {
  std::string e = std::filesystem::path(path).extension().string();
  for (auto& c : e) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return e;
}
}  // namespace

RasterFormat raster_format_of(const std::string& path) {
  const std::string e = lower_extension(path);
  if (e == ".asc") return RasterFormat::asc;
  if (e == ".tif" || e == ".tiff") return RasterFormat::tif;
  if (e == ".nc") return RasterFormat::nc;
  throw Error(fmt::format("'{}': unknown raster extension '{}' (use .asc, .tif or .nc)", path, e));
}

std::string extension_of(RasterFormat f) {
  static const char* const names[] = {"asc", "tif", "nc"};  // RasterFormat's order
  return names[int(f)];
}

bool raster_format_from_name(const std::string& name, RasterFormat& out) {
  for (RasterFormat f : {RasterFormat::asc, RasterFormat::tif, RasterFormat::nc})
    if (name == extension_of(f)) {
      out = f;
      return true;
    }
  return false;
}

std::string prj_path_of(const std::string& raster_path) {
  return std::filesystem::path(raster_path).replace_extension(".prj").string();
}

Raster read_raster(const std::string& path) {
  // Refused before GDAL or the ASCII reader opens it: missing, a FIFO, a device, a directory.
  require_input_file(path, "raster file");
  if (lower_extension(path) == ".asc") return read_ascii_grid(path);
  if (!gdal_available())
    throw Error(
        fmt::format("cannot read '{}': this build of silt has no GDAL, so it reads ESRI "
                    "ASCII grids (.asc) only; convert with gdal_translate -of AAIGrid, or "
                    "rebuild with GDAL (libgdal-dev)",
                    path));
  return read_gdal_raster(path);
}

void write_raster(const std::string& path, const Raster& r, RasterFormat f) {
  if (static_cast<Index>(r.values.size()) != r.cells())
    throw Error(fmt::format("cannot write '{}': {} values for a {} x {} raster", path,
                            r.values.size(), r.nx, r.ny));
  if (f == RasterFormat::asc) return write_ascii_grid(path, r);
  if (!gdal_available())
    throw Error(
        fmt::format("cannot write '{}': .{} output needs GDAL, which this build of silt "
                    "does not have; use the asc format or rebuild with GDAL (libgdal-dev)",
                    path, extension_of(f)));
  write_gdal_raster(path, r, f);
}

}  // namespace silt::io
