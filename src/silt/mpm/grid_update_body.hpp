// The per-node body of the grid update (momentum -> velocity, gravity, walls, colliders), shared by
// the one-device launch (transfer.cpp) and the multi-partition launch that first sums the other
// parts' copies of a shared block (mpm/exchange/kernels.cpp), so both run the same arithmetic.
#pragma once

#include "silt/mpm/pipeline.hpp"

namespace silt::mpm::detail {

/// Updates node `node` of block b from its P2G sums: mass (kg), transfer momentum (kg m/s) and,
/// with split channels, the stress force (N) already scaled by dt into `momentum`, for the step
/// of size dt (s) that ends at time (s; StepControl::dt and ::time). Writes the velocity (and
/// ASFLIP's pre-force velocity).
SILT_HD SILT_FORCEINLINE void grid_node_update(const GridArgs& a, const GridView& g, float dt,
                                               double time, Index node, int b, float mass,
                                               const Vec3f& transfer, const Vec3f& momentum) {
  int bc[3];
  unpack_block(g.block_key[b], bc[0], bc[1], bc[2]);
  const int l = int(node - Index(b) * kBlockNodes);
  const int local[3] = {l & (kBlockEdge - 1), (l >> kBlockLog2) & (kBlockEdge - 1),
                        l >> (2 * kBlockLog2)};
  Vec3f xn;
  for (int d = 0; d < 3; ++d)
    xn[d] = a.geo.origin[d] + a.geo.dx * float(kBlockEdge * bc[d] + local[d]);
  GridUpdateParams<float> u = a.update;
  u.dt = dt;
  u.time = float(time) - dt;  // colliders at the start of the step
  const Vec3f v = grid_update_node(mass, momentum, transfer, xn, u, a.colliders, a.n_colliders);
  float* out = g.vel + kVelChannels * node;
  out[0] = v[0], out[1] = v[1], out[2] = v[2], out[3] = 0.0f;
  if (g.vel_old) {
    // ASFLIP's v_old: the transferred velocity before any force (Fei et al. 2021 §4).
    const Vec3f vo = node_velocity(mass, transfer, u.min_mass);
    float* old = g.vel_old + kVelChannels * node;
    old[0] = vo[0], old[1] = vo[1], old[2] = vo[2], old[3] = 0.0f;
  }
}

}  // namespace silt::mpm::detail
