// Multi-field contact on the host backend (contact.hpp): the contact step's P2G, grid update and
// G2P. Compiled by the host compiler in every build (OpenMP, no CUDA launches).
#include "silt/mpm/contact.hpp"

#include <fmt/format.h>
#include <omp.h>

#include <algorithm>

#include "silt/core/error.hpp"
#include "silt/core/gated_for.hpp"
#include "silt/mpm/grid_update_body.hpp"
#include "silt/mpm/host/scatter.hpp"
#include "silt/mpm/host/svd.hpp"
#include "silt/mpm/transfer_body.hpp"

namespace silt::mpm {

namespace {

/// The scatter sink of a contact step (transfer_body.hpp): a particle's mass, momentum and force
/// into its body's grid (the part's grid for the second body, `sums` for the first), its volume
/// and volume moment into `sums` under its body's channels. Plain adds: each OpenMP thread has its
/// own grids (mpm/host/scatter.hpp).
struct ContactSink {
  static constexpr bool kMoments = true;
  float* accum;  // the part's grid, this thread's
  int stride;
  float* sums;  // the first body's grid, this thread's
  bool first;
  float* at(int node, int c) const {
    return first ? sums + kContactChannels * node + c : accum + stride * node + c;
  }
  void add(const detail::LaneGroup&, const detail::StencilMap& m, const int* nb, int ii, int j,
           int k, float (&s)[4]) const {
    detail::HostSink::add4_at(at(detail::stencil_node(m, nb, ii, j, k), 0), s);
  }
  void add_force(const detail::LaneGroup&, const detail::StencilMap& m, const int* nb, int ii,
                 int j, int k, float (&f)[3]) const {
    const float s[4] = {f[0], f[1], f[2], 0.0f};
    detail::HostSink::add4_at(at(detail::stencil_node(m, nb, ii, j, k), kContactForce), s);
  }
  void add_moment(const detail::StencilMap& m, const int* nb, int ii, int j, int k, float vw,
                  const Vec3f& dpos) const {
    const int node = detail::stencil_node(m, nb, ii, j, k);
    const float s[4] = {vw, vw * dpos[0], vw * dpos[1], vw * dpos[2]};
    detail::HostSink::add4_at(
        sums + kContactChannels * node + (first ? kContactVolumeFirst : kContactVolumeSecond), s);
  }
};

/// material_stress's SVD of a particle, computed beforehand for a batch (host_svd3).
struct GivenSvd {
  const Svd3<float>* s;
  Svd3<float> operator()(const Mat3f&) const { return *s; }
};

/// P2G of particles [lo, hi) into `sink`, their SVDs in batches of kHostSvdLanes (the AVX or SSE2
/// packs of the single-grid P2G: the same F, the same bits; the scalar svd3 took half the time of
/// a contact step).
template <int D>
void contact_p2g_range(const TransferArgs& a, const ParticleView& p, const GridView& g, Index lo,
                       Index hi, float dt, float dt_prev, const FaultView& fault, bool avx,
                       ContactSink cs) {
  Mat3f f[detail::kHostSvdLanes];
  Svd3<float> d[detail::kHostSvdLanes];
  for (Index i0 = lo; i0 < hi; i0 += detail::kHostSvdLanes) {
    const int n = int(std::min<Index>(detail::kHostSvdLanes, hi - i0));
    for (int l = 0; l < detail::kHostSvdLanes; ++l)
      f[l] = l < n && material_uses_svd(a.classes[p.material[i0 + l]].material)
                 ? detail::p2g_deformation(p, i0 + l, dt_prev)
                 : Mat3f::identity();
    detail::host_svd3(f, d, avx);
    for (int l = 0; l < n; ++l) {
      const Index i = i0 + l;
      cs.first = a.classes[p.material[i]].first_body != 0;
      detail::p2g_particle_body<D>(a, p, g, i, dt, dt_prev, fault, cs, GivenSvd{&d[l]});
    }
  }
}

Vec3f vec_at(const float* p) {
  return Vec3f{p[0], p[1], p[2]};
}

void store_vel(float* vel, Index node, const Vec3f& v) {
  float* o = vel + kVelChannels * node;
  o[0] = v[0], o[1] = v[1], o[2] = v[2], o[3] = 0.0f;
}

void copy_node(const GridView& from, const GridView& to, Index node) {
  std::copy_n(from.vel + kVelChannels * node, kVelChannels, to.vel + kVelChannels * node);
  if (from.vel_old)
    std::copy_n(from.vel_old + kVelChannels * node, kVelChannels, to.vel_old + kVelChannels * node);
}

template <int D>
void contact_g2p(const TransferArgs& a, const ParticleView& p, const GridView& g,
                 const GridView& first, StepControl* ctl, const FaultView& fault) {
  const float dt = ctl->dt, t_end = float(ctl->time);
  auto body = [&](Index i) {
    const GridView& own = a.classes[p.material[i]].first_body ? first : g;
    detail::g2p_particle_body<D>(a, p, own, i, dt, t_end, &ctl->zone_escape, &ctl->vmax, fault);
  };
  silt::detail::gated_host_loop("mpm.g2p.contact", a.particles, &ctl->active, body);
}

template <int D>
void contact_p2g(const TransferArgs& a, const ParticleView& p, const GridView& g, StepControl* ctl,
                 const FaultView& fault, HostPartials parts, float* sums, float* partials) {
  const float dt = ctl->dt, dt_prev = ctl->dt_prev;
  static const bool avx = detail::host_svd_has_avx();
  const Index blocks = std::min<Index>(std::max(ctl->num_blocks, 0), g.capacity);
  const long long slab = static_cast<long long>(kContactChannels) * kBlockNodes * g.capacity;
  detail::host_scatter("mpm.p2g.contact", a.particles, &ctl->active, g, ctl->accum_parity,
                       blocks * kBlockNodes, parts, fault,
                       [&](Index lo, Index hi, const detail::HostSink& sink) {
                         const int t = omp_get_thread_num();
                         const ContactSink cs{sink.accum, sink.stride,
                                              t == 0 ? sums : partials + (t - 1) * slab, false};
                         contact_p2g_range<D>(a, p, g, lo, hi, dt, dt_prev, fault, avx, cs);
                       });
  // Every slab (those of threads the scatter did not run are zero).
  if (ctl->active == 0 || a.particles <= 0 || parts.slabs < 1) return;
  const long long values = static_cast<long long>(blocks) * kBlockNodes * kContactChannels;
#pragma omp parallel for schedule(static)
  for (long long j = 0; j < values; ++j) detail::sum_slabs(sums, partials, slab, parts.slabs, j);
}

}  // namespace

ContactGrid::ContactGrid(const Scene& scene, const Exec& exec) : on_(scene.contact.enabled()) {
  if (!on_) return;
  if (exec.is_cuda())
    throw Error(fmt::format(
        "MPM scene '{}': the key 'contact' (a velocity field per body) runs on the CPU backend "
        "only; run with --backend cpu or remove 'contact'",
        scene.name));
  asflip_ = scene.transfer == Transfer::asflip;
  params_ = ContactParams<float>{float(scene.contact.friction), float(scene.contact.gap)};
  cell_volume_ = float(scene.dx * scene.dx * scene.dx);
}

void ContactGrid::fit(const GridView& g, int slabs) {
  if (capacity_ == g.capacity && slabs_ == slabs) return;
  capacity_ = g.capacity;
  slabs_ = slabs;
  const std::size_t nodes = std::size_t(capacity_) * kBlockNodes;
  sums_.assign(nodes * kContactChannels, 0.0f);
  partials_.assign(nodes * kContactChannels * std::size_t(std::max(slabs, 0)), 0.0f);
  vel_.assign(nodes * kVelChannels, 0.0f);
  vel_old_.assign(asflip_ ? nodes * kVelChannels : 0, 0.0f);
}

GridView ContactGrid::first_view(const GridView& g) {
  GridView f = g;
  f.vel = vel_.data();
  f.vel_old = asflip_ ? vel_old_.data() : nullptr;
  return f;
}

void ContactGrid::p2g(const TransferArgs& a, ParticleView p, GridView g, StepControl* ctl,
                      FaultView fault, HostPartials parts) {
  fit(g, parts.slabs);
  if (a.dims == 2)
    contact_p2g<2>(a, p, g, ctl, fault, parts, sums_.data(), partials_.data());
  else
    contact_p2g<3>(a, p, g, ctl, fault, parts, sums_.data(), partials_.data());
}

void ContactGrid::grid_update(const GridArgs& a, GridView g, StepControl* ctl) {
  const GridView first = first_view(g);
  const Index nodes = std::min<Index>(std::max(ctl->num_blocks, 0), g.capacity) * kBlockNodes;
  float* accum = accum_of(g, ctl->accum_parity);
  const bool split = g.accum_stride > kAccumChannels;
  const float dt = ctl->dt, min_mass = a.update.min_mass, cell = cell_volume_;
  const double time = ctl->time;
  auto body = [&](Index node) {
    const int b = int(node / kBlockNodes);
    float sb[kAccumChannelsSplit], sa[kContactChannels];
    float* qb = accum + g.accum_stride * node;
    float* qa = sums_.data() + kContactChannels * node;
    for (int c = 0; c < g.accum_stride; ++c) sb[c] = qb[c], qb[c] = 0.0f;
    for (int c = 0; c < kContactChannels; ++c) sa[c] = qa[c], qa[c] = 0.0f;
    // Each body's momentum after forces: split channels hold the stress force (N).
    const Vec3f tb = vec_at(sb + 1), ta = vec_at(sa + 1);
    const Vec3f pb = split ? tb + vec_at(sb + 4) * dt : tb;
    const Vec3f pa = split ? ta + vec_at(sa + kContactForce) * dt : ta;
    if (!(sa[0] > min_mass)) {  // the second body alone (or none)
      detail::grid_node_update(a, g, dt, time, node, b, sb[0], tb, pb);
      copy_node(g, first, node);
      return;
    }
    detail::grid_node_update(a, first, dt, time, node, b, sa[0], ta, pa);
    if (!(sb[0] > min_mass)) {  // the first body alone
      copy_node(first, g, node);
      return;
    }
    detail::grid_node_update(a, g, dt, time, node, b, sb[0], tb, pb);
    Vec3f va = detail::load_node3(first.vel, int(node)), vb = detail::load_node3(g.vel, int(node));
    const float* ma = sa + kContactVolumeFirst;
    const float* mb = sa + kContactVolumeSecond;
    if (contact_node(sa[0], va, ma[0] / cell, vec_at(ma + 1), sb[0], vb, mb[0] / cell,
                     vec_at(mb + 1), params_)) {
      store_vel(first.vel, node, va);
      store_vel(g.vel, node, vb);
    }
  };
  silt::detail::gated_host_loop("mpm.grid_update.contact", nodes, &ctl->active, body);
}

void ContactGrid::g2p(const TransferArgs& a, ParticleView p, GridView g, StepControl* ctl,
                      FaultView fault) {
  const GridView first = first_view(g);
  if (a.dims == 2)
    contact_g2p<2>(a, p, g, first, ctl, fault);
  else
    contact_g2p<3>(a, p, g, first, ctl, fault);
}

}  // namespace silt::mpm
