// Per-particle bodies of P2G and G2P, shared by the separate launches (transfer.cpp) and the fused
// G2P2G launch, so both paths run the same arithmetic. The physics is in kernels/*_k.hpp; these
// bodies only load and store particle state and find grid nodes through the block neighbour table.
#pragma once

#include "silt/core/atomic.hpp"
#include "silt/core/atomic_vec.hpp"
#include "silt/core/config.hpp"
#include "silt/core/fault.hpp"
#include "silt/mpm/fixed_sums.hpp"
#include "silt/mpm/kernels/bspline_k.hpp"
#include "silt/mpm/kernels/material_k.hpp"
#include "silt/mpm/kernels/transfer_k.hpp"
#include "silt/mpm/lane_group.hpp"
#include "silt/mpm/pipeline.hpp"
#include "silt/mpm/speed_max.hpp"
#include "silt/mpm/step_control.hpp"

// Full unrolling of the 3x3x3 stencil loops keeps the B-spline weights and the stencil map in
// registers (without it ptxas puts both, 168 bytes per thread, in local memory). In a g++ build
// it also folds the node offsets and weight products into constants: an unroll by 3 left a
// division by 9 and stack loads in every node of G2P (docs/NOTES.md, "MPM on the CPU"). nvcc's
// front end does not know GCC pragmas, so its host pass keeps the plain one.
#if SILT_HAS_CUDA
#define SILT_MPM_UNROLL _Pragma("unroll")
#else
#define SILT_MPM_UNROLL _Pragma("GCC unroll 27")
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

/// Where the scatter adds a node's share: straight into the global accumulators with native
/// atomics, no shared-memory staging (paper 000 §4.3; staging measured 1.3-1.4x slower on the
/// H200), one 16-byte vector atomic per 4 channels where the GPU has it (2.7x over scalar ones).
/// Lanes of a group (lane_group.hpp) sum their shares first; the leader adds.
struct GlobalSink {
  static constexpr bool kMoments = false;  // no volume moments (contact.hpp's sink takes them)
  float* accum;
  int stride;
  SILT_HD SILT_FORCEINLINE void add(const LaneGroup& group, const StencilMap& m, const int* nb,
                                    int ii, int j, int k, float (&s)[4]) const {
    group_sum(group, s);
    if (group.leader)
      atomic_add4(accum + stride * stencil_node(m, nb, ii, j, k), s[0], s[1], s[2], s[3]);
  }
  SILT_HD SILT_FORCEINLINE void add_force(const LaneGroup& group, const StencilMap& m,
                                          const int* nb, int ii, int j, int k,
                                          float (&f)[3]) const {
    group_sum(group, f);
    if (group.leader)
      atomic_add4(accum + stride * stencil_node(m, nb, ii, j, k) + 4, f[0], f[1], f[2], 0.0f);
  }
};

/// The scatter of the deterministic mode (fixed_sums.hpp): each share rounded to fixed point,
/// then summed over the lane group and added with 64-bit integer atomics, so that the node sums
/// do not depend on the order of the adds. A share out of range raises kFaultFixedRange.
struct FixedSink {
  static constexpr bool kMoments = false;
  long long* sums;
  int stride;
  FixedScale scale;
  FaultView fault;
  template <int N>
  SILT_HD SILT_FORCEINLINE void add_at(const LaneGroup& group, const StencilMap& m, const int* nb,
                                       int ii, int j, int k, int c0, const float (&s)[N]) const {
    long long q[N];
    int bad = -1;
    for (int c = 0; c < N; ++c)
      if (!to_fixed(s[c], scale.to_fixed[fixed_kind(c0 + c)], q[c])) bad = c0 + c;
    if (bad >= 0) fault.raise(kFaultFixedRange, stencil_node(m, nb, ii, j, k), bad);
    group_sum(group, q);
    if (!group.leader) return;
    long long* p = sums + stride * stencil_node(m, nb, ii, j, k) + c0;
    for (int c = 0; c < N; ++c) fixed_atomic_add(p + c, q[c]);
  }
  SILT_HD SILT_FORCEINLINE void add(const LaneGroup& group, const StencilMap& m, const int* nb,
                                    int ii, int j, int k, float (&s)[4]) const {
    add_at(group, m, nb, ii, j, k, 0, s);
  }
  SILT_HD SILT_FORCEINLINE void add_force(const LaneGroup& group, const StencilMap& m,
                                          const int* nb, int ii, int j, int k,
                                          float (&f)[3]) const {
    add_at(group, m, nb, ii, j, k, 4, f);
  }
};

