#include "silt/io/member_table_netcdf.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <mutex>

#include "silt/core/error.hpp"
#include "silt/io/raster/raster.hpp"

#if SILT_WITH_NETCDF
#include "silt/io/netcdf_call.hpp"
#endif

namespace silt::io {

#if SILT_WITH_NETCDF

namespace {

using detail::check;
using detail::NcHandle;

constexpr double kFill = 9.969209968386869e36;  // NC_FILL_DOUBLE

void text(int nc, int var, const char* name, const std::string& value, const std::string& path) {
  if (value.empty()) return;
  check(nc_put_att_text(nc, var, name, value.size(), value.c_str()), path, name);
}

int define_double(int nc, const std::string& name, int ndims, const int* dims,
                  const std::string& units, const std::string& long_name, const std::string& path) {
  int var;
  check(nc_def_var(nc, name.c_str(), NC_DOUBLE, ndims, dims, &var), path, "variable " + name);
  check(nc_put_att_double(nc, var, "_FillValue", NC_DOUBLE, 1, &kFill), path, name);
  text(nc, var, "units", units, path);
  text(nc, var, "long_name", long_name, path);
  if (ndims > 0) text(nc, var, "coordinates", "member_name", path);
  return var;
}

std::vector<double> filled(std::vector<double> v) {
  for (double& x : v)
    if (std::isnan(x)) x = kFill;
  return v;
}

}  // namespace

void write_member_table_nc(const std::string& path, const MemberTable& t) {
  const std::size_t n = t.members.size();
  std::size_t frames = 1, width = 1;
  for (const MemberTable::Series& s : t.series)
    for (const std::vector<double>& v : s.values) frames = std::max(frames, v.size());
  for (const std::string& m : t.members) width = std::max(width, m.size());
  const std::unique_lock<std::mutex> lock = lock_netcdf();
  NcHandle nc;
  check(nc_create(path.c_str(), NC_CLOBBER | NC_NETCDF4, &nc.id), path, "create");
  text(nc.id, NC_GLOBAL, "Conventions", "CF-1.8", path);
  text(nc.id, NC_GLOBAL, "title", t.title, path);
  int member, frame, name_length;
  check(nc_def_dim(nc.id, "member", n, &member), path, "dimension member");
  check(nc_def_dim(nc.id, "frame", frames, &frame), path, "dimension frame");
  check(nc_def_dim(nc.id, "member_name_length", width, &name_length), path, "dimension");
  int member_var, names_var;
  check(nc_def_var(nc.id, "member", NC_INT, 1, &member, &member_var), path, "variable member");
  text(nc.id, member_var, "standard_name", "realization", path);
  text(nc.id, member_var, "long_name", "ensemble member", path);
  const int name_dims[2] = {member, name_length};
  check(nc_def_var(nc.id, "member_name", NC_CHAR, 2, name_dims, &names_var), path, "member_name");
  text(nc.id, names_var, "long_name", "member name", path);
  std::vector<int> columns, stats, series;
  for (const MemberTable::Column& c : t.columns)
    columns.push_back(define_double(nc.id, c.name, 1, &member, c.units, c.long_name, path));
  for (const MemberTable::Statistic& s : t.statistics) {
    stats.push_back(define_double(nc.id, s.name, 0, nullptr, s.units, s.long_name, path));
  }
  const int series_dims[2] = {member, frame};
  for (const MemberTable::Series& s : t.series)
    series.push_back(define_double(nc.id, s.name, 2, series_dims, s.units, s.long_name, path));
  check(nc_enddef(nc.id), path, "define");

  std::vector<int> index(n);
  for (std::size_t m = 0; m < n; ++m) index[m] = int(m);
  check(nc_put_var_int(nc.id, member_var, index.data()), path, "member");
  std::string buf(n * width, '\0');
  for (std::size_t m = 0; m < n; ++m) buf.replace(m * width, t.members[m].size(), t.members[m]);
  check(nc_put_var_text(nc.id, names_var, buf.data()), path, "member_name");
  for (std::size_t c = 0; c < t.columns.size(); ++c) {
    SILT_REQUIRE(t.columns[c].values.size() == n, "a column of every member");
    check(nc_put_var_double(nc.id, columns[c], filled(t.columns[c].values).data()), path,
          t.columns[c].name);
  }
  for (std::size_t s = 0; s < t.statistics.size(); ++s) {
    const double v = std::isnan(t.statistics[s].value) ? kFill : t.statistics[s].value;
    check(nc_put_var_double(nc.id, stats[s], &v), path, t.statistics[s].name);
  }
  for (std::size_t s = 0; s < t.series.size(); ++s)
    for (std::size_t m = 0; m < n && m < t.series[s].values.size(); ++m) {
      std::vector<double> row = t.series[s].values[m];
      row.resize(frames, std::numeric_limits<double>::quiet_NaN());
      const std::size_t start[2] = {m, 0}, count[2] = {1, frames};
      check(nc_put_vara_double(nc.id, series[s], start, count, filled(row).data()), path,
            t.series[s].name);
    }
  const int id = nc.id;
  nc.id = -1;
  check(nc_close(id), path, "close");
}

#else

void write_member_table_nc(const std::string& path, const MemberTable&) {
  throw Error(fmt::format(
      "cannot write '{}': NetCDF output needs the netCDF-C library (libnetcdf-dev), which this "
      "build of silt does not have; ask for \"formats\": [\"csv\"]",
      path));
}

#endif

}  // namespace silt::io
