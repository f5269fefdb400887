// The host G2P on packs of particles (host_g2p.hpp). Compiled by the host compiler in every build
// (FloatPack is a GCC vector type that nvcc never sees).
#include "silt/mpm/host_g2p.hpp"

#include <algorithm>

#include "silt/core/gated_for.hpp"
#include "silt/core/math/float_pack.hpp"
#include "silt/mpm/host_stencil.hpp"
#include "silt/mpm/transfer_body.hpp"

namespace silt::mpm::detail {

namespace {

using Pack = FloatPack<kG2pLanes>;

/// Node velocities of the pack's particles at their stencil node n (node[l][n]: stencil_nodes;
/// channels 0-2 of kVelChannels = 4 per node: one 16-byte load per particle, load_columns3).
template <int D>
SILT_FORCEINLINE Vec3<Pack> gather_node3(const float* vel,
                                         const int (&node)[kG2pLanes][kStencilNodes<D>], int n) {
  static_assert(kG2pLanes == 4 && kVelChannels == 4, "load_columns3 takes 4 rows of 4 floats");
  const float* row[kG2pLanes];
  for (int l = 0; l < kG2pLanes; ++l) row[l] = vel + kVelChannels * node[l][n];
  Pack c[3];
  load_columns3(row, c);
  return Vec3<Pack>{c[0], c[1], c[2]};
}

/// G2P for the full pack of particles [i0, i0 + kG2pLanes) (g2p_particle_body's work: the gather
/// of g2p_gather on lanes, then g2p_finish and g2p_store per particle). A pack with a particle
/// whose stencil has left its zone runs particle by particle.
template <int D>
void g2p_pack(const TransferArgs& a, const ParticleView& p, const GridView& g, Index i0, float dt,
              float t_end, int* zone_escape, float* vmax, const FaultView& fault) {
  constexpr int L = kG2pLanes;
  int hb[L][3];
  Vec3f x[L];
  BSplineQ<float> s[L];
  bool inside = true;
  for (int l = 0; l < L; ++l) {
    home_coords(p, g, i0 + l, hb[l]);
    x[l] = load3(p.x, i0 + l);
    s[l] = bspline_quadratic<D>(x[l], Vec3f{a.geo.origin[0], a.geo.origin[1], a.geo.origin[2]},
                                a.geo.inv_dx);
    inside = inside && in_free_zone(s[l].base, hb[l]);
  }
  if (!inside) {
    for (int l = 0; l < L; ++l)
      g2p_particle_body<D>(a, p, g, i0 + l, dt, t_end, zone_escape, vmax, fault);
    return;
  }
  int node[L][kStencilNodes<D>];
  Pack w[3][3], fx[3];
  for (int l = 0; l < L; ++l) {
    stencil_nodes<D>(stencil_map(s[l].base, hb[l]), g.neighbours + 27 * p.block[i0 + l], node[l]);
    for (int d = 0; d < 3; ++d) {
      fx[d].set(l, s[l].fx[d]);
      for (int q = 0; q < 3; ++q) w[d][q].set(l, s[l].w[d][q]);
    }
  }
  const Pack dx(a.geo.dx);
  G2PAccum<Pack> acc = g2p_begin<Pack>();
  SILT_MPM_UNROLL for (int n = 0; n < kStencilNodes<D>; ++n) {
    const int ii = n % 3, j = (n / 3) % 3, k = n / 9;
    // BSplineQ::weight and ::dpos, lane by lane.
    const Pack wn = w[0][ii] * w[1][j] * w[2][k];
    const Vec3<Pack> dpos{(Pack(float(ii)) - fx[0]) * dx, (Pack(float(j)) - fx[1]) * dx,
                          (Pack(float(k)) - fx[2]) * dx};
    const Vec3<Pack> vn = gather_node3<D>(g.vel, node, n);
    if (a.asflip)
      g2p_add_asflip(acc, wn, vn, gather_node3<D>(g.vel_old, node, n), dpos);
    else
      g2p_add(acc, wn, vn, dpos);
  }
  for (int l = 0; l < L; ++l) {
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

template <int D>
void g2p(const TransferArgs& a, ParticleView p, GridView g, StepControl* ctl, FaultView fault) {
  const float dt = ctl->dt, t_end = float(ctl->time);
  int* zone_escape = &ctl->zone_escape;
  float* vmax = &ctl->vmax;
  const Index n = a.particles, packs = n / kG2pLanes;
  const auto body = [&](Index b) {
    if (b < packs) {
      g2p_pack<D>(a, p, g, b * kG2pLanes, dt, t_end, zone_escape, vmax, fault);
    } else {
      for (Index i = packs * kG2pLanes; i < n; ++i)
        g2p_particle_body<D>(a, p, g, i, dt, t_end, zone_escape, vmax, fault);
    }
  };
  silt::detail::gated_host_loop("mpm.g2p", packs + (n % kG2pLanes ? 1 : 0), &ctl->active, body);
}

}  // namespace

void host_g2p(int dims, const TransferArgs& a, ParticleView p, GridView g, StepControl* ctl,
              FaultView fault) {
  if (dims == 2)
    g2p<2>(a, p, g, ctl, fault);
  else
    g2p<3>(a, p, g, ctl, fault);
}

}  // namespace silt::mpm::detail
