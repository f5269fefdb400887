// Rain rasters and infiltration of a shallow-water scene ("rainfall", "infiltration"): frames
// read from a NetCDF variable over time or from a list of rasters with times, resampled to the
// grid by area-weighted averaging (conservative: the volume falling on the grid is the raster's
// over the same area), and the soil parameters as cell fields.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstddef>

#include "silt/core/error.hpp"
#include "silt/io/memory_limit.hpp"
#include "silt/io/swe/scene_parts.hpp"

namespace silt::io::detail {

namespace {

constexpr double kMmPerHour = 1e-3 / 3600.0;  // m/s

// Overlap of grid cells [g0 + k d, g0 + (k + 1) d) with raster cells [r0 + m e, r0 + (m + 1) e)
// along one axis: for each grid cell, the raster cells it meets and the length of each overlap.
struct Overlap {
  std::vector<Index> first;  // per grid cell, index into cell/length; first[n] = end
  std::vector<Index> cell;
  std::vector<double> length;
};

Overlap overlaps(double g0, double d, Index n, double r0, double e, Index m) {
  Overlap o;
  for (Index k = 0; k < n; ++k) {
    o.first.push_back(Index(o.cell.size()));
    const double a = g0 + k * d, b = a + d;
    // Clamped as doubles: a raster far off the grid is more of its cells away than Index holds.
    const Index lo = Index(std::clamp(std::floor((a - r0) / e), 0.0, double(m)));
    const Index hi = Index(std::clamp(std::floor((b - r0) / e), -1.0, double(m - 1)));
    for (Index q = lo; q <= hi; ++q) {
      const double len = std::min(b, r0 + (q + 1) * e) - std::max(a, r0 + q * e);
      if (len > 1e-9 * d) {
        o.cell.push_back(q);
        o.length.push_back(len);
      }
    }
  }
  o.first.push_back(Index(o.cell.size()));
  return o;
}

// One rain frame from raster values (rates in the scene's units, south row first) onto the grid,
// in m/s; inactive cells get 0. Errors name the file, the frame and the cell.
class Resampler {
 public:
  Resampler(Keys& k, const std::string& key, FieldReader& f, const swe::Scene& s)
      : keys_(k), key_(key), fields_(f), s_(s) {}

  std::vector<double> frame(const Raster& r, const std::vector<double>& v, double to_si,
                            const std::string& what) {
    const swe::Grid& g = s_.grid;
    const double tol = 1e-6 * g.dx;
    const bool same = r.nx == g.nx && r.ny == g.ny && std::abs(r.dx - g.dx) <= tol &&
                      std::abs(r.x0 - g.x0) <= tol && std::abs(r.y0 - g.y0) <= tol;
    // The raster must cover the grid's active cells.
    const double rx1 = r.x0 + r.nx * r.dx, ry1 = r.y0 + r.ny * r.dx;
    const Overlap ox = overlaps(g.x0, g.dx, g.nx, r.x0, r.dx, r.nx);
    const Overlap oy = overlaps(g.y0, g.dx, g.ny, r.y0, r.dx, r.ny);
    std::vector<double> out(size_t(g.cells()), 0.0);
    for (Index j = 0; j < g.ny; ++j)
      for (Index i = 0; i < g.nx; ++i) {
        const Index c = j * g.nx + i;
        if (!s_.active.empty() && !s_.active[size_t(c)]) continue;
        const double x = g.x0 + i * g.dx, y = g.y0 + j * g.dx;
        if (x < r.x0 - tol || y < r.y0 - tol || x + g.dx > rx1 + tol || y + g.dx > ry1 + tol)
          keys_.fail(key_, fmt::format("{} covers x {} to {} m, y {} to {} m; the grid's {} lies "
                                       "outside it (rain rasters must cover every active cell)",
                                       what, r.x0, rx1, r.y0, ry1, fields_.cell_text(c)));
        double sum = 0.0;
        for (Index b = oy.first[size_t(j)]; b < oy.first[size_t(j) + 1]; ++b)
          for (Index a = ox.first[size_t(i)]; a < ox.first[size_t(i) + 1]; ++a) {
            const Index q = oy.cell[size_t(b)] * r.nx + ox.cell[size_t(a)];
            const double value = v[size_t(q)];
            if (std::isnan(value) || value == r.nodata)
              keys_.fail(key_, fmt::format("{} has no data at raster cell ({}, {}) (column, row "
                                           "from the south-west), under the grid's {}",
                                           what, ox.cell[size_t(a)], oy.cell[size_t(b)],
                                           fields_.cell_text(c)));
            if (!(value >= 0.0) || !std::isfinite(value))
              keys_.fail(key_, fmt::format("{} has the rate {} at raster cell ({}, {}) (column, "
                                           "row from the south-west); rates must be >= 0",
                                           what, value, ox.cell[size_t(a)], oy.cell[size_t(b)]));
            sum += value * (same ? 1.0 : ox.length[size_t(a)] * oy.length[size_t(b)]);
          }
        out[size_t(c)] = (same ? sum : sum / (g.dx * g.dx)) * to_si;
      }
    return out;
  }

