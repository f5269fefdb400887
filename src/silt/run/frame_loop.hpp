// The frame loop of every run (DESIGN.md §7, "One run layer"; docs/run-layer.md): the CLI's `silt
// run`, Python's Simulation.run() and the viewer drive their solver through it. It steps a
// run::Job from stop to stop (a frame, a gauge sample, a watcher's chunk), and owns what every run
// does alike around the steps:
//   - the writer pool and its bounded queue (io/frame_queue.hpp): frames are encoded and written
//     on pool threads while the next frames step, committed in order, and drained at the end;
//   - the checkpoint policy (checkpoint_policy.hpp): checkpoints only where the run stops anyway,
//     so that a restart takes the same steps, at the end when asked for, and on a stop;
//   - stop signals: polled between stops and agreed over the ranks, so all stop at one frame;
//   - the live-view hooks (hooks.hpp) and the progress line (progress.hpp).
#pragma once

#include <cstddef>
#include <functional>
#include <string>

#include "silt/partition/world.hpp"
#include "silt/run/hooks.hpp"
#include "silt/run/job.hpp"
#include "silt/run/progress.hpp"

namespace silt::run {

/// Frames waiting for the writer pool at most, beyond one a pool thread: enough to ride out a slow
/// write, few enough to bound the memory (a 1.33M-particle PLY frame is ~43 MB, a 16.8M-cell depth
/// raster 134 MB in float64). The pinned copy slots (core/staging.hpp, through the solvers' frame
/// copies) follow: one per frame in flight, kQueuedFrames + the pool's threads, and one being
/// filled.
constexpr std::size_t kQueuedFrames = 2;

struct LoopOptions {
  /// The checkpoint interval (checkpoint_policy.hpp; "" : only on a stop), the name of the option
  /// that gave it (for errors), and the file checkpoints go to ("": none, not even on a stop).
  std::string checkpoint_every;
  std::string checkpoint_option = "--checkpoint-every";
  std::string checkpoint_path;
  /// Whether a run with a checkpoint interval also writes one at its end (an ensemble's member
  /// does not: its result is saved instead, ensemble_checkpoint.hpp).
  bool checkpoint_at_end = true;
  /// Called on the stepping thread before each checkpoint is queued (may be empty): an MPM
  /// ensemble member writes there what it has gathered beside its solver checkpoint, so that
  /// the file is on disk before the checkpoint (mpm_member_partial.hpp).
  std::function<void()> before_checkpoint;
  /// The signal a stop was asked with (0: none), polled between stops on every rank (SIGINT /
  /// SIGTERM for the CLI, Ctrl-C for Python). Empty: never.
  std::function<int()> stop;
  /// Whether this rank writes (rank 0): only it has a writer pool.
  bool writes = true;
};

/// How a run ended: at its end (signal 0), or stopped by `signal` after frame `last_frame` (-1:
/// before the first) at simulated time `time` (s), with every frame queued before it written.
struct Outcome {
  int signal = 0;
  long last_frame = -1;
  double time = 0;
};

/// Runs `job` to its end or to a stop. Collective under MPI. Errors of the job or of a writer
/// (naming the file, cell, particle or step) are thrown after the frames queued before them are
/// written; a stop drains the queue (the checkpoint last) before it returns.
Outcome run_frames(Job& job, const partition::World& world, const LoopOptions& options,
                   Hooks& hooks, Progress& progress);

/// The signal a stop was asked with on any rank (0: none; `stop` may be empty), the same on every
/// rank so that all stop at the same frame (collective under MPI).
int agreed_stop(const partition::World& world, const std::function<int()>& stop);
/// True on every rank when `mine` is true on any (collective under MPI).
bool any_rank(const partition::World& world, bool mine);

/// A frame for the writer pool: `encode` writes its own files on a pool thread and returns what
/// it leaves to commit; `commit` finishes it in frame order (frames.csv last), and `discard`
/// removes its files when an earlier frame failed.
template <class Encode, class Commit, class Discard>
io::FrameQueue::Encode frame_job(Encode encode, Commit commit, Discard discard) {
  return [encode = std::move(encode), commit = std::move(commit), discard = std::move(discard)] {
    auto e = std::make_shared<decltype(encode())>(encode());
    return io::FrameQueue::Encoded{[commit, e] { commit(std::move(*e)); },
                                   [discard, e] {
                                     discard(*e);
                                   }};
  };
}

}  // namespace silt::run
