// Turns to step on a device, for an ensemble's member pool (member_pool.cpp): on CUDA the pool
// has workers beyond the members that step at once; each builds its next member (its job, its
// solver, the uploads) while the others step, then waits here for a turn. A turn is handed out
// in the order the workers asked for one, and a device without a count never waits.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <map>
#include <mutex>

namespace silt::run {

class StepTurns {
 public:
  /// turns[d]: how many members step at once on CUDA device d.
  explicit StepTurns(const std::map<int, std::size_t>& turns);
  /// Waits for a turn on `device` (first asked, first served).
  void take(int device);
  /// Gives a turn taken on `device` back.
  void give(int device) noexcept;
  /// Workers waiting for a turn on `device` now.
  std::size_t waiting(int device);

 private:
  struct Line {
    std::size_t turns = 0, asked = 0, given = 0;
  };
  std::map<int, Line> lines_;
  std::mutex m_;
  std::condition_variable cv_;
};

/// A turn held for a scope, given back on every way out of it (none when `turns` is null).
class StepTurn {
 public:
  StepTurn(StepTurns* turns, int device) : turns_(turns), device_(device) {
    if (turns_) turns_->take(device_);
  }
  ~StepTurn() {
    if (turns_) turns_->give(device_);
  }
  StepTurn(const StepTurn&) = delete;
  StepTurn& operator=(const StepTurn&) = delete;

 private:
  StepTurns* turns_;
  int device_;
};

}  // namespace silt::run
