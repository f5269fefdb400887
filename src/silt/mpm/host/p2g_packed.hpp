// The body of the host P2G for one pack type (mpm/host/p2g.hpp): particles in batches, their F and
// SVDs on lanes, the sand (Drucker-Prager) model on the same lanes and the other materials
// particle by particle, then the scatter's arithmetic on packs of particles, added particle by
// particle so that every node sums in the per-particle order (docs/NOTES.md, "The P2G scatter on
// packs", "The sand model on packs"). Included only by the host-compiled units that
// instantiate it, each with a pack tagged by a type of its own anonymous namespace, so that every
// function instantiated here has internal linkage: mpm/host/p2g.cpp (SSE2, 4 lanes) and
// mpm/host/transfer_isa.cpp (built for AVX2, 8 lanes, and AVX-512F, 16 lanes): a
// wider unit's copy of a shared inline function can never replace the baseline one at link time.
#pragma once

#include <algorithm>

#include "silt/core/math/float_pack.hpp"
#include "silt/mpm/host/scatter.hpp"
#include "silt/mpm/host/stencil.hpp"
#include "silt/mpm/host/svd.hpp"
#include "silt/mpm/transfer_body.hpp"

namespace silt::mpm::detail {

/// The AVX2 and AVX-512 units' P2G of particles [lo, hi) into sink (mpm/host/transfer_isa.cpp; call
/// only where host_packs() allows them). dims 2 or 3; dt_prev as p2g_range takes it.
namespace avx2 {
void host_p2g_range(int dims, const TransferArgs& a, const ParticleView& p, const GridView& g,
                    Index lo, Index hi, float dt, float dt_prev, const FaultView& fault,
                    const HostSink& sink);
}  // namespace avx2
namespace avx512 {
void host_p2g_range(int dims, const TransferArgs& a, const ParticleView& p, const GridView& g,
                    Index lo, Index hi, float dt, float dt_prev, const FaultView& fault,
                    const HostSink& sink);
}  // namespace avx512

namespace packed {

/// material_stress's SVD of a particle, taken from lane l of its pack's (the same F, the same
/// bits).
template <class P>
struct LaneSvd3 {
  const Svd3<P>* d;
  int l;
  Svd3<float> operator()(const Mat3f&) const {
    Svd3<float> s;
    for (int r = 0; r < 3; ++r) {
      s.sigma[r] = d->sigma[r][l];
      for (int c = 0; c < 3; ++c) {
        s.u.m[r][c] = d->u.m[r][c][l];
        s.v.m[r][c] = d->v.m[r][c][l];
      }
    }
    return s;
  }
};

/// The F that P2G's material models take (p2g_deformation) and their SVDs, for particles
/// [i0, i0 + n), n <= B, in packs of W: lane l of pack k is particle i0 + W k + l. Lanes without
/// a particle that needs an SVD hold the identity; no SVD is computed (d left unset) when no
/// particle needs one. svd(f, d) decomposes the B / W packs f.
template <class P, int W, int B, class Svd>
void batch_svd(const TransferArgs& a, const ParticleView& p, Index i0, int n, float dt_prev,
               const Svd& svd, Mat3<P> (&f)[B / W], Svd3<P> (&d)[B / W]) {
  bool needed = false;
  for (int l = 0; l < B; ++l) {
    Mat3f fl = Mat3f::identity();
    if (l < n && material_uses_svd(a.classes[p.material[i0 + l]].material)) {
      needed = true;
      fl = p2g_deformation(p, i0 + l, dt_prev);
    }
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) f[l / W].m[r][c].set(l % W, fl.m[r][c]);
  }
  if (needed) svd(f, d);
}

/// What P2G's scatter takes of particle i once its material model has run (p2g_material).
struct ScatterInput {
  Vec3f x, v;    // m, m/s
  Mat3f c, tau;  // 1/s, Pa
  const ParticleClass* pc;
  int hb[3];             // home block coordinates
  BSplineQ<float> s;     // weights at x
  bool scatter = false;  // binned (block >= 0) and inside its free zone
  bool escaped = false;  // binned, but the stencil left the zone (kFaultZoneEscape)
};

/// p2g_material for the particles [i0, i0 + n) of a pack (n <= W) with their F and SVDs from
/// batch_svd: the Drucker-Prager particles on lanes (drucker_prager_update on packs, log and exp
/// by log_exp_lanes.hpp: each lane the bits of the per-particle model), every other material
/// particle by particle; x, v, c, pc and tau into in.
template <class P, int W>
SILT_FORCEINLINE void material_pack(const TransferArgs& a, const ParticleView& p, Index i0, int n,
                                    float dt_prev, Mat3<P> f, const Svd3<P>& sd,
                                    ScatterInput (&in)[W]) {
  bool sand[W];
  bool any_sand = false;
  for (int l = 0; l < W; ++l) {
    const Index i = i0 + l;
    sand[l] = l < n && a.classes[p.material[i]].material.model == MaterialKind::drucker_prager;
    any_sand = any_sand || sand[l];
    if (l < n && !sand[l])
      in[l].tau =
          p2g_material(a, p, i, dt_prev, in[l].x, in[l].v, in[l].c, in[l].pc, LaneSvd3<P>{&sd, l});
  }
  if (!any_sand) return;
  // Lanes without a sand particle run on their F and SVD (or the identity) with unit moduli;
  // they are not read.
  P vc, mu, lambda, alpha, cohesion, correction;
  for (int l = 0; l < W; ++l) {
    const Index i = i0 + l;
    const MaterialParams<float>* m = nullptr;
    if (sand[l]) {
      in[l].x = load3(p.x, i);
      in[l].v = load3(p.v, i);
      in[l].c = load9(p.c, i);
      in[l].pc = &a.classes[p.material[i]];
      m = &in[l].pc->material;
    }
    vc.set(l, m ? p.plastic[i] : 0.0f);
    mu.set(l, m ? m->mu : 1.0f);
    lambda.set(l, m ? m->lambda : 1.0f);
    alpha.set(l, m ? m->dp_alpha : 0.0f);
    cohesion.set(l, m ? m->cohesion : 0.0f);
    correction.set(l, m ? m->volume_correction : 0.0f);
  }
  const Mat3<P> tau = drucker_prager_update(sd, f, vc, mu, lambda, alpha, cohesion, correction);
  // As p2g_material stores them (a sand particle folds no wave speed).
  for (int l = 0; l < W; ++l) {
    if (!sand[l]) continue;
    const Index i = i0 + l;
    Mat3f fl;
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) {
        fl.m[r][c] = f.m[r][c][l];
        in[l].tau.m[r][c] = tau.m[r][c][l];
      }
    store9(p.f, i, fl);
    p.plastic[i] = vc[l];
  }
}

