// The run layer's frame loop (src/silt/run/frame_loop.hpp) over a job that steps one second an
// advance and writes a frame each second: frames written in order, checkpoints where the policy
// says and on a stop (after the frames queued before it), an ensemble member's call before each
// checkpoint and none at its end, the stop's frame and time, no checkpoint without a path.
#include <gtest/gtest.h>

#include <csignal>
#include <mutex>
#include <string>
#include <vector>

#include "silt/partition/world.hpp"
#include "silt/run/frame_loop.hpp"

namespace {

using silt::partition::World;

// What the writer's commit thread did, in order.
struct Log {
  std::mutex mutex;
  std::vector<std::string> lines;
  void add(const std::string& s) {
    std::lock_guard<std::mutex> lock(mutex);
    lines.push_back(s);
  }
};

class CountingJob : public silt::run::Job {
 public:
  CountingJob(int end, Log& log) : end_(end), log_(log) {}
  double time() const override { return t_; }
  long long steps() const override { return t_; }
  long last_frame() const override { return written_ - 1; }
  void write_due(silt::run::Context& c) override {
    if (written_ > t_) return;
    const int k = written_++;
    if (c.queue) c.queue->push([this, k] { log_.add("frame " + std::to_string(k)); });
  }
  bool finished() const override { return t_ >= end_; }
  void advance(silt::run::Context&) override { ++t_; }
  silt::io::FrameQueue::Job checkpoint(const std::string& path) override {
    return [this, path, t = t_] {
      log_.add(path + " at " + std::to_string(t));
    };
  }

 private:
  const int end_;
  Log& log_;
  int t_ = 0, written_ = 0;
};

std::vector<std::string> run(int end, silt::run::LoopOptions o, silt::run::Outcome* outcome) {
  Log log;
  CountingJob job(end, log);
  silt::run::Hooks hooks;
  silt::run::Progress quiet(end, true);
  *outcome = silt::run::run_frames(job, World::self(), o, hooks, quiet);
  return log.lines;
}

TEST(RunFrameLoop, WritesEveryFrameInOrderToTheEnd) {
  silt::run::Outcome end;
  const auto lines = run(3, {}, &end);
  EXPECT_EQ(lines, (std::vector<std::string>{"frame 0", "frame 1", "frame 2", "frame 3"}));
  EXPECT_EQ(end.signal, 0);
  EXPECT_EQ(end.last_frame, 3);
}

TEST(RunFrameLoop, CheckpointsAtTheIntervalAndTheEnd) {
  silt::run::LoopOptions o;
  o.checkpoint_every = "sim:2";
  o.checkpoint_path = "c";
  silt::run::Outcome end;
  const auto lines = run(5, o, &end);
  EXPECT_EQ(lines, (std::vector<std::string>{"frame 0", "frame 1", "frame 2", "c at 2", "frame 3",
                                             "frame 4", "c at 4", "frame 5", "c at 5"}));
}

// An ensemble's member (ensemble.cpp, mpm_ensemble.cpp): its periodic checkpoints, each after
// the call that writes what it gathered beside it, and none at its end (its result is saved).
TEST(RunFrameLoop, AMembersCheckpointsFollowTheirCallAndSkipTheEnd) {
  Log log;
  CountingJob job(5, log);
  silt::run::LoopOptions o;
  o.checkpoint_every = "sim:2";
  o.checkpoint_path = "c";
  o.checkpoint_at_end = false;
  std::vector<double> before;
  o.before_checkpoint = [&] {
    before.push_back(job.time());
  };
  silt::run::Hooks hooks;
  silt::run::Progress quiet(5, true);
  const silt::run::Outcome end = silt::run::run_frames(job, World::self(), o, hooks, quiet);
  EXPECT_EQ(log.lines, (std::vector<std::string>{"frame 0", "frame 1", "frame 2", "c at 2",
                                                 "frame 3", "frame 4", "c at 4", "frame 5"}));
  EXPECT_EQ(before, (std::vector<double>{2, 4}));
  EXPECT_EQ(end.signal, 0);
}

TEST(RunFrameLoop, AStopCheckpointsAfterTheFramesBeforeIt) {
  silt::run::LoopOptions o;
  o.checkpoint_path = "c";
  int polls = 0;
  o.stop = [&polls] {
    return ++polls == 3 ? SIGINT : 0;
  };
  silt::run::Outcome end;
  const auto lines = run(10, o, &end);
  EXPECT_EQ(lines, (std::vector<std::string>{"frame 0", "frame 1", "frame 2", "c at 2"}));
  EXPECT_EQ(end.signal, SIGINT);
  EXPECT_EQ(end.last_frame, 2);
  EXPECT_EQ(end.time, 2.0);
}

TEST(RunFrameLoop, NoCheckpointWithoutAPathNorWritesWithoutAPool) {
  silt::run::LoopOptions o;
  o.stop = [] {
    return SIGTERM;
  };
  silt::run::Outcome end;
  EXPECT_EQ(run(10, o, &end), (std::vector<std::string>{"frame 0"}));
  EXPECT_EQ(end.signal, SIGTERM);
  o.writes = false;
  EXPECT_TRUE(run(10, o, &end).empty());
}

}  // namespace
