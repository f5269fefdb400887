#include "silt/run/frame_loop.hpp"

#include <fmt/format.h>

#include <chrono>
#include <memory>

#include "silt/run/checkpoint_policy.hpp"

namespace silt::run {

namespace {

using Clock = std::chrono::steady_clock;

// Where the frames' time went in the writer pool: the seconds of its jobs summed over its threads
// (encodes and commits) and the wall seconds in which any of them was busy, what the stepping
// thread waited for room in its queue (the back-pressure a slow writer puts on the run), and how
// long it took to finish after the last step.
std::string writer_line(const io::FrameQueue& q, double drain_s) {
  return fmt::format(
      "writer: {} jobs in {:.3f} s summed over {} threads and a commit thread ({:.3f} s of wall "
      "time busy), the steps waited {:.3f} s for room in its queue, drained in {:.3f} s",
      q.done(), q.busy_seconds(), q.threads(), q.active_seconds(), q.waited_seconds(), drain_s);
}

class FrameLoop {
 public:
  FrameLoop(Job& job, const partition::World& world, const LoopOptions& o, Hooks& hooks,
            Progress& progress)
      : job_(job),
        world_(world),
        o_(o),
        policy_(o.checkpoint_every, o.checkpoint_option),
        progress_(progress),
        queue_(o.writes ? std::make_unique<io::FrameQueue>(kQueuedFrames,
                                                           io::FrameQueue::default_threads())
                        : nullptr),
        c_{queue_.get(), hooks, progress} {
    policy_.start_at(job.time());
  }

  // The stops of the run: what is due is queued, then (unless the run is at its end) a watcher
  // may hold it, a stop or a due checkpoint is taken, and the job steps to its next stop.
  Outcome run() {
    job_.start(c_);
    for (;;) {
      job_.write_due(c_);
      if (job_.finished()) break;
      c_.hooks.hold();
      const int sig = agreed_stop(world_, o_.stop);
      if (sig || any_rank(world_, policy_.due(job_.time()))) checkpoint();
      if (sig) {
        if (queue_) queue_->close();
        return {sig, job_.last_frame(), job_.time()};
      }
      job_.advance(c_);
      progress_.update(job_.time(), job_.steps());
    }
    end();
    return {0, job_.last_frame(), job_.time()};
  }

 private:
  // The state on the stepping thread; the file on the writer's commit thread, after the frames
  // before it.
  void checkpoint() {
    if (o_.checkpoint_path.empty()) return;
    if (o_.before_checkpoint) o_.before_checkpoint();
    io::FrameQueue::Job write = job_.checkpoint(o_.checkpoint_path);
    policy_.taken(job_.time());
    if (queue_) queue_->push(std::move(write));
  }

  // After the last frame: what the whole run writes, the last checkpoint when they were asked
  // for, the closing lines, and the drain.
  void end() {
    job_.finish(c_);
    if (policy_.enabled() && o_.checkpoint_at_end) checkpoint();
    for (const std::string& line : job_.closing_lines()) progress_.log(line);
    const Clock::time_point drain = Clock::now();
    if (queue_) queue_->close();
    const double drain_s = std::chrono::duration<double>(Clock::now() - drain).count();
    progress_.done(job_.time(), job_.steps());
    for (const std::string& line : job_.drained_lines(drain_s)) progress_.log(line);
    if (queue_) progress_.log(writer_line(*queue_, drain_s));
  }

  Job& job_;
  const partition::World& world_;
  const LoopOptions& o_;
  CheckpointPolicy policy_;
  Progress& progress_;
  std::unique_ptr<io::FrameQueue> queue_;
  Context c_;
};

}  // namespace

Outcome run_frames(Job& job, const partition::World& world, const LoopOptions& options,
                   Hooks& hooks, Progress& progress) {
  return FrameLoop(job, world, options, hooks, progress).run();
}

int agreed_stop(const partition::World& world, const std::function<int()>& stop) {
  double sig = stop ? double(stop()) : 0.0;
  if (world.distributed()) world.allreduce_max_sum(&sig, 1, 1);
  return int(sig);
}

bool any_rank(const partition::World& world, bool mine) {
  double v = mine ? 1.0 : 0.0;
  if (world.distributed()) world.allreduce_max_sum(&v, 1, 1);
  return v > 0;
}

}  // namespace silt::run
