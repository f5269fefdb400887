// "run" and "outputs" of a shallow-water scene, and the summary `silt validate` prints.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <unordered_set>

#include "silt/core/error.hpp"
#include "silt/io/image/map.hpp"
#include "silt/io/memory_limit.hpp"
#include "silt/io/swe/scene_parts.hpp"
#include "silt/swe/boundary_lines.hpp"
#include "silt/swe/hazard_class.hpp"
#include "silt/swe/sections.hpp"

namespace silt::io {

std::string to_string(SweField f) {
  switch (f) {
    case SweField::depth:
      return "depth";
    case SweField::velocity:
      return "velocity";
    case SweField::u:
      return "u";
    case SweField::v:
      return "v";
    case SweField::level:
      return "level";
    case SweField::concentration:
      return "concentration";
    case SweField::max_depth:
      return "max_depth";
    case SweField::infiltration:
      return "infiltration";
    case SweField::bed:
      return "bed";
    case SweField::max_level:
      return "max_level";
  }
  return "depth";
}

std::string to_string(HazardField f) {
  switch (f) {
    case HazardField::max_depth:
      return "max_depth";
    case HazardField::max_speed:
      return "max_speed";
    case HazardField::max_depth_speed:
      return "max_depth_speed";
    case HazardField::first_wet_time:
      return "first_wet_time";
    case HazardField::wet_duration:
      return "wet_duration";
    case HazardField::max_concentration:
      return "max_concentration";
    case HazardField::rating:
      return "rating";
    case HazardField::hazard_class:
      return "class";
  }
  return "max_depth";
}

unsigned accumulated_fields(HazardField f) {
  switch (f) {
    case HazardField::max_depth:
      return 0u;
    case HazardField::max_speed:
      return swe::kHazardMaxSpeed;
    case HazardField::max_depth_speed:
      return swe::kHazardMaxDepthSpeed;
    case HazardField::first_wet_time:
      return swe::kHazardFirstWet;
    case HazardField::wet_duration:
      return swe::kHazardWetTime;
    case HazardField::max_concentration:
      return swe::kHazardMaxConc;
    case HazardField::rating:
      return swe::kHazardMaxRating;
    case HazardField::hazard_class:
      return swe::kHazardMaxRating | swe::kHazardFirstWet;
  }
  return swe::kHazardAllFields;
}

std::string units_of(SweField f) {
  switch (f) {
    case SweField::velocity:
    case SweField::u:
    case SweField::v:
      return "m s-1";
    case SweField::concentration:
      return "kg m-3";
    default:
      return "m";
  }
}

std::string standard_name_of(SweField f) {
  switch (f) {
    case SweField::depth:
    case SweField::max_depth:  // with cell_methods "time: maximum"
      return "flood_water_thickness";
    case SweField::velocity:
      return "flood_water_speed";
    case SweField::u:
      return "eastward_flood_water_velocity";  // x is east on a north-up grid
    case SweField::v:
      return "northward_flood_water_velocity";
    case SweField::level:
    case SweField::max_level:                               // with cell_methods "time: maximum"
      return "water_surface_height_above_reference_datum";  // the DEM's vertical datum
    case SweField::bed:
      return "surface_altitude";
    case SweField::concentration:
    case SweField::infiltration:
      return "";  // a generic pollutant, an infiltrated depth: no CF names
  }
  return "";
}

std::string long_name_of(SweField f) {
  switch (f) {
    case SweField::depth:
      return "water depth";
    case SweField::velocity:
      return "flow speed (depth-averaged)";
    case SweField::u:
      return "depth-averaged velocity along x (east)";
    case SweField::v:
      return "depth-averaged velocity along y (north)";
    case SweField::level:
      return "water surface elevation (bed + depth)";
    case SweField::concentration:
      return "depth-averaged pollutant concentration";
    case SweField::max_depth:
      return "maximum water depth since the start of the run";
    case SweField::infiltration:
      return "depth of water infiltrated into the soil since the start of the run";
    case SweField::bed:
      return "bed elevation";
    case SweField::max_level:
      return "maximum water surface elevation since the start of the run (bed + maximum depth)";
  }
  return "";
}

namespace {
// Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar (H. Hinnant's days_from_civil).
long days_from_civil(long y, unsigned m, unsigned d) {
  y -= m <= 2;
  const long era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<long>(doe) - 719468;
}

void civil_from_days(long z, long& y, unsigned& m, unsigned& d) {
  z += 719468;
  const long era = (z >= 0 ? z : z - 146096) / 146097;
  const unsigned doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  d = doy - (153 * mp + 2) / 5 + 1;
  m = mp < 10 ? mp + 3 : mp - 9;
  y = static_cast<long>(yoe) + era * 400 + (m <= 2);
}
}  // namespace

bool iso8601_to_utc(const std::string& text, std::string& utc) {
  int y, mo, d, h = 0, mi = 0, sec = 0, oh = 0, om = 0, n = 0;
  const char* p = text.c_str();
  if (std::sscanf(p, "%4d-%2d-%2d%n", &y, &mo, &d, &n) != 3 || n != 10) return false;
  p += n;
  if (*p == 'T' || *p == ' ') {
    if (std::sscanf(p + 1, "%2d:%2d%n", &h, &mi, &n) != 2 || n != 5) return false;
    p += 1 + n;
    if (*p == ':') {
      if (std::sscanf(p + 1, "%2d%n", &sec, &n) != 1 || n != 2) return false;
      p += 1 + n;
    }
    int sign = 0;
    if (*p == 'Z') {
      ++p;
    } else if (*p == '+' || *p == '-') {
      sign = *p == '+' ? 1 : -1;
      if (std::sscanf(p + 1, "%2d:%2d%n", &oh, &om, &n) != 2 || n != 5) return false;
      p += 1 + n;
      oh *= sign;
      om *= sign;
    }
  }
  if (*p != '\0') return false;
  const int mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  if (mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] + (mo == 2 && leap)) return false;
  if (h > 23 || mi > 59 || sec > 59 || std::abs(oh) > 14 || std::abs(om) > 59) return false;
  // To UTC: local time minus its offset.
  long t = days_from_civil(y, unsigned(mo), unsigned(d)) * 86400 + h * 3600 + mi * 60 + sec -
           (oh * 3600 + om * 60);
  const long days = t >= 0 ? t / 86400 : -((-t + 86399) / 86400);
  t -= days * 86400;
  long uy;
  unsigned um, ud;
  civil_from_days(days, uy, um, ud);
  utc = fmt::format("{:04d}-{:02d}-{:02d} {:02d}:{:02d}:{:02d}", uy, um, ud, t / 3600,
                    (t / 60) % 60, t % 60);
  return true;
}

