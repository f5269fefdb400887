// The files of an MPM run, frame by frame: particles_NNNN.ply / .vtp (the formats the scene asks
// for), preview_NNNN.png, and particles.pvd, a ParaView collection that gives each .vtp its
// simulated time. Frame k holds the state at t = k frame_dt; frame 0 is the initial state.
#pragma once

#include <string>
#include <vector>

#include "silt/io/mpm_scene.hpp"
#include "silt/mpm/particle_frame.hpp"

namespace silt::io {

class MpmFrameWriter {
 public:
  /// Creates out_dir (and its parents) when missing; errors name it.
  MpmFrameWriter(const MpmJob& job, std::string out_dir);

  /// Writes frame `frame` (time in s); returns the paths written. Each file appears complete or
  /// not at all (written under a temporary name, then renamed).
  std::vector<std::string> write(const mpm::ParticleFrame& particles, long frame, double time);

  /// "<out_dir>/particles_0012.ply" and the like.
  std::string frame_path(const std::string& stem, long frame, const std::string& ext) const;

 private:
  const MpmJob* job_;
  std::string dir_;
  SplatCamera camera_;
  SplatSettings splat_;
  std::vector<std::pair<double, std::string>> vtp_frames_;  // (time, file name) for the .pvd
};

}  // namespace silt::io
