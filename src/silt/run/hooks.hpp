// What a watcher (the live viewer, docs/viewer.md) asks of a run between its advances: the frame
// loop (run/frame_loop.hpp) calls hold() and next_time(), the solver adapters the frame hooks.
// The defaults do nothing, so a run nobody watches (Python, `silt run` without --view) passes a
// plain Hooks.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

namespace silt::mpm {
class ParticlesCopy;
}  // namespace silt::mpm
namespace silt::swe {
struct Fields;
struct Probe;
}  // namespace silt::swe

namespace silt::run {

/// Where a run stands: the frame last reached, its simulated time (s) and the steps so far.
struct FrameInfo {
  long frame = 0;
  double time = 0;
  long long steps = 0;
};

class Hooks {
 public:
  virtual ~Hooks() = default;

  /// Between frames: returns when the run may go on (waits while a watcher holds it paused).
  virtual void hold() {}
  /// The simulated time to advance to next, at most `target` (s): shorter while somebody watches
  /// a shallow-water run, so that a frame reaches the page about every 1/20 s of wall time.
  virtual double next_time(double /*time*/, double target) { return target; }
  /// MPM, after each frame (and at the start): `download` queues the copy of the particles off
  /// the devices; a watcher calls it only when it wants a frame.
  virtual void mpm_frame(const FrameInfo& /*at*/, std::int64_t /*particles*/,
                         const std::function<mpm::ParticlesCopy()>& /*download*/) {}
  /// Shallow water, after each advance: the same with the fields.
  virtual void swe_frame(const FrameInfo& /*at*/,
                         const std::function<swe::Fields()>& /*download*/) {}
  /// Shallow water: one gauge sample (one probe per gauge, io::pick_gauges).
  virtual void gauge(double /*time*/, const std::vector<swe::Probe>& /*probes*/) {}
};

}  // namespace silt::run
