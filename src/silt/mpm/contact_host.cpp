// Multi-field contact on the host backend (contact.hpp): the contact step's P2G, grid update and
// G2P as OpenMP loops over contact_body.hpp. Compiled by the host compiler in every build (no CUDA
// launches).
#include <omp.h>

#include <algorithm>

#include "silt/core/gated_for.hpp"
#include "silt/mpm/contact_body.hpp"
#include "silt/mpm/contact_phases.hpp"
#include "silt/mpm/host/scatter.hpp"
#include "silt/mpm/host/svd.hpp"

namespace silt::mpm::detail {

namespace {

/// Plain adds: each OpenMP thread has its own grids (mpm/host/scatter.hpp).
struct HostAdd {
  static void add4(float* q, const float (&s)[4]) { HostSink::add4_at(q, s); }
};
using HostContactSink = ContactSink<HostAdd>;

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
                       HostContactSink cs) {
  Mat3f f[kHostSvdLanes];
  Svd3<float> d[kHostSvdLanes];
  for (Index i0 = lo; i0 < hi; i0 += kHostSvdLanes) {
    const int n = int(std::min<Index>(kHostSvdLanes, hi - i0));
    for (int l = 0; l < kHostSvdLanes; ++l)
      f[l] = l < n && material_uses_svd(a.classes[p.material[i0 + l]].material)
                 ? p2g_deformation(p, i0 + l, dt_prev)
                 : Mat3f::identity();
    host_svd3(f, d, avx);
    for (int l = 0; l < n; ++l) {
      const Index i = i0 + l;
      cs.first = a.classes[p.material[i]].first_body != 0;
      p2g_particle_body<D>(a, p, g, i, dt, dt_prev, fault, cs, GivenSvd{&d[l]});
    }
  }
}

template <int D>
void contact_p2g(const TransferArgs& a, const ParticleView& p, const GridView& g, StepControl* ctl,
                 const FaultView& fault, HostPartials parts, float* sums, float* partials) {
  const float dt = ctl->dt, dt_prev = ctl->dt_prev;
  static const bool avx = host_svd_has_avx();
  const Index blocks = std::min<Index>(std::max(ctl->num_blocks, 0), g.capacity);
  const long long slab = static_cast<long long>(kContactChannels) * kBlockNodes * g.capacity;
  host_scatter("mpm.p2g.contact", a.particles, &ctl->active, g, ctl->accum_parity,
               blocks * kBlockNodes, parts, fault, [&](Index lo, Index hi, const HostSink& sink) {
                 const int t = omp_get_thread_num();
                 const HostContactSink cs{sink.accum, sink.stride,
                                          t == 0 ? sums : partials + (t - 1) * slab, false};
                 contact_p2g_range<D>(a, p, g, lo, hi, dt, dt_prev, fault, avx, cs);
               });
  // Every slab (those of threads the scatter did not run are zero).
  if (ctl->active == 0 || a.particles <= 0 || parts.slabs < 1) return;
  const long long values = static_cast<long long>(blocks) * kBlockNodes * kContactChannels;
#pragma omp parallel for schedule(static)
  for (long long j = 0; j < values; ++j) sum_slabs(sums, partials, slab, parts.slabs, j);
}

template <int D>
void contact_g2p(const TransferArgs& a, const ParticleView& p, const GridView& g, StepControl* ctl,
                 const FaultView& fault, const ContactView& c) {
  const float dt = ctl->dt, t_end = float(ctl->time);
  auto body = [&](Index i) {
    contact_g2p_particle<D>(a, p, g, c, i, dt, t_end, &ctl->zone_escape, &ctl->vmax, fault);
  };
  silt::detail::gated_host_loop("mpm.g2p.contact", a.particles, &ctl->active, body);
}

}  // namespace

void host_contact_p2g(const TransferArgs& a, const ParticleView& p, const GridView& g,
                      StepControl* ctl, const FaultView& fault, HostPartials parts,
                      const ContactView& c) {
  if (a.dims == 2)
    contact_p2g<2>(a, p, g, ctl, fault, parts, c.sums, c.partials);
  else
    contact_p2g<3>(a, p, g, ctl, fault, parts, c.sums, c.partials);
}

void host_contact_grid_update(const GridArgs& a, const GridView& g, StepControl* ctl,
                              const ContactView& c) {
  const Index nodes = std::min<Index>(std::max(ctl->num_blocks, 0), g.capacity) * kBlockNodes;
  float* accum = accum_of(g, ctl->accum_parity);
  const float dt = ctl->dt;
  const double time = ctl->time;
  auto body = [&](Index node) {
    contact_node_update(a, g, c, accum, dt, time, node, int(node / kBlockNodes));
  };
  silt::detail::gated_host_loop("mpm.grid_update.contact", nodes, &ctl->active, body);
}

void host_contact_g2p(const TransferArgs& a, const ParticleView& p, const GridView& g,
                      StepControl* ctl, const FaultView& fault, const ContactView& c) {
  if (a.dims == 2)
    contact_g2p<2>(a, p, g, ctl, fault, c);
  else
    contact_g2p<3>(a, p, g, ctl, fault, c);
}

}  // namespace silt::mpm::detail
