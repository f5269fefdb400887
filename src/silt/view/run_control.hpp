// Pause, resume and single steps asked for by the browsers, and the run's side of them: the run
// looks between frames (MPM) or viewer frames (shallow water) and, while paused, waits there, so
// a pause really stops the stepping. Any browser may pause or resume; a step while running pauses
// after the next frame.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>

namespace silt::view {

/// shown: the page has handled a frame (Client's pacing; the run does not see it). seek: show the
/// frame nearest a time (the time slider; a live run's page then stays there while the run goes
/// on); live: back to the run's newest frame. Neither seek nor live is the run's either.
enum class Command { pause, resume, step, shown, seek, live };

/// Parses a browser's message ({"cmd": "pause" | "resume" | "step" | "shown" | "live"}, or
/// {"cmd": "seek", "time": t} with t in s, stored in *time); an Error says what is wrong.
Command parse_command(const std::string& text, double* time = nullptr);

class RunControl {
 public:
  void apply(Command c);
  bool paused() const;
  /// The run's side: true at once when running; while paused, waits up to `wait` for a resume or
  /// a step and returns true when one came (a step is consumed: the run takes one frame and
  /// pauses again), false when the wait ran out.
  bool wait_for_go(std::chrono::milliseconds wait);

 private:
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  bool paused_ = false;
  int steps_ = 0;  // single steps asked for and not yet taken
};

}  // namespace silt::view