bool iso8601_seconds(const std::string& text, double& seconds) {
  std::string utc;
  if (!iso8601_to_utc(text, utc)) return false;
  int y, mo, d, h, mi, sec;
  if (std::sscanf(utc.c_str(), "%d-%d-%d %d:%d:%d", &y, &mo, &d, &h, &mi, &sec) != 6) return false;
  seconds = double(days_from_civil(y, unsigned(mo), unsigned(d))) * 86400.0 + h * 3600.0 +
            mi * 60.0 + sec;
  return true;
}

namespace detail {

namespace {

// Most output times a run may have (each writes every field in every format) and most gauge
// samples (rows of gauges.csv): far more than any study keeps, and a bound on the loops and lists
// they drive, checked before the list is built (DESIGN.md: errors, not a hang or an out-of-memory).
constexpr double kMaxOutputTimes = 1e6;
constexpr double kMaxGaugeSamples = 1e7;

constexpr SweField kAllFields[] = {
    SweField::depth, SweField::velocity,      SweField::u,         SweField::v,
    SweField::level, SweField::concentration, SweField::max_depth, SweField::infiltration,
    SweField::bed,   SweField::max_level};

void read_run(Keys& root, SweRunSettings& run) {
  Keys r = root.object("run", /*required=*/true);
  run.end_time = r.number("end_time", Range::positive());
  if (r.has("output_interval") && r.has("output_times"))
    r.fail("output_times", "and 'output_interval' are both given; give one of them");
  if (r.has("output_times")) {
    const Json* v = r.take("output_times");
    if (!v->is_array() || v->empty())
      r.fail("output_times", fmt::format("must be a list of times in s, got {}", show(*v)));
    if (double(v->size()) > kMaxOutputTimes)
      r.fail("output_times", fmt::format("lists {} times, more than the {:.0f} a run may write",
                                         v->size(), kMaxOutputTimes));
    for (size_t k = 0; k < v->size(); ++k) {
      const Json& t = (*v)[k];
      const std::string kp = fmt::format("output_times[{}]", k);
      if (!t.is_number()) r.fail(kp, fmt::format("must be a number, got {}", show(t)));
      const double x = t.get<double>();
      if (!(x >= 0 && x <= run.end_time))
        r.fail(kp, fmt::format("must be in [0, end_time = {}], got {}", run.end_time, x));
      if (!run.output_times.empty() && !(x > run.output_times.back()))
        r.fail(kp, fmt::format("{} is not greater than the previous time {}", x,
                               run.output_times.back()));
      run.output_times.push_back(x);
    }
    r.resolved("output_times") = *v;
  } else {
    // Default: 10 intervals, so a run shows its evolution without a setting.
    const double dt = r.number("output_interval", run.end_time / 10, Range::positive());
    const double count = std::floor(run.end_time / dt) + 2;
    if (!(count <= kMaxOutputTimes))
      r.fail("output_interval",
             fmt::format(
                 "= {} s gives {:.4g} output times to end_time = {} s, more than the {:.0f} "
                 "a run may write (the list of times alone {})",
                 dt, count, run.end_time, kMaxOutputTimes, memory_text(count, sizeof(double))));
    // Frames at 0, dt, 2 dt, ... and always at end_time; a frame closer than 1e-6 dt to
    // end_time is end_time (round-off in k * dt).
    for (long k = 0;; ++k) {
      // k dt to 15 significant digits: the decimal time meant (12 x 0.3 is 3.5999999999999996 in
      // binary; frames.csv and the files' times then read 3.6).
      const double t = std::strtod(fmt::format("{:.15g}", double(k) * dt).c_str(), nullptr);
      if (t >= run.end_time - 1e-6 * dt) break;
      run.output_times.push_back(t);
    }
    run.output_times.push_back(run.end_time);
  }
  // Time 0 of the run, for the NetCDF time axis (CF 4.4: units "seconds since <reference>").
  run.start_datetime = r.string("start_datetime", run.start_datetime);
  if (!iso8601_to_utc(run.start_datetime, run.time_reference))
    r.fail("start_datetime",
           fmt::format("\"{}\" is not an ISO 8601 date and time (YYYY-MM-DD, "
                       "YYYY-MM-DDThh:mm[:ss], optionally with Z or an offset +hh:mm)",
                       run.start_datetime));
  r.finish();
}

template <class E>
std::vector<E> read_list(Keys& o, const std::string& key, const std::vector<std::string>& fallback,
                         const std::vector<std::string>& names, E (*parse)(const std::string&)) {
  const Json* v = o.take(key);
  std::vector<std::string> items = fallback;
  if (v) {
    if (!v->is_array()) o.fail(key, fmt::format("must be a list of strings, got {}", show(*v)));
    items.clear();
    for (size_t k = 0; k < v->size(); ++k) {
      const Json& it = (*v)[k];
      const std::string kp = fmt::format("{}[{}]", key, k);
      if (!it.is_string() ||
          std::find(names.begin(), names.end(), it.get<std::string>()) == names.end())
        o.fail(kp,
               fmt::format("must be one of \"{}\", got {}", fmt::join(names, "\", \""), show(it)));
      if (std::find(items.begin(), items.end(), it.get<std::string>()) != items.end())
        o.fail(kp, fmt::format("{} is listed twice", show(it)));
      items.push_back(it.get<std::string>());
    }
  }
  o.resolved(key) = items;
  std::vector<E> out;
  for (const auto& s : items) out.push_back(parse(s));
  return out;
}

SweField field_of(const std::string& s) {
  for (SweField f : kAllFields)
    if (to_string(f) == s) return f;
  return SweField::depth;
}

RasterFormat format_of(const std::string& s) {
  RasterFormat f = RasterFormat::asc;
  raster_format_from_name(s, f);
  return f;
}

double default_png_max(const swe::Scene& s, PngMap png) {
  double top = 0;
  if (png == PngMap::concentration) {
    for (double c : s.concentration) top = std::max(top, c);
    for (const auto& src : s.sources) top = std::max(top, src.concentration);
    for (const auto& b : s.boundaries) top = std::max(top, b.concentration);
  } else {
    // Every cell of a large grid (the value is written into the resolved scene even without
    // maps): one vectorised maximum, the same value.
    const std::vector<double>& d = s.depth;
#pragma omp parallel for simd schedule(static) reduction(max : top)
    for (std::size_t k = 0; k < d.size(); ++k) top = std::max(top, d[k]);
  }
  return top > 0 ? top : 1.0;
}

// Most cells a gauge's snap radius may cover (each is read at every sample).
constexpr size_t kMaxSnapCells = 10000;

// The active cells other than g's own whose centres lie within g.snap_radius of its point, nearest
// first (ties: in row-major order).
std::vector<Index> snap_cells(const swe::Scene& s, const Gauge& g) {
  const swe::Grid& grid = s.grid;
  const double r = g.snap_radius;
  const auto lo = [&](double v, double o) {
    return Index(std::max(0.0, std::floor((v - r - o) / grid.dx)));
  };
  const Index i0 = lo(g.x, grid.x0), j0 = lo(g.y, grid.y0);
  // Clamped as doubles: a radius of 1e12 m is more cells than Index holds.
  const Index i1 = Index(std::min(double(grid.nx - 1), std::floor((g.x + r - grid.x0) / grid.dx)));
  const Index j1 = Index(std::min(double(grid.ny - 1), std::floor((g.y + r - grid.y0) / grid.dx)));
  std::vector<std::pair<double, Index>> found;
  for (Index j = j0; j <= j1; ++j)
    for (Index i = i0; i <= i1; ++i) {
      const Index k = j * grid.nx + i;
      if (k == g.cell || (!s.active.empty() && !s.active[size_t(k)])) continue;
      const double dx = grid.x0 + (double(i) + 0.5) * grid.dx - g.x;
      const double dy = grid.y0 + (double(j) + 0.5) * grid.dx - g.y;
      const double d = std::hypot(dx, dy);
      if (d <= r) found.emplace_back(d, k);
    }
  std::sort(found.begin(), found.end());
  std::vector<Index> cells;
  for (const auto& f : found) cells.push_back(f.second);
  return cells;
}

void read_gauges(Keys& o, const swe::Scene& s, SweOutputSettings& out, double end_time) {
  Keys g = o.object("gauges");
  out.gauge_interval = g.number("interval", end_time / 100, Range::positive());
  const double samples = std::floor(end_time / out.gauge_interval) + 1;
  if (!(samples <= kMaxGaugeSamples))
    g.fail("interval",
           fmt::format("= {} s gives {:.4g} samples to end_time = {} s, more than the {:.0f} rows "
                       "gauges.csv may have",
                       out.gauge_interval, samples, end_time, kMaxGaugeSamples));
  const double arrival = g.number("arrival_depth", 0.01, Range::positive());
  const double snap = g.number("snap_radius", 0.0, Range::non_negative());
  std::vector<Keys> pts = g.objects("points");
  // Names seen so far: a set, so that 10^5 gauges load in linear time (a scan of the earlier
  // gauges for each took 49 s at 100,000).
  std::unordered_set<std::string> names;
  names.reserve(pts.size());
  for (size_t k = 0; k < pts.size(); ++k) {
    Keys& p = pts[k];
    Gauge gauge;
    gauge.name = p.name("name", fmt::format("g{}", k), "it heads CSV columns");
    if (!names.insert(gauge.name).second)
      p.fail("name", fmt::format("\"{}\" is used twice", gauge.name));
    gauge.x = p.number("x");
    gauge.y = p.number("y");
    gauge.arrival_depth = p.number("arrival_depth", arrival, Range::positive());
    gauge.snap_radius = p.number("snap_radius", snap, Range::non_negative());
    gauge.cell = cell_at(s.grid, gauge.x, gauge.y);
    if (gauge.cell < 0) p.fail("x", fmt::format("({}, {}) is outside the grid", gauge.x, gauge.y));
    if (!s.active.empty() && !s.active[gauge.cell])
      p.fail("x", fmt::format("({}, {}) lies in an inactive (nodata) cell", gauge.x, gauge.y));
    if (gauge.snap_radius > 0) {
      gauge.snap_cells = snap_cells(s, gauge);
      if (gauge.snap_cells.size() > kMaxSnapCells)
        p.fail("snap_radius",
               fmt::format("= {} m covers {} cells of {} m, more than the {} a "
                           "gauge may read",
                           gauge.snap_radius, gauge.snap_cells.size(), s.grid.dx, kMaxSnapCells));
    }
    p.finish();
    out.gauges.push_back(gauge);
  }
  g.finish();
}

// outputs.cross_sections: lines across which the solver accumulates the volume that passes
// (swe/sections.hpp); their geometry is checked here so that `silt validate` refuses it.
void read_sections(Keys& o, swe::Scene& s) {
  std::vector<Keys> list = o.objects("cross_sections");
  // Their columns sit beside the boundaries' and sources' in hydrograph.csv.
  std::unordered_set<std::string> names;
  for (const auto& b : s.boundaries) names.insert(b.name);
  for (const auto& p : s.sources) names.insert(p.name);
  for (size_t k = 0; k < list.size(); ++k) {
    Keys& c = list[k];
    swe::CrossSection sec;
    sec.name = c.name("name", fmt::format("section_{}", k), "it heads hydrograph.csv columns");
    if (!names.insert(sec.name).second)
      c.fail("name", fmt::format("\"{}\" is used twice (cross sections, boundaries and sources "
                                 "name hydrograph.csv's columns)",
                                 sec.name));
    sec.points = c.points("points");
    try {
      swe::section_edges(s.grid, s.active, {sec});
    } catch (const Error& e) {
      c.fail("points", e.what());
    }
    c.finish();
    s.sections.push_back(sec);
  }
}

constexpr HazardField kHazardFields[] = {
    HazardField::max_depth,      HazardField::max_speed,    HazardField::max_depth_speed,
    HazardField::first_wet_time, HazardField::wet_duration, HazardField::max_concentration,
    HazardField::rating,         HazardField::hazard_class};

HazardField hazard_field_of(const std::string& s) {
  for (HazardField f : kHazardFields)
    if (to_string(f) == s) return f;
  return HazardField::max_depth;
}

// "outputs.hazard": present, hazard fields are accumulated every step and written at the end.
void read_hazard(Keys& o, SweJob& job) {
  if (!o.has("hazard")) return;
  Keys h = o.object("hazard");
  std::vector<std::string> names;
  for (HazardField f : kHazardFields) names.push_back(to_string(f));
  job.outputs.hazard = read_list<HazardField>(h, "fields", names, names, hazard_field_of);
  if (job.outputs.hazard.empty()) h.fail("fields", "is empty; leave out \"hazard\" for none");
  swe::HazardSettings& hz = job.scene.hazard;
  hz.enabled = true;
  // 1 cm: three orders above the solver's dry depth, so rain films and the thin wet edge of a
  // front (whose speeds are not reliable) are not counted as flooded, and far below the depths
  // the hazard classes tell apart (the debris factor changes at 0.25 m).
  hz.wet_depth = h.number("wet_depth", 0.01, Range::positive());
  if (!(hz.wet_depth > job.scene.dry_depth))
    h.fail("wet_depth", fmt::format("{} m is not above physics.dry_depth = {} m", hz.wet_depth,
                                    job.scene.dry_depth));
  const std::string debris =
      h.choice("debris", "conservative", {"conservative", "pasture", "woodland", "urban"});
  hz.debris = swe::hazard_debris(debris);
  // Off by default: the end rasters are what reports use, and every frame then downloads and
  // writes eight more arrays.
  job.outputs.hazard_every_frame = h.boolean("every_frame", false);
  h.finish();
  // What the run's readers take of the accumulated fields: the rasters asked for and, with PNG
  // maps, the hazard class map of the end (io/swe/output_report.cpp). A field no reader takes is
  // not accumulated; those that are get the same bits as with every field accumulated.
  hz.fields = job.outputs.png != PngMap::none ? accumulated_fields(HazardField::hazard_class) : 0u;
  for (HazardField f : job.outputs.hazard) hz.fields |= accumulated_fields(f);
}

}  // namespace

void read_swe_run_outputs(Keys& root, const FieldReader& fields, SweJob& job) {
  read_run(root, job.run);
  Keys o = root.object("outputs");
  SweOutputSettings& out = job.outputs;
  std::vector<std::string> field_names;
  for (SweField f : kAllFields) field_names.push_back(to_string(f));
  out.fields =
      read_list<SweField>(o, "fields", {"depth", "velocity", "max_depth"}, field_names, field_of);
  // GeoTIFF where this build has GDAL (what GIS users open first; georeferenced, compressed),
  // ESRI ASCII otherwise.
  out.formats = read_list<RasterFormat>(o, "formats", {gdal_available() ? "tif" : "asc"},
                                        {"asc", "tif", "nc"}, format_of);
  for (RasterFormat f : out.formats)
    if (f != RasterFormat::asc && !gdal_available())
      o.fail("formats", fmt::format("asks for .{} output, which needs GDAL; this build of silt "
                                    "has no GDAL, so use \"asc\"",
                                    extension_of(f)));
  // Maps by default when this build can draw them.
  const std::string png =
      o.choice("png", png_available() ? "depth" : "none", {"none", "depth", "concentration"});
  out.png = png == "none" ? PngMap::none : png == "depth" ? PngMap::depth : PngMap::concentration;
  if (out.png != PngMap::none && !png_available()) {
    // Maps are previews: a build without libpng still runs the scene (the default scene asks
    // for maps), and says what it leaves out.
    job.warnings.push_back(key_message(root.source(), o.key_path("png"),
                                       "asks for PNG maps; this build of silt has no libpng, so "
                                       "none are written"));
    out.png = PngMap::none;
    o.resolved("png") = "none";
  }
  out.png_max = o.number("png_max", default_png_max(job.scene, out.png), Range::positive());
  if (o.has("png_scale")) {
    out.png_scale = o.integer("png_scale", 1, 16);
  } else {
    // Maps of small grids are enlarged to about 800 pixels across, so they are readable.
    const Index n = std::max(job.scene.grid.nx, job.scene.grid.ny);
    out.png_scale = std::clamp((800 + n - 1) / n, 1, 16);
    o.resolved("png_scale") = out.png_scale;
  }
  out.nodata = o.number("nodata", -9999.0, Range::any());
  // Outputs are georeferenced like the input rasters unless the scene says otherwise.
  if (o.has("crs")) {
    const std::string crs = o.string("crs", "");
    try {
      if (!crs.empty()) out.crs_wkt = crs_to_wkt(crs);
    } catch (const Error& e) {
      o.fail("crs", e.what());
    }
  } else {
    out.crs_wkt = fields.crs;
    // With GDAL the CRS is WKT, which the key takes back; without GDAL it is an input .prj's
    // text, which the key cannot take (it needs GDAL), so the resolved scene leaves it to the .prj.
    if (gdal_available()) o.resolved("crs") = fields.crs;
  }
  const std::string layout =
      o.choice("netcdf", netcdf_series_available() ? "run" : "frames", {"run", "frames"});
  out.netcdf = layout == "run" ? NetcdfLayout::run : NetcdfLayout::frames;
  if (out.netcdf == NetcdfLayout::run && !netcdf_series_available() &&
      std::find(out.formats.begin(), out.formats.end(), RasterFormat::nc) != out.formats.end())
    o.fail("netcdf",
           "= \"run\" needs the netCDF-C library (libnetcdf-dev), which this build of "
           "silt does not have; use \"frames\"");
  // Values in the files at the run's precision unless asked otherwise: a float64 run's outputs
  // then keep what the solver computed (a mass balance from them reaches its round-off).
  const bool f64 = job.scene.precision == swe::Precision::f64;
  out.precision =
      o.choice("precision", f64 ? "float64" : "float32", {"float32", "float64"}) == "float64"
          ? ValueType::f64
          : ValueType::f32;
  read_gauges(o, job.scene, out, job.run.end_time);
  read_sections(o, job.scene);
  read_hazard(o, job);
  o.finish();
}

}  // namespace detail

