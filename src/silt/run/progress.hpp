// Progress reporting for long runs: a one-line bar on a terminal (simulated time, steps/s, ETA),
// plain log lines when stderr is not a terminal (CI logs, files).
#pragma once

#include <chrono>
#include <string>

namespace silt::run {

class Progress {
 public:
  /// t_end: simulated time at which the run ends (s). quiet: print nothing.
  Progress(double t_end, bool quiet);
  /// Called whenever the solver has reached a new time; redraws at most ~10 times a second.
  void update(double t, long long steps);
  /// A line that should not be overwritten by the bar (frame written, warnings).
  void log(const std::string& line);
  /// Finishes the bar line.
  void done(double t, long long steps);
  /// Erases the bar (a run that stops early prints its own line).
  void clear();

 private:
  std::string bar(double t, long long steps) const;
  double t_end_;
  bool quiet_;
  bool tty_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_, last_draw_;
};

}  // namespace silt::run
