// Per-particle and per-node bodies of the multi-field contact step (contact.hpp), shared by the
// host loops (contact_host.cpp) and the CUDA launches (contact_cuda.cpp), so that both backends
// run the same arithmetic; the contact condition itself is kernels/contact_k.hpp.
#pragma once

#include "silt/mpm/contact.hpp"
#include "silt/mpm/grid_update_body.hpp"
#include "silt/mpm/transfer_body.hpp"

namespace silt::mpm::detail {

/// The scatter sink of a contact step (transfer_body.hpp): a particle's mass, momentum and force
/// into its body's grid (the part's grid for the second body, `sums` for the first), its volume
/// and volume moment into `sums` under its body's channels. Add::add4(q, s) adds 4 floats: plain
/// adds into per-thread grids on the host, native atomics on CUDA. Lane groups are not used (the
/// lanes of a group may belong to different bodies): launch with TransferArgs::warp_groups off.
template <class Add>
struct ContactSink {
  static constexpr bool kMoments = true;
  float* accum;  // the part's grid (the host: this thread's)
  int stride;
  float* sums;  // the first body's grid (the host: this thread's)
  bool first;
  SILT_HD SILT_FORCEINLINE float* at(int node, int c) const {
    return first ? sums + kContactChannels * node + c : accum + stride * node + c;
  }
  SILT_HD SILT_FORCEINLINE void add(const LaneGroup&, const StencilMap& m, const int* nb, int ii,
                                    int j, int k, float (&s)[4]) const {
    Add::add4(at(stencil_node(m, nb, ii, j, k), 0), s);
  }
  SILT_HD SILT_FORCEINLINE void add_force(const LaneGroup&, const StencilMap& m, const int* nb,
                                          int ii, int j, int k, float (&f)[3]) const {
    const float s[4] = {f[0], f[1], f[2], 0.0f};
    Add::add4(at(stencil_node(m, nb, ii, j, k), kContactForce), s);
  }
  SILT_HD SILT_FORCEINLINE void add_moment(const StencilMap& m, const int* nb, int ii, int j, int k,
                                           float vw, const Vec3f& dpos) const {
    const int node = stencil_node(m, nb, ii, j, k);
    const float s[4] = {vw, vw * dpos[0], vw * dpos[1], vw * dpos[2]};
    Add::add4(sums + kContactChannels * node + (first ? kContactVolumeFirst : kContactVolumeSecond),
              s);
  }
};

SILT_HD SILT_FORCEINLINE Vec3f contact_vec(const float* p) {
  return Vec3f{p[0], p[1], p[2]};
}

SILT_HD SILT_FORCEINLINE void contact_store_vel(float* vel, Index node, const Vec3f& v) {
  float* o = vel + kVelChannels * node;
  o[0] = v[0], o[1] = v[1], o[2] = v[2], o[3] = 0.0f;
}

SILT_HD SILT_FORCEINLINE void contact_copy_node(const GridView& from, const GridView& to,
                                                Index node) {
  for (int c = 0; c < kVelChannels; ++c)
    to.vel[kVelChannels * node + c] = from.vel[kVelChannels * node + c];
  if (from.vel_old)
    for (int c = 0; c < kVelChannels; ++c)
      to.vel_old[kVelChannels * node + c] = from.vel_old[kVelChannels * node + c];
}

/// The grid update of node `node` (block b) in a contact step of size dt (s) ending at `time`
/// (s): both bodies' sums read and cleared (accum: the part's P2G accumulator of the step), each
/// body present updated on its own (grid_node_update), and where both are, the contact.
SILT_HD SILT_FORCEINLINE void contact_node_update(const GridArgs& a, const GridView& g,
                                                  const ContactView& c, float* accum, float dt,
                                                  double time, Index node, int b) {
  const bool split = g.accum_stride > kAccumChannels;
  const float min_mass = a.update.min_mass;
  float sb[kAccumChannelsSplit], sa[kContactChannels];
  float* qb = accum + g.accum_stride * node;
  float* qa = c.sums + kContactChannels * node;
  for (int k = 0; k < g.accum_stride; ++k) sb[k] = qb[k], qb[k] = 0.0f;
  for (int k = 0; k < kContactChannels; ++k) sa[k] = qa[k], qa[k] = 0.0f;
  // Each body's momentum after forces: split channels hold the stress force (N).
  const Vec3f tb = contact_vec(sb + 1), ta = contact_vec(sa + 1);
  const Vec3f pb = split ? tb + contact_vec(sb + 4) * dt : tb;
  const Vec3f pa = split ? ta + contact_vec(sa + kContactForce) * dt : ta;
  if (!(sa[0] > min_mass)) {  // the second body alone (or none)
    grid_node_update(a, g, dt, time, node, b, sb[0], tb, pb);
    contact_copy_node(g, c.first, node);
    return;
  }
  grid_node_update(a, c.first, dt, time, node, b, sa[0], ta, pa);
  if (!(sb[0] > min_mass)) {  // the first body alone
    contact_copy_node(c.first, g, node);
    return;
  }
  grid_node_update(a, g, dt, time, node, b, sb[0], tb, pb);
  Vec3f va = load_node3(c.first.vel, int(node)), vb = load_node3(g.vel, int(node));
  const float* ma = sa + kContactVolumeFirst;
  const float* mb = sa + kContactVolumeSecond;
  if (contact_node(sa[0], va, ma[0] / c.cell_volume, contact_vec(ma + 1), sb[0], vb,
                   mb[0] / c.cell_volume, contact_vec(mb + 1), c.params)) {
    contact_store_vel(c.first.vel, node, va);
    contact_store_vel(g.vel, node, vb);
  }
}

/// G2P of particle i from its body's velocities (g: the second body's, c.first: the first's).
template <int D>
SILT_HD SILT_FORCEINLINE void contact_g2p_particle(const TransferArgs& a, const ParticleView& p,
                                                   const GridView& g, const ContactView& c, Index i,
                                                   float dt, float t_end, int* zone_escape,
                                                   float* vmax, const FaultView& fault) {
  const GridView& own = a.classes[p.material[i]].first_body ? c.first : g;
  g2p_particle_body<D>(a, p, own, i, dt, t_end, zone_escape, vmax, fault);
}

}  // namespace silt::mpm::detail
