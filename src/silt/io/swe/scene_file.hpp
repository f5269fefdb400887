// Shallow-water scene files: JSON (comments allowed) in SI units, documented key by key in
// docs/scenes-swe.md, turned into a validated swe::Scene plus run and output settings. Every
// error names the file and the key (and the cell, raster file or series row where one is at
// fault); unknown keys are errors. `--set path=value` overrides are applied to the JSON before
// validation. The resolved scene (every default filled in, paths made absolute) is kept as JSON
// to be written next to the outputs.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "silt/io/raster/raster.hpp"
#include "silt/io/scene_arrays.hpp"
#include "silt/swe/scene.hpp"

namespace silt::io {

struct SceneSource;  // json_keys.hpp
class FieldCache;    // raster/field_cache.hpp

/// Output rasters. velocity is the speed sqrt(u^2 + v^2); level is h + z; level and
/// concentration (C = hc / h) are nodata where the cell is dry.
enum class SweField {
  depth,
  velocity,
  u,
  v,
  level,
  concentration,
  max_depth,
  infiltration,
  bed,       // the bed (ground) elevation, m: the DEM as the solver sees it
  max_level  // the highest water level since the start (bed + max_depth), m; nodata never wet
};
/// File-name stem and scene-file spelling: "depth", "velocity", "u", "v", "level", ...
std::string to_string(SweField f);
std::string units_of(SweField f);
/// CF standard name (table 93: flood_water_thickness, flood_water_speed, ...; "" when CF has
/// none) and long name of a field's NetCDF variable.
std::string standard_name_of(SweField f);
std::string long_name_of(SweField f);
/// "YYYY-MM-DDThh:mm[:ss][Z|+hh:mm]" (or a date alone) as UTC "YYYY-MM-DD hh:mm:ss"; false when
/// the text is not such a date and time.
bool iso8601_to_utc(const std::string& text, std::string& utc);
/// The same as seconds since 1970-01-01 00:00:00 UTC; false when text is not such a date.
bool iso8601_seconds(const std::string& text, double& seconds);

/// Hazard rasters written at the end of a run (outputs.hazard; swe/hazard_class.hpp): the
/// maxima since the start (depth, speed, depth x speed, concentration, hazard rating HR), the time
/// of first wetting and the time wet above outputs.hazard.wet_depth, and the HR classes.
enum class HazardField {
  max_depth,
  max_speed,
  max_depth_speed,
  first_wet_time,
  wet_duration,
  max_concentration,
  rating,
  hazard_class
};
/// Scene-file spelling ("max_speed", ..., "rating", "class"); the files and NetCDF variables are
/// "hazard_" + it ("hazard_max_speed.tif", "hazard_class.asc").
std::string to_string(HazardField f);
/// The fields the solver accumulates (swe::HazardFieldBit) that raster f is made of: 0 for
/// max_depth (the solver's own), the rating and the first wetting for the classes.
unsigned accumulated_fields(HazardField f);

/// PNG map drawn for each output time: the field over a hillshade of the bed.
enum class PngMap { none, depth, concentration };

struct Gauge {
  std::string name;             // column prefix in gauges.csv
  double x = 0, y = 0;          // m
  Index cell = 0;               // j * nx + i of the cell containing (x, y)
  double arrival_depth = 0.01;  // m: the flood arrives when the depth first exceeds this
  // m: when the cell is dry (h <= dry_depth) a sample reads the nearest wet active cell whose
  // centre lies within this of (x, y) (0: the cell alone); snap_cells lists them, nearest first.
  double snap_radius = 0;
  std::vector<Index> snap_cells;
};

struct SweRunSettings {
  double end_time = 0.0;             // s
  std::vector<double> output_times;  // s, increasing, within [0, end_time]; frame k at [k]
  // When simulated time 0 is: "start_datetime" as given (ISO 8601), and as UTC in the form
  // NetCDF time units take ("seconds since " + time_reference).
  std::string start_datetime = "1970-01-01T00:00:00Z";
  std::string time_reference = "1970-01-01 00:00:00";
};

/// NetCDF outputs: one file per run (<out>/fields.nc, every field, frames along time) or one per
/// field and frame (<field>_<kkkk>.nc, like the other formats).
enum class NetcdfLayout { run, frames };

struct SweOutputSettings {
  std::vector<SweField> fields;
  std::vector<RasterFormat> formats;
  PngMap png = PngMap::depth;
  double png_max = 1.0;                  // top of the PNG colour scale (m or kg/m^3)
  int png_scale = 1;                     // PNG pixels per cell along each axis
  std::string crs_wkt;                   // CRS of every output raster (.prj beside .asc), "" = none
  ValueType precision = ValueType::f32;  // values in .asc/.tif/.nc files
  NetcdfLayout netcdf = NetcdfLayout::run;
  double nodata = -9999.0;  // nodata value of output rasters
  std::vector<Gauge> gauges;
  double gauge_interval = 0;  // s between gauge samples
  // Hazard rasters at the end of the run, in `formats` (empty: none; the scene's hazard settings
  // are in swe::Scene::hazard).
  std::vector<HazardField> hazard;
  // outputs.hazard.every_frame: also with every output frame (the maxima since the start), as
  // hazard_<field>_<kkkk>.<ext> and, in the run's NetCDF file, hazard_<field>_frames over time.
  bool hazard_every_frame = false;
};

struct SweJob {
  std::string path;  // the scene file ("" when parsed from text)
  swe::Scene scene;
  SweRunSettings run;
  SweOutputSettings outputs;
  nlohmann::json resolved;  // the scene with all defaults filled in (paths absolute)
  /// Settings this build cannot honour but can run without (PNG maps without libpng), one
  /// message each, for the caller to show.
  std::vector<std::string> warnings;

  /// The cells a gauge sample reads: each gauge's cell (outputs.gauges order), then each gauge's
  /// snap_cells in turn (swe::Solver::probe() of these; pick_gauges() chooses among them).
  std::vector<Index> gauge_cells() const;
};

/// Loads and validates a scene file; overrides are "path=value" strings (--set).
SweJob load_swe_job(const std::string& path, const std::vector<std::string>& overrides = {});
/// load_swe_job with each override's origin named in errors: labels[i] for overrides[i] ("--set"
/// when empty or absent; "ensemble member 'n_low'"); arrays: what "array:<name>" values name.
SweJob load_swe_job(const std::string& path, const std::vector<std::string>& overrides,
                    const std::vector<std::string>& labels, const SceneArrays* arrays = nullptr);
/// load_swe_job of a scene file already read: `tree` is its JSON as parse_scene_text gave it, src
/// the file (name, folder) and the overrides to apply with their labels; `shared`: fields and
/// rasters shared with other jobs of the same file (an ensemble's members, field_cache.hpp; null:
/// none).
SweJob read_swe_job(nlohmann::json tree, const SceneSource& src, FieldCache* shared = nullptr);
/// The same from text: `name` is used in messages and as the default scene name, relative paths
/// are resolved against base_dir ("" = the current directory); arrays: what "array:<name>" values
/// name (scene_arrays.hpp).
SweJob parse_swe_job(const std::string& text, const std::string& name, const std::string& base_dir,
                     const std::vector<std::string>& overrides = {},
                     const SceneArrays* arrays = nullptr);

/// The "solver" key of a scene file ("swe", "mpm"), so the CLI can dispatch.
std::string scene_solver(const std::string& path);
std::string scene_solver_of_text(const std::string& text, const std::string& name);

/// A few lines for `silt validate`: grid, cells, boundaries, sources, outputs.
std::string describe(const SweJob& job);

}  // namespace silt::io
