// Particles copied back to the host for output: plain arrays, so that io/ writes them (PLY, VTP,
// previews) without including the solver.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace silt::mpm {

struct ParticleFrame {
  std::vector<float> position;  // x y z per particle, m
  std::vector<float> velocity;  // x y z per particle, m/s
  std::vector<std::int32_t> material;
  std::vector<float> stress;   // Cauchy stress, 9 per particle (row-major), Pa; empty unless asked
  std::vector<float> plastic;  // log J_p (sand) or alpha (snow) per particle, -; empty unless asked
  std::vector<std::int32_t> id;  // stable particle id (particles are reordered by block)
  std::size_t count() const { return material.size(); }
};

}  // namespace silt::mpm