namespace {
// "5 m^3/s" for a constant, "8 samples over 0..5400 s, 20..250 m^3/s" otherwise.
std::string series_text(const swe::Series& s, double scale, const char* unit) {
  if (s.t.size() == 1) return fmt::format("{:.4g} {}", s.value[0] * scale, unit);
  const auto [lo, hi] = std::minmax_element(s.value.begin(), s.value.end());
  return fmt::format("{} samples over {:.4g}..{:.4g} s, {:.4g}..{:.4g} {}", s.t.size(), s.t.front(),
                     s.t.back(), *lo * scale, *hi * scale, unit);
}
}  // namespace

std::string describe(const SweJob& job) {
  const swe::Scene& s = job.scene;
  const swe::Grid& g = s.grid;
  const long active =
      s.active.empty() ? g.cells() : std::count(s.active.begin(), s.active.end(), 1);
  std::string out = fmt::format("scene '{}' (shallow water){}\n", s.name,
                                job.path.empty() ? "" : " from " + job.path);
  out += fmt::format("  grid      {} x {} cells of {} m from ({}, {}); {} active\n", g.nx, g.ny,
                     g.dx, g.x0, g.y0, active);
  double volume = 0, h_max = 0;
  for (double h : s.depth) {
    volume += h * g.dx * g.dx;
    h_max = std::max(h_max, h);
  }
  out += fmt::format("  water     {:.6g} m^3 initially, deepest {:.4g} m\n", volume, h_max);
  static const char* sides[] = {"west", "east", "south", "north"};
  for (size_t k = 0; k < s.boundaries.size(); ++k) {
    const swe::Boundary& b = s.boundaries[k];
    const std::string series =
        b.series.empty()
            ? ""
            : ", " + series_text(b.series, 1.0, b.kind == swe::BoundaryKind::level ? "m" : "m^3/s");
    if (b.line.empty())
      out += fmt::format("  boundary  {}: {} {} cells {}..{}{}\n", b.name, sides[int(b.side)],
                         swe::boundary_kind_name(b.kind), b.begin, b.end - 1, series);
    else
      out += fmt::format("  boundary  {}: {} line of {} points, {} edges{}\n", b.name,
                         swe::boundary_kind_name(b.kind), b.line.size(),
                         swe::boundary_edges(s.grid, s.active, b, k).size(), series);
  }
  for (size_t k = 0; k < s.sources.size(); ++k) {
    const swe::PointSource& p = s.sources[k];
    if (!p.polygon.empty())
      out += fmt::format(
          "  source    {}: inflow polygon of {} points over {} cells, C = {} kg/m^3\n", p.name,
          p.polygon.size(), swe::polygon_cells(s.grid, s.active, p, k).size(), p.concentration);
    else if (p.line.empty())
      out += fmt::format("  source    {} at ({}, {}), C = {} kg/m^3\n", p.name, p.x, p.y,
                         p.concentration);
    else
      out += fmt::format("  source    {}: inflow line of {} points over {} cells, C = {} kg/m^3\n",
                         p.name, p.line.size(), swe::line_cells(s.grid, s.active, p, k).size(),
                         p.concentration);
  }
  if (!s.rainfall.empty()) out += "  rainfall  " + series_text(s.rainfall, 3600e3, "mm/h") + "\n";
  std::vector<std::string> fields, formats;
  for (SweField f : job.outputs.fields) fields.push_back(to_string(f));
  for (RasterFormat f : job.outputs.formats) formats.push_back(extension_of(f));
  out += fmt::format("  run       to t = {} s, {} output times; {}\n", job.run.end_time,
                     job.run.output_times.size(),
                     s.precision == swe::Precision::f64 ? "float64" : "float32");
  out += fmt::format("  outputs   {} as {}; png {}; {} gauges; {} cross sections\n",
                     fmt::join(fields, ", "), fmt::join(formats, ", "),
                     job.outputs.png == PngMap::none    ? "none"
                     : job.outputs.png == PngMap::depth ? "depth"
                                                        : "concentration",
                     job.outputs.gauges.size(), job.scene.sections.size());
  if (!job.outputs.hazard.empty()) {
    std::vector<std::string> hazard;
    for (HazardField f : job.outputs.hazard) hazard.push_back(to_string(f));
    out += fmt::format("  hazard    {} (wet deeper than {} m) at the end{}\n",
                       fmt::join(hazard, ", "), s.hazard.wet_depth,
                       job.outputs.hazard_every_frame ? " and with every frame" : "");
  }
  for (const auto& w : job.warnings) out += "  warning   " + w + "\n";
  return out;
}

}  // namespace silt::io
