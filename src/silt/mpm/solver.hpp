// The MPM solver on one device (CPU or CUDA). All per-device state sits in one object so that a
// multi-GPU run instantiates one per device. dt, particle counts and overflow flags stay on the
// device; the host looks once per frame.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "silt/core/exec.hpp"
#include "silt/mpm/scene.hpp"

namespace silt::mpm {

/// Particles copied back to the host for output.
struct ParticleFrame {
  std::vector<float> position;  // x y z per particle, m
  std::vector<float> velocity;  // x y z per particle, m/s
  std::vector<std::int32_t> material;
  std::vector<float> stress;  // Cauchy stress, 9 per particle (row-major), Pa; empty unless asked
  std::vector<float>
      plastic;  // plastic state per particle (log J_p or alpha), -; empty unless asked
  std::size_t count() const { return material.size(); }
};

struct FrameStats {
  long long steps = 0;     // steps taken in the frame
  double time = 0;         // simulated time at the end of the frame, s
  double ms_per_step = 0;  // wall time
  std::int64_t particles = 0;
  std::int64_t active_blocks = 0;
  int rebuilds = 0;  // particle-block rebuilds in the frame
};

class Solver {
 public:
  Solver(const Scene& scene, const Exec& exec);
  ~Solver();
  Solver(Solver&&) noexcept;
  Solver& operator=(Solver&&) noexcept;

  /// Advances by scene.frame_dt. Throws silt::Error naming the particle id and frame on NaN, and
  /// the numbers on capacity overflow.
  FrameStats advance_frame();
  /// Exactly one step with the current dt (tests and benchmarks).
  void step();

  double time() const;
  std::int64_t particle_count() const;
  ParticleFrame particles(bool with_stress = false) const;
  const Scene& scene() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace silt::mpm