/// The stencil shares of one particle, in stencil order: mass and momentum (kg, kg m/s), and with
/// split force the force (N, the fourth channel 0), 16 bytes each, as HostSink::add4 adds them.
struct alignas(16) ParticleShares {
  float q[27][4];
  float f[27][4];
};

/// scatter_particle's arithmetic for a pack of W particles on lanes (the B-spline weights,
/// p2g_particle and p2g_node_momentum of every node: the same operations in each lane as in the
/// scalar path), into out; the adds stay per particle in particle order (scatter_pack), so that
/// every node sums its shares in the scalar order.
template <class P, int W, int D>
SILT_FORCEINLINE void pack_shares(const TransferArgs& a, const ScatterInput (&in)[W], float dt,
                                  ParticleShares (&out)[W]) {
  P w[3][3], fx[3], mass, volume0;
  Vec3<P> v;
  Mat3<P> c, tau;
  for (int l = 0; l < W; ++l) {
    // Lanes without a scatter compute on zeros; their shares are not read.
    const bool on = in[l].scatter;
    for (int d = 0; d < 3; ++d) {
      fx[d].set(l, on ? in[l].s.fx[d] : 0.0f);
      for (int k = 0; k < 3; ++k) w[d][k].set(l, on ? in[l].s.w[d][k] : 0.0f);
      v[d].set(l, on ? in[l].v[d] : 0.0f);
      for (int e = 0; e < 3; ++e) {
        c.m[d][e].set(l, on ? in[l].c.m[d][e] : 0.0f);
        tau.m[d][e].set(l, on ? in[l].tau.m[d][e] : 0.0f);
      }
    }
    mass.set(l, on ? in[l].pc->mass : 0.0f);
    volume0.set(l, on ? in[l].pc->volume0 : 0.0f);
  }
  const P dx(a.geo.dx), dinv(mls_dinv(a.geo.dx));
  const P2GParticle<P> q =
      p2g_particle(mass, v, c, volume0, tau, P(a.split_force ? 0.0f : dt), dinv);
  const P2GParticle<P> qf =
      p2g_particle(P(0.0f), Vec3<P>::zero(), Mat3<P>::zero(), volume0, tau, P(1.0f), dinv);
  SILT_MPM_UNROLL for (int n = 0; n < kStencilNodes<D>; ++n) {
    const int ii = n % 3, j = (n / 3) % 3, k = n / 9;
    // BSplineQ::weight and ::dpos, lane by lane.
    const P wn = w[0][ii] * w[1][j] * w[2][k];
    const Vec3<P> dpos{(P(float(ii)) - fx[0]) * dx, (P(float(j)) - fx[1]) * dx,
                       (P(float(k)) - fx[2]) * dx};
    const Vec3<P> mv = p2g_node_momentum(q, wn, dpos);
    float* row[W];
    for (int l = 0; l < W; ++l) row[l] = out[l].q[n];
    const P share[4] = {wn * mass, mv[0], mv[1], mv[2]};
    store_rows4(share, row);
    if (a.split_force) {
      const Vec3<P> f = p2g_node_momentum(qf, wn, dpos);
      for (int l = 0; l < W; ++l) row[l] = out[l].f[n];
      const P force[4] = {f[0], f[1], f[2], P(0.0f)};
      store_rows4(force, row);
    }
  }
}