SILT_HD SILT_FORCEINLINE GlobalSink global_sink(const GridView& g) {
  return GlobalSink{g.accum, g.accum_stride};
}

/// Scatters one particle at x (m), binned into block `block` with home coordinates hb, to its 3^D
/// nodes: mass and momentum, plus the MLS stress force (Hu et al. 2018). With a.split_force the
/// force goes to its own channels (accumulator stride 8) so that the scatter needs no dt: ASFLIP
/// needs the grid velocity before forces, and G2P2G scatters before the next dt is known. Otherwise
/// the force is fused into the momentum as the impulse dt f (stride 4, half the atomics). Returns
/// false, scattering nothing, when the stencil leaves the block's free zone.
template <int D, class Sink>
SILT_HD SILT_FORCEINLINE bool scatter_particle(const TransferArgs& a, const GridView& g,
                                               const Vec3f& x, int block, const int hb[3],
                                               const ParticleClass& pc, const Vec3f& v,
                                               const Mat3f& c, const Mat3f& tau, float dt,
                                               const Sink& sink) {
  const BSplineQ<float> s = bspline_quadratic<D>(
      x, Vec3f{a.geo.origin[0], a.geo.origin[1], a.geo.origin[2]}, a.geo.inv_dx);
  if (!in_free_zone(s.base, hb)) return false;
  const StencilMap m = stencil_map(s.base, hb);
  const int* nb = g.neighbours + 27 * block;
  const float dinv = mls_dinv(a.geo.dx);
  // Momentum part (APIC) and force part (-V0 D^-1 tau (x_i - x_p) w, N): p2g_particle with dt = 0
  // gives the first, with zero mass and dt = 1 the second; the fused form uses dt itself.
  const P2GParticle<float> q =
      p2g_particle(pc.mass, v, c, pc.volume0, tau, a.split_force ? 0.0f : dt, dinv);
  const P2GParticle<float> qf =
      p2g_particle(0.0f, Vec3f::zero(), Mat3f::zero(), pc.volume0, tau, 1.0f, dinv);
  // Lanes with the same base share all their nodes: they sum in registers, one lane adds.
  const LaneGroup group = lane_group(stencil_node(m, nb, 0, 0, 0), a.warp_groups);
  SILT_MPM_UNROLL for (int n = 0; n < kStencilNodes<D>; ++n) {
    const int ii = n % 3, j = (n / 3) % 3, k = n / 9;
    const float w = s.weight(ii, j, k);
    const Vec3f dpos = s.dpos(ii, j, k, a.geo.dx);
    const Vec3f mv = p2g_node_momentum(q, w, dpos);
    float share[4] = {w * pc.mass, mv[0], mv[1], mv[2]};
    sink.add(group, m, nb, ii, j, k, share);
    // Multi-field contact (contact.hpp): the particle's volume and volume moment, sum V w dpos.
    if constexpr (Sink::kMoments) sink.add_moment(m, nb, ii, j, k, w * pc.volume0, dpos);
    if (a.split_force) {
      const Vec3f f = p2g_node_momentum(qf, w, dpos);
      float force[3] = {f[0], f[1], f[2]};
      sink.add_force(group, m, nb, ii, j, k, force);
    }
  }
  return true;
}

