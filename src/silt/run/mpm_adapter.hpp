// The frame loop's MPM job (run/job.hpp) over one mpm::Solver: frame 0 at the start of a fresh
// run, then a frame every frame_dt to run.frames (or until the rms speed falls below
// run.rest_speed), each written in the scene's formats from an asynchronous copy of only the
// attributes its files read; checkpoints between frames. Used by `silt run` and Python's
// MpmSimulation.run().
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "silt/io/mpm/scene_file.hpp"
#include "silt/io/particles/output.hpp"
#include "silt/mpm/solver.hpp"
#include "silt/run/job.hpp"

namespace silt::run {

class MpmAdapter : public Job {
 public:
  /// first: the first frame this run writes (0 fresh, the checkpoint's frame + 1 on a restart;
  /// the solver already restored). out: the output folder ("": the run writes nothing, and
  /// nothing leaves the devices); `writes`: this rank writes there (rank 0). job and solver must
  /// outlive the adapter.
  MpmAdapter(const io::MpmJob& job, mpm::Solver& solver, long first, const std::string& out,
             bool writes);
  ~MpmAdapter() override;

  /// After each frame (Python counts frames and ends device views here); may be empty.
  std::function<void(const mpm::FrameStats&)> on_frame;

  double time() const override { return solver_.time(); }
  long long steps() const override { return steps_; }
  long last_frame() const override { return frame_; }
  void start(Context& c) override;
  bool finished() const override { return at_rest_ || frame_ >= job_.run.frames; }
  void advance(Context& c) override;
  io::FrameQueue::Job checkpoint(const std::string& path) override;
  std::vector<std::string> drained_lines(double drain_s) override;

 private:
  void emit(Context& c, long frame, double t);
  std::function<mpm::ParticlesCopy()> download();

  const io::MpmJob& job_;
  mpm::Solver& solver_;
  const long first_;
  const unsigned attributes_;  // what the frames' files read (none: nothing leaves the devices)
  std::unique_ptr<io::MpmFrameWriter> writer_;
  long frame_;  // the last frame reached
  long long steps_ = 0;
  bool at_rest_ = false;
  // The host work of the run's frames beyond their steps, summed, and the time the stepping
  // thread spent handing frames to the writer (downloads, waits on a full queue).
  mpm::FrameHostTime host_;
  double handoff_ms_ = 0;
};

/// resolved_scene.json of an MPM run (io/resolved_scene.hpp), in out (created when missing).
void write_resolved_scene(const io::MpmJob& job, const std::string& out, const std::string& backend,
                          const std::vector<std::string>& overrides);

}  // namespace silt::run
