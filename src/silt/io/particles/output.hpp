// The files of an MPM run, frame by frame: particles_NNNN.ply / .vtp / .vdb (the formats the scene
// asks for), volume_NNNN.vdb (density and velocity grids), preview_NNNN.png, particles.pvd, a ParaView collection that gives each .vtp its simulated
// time, and frames.csv, the frames that are complete. Frame k holds the state at t = k frame_dt;
// frame 0 is the initial state.
#pragma once

#include <string>
#include <vector>

#include "silt/io/frame_index.hpp"
#include "silt/io/mpm/scene_file.hpp"
#include "silt/mpm/particle_frame.hpp"

namespace silt::io {

/// Whether frames read the particles (a particle format, the volume or the preview is asked for);
/// when not, MpmFrameWriter::write() takes an empty frame and the particles need not leave the
/// device.
bool wants_particles(const MpmOutputSettings& outputs);
/// The attributes (mpm::attributes) that a frame's files read: none without wants_particles; the
/// preview reads positions (and materials), the volume velocities too, the particle files stress
/// and plastic state as well when outputs.with_stress.
unsigned particle_attributes_of(const MpmOutputSettings& outputs);

class MpmFrameWriter {
 public:
  /// Creates out_dir (and its parents) when missing; errors name it. first_frame >= 0 (a
  /// restart): frames.csv and particles.pvd keep the frames before it.
  MpmFrameWriter(const MpmJob& job, std::string out_dir, long first_frame = -1);

  /// Writes frame `frame` (time in s); returns the paths written. Each file appears complete or
  /// not at all (written under a temporary name, then renamed), and so does the frame: when one
  /// of its files fails, those already written are removed and frames.csv does not list it.
  std::vector<std::string> write(const mpm::ParticleFrame& particles, long frame, double time);

  /// Writes frame `frame`'s own files (particles, volume, preview) and returns their paths; safe
  /// on several threads at once for different frames. When one fails, those already written are
  /// removed.
  std::vector<std::string> encode(const mpm::ParticleFrame& particles, long frame,
                                  double time) const;
  /// Finishes a frame whose files `written` are, in frame order: particles.pvd, then frames.csv.
  /// When that fails, the frame's files are removed. write() is encode() then commit().
  void commit(const std::vector<std::string>& written, long frame, double time);

  /// "<out_dir>/particles_0012.ply" and the like.
  std::string frame_path(const std::string& stem, long frame, const std::string& ext) const;

 private:
  const MpmJob* job_;
  std::string dir_;
  SplatCamera camera_;
  SplatSettings splat_;
  VolumeGrid volume_;                                       // in the files' axes (outputs.up_axis)
  std::vector<std::string> material_names_;                 // for the preview's legend
  std::vector<std::pair<double, std::string>> vtp_frames_;  // (time, file name) for the .pvd
  FrameIndex index_;

  void write_collection() const;
};

}  // namespace silt::io