template <int D>
SILT_HD SILT_FORCEINLINE bool scatter_particle(const TransferArgs& a, const GridView& g,
                                               const Vec3f& x, int block, const int hb[3],
                                               const ParticleClass& pc, const Vec3f& v,
                                               const Mat3f& c, const Mat3f& tau, float dt) {
  return scatter_particle<D>(a, g, x, block, hb, pc, v, c, tau, dt, global_sink(g));
}

/// Fluid particles: their compressed wave speed into a.wave_max for the next dt (f: the deformation
/// gradient after material_stress, J^(1/3) I for a fluid).
SILT_HD SILT_FORCEINLINE void fold_wave_speed(const TransferArgs& a, const MaterialParams<float>& m,
                                              const Mat3f& f) {
  if (m.model == MaterialKind::fluid && a.wave_max)
    fold_max_speed(a.wave_max, compressed_wave_speed(m, determinant(f)));
}

/// Particle i's F advanced with dt_prev (s): the F that P2G's material model takes.
SILT_HD SILT_FORCEINLINE Mat3f p2g_deformation(const ParticleView& p, Index i, float dt_prev) {
  return update_deformation(load9(p.f, i), load9(p.c, i), dt_prev);
}

/// The per-particle start of P2G: F advanced with dt_prev (s), plasticity and stress (stored back;
/// svd_of as material_stress takes it). Returns the Kirchhoff stress tau (Pa) and the particle's
/// state for the scatter.
template <class SvdOf = ComputeSvd3>
SILT_HD SILT_FORCEINLINE Mat3f p2g_material(const TransferArgs& a, const ParticleView& p, Index i,
                                            float dt_prev, Vec3f& x, Vec3f& v, Mat3f& c,
                                            const ParticleClass*& pc,
                                            const SvdOf& svd_of = SvdOf{}) {
  x = load3(p.x, i);
  v = load3(p.v, i);
  c = load9(p.c, i);
  Mat3f f = update_deformation(load9(p.f, i), c, dt_prev);
  float plastic = p.plastic[i];
  pc = &a.classes[p.material[i]];
  const Mat3f tau = material_stress(pc->material, f, plastic, c, svd_of);
  fold_wave_speed(a, pc->material, f);
  store9(p.f, i, f);
  p.plastic[i] = plastic;
  return tau;
}

/// P2G for particle i with step size dt (s). F is first advanced with the previous step's C and
/// dt_prev (s): Hu et al. 2019a move that update from the end of G2P to the start of P2G, where F
/// is read anyway, so F is written once per step (dt_prev = 0 when F is already current, as after
/// G2P2G). Then plasticity and stress (material_k), then the scatter.
/// sink: where the shares go (global_sink(g): the grid's accumulators with atomics; the host
/// backend passes a per-thread partial grid, mpm/host/scatter.hpp). svd_of: as material_stress
/// takes it (the host backend's P2G passes SVDs computed for a pack of particles,
/// mpm/host/p2g.cpp).
template <int D, class Sink, class SvdOf = ComputeSvd3>
SILT_HD SILT_FORCEINLINE void p2g_particle_body(const TransferArgs& a, const ParticleView& p,
                                                const GridView& g, Index i, float dt, float dt_prev,
                                                const FaultView& fault, const Sink& sink,
                                                const SvdOf& svd_of = SvdOf{}) {
  Vec3f x, v;
  Mat3f c;
  const ParticleClass* pc;
  const Mat3f tau = p2g_material(a, p, i, dt_prev, x, v, c, pc, svd_of);
  if (p.block[i] < 0) return;  // binning failed on an overflow, already raised
  int hb[3];
  home_coords(p, g, i, hb);
  // The G2P guard forces a rebuild before a particle can leave its zone; reaching this means a
  // particle moved more than 3 cells in one step.
  if (!scatter_particle<D>(a, g, x, p.block[i], hb, *pc, v, c, tau, dt, sink))
    fault.raise(kFaultZoneEscape, p.id[i], 0);
}

