#include "silt/io/swe/hydrograph_netcdf.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <mutex>

#include "silt/core/error.hpp"
#include "silt/io/atomic_file.hpp"
#include "silt/io/raster/raster.hpp"

#if SILT_WITH_NETCDF
#include "silt/io/netcdf_call.hpp"
#endif

namespace silt::io {

#if SILT_WITH_NETCDF

namespace {

struct NcFile {
  int id = -1;
  std::string path;
  ~NcFile() {
    if (id >= 0) nc_close(id);
  }
  void check(int status, const std::string& what) const { detail::check(status, path, what); }
  void text(int var, const char* name, const std::string& value) const {
    check(nc_put_att_text(id, var, name, value.size(), value.c_str()), name);
  }
  int variable(const char* name, nc_type type, std::vector<int> dims) const {
    int v;
    check(nc_def_var(id, name, type, int(dims.size()), dims.data(), &v), name);
    return v;
  }
};

void define(const NcFile& f, const HydrographSeries& s, int station, int time, int strlen) {
  f.text(NC_GLOBAL, "Conventions", "CF-1.8");
  f.text(NC_GLOBAL, "featureType", "timeSeries");
  f.text(NC_GLOBAL, "title",
         "silt: discharge through boundaries, point sources and cross sections");
  const int name = f.variable("station_name", NC_CHAR, {station, strlen});
  f.text(name, "cf_role", "timeseries_id");
  f.text(name, "long_name", "boundary, point source or cross section");
  const int kind = f.variable("station_kind", NC_BYTE, {station});
  f.text(kind, "long_name", "what the discharge passes");
  const signed char flags[] = {0, 1, 2};
  f.check(nc_put_att_schar(f.id, kind, "flag_values", NC_BYTE, 3, flags), "flag_values");
  f.text(kind, "flag_meanings", "boundary point_source cross_section");
  const char* axes[2][3] = {{"x", "projection_x_coordinate",
                             "x of the boundary segment's middle, "
                             "the source or the line's middle"},
                            {"y", "projection_y_coordinate", "y of the same point"}};
  for (auto& a : axes) {
    const int v = f.variable(a[0], NC_DOUBLE, {station});
    f.text(v, "standard_name", a[1]);
    f.text(v, "long_name", a[2]);
    f.text(v, "units", "m");
    if (!s.crs_wkt.empty()) f.text(v, "crs_wkt", s.crs_wkt);
  }
  const int t = f.variable("time", NC_DOUBLE, {time});
  f.text(t, "standard_name", "time");
  f.text(t, "long_name", "time of the output frame");
  f.text(t, "units", s.time_units);
  f.text(t, "calendar", "standard");
  f.text(t, "axis", "T");
  const int q = f.variable("discharge", NC_DOUBLE, {station, time});
  f.text(q, "standard_name", "water_volume_transport_in_river_channel");
  f.text(q, "long_name",
         "mean discharge over the interval before the time: into the domain through boundaries "
         "and sources, toward the line's left across cross sections (0 at the first time)");
  f.text(q, "units", "m3 s-1");
  f.text(q, "coordinates", "time x y station_name");
  const int v = f.variable("volume", NC_DOUBLE, {station, time});
  f.text(v, "long_name", "net volume passed since the start of the run (signs as discharge)");
  f.text(v, "units", "m3");
  f.text(v, "coordinates", "time x y station_name");
}

void write_file(const std::string& path, const HydrographSeries& s) {
  NcFile f;
  f.path = path;
  f.check(nc_create(path.c_str(), NC_CLOBBER | NC_NETCDF4, &f.id), "create");
  const size_t n = s.names.size(), rows = s.t.size();
  size_t strlen = 1;
  for (const auto& nm : s.names) strlen = std::max(strlen, nm.size());
  int station, time, len;
  f.check(nc_def_dim(f.id, "station", n, &station), "dimension station");
  f.check(nc_def_dim(f.id, "time", rows, &time), "dimension time");
  f.check(nc_def_dim(f.id, "name_strlen", strlen, &len), "dimension name_strlen");
  define(f, s, station, time, len);
  f.check(nc_enddef(f.id), "header");
  const auto id = [&](const char* v) {
    int i;
    f.check(nc_inq_varid(f.id, v, &i), v);
    return i;
  };
  std::vector<char> names(n * strlen, '\0');
  std::vector<signed char> kinds(n);
  for (size_t k = 0; k < n; ++k) {
    std::copy(s.names[k].begin(), s.names[k].end(), names.begin() + long(k * strlen));
    kinds[k] = static_cast<signed char>(s.kinds[k]);
  }
  if (n > 0) {
    f.check(nc_put_var_text(f.id, id("station_name"), names.data()), "station_name");
    f.check(nc_put_var_schar(f.id, id("station_kind"), kinds.data()), "station_kind");
    f.check(nc_put_var_double(f.id, id("x"), s.x.data()), "x");
    f.check(nc_put_var_double(f.id, id("y"), s.y.data()), "y");
  }
  if (rows > 0) f.check(nc_put_var_double(f.id, id("time"), s.t.data()), "time");
  std::vector<double> buf;
  for (const char* var : {"discharge", "volume"}) {
    const auto& table = var[0] == 'd' ? s.q : s.v;
    buf.clear();
    for (const auto& station_rows : table)
      buf.insert(buf.end(), station_rows.begin(), station_rows.end());
    if (!buf.empty()) f.check(nc_put_var_double(f.id, id(var), buf.data()), var);
  }
  const int closing = f.id;
  f.id = -1;
  f.check(nc_close(closing), "close");
}

}  // namespace

void write_hydrograph_netcdf(const std::string& path, const HydrographSeries& s) {
  const std::unique_lock<std::mutex> lock = lock_netcdf();
  write_atomically(path, [&](const std::string& tmp) { write_file(tmp, s); });
}

#else

void write_hydrograph_netcdf(const std::string& path, const HydrographSeries&) {
  throw Error(fmt::format("cannot write '{}': this build of silt has no netCDF-C library", path));
}

#endif

}  // namespace silt::io
