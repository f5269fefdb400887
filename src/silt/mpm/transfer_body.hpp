// Per-particle bodies of P2G and G2P, shared by the separate launches (transfer.cpp) and the fused
// G2P2G launch, so both paths run the same arithmetic. The physics is in kernels/*_k.hpp; these
// bodies only load and store particle state and find grid nodes through the block neighbour table.
#pragma once

#include "silt/core/atomic.hpp"
#include "silt/core/atomic_vec.hpp"
#include "silt/core/config.hpp"
#include "silt/core/fault.hpp"
#include "silt/mpm/kernels/bspline_k.hpp"
#include "silt/mpm/kernels/material_k.hpp"
#include "silt/mpm/kernels/transfer_k.hpp"
#include "silt/mpm/pipeline.hpp"

// Full unrolling of the 3x3x3 stencil loops keeps the B-spline weights and the stencil map in
// registers (without it ptxas puts both, 168 bytes per thread, in local memory).
#if SILT_HAS_CUDA
#define SILT_MPM_UNROLL _Pragma("unroll")
#else
#define SILT_MPM_UNROLL _Pragma("GCC unroll 3")
#endif

namespace silt::mpm::detail {

/// Where the 3 stencil nodes per axis sit: neighbour offset of their block relative to the home
/// block (-1, 0, 1) and index within the block (0..3).
struct StencilMap {
  int rel[3][3];
  int local[3][3];
};

SILT_HD SILT_FORCEINLINE StencilMap stencil_map(const int base[3], const int hb[3]) {
  StencilMap m;
  for (int a = 0; a < 3; ++a)
    for (int k = 0; k < 3; ++k) {
      const int node = base[a] + k;
      m.rel[a][k] = block_of_node(node) - hb[a];
      m.local[a][k] = node & (kBlockEdge - 1);
    }
  return m;
}

/// Node index (block * 64 + node in block) of stencil node (i, j, k).
SILT_HD SILT_FORCEINLINE int stencil_node(const StencilMap& m, const int* nb, int i, int j, int k) {
  const int block = nb[neighbour_slot(m.rel[0][i], m.rel[1][j], m.rel[2][k])];
  return block * kBlockNodes + node_in_block(m.local[0][i], m.local[1][j], m.local[2][k]);
}

SILT_HD SILT_FORCEINLINE Vec3f load3(const float* p, Index i) {
  return Vec3f{p[3 * i], p[3 * i + 1], p[3 * i + 2]};
}
SILT_HD SILT_FORCEINLINE void store3(float* p, Index i, const Vec3f& v) {
  p[3 * i] = v[0], p[3 * i + 1] = v[1], p[3 * i + 2] = v[2];
}
SILT_HD SILT_FORCEINLINE Mat3f load9(const float* p, Index i) {
  Mat3f m;
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) m.m[r][c] = p[9 * i + 3 * r + c];
  return m;
}
SILT_HD SILT_FORCEINLINE void store9(float* p, Index i, const Mat3f& m) {
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) p[9 * i + 3 * r + c] = m.m[r][c];
}
/// Velocity of a node in a kVelChannels-strided grid array.
SILT_HD SILT_FORCEINLINE Vec3f load_node3(const float* p, int node) {
  return Vec3f{p[kVelChannels * node], p[kVelChannels * node + 1], p[kVelChannels * node + 2]};
}
SILT_HD SILT_FORCEINLINE bool finite3(const Vec3f& v) {
  // |v| <= FLT_MAX is false for NaN and +-inf.
  return math::abs(v[0]) <= 3.4e38f && math::abs(v[1]) <= 3.4e38f && math::abs(v[2]) <= 3.4e38f;
}

/// Home block coordinates of particle i (the block it was binned into at the last rebuild).
SILT_HD SILT_FORCEINLINE void home_coords(const ParticleView& p, const GridView& g, Index i,
                                          int hb[3]) {
  unpack_block(g.block_key[p.block[i]], hb[0], hb[1], hb[2]);
}