template <int D>
SILT_HD SILT_FORCEINLINE void p2g_particle_body(const TransferArgs& a, const ParticleView& p,
                                                const GridView& g, Index i, float dt, float dt_prev,
                                                const FaultView& fault) {
  p2g_particle_body<D>(a, p, g, i, dt, dt_prev, fault, global_sink(g));
}

/// The rest of particle i's G2P once acc holds its stencil sums (x: its position, m): C, the new
/// velocity and position, kept inside the domain box and moved out of the colliders at t_end (s),
/// the time at the end of the step, so no particle ends a step past a wall. Returns false, with
/// kFaultNaN raised for the particle's id, on a non-finite result.
SILT_HD SILT_FORCEINLINE bool g2p_finish(const TransferArgs& a, const ParticleView& p, Index i,
                                         float dt, float t_end, const Vec3f& x,
                                         const G2PAccum<float>& acc, ParticleAdvance<float>& adv,
                                         Mat3f& c, const FaultView& fault) {
  c = g2p_affine(acc, mls_dinv(a.geo.dx));
  if (a.asflip) {
    // J of the stored F (one step behind in the split pipeline, current after G2P2G).
    const float j = determinant(load9(p.f, i));
    adv = advance_asflip(acc, x, load3(p.v, i), a.flip, asflip_advect_weight(j, a.advect), dt);
  } else {
    adv = advance_apic(acc, x, dt);
  }
  if (a.n_colliders > 0) adv.x = project_out_of_colliders(adv.x, t_end, a.colliders, a.n_colliders);
  for (int d = 0; d < 3; ++d) adv.x[d] = math::clamp(adv.x[d], a.clamp_lo[d], a.clamp_hi[d]);
  if (!finite3(adv.x) || !finite3(adv.v)) {
    fault.raise(kFaultNaN, p.id[i], 0);
    return false;
  }
  return true;
}

/// The G2P gather for particle i: new velocity, position and C (g2p_finish). Returns false when
/// g2p_finish does, or when the stencil leaves the zone.
template <int D>
SILT_HD SILT_FORCEINLINE bool g2p_gather(const TransferArgs& a, const ParticleView& p,
                                         const GridView& g, Index i, float dt, float t_end,
                                         const int hb[3], ParticleAdvance<float>& adv, Mat3f& c,
                                         const FaultView& fault) {
  const Vec3f x = load3(p.x, i);
  const BSplineQ<float> s = bspline_quadratic<D>(
      x, Vec3f{a.geo.origin[0], a.geo.origin[1], a.geo.origin[2]}, a.geo.inv_dx);
  // Only a particle whose P2G already raised kFaultZoneEscape fails this; it must not gather
  // from nodes outside its zone.
  if (!in_free_zone(s.base, hb)) return false;
  const StencilMap m = stencil_map(s.base, hb);
  const int* nb = g.neighbours + 27 * p.block[i];
  G2PAccum<float> acc = g2p_begin<float>();
  SILT_MPM_UNROLL for (int n = 0; n < kStencilNodes<D>; ++n) {
    const int ii = n % 3, j = (n / 3) % 3, k = n / 9;
    const int node = stencil_node(m, nb, ii, j, k);
    const float w = s.weight(ii, j, k);
    const Vec3f vn = load_node3(g.vel, node);
    if (a.asflip)
      g2p_add_asflip(acc, w, vn, load_node3(g.vel_old, node), s.dpos(ii, j, k, a.geo.dx));
    else
      g2p_add(acc, w, vn, s.dpos(ii, j, k, a.geo.dx));
  }
  return g2p_finish(a, p, i, dt, t_end, x, acc, adv, c, fault);
}

