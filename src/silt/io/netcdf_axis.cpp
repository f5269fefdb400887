#include "silt/io/netcdf_axis.hpp"

#include <fmt/format.h>

#include <cmath>
#include <mutex>

#include "silt/core/error.hpp"
#include "silt/io/disk_space.hpp"

#if SILT_WITH_NETCDF && SILT_WITH_GDAL
#include "silt/io/netcdf_call.hpp"
#endif

namespace silt::io {

#if SILT_WITH_NETCDF && SILT_WITH_GDAL

namespace {

using detail::check;
using detail::NcHandle;

void text(int nc, int var, const char* name, const std::string& value, const std::string& path) {
  if (value.empty()) return;
  check(nc_put_att_text(nc, var, name, value.size(), value.c_str()), path, name);
}

// The grid mapping the file's (y, x) variables name ("" when none): the new variables name it too.
std::string grid_mapping_of(int nc, const RasterSeries& s) {
  for (const Raster& r : s.statics) {
    int var;
    std::size_t len = 0;
    if (nc_inq_varid(nc, r.variable.c_str(), &var) != NC_NOERR ||
        nc_inq_attlen(nc, var, "grid_mapping", &len) != NC_NOERR)
      continue;
    std::string out(len, '\0');
    if (nc_get_att_text(nc, var, "grid_mapping", out.data()) == NC_NOERR) return out;
  }
  return "";
}

// The dimension, its coordinate and its labels; returns the dimension's id.
int define_axis(int nc, const NetcdfAxis& a, const std::string& path) {
  int dim, var;
  check(nc_def_dim(nc, a.name.c_str(), a.values.size(), &dim), path, "dimension " + a.name);
  check(nc_def_var(nc, a.name.c_str(), a.integer ? NC_INT : NC_DOUBLE, 1, &dim, &var), path,
        "variable " + a.name);
  text(nc, var, "units", a.units, path);
  text(nc, var, "standard_name", a.standard_name, path);
  text(nc, var, "long_name", a.long_name, path);
  if (!a.labels.empty()) {
    std::size_t width = 1;
    for (const std::string& l : a.labels) width = std::max(width, l.size());
    int dims[2] = {dim, 0}, labels;
    check(nc_def_dim(nc, (a.name + "_name_length").c_str(), width, &dims[1]), path, "labels");
    check(nc_def_var(nc, (a.name + "_name").c_str(), NC_CHAR, 2, dims, &labels), path, "labels");
    text(nc, labels, "long_name", a.name + " name", path);
  }
  return dim;
}

void write_axis(int nc, const NetcdfAxis& a, const std::string& path) {
  int var;
  check(nc_inq_varid(nc, a.name.c_str(), &var), path, "variable " + a.name);
  check(nc_put_var_double(nc, var, a.values.data()), path, "variable " + a.name);
  if (a.labels.empty()) return;
  check(nc_inq_varid(nc, (a.name + "_name").c_str(), &var), path, "labels");
  int dims[2];
  check(nc_inq_vardimid(nc, var, dims), path, "labels");
  std::size_t width;
  check(nc_inq_dimlen(nc, dims[1], &width), path, "labels");
  std::string buf(a.labels.size() * width, '\0');
  for (std::size_t i = 0; i < a.labels.size(); ++i)
    buf.replace(i * width, a.labels[i].size(), a.labels[i]);
  check(nc_put_var_text(nc, var, buf.data()), path, "labels");
}

}  // namespace

void add_netcdf_axis(const std::string& path, const RasterSeries& s, const NetcdfAxis& axis,
                     const std::vector<Raster>& vars,
                     const std::vector<std::vector<std::vector<double>>>& values) {
  const Raster& g = s.grid;
  SILT_REQUIRE(values.size() == vars.size(),
               fmt::format("'{}': {} fields for {} variables", path, values.size(), vars.size()));
  require_room(path, std::uintmax_t(g.cells()) * axis.values.size() * vars.size() * 8);
  const std::unique_lock<std::mutex> lock = lock_netcdf();
  NcHandle nc;
  check(nc_open(path.c_str(), NC_WRITE, &nc.id), path, "open");
  const std::string mapping = grid_mapping_of(nc.id, s);
  check(nc_redef(nc.id), path, "define");
  const int dim = define_axis(nc.id, axis, path);
  int y, x;
  check(nc_inq_dimid(nc.id, "y", &y), path, "dimension y");
  check(nc_inq_dimid(nc.id, "x", &x), path, "dimension x");
  std::vector<int> ids;
  for (const Raster& r : vars) {
    const int dims[3] = {dim, y, x};
    const nc_type type = r.type == ValueType::f64 ? NC_DOUBLE : NC_FLOAT;
    int var;
    check(nc_def_var(nc.id, r.variable.c_str(), type, 3, dims, &var), path, r.variable);
    const std::size_t chunks[3] = {1, std::size_t(g.ny), std::size_t(g.nx)};
    check(nc_def_var_chunking(nc.id, var, NC_CHUNKED, chunks), path, r.variable);
    check(nc_def_var_deflate(nc.id, var, 0, 1, 4), path, r.variable);
    if (type == NC_DOUBLE)
      check(nc_put_att_double(nc.id, var, "_FillValue", type, 1, &r.nodata), path, r.variable);
    else {
      const float fill = float(r.nodata);
      check(nc_put_att_float(nc.id, var, "_FillValue", type, 1, &fill), path, r.variable);
    }
    text(nc.id, var, "units", r.units, path);
    text(nc.id, var, "standard_name", r.standard_name, path);
    text(nc.id, var, "long_name", r.long_name.empty() ? r.variable : r.long_name, path);
    text(nc.id, var, "cell_methods", r.cell_methods, path);
    text(nc.id, var, "grid_mapping", mapping, path);
    if (!axis.labels.empty()) text(nc.id, var, "coordinates", axis.name + "_name", path);
    ids.push_back(var);
  }
  check(nc_enddef(nc.id), path, "define");
  write_axis(nc.id, axis, path);
  std::vector<double> buf(static_cast<std::size_t>(g.cells()));
  for (std::size_t v = 0; v < vars.size(); ++v)
    for (std::size_t i = 0; i < values[v].size(); ++i) {
      const std::vector<double>& in = values[v][i];
      SILT_REQUIRE(in.size() == buf.size(),
                   fmt::format("'{}': {} values of '{}' for {} cells", path, in.size(),
                               vars[v].variable, buf.size()));
      for (std::size_t c = 0; c < buf.size(); ++c)
        buf[c] = std::isnan(in[c]) ? vars[v].nodata : in[c];
      const std::size_t start[3] = {i, 0, 0};
      const std::size_t count[3] = {1, std::size_t(g.ny), std::size_t(g.nx)};
      check(nc_put_vara_double(nc.id, ids[v], start, count, buf.data()), path,
            fmt::format("'{}' at {} {}", vars[v].variable, axis.name, i));
    }
  const int id = nc.id;
  nc.id = -1;
  check(nc_close(id), path, "close");
}

#else

void add_netcdf_axis(const std::string& path, const RasterSeries&, const NetcdfAxis&,
                     const std::vector<Raster>&,
                     const std::vector<std::vector<std::vector<double>>>&) {
  throw Error(
      fmt::format("cannot write '{}': an ensemble's NetCDF file needs GDAL and the netCDF-C "
                  "library (libnetcdf-dev), which this build of silt does not have",
                  path));
}

#endif

}  // namespace silt::io