/// P2G for particle i with step size dt (s) and the previous step's dt_prev (s). The deformation
/// update F <- (I + dt_prev C) F of the previous G2P is done here, where F is read anyway (Hu et
/// al. 2019a move it from the end of G2P to the start of P2G): F is written once per step.
SILT_HD SILT_FORCEINLINE void p2g_particle_body(const TransferArgs& a, const ParticleView& p,
                                                const GridView& g, Index i, float dt, float dt_prev,
                                                const FaultView& fault) {
  const Vec3f x = load3(p.x, i);
  const Vec3f v = load3(p.v, i);
  const Mat3f c = load9(p.c, i);
  Mat3f f = update_deformation(load9(p.f, i), c, dt_prev);
  float plastic = p.plastic[i];
  const ParticleClass& pc = a.classes[p.material[i]];
  const Mat3f tau = material_stress(pc.material, f, plastic, c);
  store9(p.f, i, f);
  p.plastic[i] = plastic;

  const BSplineQ<float> s =
      bspline_quadratic(x, Vec3f{a.origin[0], a.origin[1], a.origin[2]}, a.inv_dx);
  int hb[3];
  home_coords(p, g, i, hb);
  if (!in_free_zone(s.base, hb)) {
    // The G2P guard forces a rebuild before this can happen; reaching it means a bug or a
    // particle that moved more than 3 cells in one step.
    fault.raise(kFaultZoneEscape, p.id[i], 0);
    return;
  }
  const StencilMap m = stencil_map(s.base, hb);
  const int* nb = g.neighbours + 27 * p.block[i];
  const P2GParticle<float> q = p2g_particle(pc.mass, v, c, pc.volume0, tau, dt, mls_dinv(a.dx));
  SILT_MPM_UNROLL for (int n = 0; n < 27; ++n) {
    const int ii = n % 3, j = (n / 3) % 3, k = n / 9;
    const int node = stencil_node(m, nb, ii, j, k);
    const float w = s.weight(ii, j, k);
    const Vec3f mv = p2g_node_momentum(q, w, s.dpos(ii, j, k, a.dx));
    float* acc = g.accum + kAccumChannels * node;
    // Native global float atomics, no shared-memory staging (paper 000 §4.3); one 16-byte
    // vector atomic per node where the GPU has it.
    if (a.vector_atomics) {
      atomic_add4(acc, w * pc.mass, mv[0], mv[1], mv[2]);
    } else {
      atomic_add(acc, w * pc.mass);
      atomic_add(acc + 1, mv[0]);
      atomic_add(acc + 2, mv[1]);
      atomic_add(acc + 3, mv[2]);
    }
  }
}

/// G2P for particle i with step size dt (s): new v, C and x (clamped to the walls); raises the
/// free-zone flag when the new position's stencil leaves the home block's 3x3x3 zone, so that the
/// next step rebuilds (paper 000 §4.2.1). A non-finite result raises kFaultNaN with the particle
/// id.
SILT_HD SILT_FORCEINLINE void g2p_particle_body(const TransferArgs& a, const ParticleView& p,
                                                const GridView& g, Index i, float dt,
                                                int* zone_escape, const FaultView& fault) {
  const Vec3f x = load3(p.x, i);
  const Vec3f origin{a.origin[0], a.origin[1], a.origin[2]};
  const BSplineQ<float> s = bspline_quadratic(x, origin, a.inv_dx);
  int hb[3];
  home_coords(p, g, i, hb);
  const StencilMap m = stencil_map(s.base, hb);
  const int* nb = g.neighbours + 27 * p.block[i];
  G2PAccum<float> acc = g2p_begin<float>();
  SILT_MPM_UNROLL for (int n = 0; n < 27; ++n) {
    const int ii = n % 3, j = (n / 3) % 3, k = n / 9;
    const int node = stencil_node(m, nb, ii, j, k);
    const float w = s.weight(ii, j, k);
    const Vec3f vn = load_node3(g.vel, node);
    if (a.asflip)
      g2p_add_asflip(acc, w, vn, load_node3(g.vel_old, node), s.dpos(ii, j, k, a.dx));
    else
      g2p_add(acc, w, vn, s.dpos(ii, j, k, a.dx));
  }
  const Mat3f c = g2p_affine(acc, mls_dinv(a.dx));
  ParticleAdvance<float> adv;
  if (a.asflip) {
    // J from the stored F, which lags one step (its update is done in the next P2G).
    const float j = determinant(load9(p.f, i));
    adv = advance_asflip(acc, x, load3(p.v, i), a.flip, asflip_advect_weight(j, a.advect), dt);
  } else {
    adv = advance_apic(acc, x, dt);
  }
  for (int d = 0; d < 3; ++d) adv.x[d] = math::clamp(adv.x[d], a.clamp_lo[d], a.clamp_hi[d]);
  if (!finite3(adv.x) || !finite3(adv.v)) {
    fault.raise(kFaultNaN, p.id[i], 0);
    return;
  }
  const BSplineQ<float> s_new = bspline_quadratic(adv.x, origin, a.inv_dx);
  if (!in_free_zone(s_new.base, hb)) *zone_escape = 1;  // benign race: every writer stores 1
  store3(p.x, i, adv.x);
  store3(p.v, i, adv.v);
  store9(p.c, i, c);
}

}  // namespace silt::mpm::detail