/// The end of particle i's G2P: raises the free-zone flag when the new position's stencil leaves
/// the home block (hb) 3x3x3 zone, so that the next step rebuilds (paper 000 §4.2.1), stores x, v
/// and C, and folds the new speed into *vmax (m/s) for the next step's dt (speed_max.hpp).
template <int D>
SILT_HD SILT_FORCEINLINE void g2p_store(const TransferArgs& a, const ParticleView& p, Index i,
                                        const int hb[3], const ParticleAdvance<float>& adv,
                                        const Mat3f& c, int* zone_escape, float* vmax) {
  const BSplineQ<float> s_new = bspline_quadratic<D>(
      adv.x, Vec3f{a.geo.origin[0], a.geo.origin[1], a.geo.origin[2]}, a.geo.inv_dx);
  // Benign race: every writer stores 1.
  if (!in_free_zone(s_new.base, hb, a.zone_margin)) *zone_escape = 1;
  store3(p.x, i, adv.x);
  store3(p.v, i, adv.v);
  store9(p.c, i, c);
  fold_max_speed(vmax, particle_speed(adv.v[0], adv.v[1], adv.v[2]));
}

/// G2P for particle i with step size dt (s): new v, C and x (g2p_gather, g2p_store).
template <int D>
SILT_HD SILT_FORCEINLINE void g2p_particle_body(const TransferArgs& a, const ParticleView& p,
                                                const GridView& g, Index i, float dt, float t_end,
                                                int* zone_escape, float* vmax,
                                                const FaultView& fault) {
  int hb[3];
  home_coords(p, g, i, hb);
  ParticleAdvance<float> adv;
  Mat3f c;
  if (!g2p_gather<D>(a, p, g, i, dt, t_end, hb, adv, c, fault)) return;
  g2p_store<D>(a, p, i, hb, adv, c, zone_escape, vmax);
}

/// G2P of this step and P2G of the next for particle i, in one pass over its state (Wang et al.
/// 2020; paper 000 §4.2 keeps it for small scenes without emitters). F is advanced with this
/// step's dt right away. The scatter needs no dt (split force channels). A particle whose new
/// stencil leaves its zone cannot scatter: it raises the free-zone flag, and the next step rebuilds
/// and scatters every particle again before its grid update. The new speed goes into *vmax (m/s).
template <int D, class Sink>
SILT_HD SILT_FORCEINLINE void g2p2g_particle_body(const TransferArgs& a, const ParticleView& p,
                                                  const GridView& g, Index i, float dt, float t_end,
                                                  int* zone_escape, float* vmax,
                                                  const FaultView& fault, const Sink& sink) {
  int hb[3];
  home_coords(p, g, i, hb);
  ParticleAdvance<float> adv;
  Mat3f c;
  if (!g2p_gather<D>(a, p, g, i, dt, t_end, hb, adv, c, fault)) return;
  Mat3f f = update_deformation(load9(p.f, i), c, dt);
  float plastic = p.plastic[i];
  const ParticleClass& pc = a.classes[p.material[i]];
  const Mat3f tau = material_stress(pc.material, f, plastic, c);
  fold_wave_speed(a, pc.material, f);
  store3(p.x, i, adv.x);
  store3(p.v, i, adv.v);
  fold_max_speed(vmax, particle_speed(adv.v[0], adv.v[1], adv.v[2]));
  store9(p.c, i, c);
  store9(p.f, i, f);
  p.plastic[i] = plastic;
  if (!scatter_particle<D>(a, g, adv.x, p.block[i], hb, pc, adv.v, c, tau, 0.0f, sink))
    *zone_escape = 1;
}

template <int D>
SILT_HD SILT_FORCEINLINE void g2p2g_particle_body(const TransferArgs& a, const ParticleView& p,
                                                  const GridView& g, Index i, float dt, float t_end,
                                                  int* zone_escape, float* vmax,
                                                  const FaultView& fault) {
  g2p2g_particle_body<D>(a, p, g, i, dt, t_end, zone_escape, vmax, fault, global_sink(g));
}

}  // namespace silt::mpm::detail
