// Particles copied back to the host for output: plain arrays, so that io/ writes them (PLY, VTP,
// previews) without including the solver.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace silt::mpm {

struct ParticleFrame {
  std::vector<float> position;  // x y z per particle, m; empty unless asked
  std::vector<float> velocity;  // x y z per particle, m/s; empty unless asked
  std::vector<std::int32_t> material;
  std::vector<float> stress;   // Cauchy stress, 9 per particle (row-major), Pa; empty unless asked
  std::vector<float> plastic;  // log J_p (sand) or alpha (snow) per particle, -; empty unless asked
  std::vector<std::int32_t> id;  // stable particle id (particles are reordered by block)
  std::size_t count() const { return material.size(); }
};

/// The attributes that Solver::particles_async() brings to the host, as a mask: a frame's outputs
/// name theirs (io::particle_attributes_of), so that a preview does not download velocities and
/// stress is computed only for files that hold it. Material and id always come (count() and the
/// id order read them).
namespace attributes {
constexpr unsigned position = 1u;
constexpr unsigned velocity = 2u;
constexpr unsigned stress = 4u;                   // computed for the frame from F and C
constexpr unsigned plastic = 8u;                  // log J_p or alpha
constexpr unsigned motion = position | velocity;  // Solver::particles() without stress
constexpr unsigned all = 15u;
}  // namespace attributes

}  // namespace silt::mpm
