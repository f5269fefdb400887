// Where an ensemble member's time went, for its log line (both solvers' members): the job read
// before its wall, then within the wall the solver's set-up, the wait for a turn to step (a
// member built ahead, member_turns.hpp) and the frames' stepping (the rest is the frames' host
// work: outputs, read-backs, graph recording, the member's results), and the solver's teardown
// after it. Summed over the members (bench/ensemble_*_gpu.sh), a part that does
// not shrink as more members run at once is the one they queue for (docs/ensembles.md).
#pragma once

#include <chrono>
#include <string>

namespace silt::run {

struct MemberTimes {
  double job = 0;             // s, before the wall: the member's job read from the scene
  double setup = 0;           // s, of the wall: the solver built (and restored)
  double waiting = 0;         // s, of the wall: waiting for a turn to step
  double stepping = 0;        // s, of the wall: the frames' steps
  double end = 0;             // s, after the wall: the solver's teardown
  long long recordings = -1;  // frame graphs recorded (MPM); -1: not counted
};

/// Seconds since t0.
inline double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// "W s (job J s before; set-up S s, waiting T s, stepping P s, other O s[ with N graph
/// recordings]; teardown E s after)" for a member whose wall was wall_s.
std::string member_times_text(double wall_s, const MemberTimes& t);

}  // namespace silt::run
