// When a run writes a checkpoint (docs/checkpoints.md): --checkpoint-every (Python's
// checkpoint_every) takes a wall-clock interval ("600s", "10min", "2h"; a plain number is seconds)
// or a simulated-time interval ("sim:2.5", seconds of simulated time). A checkpoint is written at
// the first point the run stops at anyway once the interval has passed (an output frame or gauge
// sample of shallow water, a frame end of MPM: stopping elsewhere would change the steps and the
// results), at the end of the run when checkpoints were asked for, and always on a stop (SIGINT /
// SIGTERM, Ctrl-C in Python).
#pragma once

#include <chrono>
#include <string>

namespace silt::run {

class CheckpointPolicy {
 public:
  /// spec: "" (no periodic checkpoints) or the --checkpoint-every value; silt::Error naming the
  /// option (`option`) and the value when it does not parse.
  explicit CheckpointPolicy(const std::string& spec,
                            const std::string& option = "--checkpoint-every");

  bool enabled() const { return wall_s_ > 0 || sim_s_ > 0; }
  /// Whether a checkpoint is due at simulated time t (s); taken() after writing one.
  bool due(double t) const;
  void taken(double t);
  /// Starts counting the simulated interval from t (the run's start or its restart time).
  void start_at(double t) { origin_ = last_sim_ = t; }
  /// Throws silt::Error naming the option when a simulated-time interval is too short for a run
  /// from `start` to `end` s: below the resolution of the times, or more than kMaxIntervals.
  void check_run(double start, double end) const;

  /// Most simulated-time intervals a run may have (a checkpoint is taken at most once a frame or
  /// gauge sample, so shorter intervals only mean "every time the run stops").
  static constexpr double kMaxIntervals = 1e9;

 private:
  std::string spec_;
  std::string option_;
  double wall_s_ = 0;  // > 0: wall-clock interval, s
  double sim_s_ = 0;   // > 0: simulated-time interval, s
  std::chrono::steady_clock::time_point last_wall_ = std::chrono::steady_clock::now();
  double origin_ = 0;  // s, where the simulated intervals are counted from
  double last_sim_ = 0;
};

}  // namespace silt::run
