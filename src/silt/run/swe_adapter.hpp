// The frame loop's shallow-water job (run/job.hpp) over one swe::Solver: frames at the scene's
// output times (rasters, maps, frames.csv, a hydrograph and water-balance row each), gauge rows at
// outputs.gauge_interval, the hazard rasters of the whole run at its end, checkpoints that carry
// where the frames and gauges stand. Used by `silt run` and Python's SweSimulation.run().
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "silt/core/stop_check.hpp"
#include "silt/io/swe/checkpoint.hpp"
#include "silt/io/swe/output.hpp"
#include "silt/io/swe/scene_file.hpp"
#include "silt/run/job.hpp"
#include "silt/swe/solver.hpp"

namespace silt::run {

class SweAdapter : public Job {
 public:
  /// from: the checkpoint a restart continues (null: a fresh run). out: the output folder ("": the
  /// run writes nothing, and nothing leaves the devices); `writes`: this rank writes there (rank
  /// 0). parts: the parts of the whole run (every rank's), named in checkpoints. job, solver and
  /// from must outlive the adapter.
  SweAdapter(const io::SweJob& job, swe::Solver& solver, const io::SweCheckpoint* from,
             const std::string& out, bool writes, int parts);
  ~SweAdapter() override;

  /// Between batches of steps (Python's Ctrl-C): a stop cuts an advance short of its stop; the
  /// loop then stops at the next.
  void set_stop_check(StopCheck stop) { stop_check_ = std::move(stop); }
  /// How an advance steps the solver (as solver.advance_to(t_end, stop, after) does; empty: that):
  /// an ensemble's members on one GPU step together (member_batch.hpp).
  using Advance =
      std::function<bool(double t_end, const std::function<bool()>& stop, double after)>;
  void set_advance(Advance advance) { advance_ = std::move(advance); }

  double time() const override { return solver_.time(); }
  long long steps() const override { return solver_.steps(); }
  long last_frame() const override { return long(next_frame_) - 1; }
  /// The state the run starts from, to a watcher (the viewer's first frame).
  void start(Context& c) override { show(c); }
  void write_due(Context& c) override;
  bool finished() const override { return !(solver_.time() < job_.run.end_time); }
  void advance(Context& c) override;
  io::FrameQueue::Job checkpoint(const std::string& path) override;
  void finish(Context& c) override;
  std::vector<std::string> closing_lines() override;

  /// Tracks each boundary's, source's and cross section's peak discharge of a step on the
  /// devices (Solver::track_step_peaks; then solver.step_peaks()), from the checkpoint's peaks on
  /// a restart; checkpoints then carry them. False where the solver cannot (several parts, MPI).
  bool track_step_peaks();
  /// The wall seconds of advance_to() since the start (stepping alone, as the frame lines').
  double stepping_s() const { return stepping_total_ms_ / 1e3; }

 private:
  void write_frame(Context& c);
  void write_gauges(Context& c);
  /// One gauge row (probes at time t) to the hooks and gauges.csv.
  void record_gauges(Context& c, double t, std::vector<swe::Probe> probes);
  /// The rows the devices sampled during the last advance, and their next sample time.
  void take_device_gauges(Context& c);
  void show(Context& c);  // the fields to the hooks (a watcher copies them when it wants a frame)

  const io::SweJob& job_;
  swe::Solver& solver_;
  const int parts_;
  const swe::Totals at_start_;
  const double t_start_;
  StopCheck stop_check_;
  Advance advance_;
  std::unique_ptr<io::SweOutputWriter> writer_;
  std::unique_ptr<io::GaugeCsvWriter> gauges_;
  std::unique_ptr<io::FlowTables> flows_;  // hydrograph.csv and mass_balance.csv: a row a frame
  const std::vector<Index> gauge_cells_;
  const bool outputs_;  // the run writes files (on every rank alike: the copies are collective)
  const bool wants_fields_;
  std::size_t next_frame_;
  double next_gauge_;
  long gauge_rows_;
  // Gauges sampled on the devices (swe::Solver::sample_gauges): the steps then run to the next
  // frame without stopping at sample times. False: advance stops at each and probes.
  bool device_gauges_ = false;
  long long frame_steps_;         // steps at the previous frame
  double stepping_ms_ = 0;        // wall time in advance_to() since the previous frame
  double stepping_total_ms_ = 0;  // and since the start
  swe::StepPeaks from_peaks_;     // the checkpoint's (empty: none)
};

}  // namespace silt::run
