// Spatial forcing of a part: rain rasters and infiltration (Scene::rain, Scene::infiltration).
// The device holds the two frames of the current bracket, resampled to the grid by io/ and laid
// out as the state (owned cells and ring), and blends them in the step (ForcingView); the host
// only chooses the bracket between stretches of steps, which Engine::advance_to ends at frame
// times, so a step never spans two brackets. Infiltration keeps the cumulative infiltrated depth
// F per cell, double-buffered like the state (read at a step's start, written at its end; with
// several parts it is exchanged with the halos), with a copy at the last good check.
#pragma once

#include <vector>

#include "silt/core/buffer.hpp"
#include "silt/core/exec.hpp"
#include "silt/partition/decompose.hpp"
#include "silt/swe/scene.hpp"
#include "silt/swe/setup.hpp"
#include "silt/swe/views.hpp"

namespace silt::swe::detail {

template <class T>
struct ForcingBuffers {
  /// Soil fields and F (zero) when the scene infiltrates; the first rain bracket when it has
  /// rasters. n: cells of the layout (Grid2::alloc_size), active its mask.
  void allocate(const Scene& s, const partition::Subdomain& sub, Index nx, Index ny, int ring,
                const std::vector<std::uint8_t>& active, const Exec& exec);
  /// The bracket of time t: frames a <= b with t in [t_a, t_b) (a = b before the first frame and
  /// from the last one on); uploads what changed. Returns t_b, or +inf from the last frame on.
  double select(double t);
  /// The forcing view of a step reading state buffer `read` and writing `write`.
  ForcingView<T> view(int read, int write) const;
  /// F: live -> backup (to_backup) or backup -> live, for state buffer cur.
  void copy(int cur, bool to_backup);
  bool infiltrates() const { return model != kNoInfiltration; }
  /// Sum of F over the owned cells (m; F stays 0 in inactive cells), state buffer cur.
  double infiltrated_depth(int cur) const;

  const Scene* scene = nullptr;
  Exec exec;
  partition::Subdomain sub;
  Index nx = 0, ny = 0;
  int ring = 0;
  std::vector<std::uint8_t> active;  // the layout's mask (host)
  std::vector<double> frame_volume;  // m^3/s of each frame over the owned active cells
  std::vector<double> frame_max;     // m/s: each frame's largest rate over the grid's active cells
  int frame_a = -1, frame_b = -1;    // the frames in rain[0] and rain[1]
  DeviceBuffer<T> rain[2];
  int model = kNoInfiltration;
  DeviceBuffer<T> soil[3];
  DeviceBuffer<double> F[2], bk_F;

 private:
  std::vector<T> local(const std::vector<double>& global) const;
};

}  // namespace silt::swe::detail
