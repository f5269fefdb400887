// The body of the host G2P for one pack type (mpm/host/g2p.hpp): a pack's 27-node gathers summed on
// lanes, every lane adding its nodes in the scalar order with the scalar operations, then each
// particle's C, advance, colliders and stores as in g2p_particle_body. Included only by the
// host-compiled units that instantiate it, each with a pack tagged by a type of its own anonymous
// namespace (every function instantiated here has internal linkage): mpm/host/g2p.cpp (SSE2, 4
// lanes) and mpm/host/transfer_isa.cpp (built for AVX2, 8 lanes, and AVX-512F, 16).
#pragma once

#include "silt/core/math/float_pack.hpp"
#include "silt/mpm/host/stencil.hpp"
#include "silt/mpm/transfer_body.hpp"

namespace silt::mpm::detail {

/// The AVX2 unit's G2P of the 8 particles [i0, i0 + 8) and the AVX-512 unit's of the 16
/// particles [i0, i0 + 16) (mpm/host/transfer_isa.cpp; call only where host_packs() allows them).
/// dims 2 or 3; the rest as g2p_pack takes it.
namespace avx2 {
void host_g2p_pack(int dims, const TransferArgs& a, const ParticleView& p, const GridView& g,
                   Index i0, float dt, float t_end, int* zone_escape, float* vmax,
                   const FaultView& fault);
}  // namespace avx2
namespace avx512 {
void host_g2p_pack(int dims, const TransferArgs& a, const ParticleView& p, const GridView& g,
                   Index i0, float dt, float t_end, int* zone_escape, float* vmax,
                   const FaultView& fault);
}  // namespace avx512

namespace packed {

/// Node velocities of the pack's particles at their stencil node n (node[l][n]: stencil_nodes;
/// channels 0-2 of kVelChannels = 4 per node: one 16-byte load per particle, load_columns3).
template <class P, int W, int D>
SILT_FORCEINLINE Vec3<P> gather_node3(const float* vel, const int (&node)[W][kStencilNodes<D>],
                                      int n) {
  static_assert(kVelChannels == 4, "load_columns3 takes rows of 4 floats");
  const float* row[W];
  for (int l = 0; l < W; ++l) row[l] = vel + kVelChannels * node[l][n];
  P c[3];
  load_columns3(row, c);
  return Vec3<P>{c[0], c[1], c[2]};
}

/// G2P for the full pack of particles [i0, i0 + W) (g2p_particle_body's work: the gather of
/// g2p_gather on lanes, then g2p_finish and g2p_store per particle). A pack with a particle whose
/// stencil has left its zone runs particle by particle.
template <class P, int W, int D>
SILT_FORCEINLINE void g2p_pack(const TransferArgs& a, const ParticleView& p, const GridView& g,
                               Index i0, float dt, float t_end, int* zone_escape, float* vmax,
                               const FaultView& fault) {
  int hb[W][3];
  Vec3f x[W];
  BSplineQ<float> s[W];
  bool inside = true;
  for (int l = 0; l < W; ++l) {
    home_coords(p, g, i0 + l, hb[l]);
    x[l] = load3(p.x, i0 + l);
    s[l] = bspline_quadratic<D>(x[l], Vec3f{a.geo.origin[0], a.geo.origin[1], a.geo.origin[2]},
                                a.geo.inv_dx);
    inside = inside && in_free_zone(s[l].base, hb[l]);
  }
  if (!inside) {
    for (int l = 0; l < W; ++l)
      g2p_particle_body<D>(a, p, g, i0 + l, dt, t_end, zone_escape, vmax, fault);
    return;
  }
  int node[W][kStencilNodes<D>];
  P w[3][3], fx[3];
  for (int l = 0; l < W; ++l) {
    stencil_nodes<D>(stencil_map(s[l].base, hb[l]), g.neighbours + 27 * p.block[i0 + l], node[l]);
    for (int d = 0; d < 3; ++d) {
      fx[d].set(l, s[l].fx[d]);
      for (int q = 0; q < 3; ++q) w[d][q].set(l, s[l].w[d][q]);
    }
  }
  const P dx(a.geo.dx);
  G2PAccum<P> acc = g2p_begin<P>();
  SILT_MPM_UNROLL for (int n = 0; n < kStencilNodes<D>; ++n) {
    const int ii = n % 3, j = (n / 3) % 3, k = n / 9;
    // BSplineQ::weight and ::dpos, lane by lane.
    const P wn = w[0][ii] * w[1][j] * w[2][k];
    const Vec3<P> dpos{(P(float(ii)) - fx[0]) * dx, (P(float(j)) - fx[1]) * dx,
                       (P(float(k)) - fx[2]) * dx};
    const Vec3<P> vn = gather_node3<P, W, D>(g.vel, node, n);
    if (a.asflip)
      g2p_add_asflip(acc, wn, vn, gather_node3<P, W, D>(g.vel_old, node, n), dpos);
    else
      g2p_add(acc, wn, vn, dpos);
  }
  for (int l = 0; l < W; ++l) {
    G2PAccum<float> al;
    for (int r = 0; r < 3; ++r) {
      al.v[r] = acc.v[r][l];
      al.v_old[r] = acc.v_old[r][l];
      for (int c = 0; c < 3; ++c) al.b.m[r][c] = acc.b.m[r][c][l];
    }
    ParticleAdvance<float> adv;
    Mat3f c;
    if (g2p_finish(a, p, i0 + l, dt, t_end, x[l], al, adv, c, fault))
      g2p_store<D>(a, p, i0 + l, hb[l], adv, c, zone_escape, vmax);
  }
}

}  // namespace packed
}  // namespace silt::mpm::detail
