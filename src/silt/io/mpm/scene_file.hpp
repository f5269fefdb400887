// MPM scene files: JSON (comments allowed) in SI units, documented key by key in
// docs/scenes-mpm.md, turned into a validated mpm::Scene plus run and output settings. Errors name
// the file and the key path ("sources[1].material"); unknown keys are errors; `--set path=value`
// overrides are applied to the JSON before validation (io/json_keys.hpp, shared with the
// shallow-water loader). The resolved scene (every default filled in, paths absolute) is kept as
// JSON to be written next to the outputs.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "silt/io/image/splat_render.hpp"
#include "silt/io/particles/up_axis.hpp"
#include "silt/io/particles/volume_vdb.hpp"
#include "silt/io/particles/vtp.hpp"
#include "silt/io/scene_arrays.hpp"
#include "silt/mpm/scene.hpp"

namespace silt::io {

struct SceneSource;  // json_keys.hpp

struct MpmRunSettings {
  int frames = 0;       // output frames after the initial one (frame k at t = k frame_dt)
  double end_time = 0;  // s, = frames * scene.frame_dt
  /// > 0: the run ends at the first frame whose particles' rms speed (FrameStats::rms_speed) is
  /// below this, m/s ("at rest").
  double rest_speed = 0;
};

enum class ParticleFormat { ply, vtp, vdb };

struct MpmOutputSettings {
  std::vector<ParticleFormat> formats{ParticleFormat::ply};
  VtpEncoding vtp_encoding = VtpEncoding::appended_raw;
  bool with_stress = false;    // stress and plastic state in the particle files
  UpAxis up_axis = UpAxis::y;  // of every particle and volume file (not the preview)
  bool volume = false;         // density and velocity grids per frame (volume_NNNN.vdb)
  double volume_voxel = 0;     // m, the grids' voxel size (default dx)
  VolumeDensity volume_density = VolumeDensity::mass;
  bool png = false;  // a splat preview per frame
  int png_width = 960, png_height = 540;
  bool custom_camera = false;  // false: default_camera(scene)
  SplatCamera camera;
};

struct MpmJob {
  std::string path;  // the scene file ("" when parsed from text)
  mpm::Scene scene;
  MpmRunSettings run;
  MpmOutputSettings outputs;
  /// Particles each source adds per emission, expected: ppc * volume / dx^3 (the jittered
  /// sampler's mean; sample_source gives the exact count).
  std::vector<double> expected_particles;
  /// Things that are legal but probably not what the user wants (a stiff material forcing a tiny
  /// dt, ...); the CLI prints them.
  std::vector<std::string> warnings;
  nlohmann::json resolved;  // the scene with all defaults filled in (paths absolute)
};

/// Loads and validates a scene file; overrides are "path=value" strings (--set).
MpmJob load_mpm_job(const std::string& path, const std::vector<std::string>& overrides = {});
/// load_mpm_job with each override's origin named in errors: labels[i] for overrides[i] ("--set",
/// "ensemble member 'm03':").
MpmJob load_mpm_job(const std::string& path, const std::vector<std::string>& overrides,
                    const std::vector<std::string>& labels);
/// load_mpm_job of a scene file already read: `tree` is its JSON as parse_scene_text gave it, src
/// the file (name, folder) and the overrides to apply with their labels (an ensemble's members).
MpmJob read_mpm_job(nlohmann::json tree, const SceneSource& src);
/// The same from text: `name` is used in messages and as the default scene name; relative paths
/// (meshes) are resolved against base_dir ("" = the current directory); arrays: what
/// "array:<name>" values name (scene_arrays.hpp: rasters, a points source's particles).
MpmJob parse_mpm_job(const std::string& text, const std::string& name, const std::string& base_dir,
                     const std::vector<std::string>& overrides = {},
                     const SceneArrays* arrays = nullptr);

/// A few lines for `silt validate`: domain, materials, sources and their particle counts, dt
/// limits, outputs, warnings.
std::string describe(const MpmJob& job);

/// Canonical scene-file spellings ("drucker_prager", "box", "asflip", ...).
std::string to_string(mpm::MaterialKind k);
std::string to_string(mpm::Shape s);
std::string to_string(mpm::WallKind w);

}  // namespace silt::io
