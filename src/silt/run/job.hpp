// The solver-neutral side of a run that the frame loop (run/frame_loop.hpp) drives: one solver with
// its outputs. Two short adapters implement it, run::SweAdapter (swe_adapter.hpp) and
// run::MpmAdapter (mpm_adapter.hpp); the loop owns everything the two share: the writer pool, the
// checkpoint policy, stop signals, the live-view hooks, the progress line and the drain.
//
// Every member that touches the solver is collective under MPI (every rank calls it alike); what
// is written goes to `Context::queue`, which only the writing rank has.
#pragma once

#include <string>
#include <vector>

#include "silt/io/frame_queue.hpp"
#include "silt/run/hooks.hpp"
#include "silt/run/progress.hpp"

namespace silt::run {

/// What the loop lends a job at each call.
struct Context {
  io::FrameQueue* queue;  // null on ranks that write nothing
  Hooks& hooks;
  Progress& progress;  // the frame lines go to its log
};

class Job {
 public:
  virtual ~Job() = default;

  /// Simulated time now, s, and the steps this run has taken (the progress line).
  virtual double time() const = 0;
  virtual long long steps() const = 0;
  /// The last frame written or queued, -1 before the first: where a stopped run ends.
  virtual long last_frame() const = 0;

  /// Once, before the first advance: what the start writes (MPM's frame 0) and shows.
  virtual void start(Context&) {}
  /// At each stop of the run: queues the frames and samples due at the current time.
  virtual void write_due(Context&) {}
  /// True once the run is at its end (its end time, its last frame, at rest).
  virtual bool finished() const = 0;
  /// Steps to the next stop: a frame, a sample time, or the watcher's next_time().
  virtual void advance(Context& c) = 0;
  /// The state now (gathered on the stepping thread) as a job that writes the checkpoint to
  /// `path` on the writer's commit thread, after the frames before it.
  virtual io::FrameQueue::Job checkpoint(const std::string& path) = 0;
  /// After the last frame: what the whole run writes (shallow water's hazard rasters).
  virtual void finish(Context&) {}
  /// Lines for the log once the run ends, before the writer drains (the water balance) and after
  /// (where the frames' host time went), given the seconds the drain took.
  virtual std::vector<std::string> closing_lines() { return {}; }
  virtual std::vector<std::string> drained_lines(double /*drain_s*/) { return {}; }
};

}  // namespace silt::run