 private:
  Keys& keys_;
  std::string key_;
  FieldReader& fields_;
  const swe::Scene& s_;
};

// A frame time: seconds after run.start_datetime, or an ISO 8601 date and time.
double frame_time(Keys& k, const std::string& key, double start) {
  const Json* v = k.take(key);
  if (!v) k.fail(key, "is missing (s after run.start_datetime, or an ISO 8601 date and time)");
  k.resolved(key) = *v;
  if (v->is_number()) return v->get<double>();
  double s;
  if (v->is_string() && iso8601_seconds(v->get<std::string>(), s)) return s - start;
  k.fail(key,
         fmt::format("must be a number of seconds or an ISO 8601 date and time, got {}", show(*v)));
}

// CF time units ("seconds since 2026-06-01 00:00:00", minutes/hours/days; or "s") to a factor in
// s and an offset from the run's start, s.
void cf_time(Keys& k, const std::string& path, const std::string& units, double start,
             double& factor, double& offset) {
  const size_t since = units.find(" since ");
  const std::string unit = units.substr(0, since);
  factor = unit == "seconds" || unit == "second" || unit == "s"     ? 1.0
           : unit == "minutes" || unit == "minute" || unit == "min" ? 60.0
           : unit == "hours" || unit == "hour" || unit == "h"       ? 3600.0
           : unit == "days" || unit == "day" || unit == "d"         ? 86400.0
                                                                    : 0.0;
  if (factor == 0.0)
    k.fail("netcdf", fmt::format("'{}': time units \"{}\" are not seconds, minutes, hours or days "
                                 "[since <ISO 8601 date>]",
                                 path, units));
  offset = 0.0;
  if (since == std::string::npos) return;  // relative to the run's start
  std::string ref = units.substr(since + 7);
  while (!ref.empty() && ref.back() == ' ') ref.pop_back();
  // CF writes "2026-06-01 00:00:00" and often "2026-06-01 00:00:00.0" or a trailing " UTC".
  for (const char* tail : {" UTC", ".0", ".00", ".000"})
    if (ref.size() > std::string(tail).size() &&
        ref.compare(ref.size() - std::string(tail).size(), std::string::npos, tail) == 0)
      ref.erase(ref.size() - std::string(tail).size());
  double s;
  if (!iso8601_seconds(ref, s))
    k.fail("netcdf", fmt::format("'{}': the reference date of the time units \"{}\" is not an "
                                 "ISO 8601 date and time",
                                 path, units));
  offset = s - start;
}

// The resampled frames, one double per cell each, must fit in memory before any is made: 12,000
// frames on a 1e6-cell grid would be 96 GB.
void check_rain_frames_fit(Keys& r, const std::string& key, std::size_t frames,
                           const swe::Scene& s) {
  const double cells = double(s.grid.nx) * double(s.grid.ny);
  if (!fits_in_memory(double(frames) * cells, sizeof(double)))
    r.fail(key,
           fmt::format("has {} frames of {} x {} cells: resampled onto the grid they {}", frames,
                       s.grid.nx, s.grid.ny, memory_text(double(frames) * cells, sizeof(double))));
}

// A storm shifted later whose first frame rains: every series holds its first value before it,
// so that rain also falls from the run's start to the first frame. Said, not changed.
void warn_held_first_frame(Keys& r, SweJob& job) {
  const swe::RainRaster& rain = job.scene.rain;
  const double most = *std::max_element(rain.rate[0].begin(), rain.rate[0].end());
  if (!(most > 0.0) || !(rain.t[0] > 0.0)) return;
  job.warnings.push_back(key_message(
      r.source(), r.key_path("shift"),
      fmt::format("the first rain frame, now at t = {} s, rains (up to {:.4g} mm/h), and as every "
                  "series holds its first value before it, that rain also falls from the run's "
                  "start to t = {} s; begin the storm with a frame of zeros for no rain before it",
                  rain.t[0], most / kMmPerHour, rain.t[0])));
}

void read_rain(Keys& r, FieldReader& fields, SweJob& job) {
  swe::Scene& s = job.scene;
  swe::RainRaster& rain = s.rain;
  double start;
  iso8601_seconds(job.run.start_datetime, start);  // checked when "run" was read
  const std::string units = r.choice("units", "mm/h", {"mm/h", "m/s"});
  // "scale": every rate times this factor (an ensemble's rain factor, docs/ensembles.md).
  const double scale = r.has("scale") ? r.number("scale", Range::non_negative()) : 1.0;
  const double to_si = (units == "mm/h" ? kMmPerHour : 1.0) * scale;
  // "shift": every frame this many seconds later (an ensemble's storm arriving later or earlier).
  const double shift = r.has("shift") ? r.number("shift") : 0.0;
  rain.step = r.choice("interpolation", "linear", {"linear", "step"}) == "step";
  if (r.has("netcdf") == r.has("frames"))
    r.fail("netcdf",
           "give either \"netcdf\" (one file with a time axis) or \"frames\" (a list "
           "of {\"time\", \"raster\"})");
  if (r.has("netcdf")) {
    const std::string path = r.source().resolve_path(r.string("netcdf", ""));
    r.resolved("netcdf") = path;
    const std::string variable = r.string("variable", "");
    RasterBands b;
    try {
      b = read_raster_bands(path, variable);
    } catch (const Error& e) {
      r.fail("netcdf", e.what());
    }
    fields.check_crs(b.grid, path, r.key_path("netcdf"));
    if (b.time_dimension.empty() && b.bands.size() > 1)
      r.fail("netcdf",
             fmt::format("'{}' has {} bands but no time dimension", path, b.bands.size()));
    double factor = 1.0, offset = 0.0;
    if (!b.time_units.empty()) cf_time(r, path, b.time_units, start, factor, offset);
    check_rain_frames_fit(r, "netcdf", b.bands.size(), s);
    Resampler rs(r, "netcdf", fields, s);
    for (size_t k = 0; k < b.bands.size(); ++k) {
      const double t =
          (std::isnan(b.band_time[k]) ? 0.0 : b.band_time[k] * factor + offset) + shift;
      const std::string what =
          fmt::format("'{}' band {} ({} = {}, t = {} s)", path, k + 1,
                      b.time_dimension.empty() ? "time" : b.time_dimension, b.band_time[k], t);
      if (k > 0 && !(t > rain.t.back()))
        r.fail("netcdf", fmt::format("{}: times must increase (band {} is at t = {} s)", what, k,
                                     rain.t.back()));
      rain.t.push_back(t);
      rain.rate.push_back(rs.frame(b.grid, b.bands[k], to_si, what));
      rain.source.push_back(what);
    }
  } else {
    std::vector<Keys> frames = r.objects("frames");
    if (frames.empty()) r.fail("frames", "is empty");
    check_rain_frames_fit(r, "frames", frames.size(), s);
    for (size_t k = 0; k < frames.size(); ++k) {
      Keys& f = frames[k];
      const double t = frame_time(f, "time", start) + shift;
      const Json* p = f.take("raster");
      const std::string path = fields.raster_path(p);
      if (path.empty()) f.fail("raster", "must be a raster file path");
      f.resolved("raster") = path;
      const Raster& ra = fields.raster(path, f.key_path("raster"));
      fields.check_crs(ra, path, f.key_path("raster"));
      const std::string what = fmt::format("'{}' (frame {}, t = {} s)", path, k, t);
      if (k > 0 && !(t > rain.t.back()))
        f.fail("time", fmt::format("{}: times must increase (frame {} is at t = {} s)", what, k - 1,
                                   rain.t.back()));
      Resampler rs(f, "raster", fields, s);
      rain.t.push_back(t);
      rain.rate.push_back(rs.frame(ra, ra.values, to_si, what));
      rain.source.push_back(what);
      f.finish();
    }
  }
  if (shift > 0.0) warn_held_first_frame(r, job);
  r.finish();
}

// A soil parameter: a value or a raster on the grid, with data in every active cell.
std::vector<double> soil_field(Keys& k, FieldReader& fields, const swe::Scene& s,
                               const std::string& key, double scale, Range range) {
  if (!k.has(key)) k.fail(key, "is missing (a value or a raster)");
  CellField f = fields.read(k, key, 0.0, range);
  for (size_t c = 0; c < f.values.size(); ++c) {
    const bool active = s.active.empty() || s.active[c];
    const bool nodata = !f.nodata.empty() && f.nodata[c];
    if (nodata && active)
      k.fail(key, fmt::format("raster '{}' has no data at {}, an active cell", f.raster,
                              fields.cell_text(static_cast<Index>(c))));
    f.values[c] = active && !nodata ? f.values[c] * scale : 0.0;
  }
  return f.values;
}

void read_infiltration(Keys& k, FieldReader& fields, swe::Scene& s) {
  swe::Infiltration& inf = s.infiltration;
  const std::string model = k.choice("model", "", {"green_ampt", "horton"});
  if (!k.has("model")) k.fail("model", "is missing (\"green_ampt\" or \"horton\")");
  if (model == "green_ampt") {
    inf.model = swe::InfiltrationModel::green_ampt;
    inf.a = soil_field(k, fields, s, "conductivity_mm_h", kMmPerHour, Range::non_negative());
    const std::vector<double> psi =
        soil_field(k, fields, s, "suction_m", 1.0, Range::non_negative());
    const std::vector<double> porosity = soil_field(k, fields, s, "porosity", 1.0, Range{0.0, 1.0});
    const std::vector<double> moisture =
        soil_field(k, fields, s, "initial_moisture", 1.0, Range{0.0, 1.0});
    inf.b.resize(psi.size());
    for (size_t c = 0; c < psi.size(); ++c) {
      if (moisture[c] > porosity[c])
        k.fail("initial_moisture",
               fmt::format("is {} at {}, above the porosity {} there", moisture[c],
                           fields.cell_text(static_cast<Index>(c)), porosity[c]));
      inf.b[c] = psi[c] * (porosity[c] - moisture[c]);
    }
  } else {
    inf.model = swe::InfiltrationModel::horton;
    inf.b = soil_field(k, fields, s, "initial_rate_mm_h", kMmPerHour, Range::non_negative());
    inf.a = soil_field(k, fields, s, "final_rate_mm_h", kMmPerHour, Range::non_negative());
    inf.c = soil_field(k, fields, s, "decay_per_h", 1.0 / 3600.0, Range::non_negative());
    for (size_t c = 0; c < inf.a.size(); ++c)
      if (inf.b[c] < inf.a[c])
        k.fail("initial_rate_mm_h",
               fmt::format("is {} mm/h at {}, below the final rate {} mm/h there",
                           inf.b[c] / kMmPerHour, fields.cell_text(static_cast<Index>(c)),
                           inf.a[c] / kMmPerHour));
  }
  k.finish();
}

}  // namespace

void read_swe_rain_soil(Keys& root, FieldReader& fields, SweJob& job) {
  if (root.has("rainfall")) {
    Keys r = root.object("rainfall");
    read_rain(r, fields, job);
  }
  if (root.has("infiltration")) {
    Keys k = root.object("infiltration");
    read_infiltration(k, fields, job.scene);
  }
}

}  // namespace silt::io::detail
