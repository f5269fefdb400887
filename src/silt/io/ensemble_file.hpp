// Ensemble files (docs/ensembles.md): the members of a shallow-water ensemble as sets of scene
// values, listed one by one and/or as ranges over scene keys combined as a product or a zip, and
// what the ensemble reports. A member is the scene with its values applied as `--set` overrides
// are; `scale` multiplies the scene's own value (a number, inline series rows, a CSV series, a
// cell-field raster, the rain rasters). Errors name the ensemble file, the member and the key.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include "silt/io/json_keys.hpp"
#include "silt/io/raster/raster.hpp"

namespace silt::io {

/// One member: its name (a plain name: it names OUT/members/<name>/) and the scene values it sets,
/// as "key=json" overrides in the order they apply (after the command line's --set).
struct EnsembleMember {
  std::string name;
  std::vector<std::string> overrides;
  /// The settings as the ensemble file gives them, for members.csv: "manning=0.02" for a value,
  /// "rainfall*0.5" for a scale.
  std::vector<std::string> settings;
};

/// The end-of-run maxima an ensemble reports statistics of.
enum class EnsembleField { max_depth, max_speed, max_level };
std::string to_string(EnsembleField f);  // "max_depth", "max_speed", "max_level"

struct EnsembleOutputs {
  bool members = false;  // each member's own outputs (its solo run's files) in OUT/members/<name>/
  std::vector<EnsembleField> fields;
  bool mean = true, std = true;
  std::vector<int> percentiles;           // 0..100, NumPy's 'linear' definition
  std::vector<double> exceedance_depths;  // m: P(max depth > d) for each
  bool hazard_classes = false;            // P(hazard class >= c) for c = low .. extreme
  std::vector<RasterFormat> formats;      // rasters of the statistics (nc: one file, ensemble.nc)
};

/// What an MPM ensemble measures on each member (docs/ensembles.md, "MPM sweeps"): the runout
/// along `direction`, the final height against gravity, the kinetic energy of every frame and the
/// time at rest (the first frame from which the rms speed stays below rest_speed).
struct EnsembleMeasures {
  std::array<double, 3> direction{1, 0, 0};  // unit vector, the spread direction
  double rest_speed = 0;  // m/s; 0: the member's run.rest_speed, or 0.01 m/s when it has none
  bool nc = false;        // measures.nc beside measures.csv
};

/// How members share this machine: several at once, each on one thread (members), or one after
/// another, each on every thread (cells).
enum class EnsembleParallel { members, cells };

/// Whether shallow-water members in flight on one device step together (run.batch_members;
/// docs/ensembles.md, "Members stepping together on a GPU"): automatic (not given) and off: each
/// alone; on: together on a GPU, and on the CPU too (the members step one after another: tests).
enum class EnsembleBatch { automatic, on, off };

struct Ensemble {
  std::string path;  // the ensemble file
  bool mpm = false;  // the scene's solver is "mpm": `measures` instead of the rasters' outputs
  std::vector<EnsembleMember> members;
  EnsembleOutputs outputs;  // MPM: members, mean, std and percentiles only
  EnsembleMeasures measures;
  EnsembleParallel parallel = EnsembleParallel::members;
  int at_once = 0;  // run.members_at_once: members in flight (0: run/member_plan.hpp's default)
  EnsembleBatch batch = EnsembleBatch::automatic;  // run.batch_members
  Json resolved;  // the file with defaults filled in and every member listed with its overrides
};

/// The greatest number of members an ensemble may have (a product of ranges grows fast).
constexpr std::size_t kMaxMembers = 100000;

/// Reads the ensemble file at `path`. `scene` is the scene's JSON with the command line's --set
/// applied (scale reads the values it multiplies there), `scene_src` where it came from (CSV
/// series are read relative to its folder).
Ensemble load_ensemble(const std::string& path, const Json& scene, const SceneSource& scene_src);
/// The same from text; `name` names it in messages.
Ensemble parse_ensemble(const std::string& text, const std::string& name, const Json& scene,
                        const SceneSource& scene_src);

/// The scene value at `key` multiplied by `factor`: numbers, [t, value] rows, a CSV series (read
/// and inlined), a cell-field raster ({"raster", "scale"}), an analytic field (value, gradient
/// and patches), the rain rasters ({"netcdf"|"frames", "scale"}). Errors name `where` and the key.
Json scaled_value(const Json& scene, const std::string& key, double factor,
                  const SceneSource& scene_src, const std::string& where);
/// The scene's time series at `key` moved later by `seconds` (earlier when negative): [t, value]
/// rows and a CSV series (read and inlined) with every t + seconds, the rain rasters
/// ({"netcdf"|"frames", "shift"}). A constant, or a key that is no time series, is an error
/// naming `where` and the key.
Json shifted_value(const Json& scene, const std::string& key, double seconds,
                   const SceneSource& scene_src, const std::string& where);

}  // namespace silt::io
