// `silt view DIR`: a finished output folder as the viewer's frames. The folder's
// resolved_scene.json says the solver and the scene, frames.csv the complete frames and their
// times; MPM frames are read from particles_<k>.ply, shallow-water frames from the mapped field's
// raster (depth_<k>.<asc|tif|nc>; concentration as concentration x depth), gauges from
// gauges.csv. Errors name the file that is missing or wrong and what the run should have written.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace silt::view {

class Replay {
 public:
  explicit Replay(const std::string& dir);
  ~Replay();
  Replay(const Replay&) = delete;
  Replay& operator=(const Replay&) = delete;

  /// describe_mpm / describe_swe of the folder's scene.
  const nlohmann::json& scene() const;
  /// The terrain message (shallow water), or "".
  std::string static_message() const;
  /// Simulated times of the frames, s.
  const std::vector<double>& times() const;
  /// Gauge rows [t, depth per gauge] from gauges.csv (empty without gauges).
  const std::vector<std::vector<double>>& gauge_rows() const;
  /// Frame k (index into times()) encoded, MPM decimated to `budget` particles.
  std::string frame(std::size_t k, std::size_t budget) const;
  /// Points (particles, cells) of frame k, for the pacing (MPM: read from the file's header).
  std::size_t points(std::size_t k, std::size_t budget) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace silt::view
