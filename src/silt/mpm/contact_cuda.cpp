// Multi-field contact on the CUDA backend (contact.hpp): the contact step's P2G, grid update and
// G2P as launches over contact_body.hpp, reading dt, time, the block count and the accumulator
// parity on the device (no host synchronisation inside a step; the launches are recorded in the
// frame's CUDA graph like the single-grid ones). Compiled by nvcc in a CUDA build; the host
// compiler builds it too, where no CUDA executor reaches it.
#include "silt/core/gated_for.hpp"
#include "silt/core/parallel_for.hpp"
#include "silt/mpm/contact_body.hpp"
#include "silt/mpm/contact_phases.hpp"

namespace silt::mpm::detail {

namespace {

/// Native atomics straight into the global sums (GlobalSink's, without its lane groups).
struct AtomicAdd {
  SILT_HD SILT_FORCEINLINE static void add4(float* q, const float (&s)[4]) {
    atomic_add4(q, s[0], s[1], s[2], s[3]);
  }
};

/// The single-grid transfers' launch shape (transfer.cpp).
template <class F>
void contact_transfer_for(const Exec& exec, const char* label, Index n, const int* gate, F body) {
  bounded_gated_for<256, 3>(exec, label, n, gate, body);
}

template <int D>
void p2g_in(const Exec& exec, TransferArgs a, const ParticleView& p, const GridView& g,
            StepControl* ctl, const FaultView& fault, const ContactView& c) {
  a.warp_groups = false;  // ContactSink: the lanes of a group may belong to different bodies
  float* sums = c.sums;
  contact_transfer_for(
      exec, "mpm.p2g.contact", a.particles, &ctl->active, SILT_LAMBDA(Index i) {
        const ContactSink<AtomicAdd> sink{accum_of(g, ctl->accum_parity), g.accum_stride, sums,
                                          a.classes[p.material[i]].first_body != 0};
        p2g_particle_body<D>(a, p, g, i, ctl->dt, ctl->dt_prev, fault, sink);
      });
}

template <int D>
void g2p_in(const Exec& exec, const TransferArgs& a, const ParticleView& p, const GridView& g,
            StepControl* ctl, const FaultView& fault, const ContactView& c) {
  contact_transfer_for(
      exec, "mpm.g2p.contact", a.particles, &ctl->active, SILT_LAMBDA(Index i) {
        contact_g2p_particle<D>(a, p, g, c, i, ctl->dt, float(ctl->time), &ctl->zone_escape,
                                &ctl->vmax, fault);
      });
}

}  // namespace

void cuda_contact_p2g(const Exec& exec, const TransferArgs& a, const ParticleView& p,
                      const GridView& g, StepControl* ctl, const FaultView& fault,
                      const ContactView& c) {
  if (a.dims == 2)
    p2g_in<2>(exec, a, p, g, ctl, fault, c);
  else
    p2g_in<3>(exec, a, p, g, ctl, fault, c);
}

void cuda_contact_grid_update(const Exec& exec, const GridArgs& a, const GridView& g,
                              StepControl* ctl, const ContactView& c) {
  // The whole capacity: the block count is known on the device only.
  gated_for(
      exec, "mpm.grid_update.contact", g.capacity * kBlockNodes, &ctl->active,
      SILT_LAMBDA(Index node) {
        const int b = int(node / kBlockNodes);
        if (b >= ctl->num_blocks) return;
        contact_node_update(a, g, c, accum_of(g, ctl->accum_parity), ctl->dt, ctl->time, node, b);
      });
}

void cuda_contact_g2p(const Exec& exec, const TransferArgs& a, const ParticleView& p,
                      const GridView& g, StepControl* ctl, const FaultView& fault,
                      const ContactView& c) {
  if (a.dims == 2)
    g2p_in<2>(exec, a, p, g, ctl, fault, c);
  else
    g2p_in<3>(exec, a, p, g, ctl, fault, c);
}

}  // namespace silt::mpm::detail
