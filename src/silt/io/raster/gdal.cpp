// GeoTIFF and CF NetCDF through GDAL, which lives in silt's GDAL module (libsilt_gdal.so,
// src/silt/modules/gdal/): opened the first time a run reads or writes a GDAL format or reads a
// CRS (io/raster/gdal_module.hpp), so that other runs never load GDAL. Compiled to stubs that throw
// a clear Error when this build has no GDAL (SILT_WITH_GDAL undefined): ESRI ASCII
// (io/raster/ascii.cpp) remains.
#include <fmt/format.h>

#include <cctype>

#include "silt/core/error.hpp"
#include "silt/io/input_file.hpp"
#include "silt/io/raster/raster.hpp"

#if SILT_WITH_GDAL
#include "silt/core/module_loader.hpp"
#include "silt/io/disk_space.hpp"
#include "silt/io/memory_limit.hpp"
#include "silt/io/raster/gdal_module.hpp"
#endif

namespace silt::io {

#if SILT_WITH_GDAL

namespace {

const GdalHost kHost{
    lock_netcdf,    require_room, full_disk_reason,
    fits_in_memory, memory_text,  [](const Raster& r, Index k) { return r.is_nodata(k); },
};

// The module's table, loaded on first use; throws the loader's Error (the module's path and
// dlerror()) when the module cannot be loaded.
const GdalModule& gdal() {
  static const GdalModule& table =
      module_table<GdalModule>(kGdalModuleName, kGdalModuleEntry, kGdalModuleAbi, &kHost);
  return table;
}

}  // namespace

bool gdal_available() {
  return true;
}

std::string gdal_problem() {
  return module_problem(kGdalModuleName, kGdalModuleEntry);
}

Raster read_gdal_raster(const std::string& path) {
  return gdal().read_raster(path);
}

RasterBands read_raster_bands(const std::string& path, const std::string& variable) {
  require_input_file(path, "NetCDF file");
  return gdal().read_raster_bands(path, variable);
}

void write_gdal_raster(const std::string& path, const Raster& r, RasterFormat f) {
  gdal().write_raster(path, r, f);
}

void create_netcdf_series(const std::string& path, const RasterSeries& s) {
  gdal().create_netcdf_series(path, s);
}

std::string crs_to_wkt(const std::string& user_input) {
  return gdal().crs_to_wkt(user_input);
}

std::string prj_to_crs(const std::string& text, const std::string& path) {
  return gdal().prj_to_crs(text, path);
}

std::string crs_to_prj(const std::string& crs) {
  return gdal().crs_to_prj(crs);
}

bool same_crs(const std::string& a, const std::string& b) {
  return gdal().same_crs(a, b);
}

std::string crs_name(const std::string& crs) {
  return gdal().crs_name(crs);
}

#else  // no GDAL

bool gdal_available() {
  return false;
}

std::string gdal_problem() {
  return "this build of silt has no GDAL";
}

Raster read_gdal_raster(const std::string& path) {
  throw Error(
      fmt::format("cannot read '{}': this build of silt has no GDAL (ESRI ASCII .asc only)", path));
}

RasterBands read_raster_bands(const std::string& path, const std::string&) {
  throw Error(
      fmt::format("cannot read '{}': this build of silt has no GDAL (ESRI ASCII .asc only)", path));
}

void write_gdal_raster(const std::string& path, const Raster&, RasterFormat f) {
  throw Error(
      fmt::format("cannot write '{}': .{} output needs GDAL, which this build of silt does "
                  "not have; use the asc format",
                  path, extension_of(f)));
}

void create_netcdf_series(const std::string& path, const RasterSeries&) {
  throw Error(
      fmt::format("cannot write '{}': NetCDF output needs GDAL, which this build of silt "
                  "does not have",
                  path));
}

std::string crs_to_wkt(const std::string& user_input) {
  throw Error(
      fmt::format("coordinate reference system '{}': this build of silt has no GDAL to "
                  "interpret it (it only applies to .tif/.nc outputs, which need GDAL)",
                  user_input));
}

// Without GDAL a CRS is the text of an input .prj, kept as it is: compared up to white space,
// and written to the outputs' .prj unchanged.
namespace {
std::string squeezed(const std::string& s) {
  std::string out;
  for (char c : s)
    if (!std::isspace(static_cast<unsigned char>(c))) out += c;
  return out;
}
}  // namespace

std::string prj_to_crs(const std::string& text, const std::string& path) {
  if (squeezed(text).empty()) throw Error(fmt::format("'{}' is empty (no CRS in it)", path));
  return text;
}

std::string crs_to_prj(const std::string& crs) {
  return crs.empty() || crs.back() == '\n' ? crs : crs + "\n";
}

bool same_crs(const std::string& a, const std::string& b) {
  return squeezed(a) == squeezed(b);
}

std::string crs_name(const std::string& crs) {
  // ESRI WKT starts PROJCS["name", ... or GEOGCS["name", ...
  const size_t q = crs.find('"');
  if (q != std::string::npos) {
    const size_t e = crs.find('"', q + 1);
    if (e != std::string::npos) return crs.substr(q + 1, e - q - 1);
  }
  return crs.size() > 60 ? crs.substr(0, 60) + "..." : crs;
}

#endif

}  // namespace silt::io
