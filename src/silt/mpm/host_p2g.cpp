// The host P2G with its SVDs on batches of particles (host_p2g.hpp, host_svd.hpp) and its
// scatter arithmetic on packs of particles, added particle by particle so that every node sums
// in the per-particle order (docs/NOTES.md, "The P2G scatter on packs"). Compiled by the host
// compiler in every build (FloatPack is a GCC vector type that nvcc never sees), with
// -fno-math-errno so the packs' square roots are vector instructions (src/silt/mpm/CMakeLists.txt).
#include "silt/mpm/host_p2g.hpp"

#include <algorithm>

#include "silt/core/math/float_pack.hpp"
#include "silt/mpm/host_scatter.hpp"
#include "silt/mpm/host_stencil.hpp"
#include "silt/mpm/host_svd.hpp"
#include "silt/mpm/transfer_body.hpp"

namespace silt::mpm::detail {

namespace {

/// Particles whose scatter arithmetic shares one pack: SSE2's 4 lanes (baseline x86-64).
constexpr int kScatterLanes = 4;
using Pack = FloatPack<kScatterLanes>;

/// material_stress's SVD of a particle, taken from its batch's (the same F, the same bits).
struct BatchSvd3 {
  const Svd3<float>* d;
  Svd3<float> operator()(const Mat3f&) const { return *d; }
};

/// The SVDs of the F that P2G's material models take, for particles [i0, i0 + n), n <= the
/// batch (none when no particle needs one; lanes without a particle that needs one decompose the
/// identity and are not read).
void batch_svd(const TransferArgs& a, const ParticleView& p, Index i0, int n, float dt_prev,
               bool avx, Svd3<float> (&out)[kHostSvdLanes]) {
  Mat3f f[kHostSvdLanes];
  bool needed = false;
  for (int l = 0; l < kHostSvdLanes; ++l) {
    f[l] = Mat3f::identity();
    if (l >= n || !material_uses_svd(a.classes[p.material[i0 + l]].material)) continue;
    needed = true;
    f[l] = p2g_deformation(p, i0 + l, dt_prev);
  }
  if (needed) host_svd3(f, out, avx);
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

/// The stencil shares of one particle, in stencil order: mass and momentum (kg, kg m/s), and with
/// split force the force (N, the fourth channel 0), 16 bytes each, as HostSink::add4 adds them.
struct alignas(16) ParticleShares {
  float q[27][4];
  float f[27][4];
};

/// scatter_particle's arithmetic for a pack of kScatterLanes particles on lanes (the B-spline
/// weights, p2g_particle and p2g_node_momentum of every node: the same operations in each lane as
/// in the scalar path), into out; the adds stay per particle in particle order (scatter_pack), so
/// that every node sums its shares in the scalar order.
template <int D>
void pack_shares(const TransferArgs& a, const ScatterInput (&in)[kScatterLanes], float dt,
                 ParticleShares (&out)[kScatterLanes]) {
  constexpr int L = kScatterLanes;
  Pack w[3][3], fx[3], mass, volume0;
  Vec3<Pack> v;
  Mat3<Pack> c, tau;
  for (int l = 0; l < L; ++l) {
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
  const Pack dx(a.geo.dx), dinv(mls_dinv(a.geo.dx));
  const P2GParticle<Pack> q =
      p2g_particle(mass, v, c, volume0, tau, Pack(a.split_force ? 0.0f : dt), dinv);
  const P2GParticle<Pack> qf = p2g_particle(Pack(0.0f), Vec3<Pack>::zero(), Mat3<Pack>::zero(),
                                            volume0, tau, Pack(1.0f), dinv);
  SILT_MPM_UNROLL for (int n = 0; n < kStencilNodes<D>; ++n) {
    const int ii = n % 3, j = (n / 3) % 3, k = n / 9;
    // BSplineQ::weight and ::dpos, lane by lane.
    const Pack wn = w[0][ii] * w[1][j] * w[2][k];
    const Vec3<Pack> dpos{(Pack(float(ii)) - fx[0]) * dx, (Pack(float(j)) - fx[1]) * dx,
                          (Pack(float(k)) - fx[2]) * dx};
    const Vec3<Pack> mv = p2g_node_momentum(q, wn, dpos);
    const Pack m = wn * mass;
    for (int l = 0; l < L; ++l) {
      out[l].q[n][0] = m[l];
      out[l].q[n][1] = mv[0][l];
      out[l].q[n][2] = mv[1][l];
      out[l].q[n][3] = mv[2][l];
    }
    if (a.split_force) {
      const Vec3<Pack> f = p2g_node_momentum(qf, wn, dpos);
      for (int l = 0; l < L; ++l) {
        out[l].f[n][0] = f[0][l];
        out[l].f[n][1] = f[1][l];
        out[l].f[n][2] = f[2][l];
        out[l].f[n][3] = 0.0f;
      }
    }
  }
}

/// scatter_particle for the particles in[0, n) of a pack (n <= kScatterLanes), in particle order:
/// their shares computed on lanes (pack_shares), then added particle by particle, node by node.
template <int D>
void scatter_pack(const TransferArgs& a, const ParticleView& p, const GridView& g, Index i0, int n,
                  const ScatterInput (&in)[kScatterLanes], float dt, const FaultView& fault,
                  const HostSink& sink) {
  bool any_scatter = false;
  for (int l = 0; l < n; ++l) any_scatter = any_scatter || in[l].scatter;
  alignas(16) ParticleShares shares[kScatterLanes];
  if (any_scatter) pack_shares<D>(a, in, dt, shares);
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

/// p2g_particle_body for the particles [i0, i0 + n) of a batch (n <= kHostSvdLanes): their
/// material models with the batch's SVDs, particle by particle (F, plasticity and stress stored
/// as there), then their scatters in packs (scatter_pack).
template <int D>
void p2g_batch(const TransferArgs& a, const ParticleView& p, const GridView& g, Index i0, int n,
               float dt, float dt_prev, bool avx, const FaultView& fault, const HostSink& sink) {
  Svd3<float> d[kHostSvdLanes];
  batch_svd(a, p, i0, n, dt_prev, avx, d);
  for (int l0 = 0; l0 < n; l0 += kScatterLanes) {
    const int np = std::min(kScatterLanes, n - l0);
    ScatterInput in[kScatterLanes];
    for (int l = 0; l < np; ++l) {
      const Index i = i0 + l0 + l;
      ScatterInput& r = in[l];
      r.tau = p2g_material(a, p, i, dt_prev, r.x, r.v, r.c, r.pc, BatchSvd3{&d[l0 + l]});
      if (p.block[i] < 0) continue;  // binning failed on an overflow, already raised
      home_coords(p, g, i, r.hb);
      r.s = bspline_quadratic<D>(r.x, Vec3f{a.geo.origin[0], a.geo.origin[1], a.geo.origin[2]},
                                 a.geo.inv_dx);
      // As in p2g_particle_body: the G2P guard forces a rebuild before a particle can leave its
      // zone; reaching this means a particle moved more than 3 cells in one step.
      r.scatter = in_free_zone(r.s.base, r.hb);
      r.escaped = !r.scatter;
    }
    scatter_pack<D>(a, p, g, i0 + l0, np, in, dt, fault, sink);
  }
}

template <int D>
void p2g(const TransferArgs& a, ParticleView p, GridView g, StepControl* ctl, FaultView fault,
         const int* gate, bool advance_f, Index blocks, HostPartials parts) {
  const float dt = ctl->dt, dt_prev = advance_f ? ctl->dt_prev : 0.0f;
  static const bool avx = host_svd_has_avx();
  host_scatter("mpm.p2g", a.particles, gate, accum_of(g, ctl->accum_parity), g.accum_stride,
               blocks * kBlockNodes, parts, [&](Index lo, Index hi, const HostSink& sink) {
                 for (Index i0 = lo; i0 < hi; i0 += kHostSvdLanes)
                   p2g_batch<D>(a, p, g, i0, int(std::min<Index>(kHostSvdLanes, hi - i0)), dt,
                                dt_prev, avx, fault, sink);
               });
}

}  // namespace

bool host_svd_has_avx() {
  return __builtin_cpu_supports("avx");
}

void host_p2g(int dims, const TransferArgs& a, ParticleView p, GridView g, StepControl* ctl,
              FaultView fault, const int* gate, bool advance_f, Index blocks, HostPartials parts) {
  if (dims == 2)
    p2g<2>(a, p, g, ctl, fault, gate, advance_f, blocks, parts);
  else
    p2g<3>(a, p, g, ctl, fault, gate, advance_f, blocks, parts);
}

}  // namespace silt::mpm::detail