/// scatter_particle for the particles in[0, n) of a pack (n <= W), in particle order: their
/// shares computed on lanes (pack_shares), then added particle by particle, node by node.
template <class P, int W, int D>
SILT_FORCEINLINE void scatter_pack(const TransferArgs& a, const ParticleView& p, const GridView& g,
                                   Index i0, int n, const ScatterInput (&in)[W], float dt,
                                   const FaultView& fault, const HostSink& sink) {
  bool any_scatter = false;
  for (int l = 0; l < n; ++l) any_scatter = any_scatter || in[l].scatter;
  alignas(32) ParticleShares shares[W];
  if (any_scatter) pack_shares<P, W, D>(a, in, dt, shares);
  const bool split = a.split_force;
  for (int l = 0; l < n; ++l) {
    if (in[l].escaped) fault.raise(kFaultZoneEscape, p.id[i0 + l], 0);
    if (!in[l].scatter) continue;
    const int* nb = g.neighbours + 27 * p.block[i0 + l];
    const StencilMap m = stencil_map(in[l].s.base, in[l].hb);
    int node[kStencilNodes<D>];
    stencil_nodes<D>(m, nb, node);
    if (split) {
      SILT_MPM_UNROLL for (int k = 0; k < kStencilNodes<D>; ++k) {
        sink.add4(node[k], shares[l].q[k]);
        sink.add4_force(node[k], shares[l].f[k]);
      }
    } else {
      SILT_MPM_UNROLL for (int k = 0; k < kStencilNodes<D>; ++k) sink.add4(node[k], shares[l].q[k]);
    }
  }
}

/// p2g_particle_body for the particles [i0, i0 + n) of a batch (n <= B): their SVDs on lanes
/// (svd: batch_svd's), their material models with those SVDs in packs of W (material_pack: sand
/// on lanes, other materials particle by particle; F, plasticity and stress stored as there),
/// then their scatters in packs of W (scatter_pack).
template <class P, int W, int B, int D, class Svd>
SILT_FORCEINLINE void p2g_batch(const TransferArgs& a, const ParticleView& p, const GridView& g,
                                Index i0, int n, float dt, float dt_prev, const Svd& svd,
                                const FaultView& fault, const HostSink& sink) {
  static_assert(B % W == 0, "a batch is whole packs");
  Mat3<P> f[B / W];
  Svd3<P> d[B / W];
  batch_svd<P, W, B>(a, p, i0, n, dt_prev, svd, f, d);
  for (int l0 = 0; l0 < n; l0 += W) {
    const int np = std::min(W, n - l0);
    ScatterInput in[W];
    material_pack<P, W>(a, p, i0 + l0, np, dt_prev, f[l0 / W], d[l0 / W], in);
    for (int l = 0; l < np; ++l) {
      const Index i = i0 + l0 + l;
      ScatterInput& r = in[l];
      if (p.block[i] < 0) continue;  // binning failed on an overflow, already raised
      home_coords(p, g, i, r.hb);
      r.s = bspline_quadratic<D>(r.x, Vec3f{a.geo.origin[0], a.geo.origin[1], a.geo.origin[2]},
                                 a.geo.inv_dx);
      // As in p2g_particle_body: the G2P guard forces a rebuild before a particle can leave its
      // zone; reaching this means a particle moved more than 3 cells in one step.
      r.scatter = in_free_zone(r.s.base, r.hb);
      r.escaped = !r.scatter;
    }
    scatter_pack<P, W, D>(a, p, g, i0 + l0, np, in, dt, fault, sink);
  }
}

/// P2G of the particles [lo, hi) into sink: batches of B particles (svd decomposes B / W packs of
/// matrices, batch_svd), scattered in packs of W (P: FloatPack<W, the unit's tag>).
template <class P, int W, int B, int D, class Svd>
void p2g_range(const TransferArgs& a, const ParticleView& p, const GridView& g, Index lo, Index hi,
               float dt, float dt_prev, const Svd& svd, const FaultView& fault,
               const HostSink& sink) {
  for (Index i0 = lo; i0 < hi; i0 += B)
    p2g_batch<P, W, B, D>(a, p, g, i0, int(std::min<Index>(B, hi - i0)), dt, dt_prev, svd, fault,
                          sink);
}

}  // namespace packed
}  // namespace silt::mpm::detail
