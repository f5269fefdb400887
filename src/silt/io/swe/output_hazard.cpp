// The hazard rasters of a run (outputs.hazard; swe/hazard_class.hpp), written at its end from
// the fields the solver accumulated every step (and, with every_frame, by write_files with each
// frame).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>

#include "silt/core/error.hpp"
#include "silt/io/atomic_file.hpp"
#include "silt/io/swe/output.hpp"
#include "silt/swe/hazard_class.hpp"

namespace silt::io {

namespace fs = std::filesystem;

namespace {

void describe_field(Raster& r, const SweJob& job, HazardField which, bool at_frame) {
  const std::string wet = fmt::format("{} m", job.scene.hazard.wet_depth);
  // The end of the run's maxima are over the run; a frame's are those up to its time.
  const std::string over = at_frame ? "since the start of the run" : "over the run";
  r.variable = "hazard_" + to_string(which);
  r.cell_methods = "time: maximum";
  switch (which) {
    case HazardField::max_depth:
      r.units = "m";
      r.standard_name = "flood_water_thickness";
      r.long_name = "maximum water depth " + over;
      break;
    case HazardField::max_speed:
      r.units = "m s-1";
      r.standard_name = "flood_water_speed";
      r.long_name =
          "maximum flow speed " + over + " (depth-averaged, where deeper than " + wet + ")";
      break;
    case HazardField::max_depth_speed:
      r.units = "m2 s-1";
      r.long_name = "maximum of depth x speed " + over + " (where deeper than " + wet + ")";
      break;
    case HazardField::first_wet_time:
      r.units = "s";
      r.cell_methods = "";
      r.long_name =
          "time of first wetting deeper than " + wet + ", seconds after the start of the run";
      break;
    case HazardField::wet_duration:
      r.units = "s";
      r.cell_methods = "time: sum";
      r.long_name = "total time wet deeper than " + wet + (at_frame ? " " + over : "");
      break;
    case HazardField::max_concentration:
      r.units = "kg m-3";
      r.long_name = "maximum pollutant concentration " + over + " (where deeper than " + wet + ")";
      break;
    case HazardField::rating:
      r.units = "1";
      r.long_name = "maximum flood hazard rating HR = d (v + 0.5) + DF " + over +
                    " (Defra/EA FD2320, FD2321 and the 2008 supplementary note)";
      break;
    case HazardField::hazard_class:
      r.units = "";
      r.long_name =
          "flood hazard class of the maximum hazard rating (HR < 0.75 low, < 1.25 moderate, <= 2 "
          "significant, > 2 extreme)";
      r.flag_meanings = "not_flooded low moderate significant extreme";
      r.type = ValueType::u8;
      r.nodata = 255;
      break;
  }
}

const std::vector<double>& accumulated(const swe::Fields& f, HazardField which) {
  switch (which) {
    case HazardField::max_depth:
      return f.max_depth;
    case HazardField::max_speed:
      return f.max_speed;
    case HazardField::max_depth_speed:
      return f.max_depth_speed;
    case HazardField::first_wet_time:
      return f.first_wet_time;
    case HazardField::wet_duration:
      return f.wet_duration;
    case HazardField::max_concentration:
      return f.max_concentration;
    default:
      return f.max_rating;
  }
}

}  // namespace

Raster hazard_raster(const SweJob& job, const swe::Fields& f, HazardField which, bool at_frame) {
  Raster r = output_grid(job);
  describe_field(r, job, which, at_frame);
  if (f.nx == 0) return r;
  const swe::Scene& s = job.scene;
  const std::vector<double>& a = accumulated(f, which);
  const auto n = static_cast<size_t>(s.grid.cells());
  if (a.size() != n || f.first_wet_time.size() != n)
    throw Error(
        fmt::format("hazard output '{}': the run holds {} of {} cells (the solver did not "
                    "accumulate hazard fields)",
                    r.variable, a.size(), n));
  // A field the run did not accumulate holds its start values: a reader that the scene's
  // outputs, gauges and ensemble statistics do not account for (HazardSettings::fields).
  const unsigned need = accumulated_fields(which);
  if ((s.hazard.fields & need) != need)
    throw Error(
        fmt::format("hazard output '{}': the run did not accumulate it (the scene's "
                    "hazard fields choose what a run accumulates)",
                    r.variable));
  r.values.assign(n, std::numeric_limits<double>::quiet_NaN());
  for (size_t k = 0; k < n; ++k) {
    if (!s.active.empty() && !s.active[k]) continue;
    const bool wet = f.first_wet_time[k] >= 0;
    if (which == HazardField::hazard_class)
      r.values[k] = swe::hazard_class(f.max_rating[k], wet);
    else if (which != HazardField::first_wet_time || wet)
      r.values[k] = a[k];
  }
  return r;
}

std::vector<std::string> SweOutputWriter::write_hazard(const swe::Fields& f, double t) {
  const SweOutputSettings& o = job_->outputs;
  std::vector<std::string> written;
  if (o.hazard.empty()) return written;
  const std::string prj = o.crs_wkt.empty() ? "" : crs_to_prj(o.crs_wkt);
  RasterSeries statics;
  statics.grid = output_grid(*job_);
  std::vector<std::vector<double>> values;
  for (HazardField field : o.hazard) {
    Raster r = hazard_raster(*job_, f, field);
    r.time = t;
    for (RasterFormat format : o.formats) {
      if (format == RasterFormat::nc) continue;
      const std::string path =
          (fs::path(dir_) / (r.variable + "." + extension_of(format))).string();
      write_atomically(path, [&](const std::string& tmp) { write_raster(tmp, r, format); });
      written.push_back(path);
      if (format == RasterFormat::asc && !prj.empty()) {
        write_text_atomically(prj_path_of(path), prj);
        written.push_back(prj_path_of(path));
      }
    }
    values.push_back(r.values);
    statics.statics.push_back(std::move(r));
  }
  if (!series_path_.empty()) {
    write_netcdf_statics(series_path_, series_, values);
    written.push_back(series_path_);
  } else if (std::find(o.formats.begin(), o.formats.end(), RasterFormat::nc) != o.formats.end()) {
    const std::string path = (fs::path(dir_) / kNetcdfHazardFile).string();
    write_atomically(path, [&](const std::string& tmp) {
      create_netcdf_series(tmp, statics);
      write_netcdf_statics(tmp, statics, values);
    });
    written.push_back(path);
  }
  for (std::string& p : write_report_maps(f, t)) written.push_back(std::move(p));
  return written;
}

}  // namespace silt::io
