// Frames appended to a NetCDF series (one file per run) with the netCDF-C library: GDAL writes the
// file with its empty unlimited time axis (create_netcdf_series, io/raster/gdal.cpp) but cannot
// grow that axis, which nc_put_vara does. Each frame opens the file, writes the time and every
// field at index k and closes it, so the file on disk is complete after every frame (a run that
// stops leaves the frames it wrote). Stubs that throw when this build has no netCDF-C or no GDAL.
#include <fmt/format.h>

#include <cmath>
#include <mutex>

#include "silt/core/error.hpp"
#include "silt/io/disk_space.hpp"
#include "silt/io/raster/raster.hpp"

#if SILT_WITH_NETCDF && SILT_WITH_GDAL
#include <hdf5.h>
#include "silt/io/netcdf_call.hpp"
#endif

namespace silt::io {

std::unique_lock<std::mutex> lock_netcdf() {
  static std::mutex m;
  std::unique_lock<std::mutex> lock(m);
#if SILT_WITH_NETCDF && SILT_WITH_GDAL
  // HDF5's error stack printing is per thread (netCDF-C switches it off on the thread that first
  // opens a file); failures are reported through the netCDF status instead.
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
#endif
  return lock;
}

#if SILT_WITH_NETCDF && SILT_WITH_GDAL

namespace {

using detail::check;
using detail::NcHandle;

}  // namespace

bool netcdf_series_available() {
  return true;
}

void append_netcdf_frame(const std::string& path, const RasterSeries& s, long k, double t,
                         const std::vector<std::vector<double>>& values) {
  const Raster& g = s.grid;
  SILT_REQUIRE(values.size() == s.fields.size(), fmt::format("'{}': {} fields for {} variables",
                                                             path, values.size(), s.fields.size()));
  require_room(path,
               std::uintmax_t(g.cells()) * values.size() * (g.type == ValueType::f64 ? 8 : 4));
  const std::unique_lock<std::mutex> lock = lock_netcdf();
  NcHandle nc;
  check(nc_open(path.c_str(), NC_WRITE, &nc.id), path, "open");
  int time_id;
  check(nc_inq_varid(nc.id, "time", &time_id), path, "variable 'time'");
  const size_t at = static_cast<size_t>(k), one = 1;
  check(nc_put_vara_double(nc.id, time_id, &at, &one, &t), path, "time");
  std::vector<double> buf(static_cast<size_t>(g.cells()));
  for (size_t v = 0; v < values.size(); ++v) {
    const std::string& name = s.fields[v].variable;
    SILT_REQUIRE(values[v].size() == buf.size(),
                 fmt::format("'{}': {} values of '{}' for {} cells", path, values[v].size(), name,
                             buf.size()));
    int id;
    check(nc_inq_varid(nc.id, name.c_str(), &id), path, fmt::format("variable '{}'", name));
    // South row first, as y increases; nodata as the fill value (netCDF-C converts to the
    // variable's type: float32, float64, or bytes for hazard classes).
    const double nodata = s.fields[v].nodata;
    for (size_t c = 0; c < buf.size(); ++c)
      buf[c] = std::isnan(values[v][c]) ? nodata : values[v][c];
    const size_t start[3] = {at, 0, 0};
    const size_t count[3] = {1, static_cast<size_t>(g.ny), static_cast<size_t>(g.nx)};
    check(nc_put_vara_double(nc.id, id, start, count, buf.data()), path,
          fmt::format("frame {} of '{}'", k, name));
  }
  const int id = nc.id;
  nc.id = -1;
  check(nc_close(id), path, "close");
}

void write_netcdf_statics(const std::string& path, const RasterSeries& s,
                          const std::vector<std::vector<double>>& values) {
  const Raster& g = s.grid;
  SILT_REQUIRE(
      values.size() == s.statics.size(),
      fmt::format("'{}': {} fields for {} variables", path, values.size(), s.statics.size()));
  require_room(path, std::uintmax_t(g.cells()) * values.size() * 8);
  const std::unique_lock<std::mutex> lock = lock_netcdf();
  NcHandle nc;
  check(nc_open(path.c_str(), NC_WRITE, &nc.id), path, "open");
  std::vector<double> buf(static_cast<size_t>(g.cells()));
  for (size_t v = 0; v < values.size(); ++v) {
    const Raster& f = s.statics[v];
    SILT_REQUIRE(values[v].size() == buf.size(),
                 fmt::format("'{}': {} values of '{}' for {} cells", path, values[v].size(),
                             f.variable, buf.size()));
    int id;
    check(nc_inq_varid(nc.id, f.variable.c_str(), &id), path,
          fmt::format("variable '{}'", f.variable));
    for (size_t c = 0; c < buf.size(); ++c)
      buf[c] = std::isnan(values[v][c]) ? f.nodata : values[v][c];
    check(nc_put_var_double(nc.id, id, buf.data()), path, fmt::format("'{}'", f.variable));
  }
  const int id = nc.id;
  nc.id = -1;
  check(nc_close(id), path, "close");
}

long netcdf_series_frames(const std::string& path) {
  const std::unique_lock<std::mutex> lock = lock_netcdf();
  NcHandle nc;
  if (nc_open(path.c_str(), NC_NOWRITE, &nc.id) != NC_NOERR) {
    nc.id = -1;
    throw Error(fmt::format("cannot read '{}' (a NetCDF file of this run's frames)", path));
  }
  int dim;
  size_t n = 0;
  if (nc_inq_dimid(nc.id, "time", &dim) != NC_NOERR || nc_inq_dimlen(nc.id, dim, &n) != NC_NOERR)
    throw Error(fmt::format("'{}' has no time axis", path));
  return static_cast<long>(n);
}

#else

bool netcdf_series_available() {
  return false;
}

void append_netcdf_frame(const std::string& path, const RasterSeries&, long, double,
                         const std::vector<std::vector<double>>&) {
  throw Error(
      fmt::format("cannot write '{}': one NetCDF file per run needs GDAL and the netCDF-C "
                  "library (libnetcdf-dev), which this build of silt does not have",
                  path));
}

void write_netcdf_statics(const std::string& path, const RasterSeries&,
                          const std::vector<std::vector<double>>&) {
  throw Error(
      fmt::format("cannot write '{}': NetCDF hazard rasters need GDAL and the netCDF-C "
                  "library (libnetcdf-dev), which this build of silt does not have",
                  path));
}

long netcdf_series_frames(const std::string& path) {
  throw Error(fmt::format("cannot read '{}': this build of silt has no netCDF-C library", path));
}

#endif

}  // namespace silt::io
