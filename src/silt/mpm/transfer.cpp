// The launches of the essential phases; their bodies are in transfer_body.hpp and kernels/.
#include "silt/core/parallel_for.hpp"
#include "silt/mpm/grid_update_body.hpp"
#include "silt/mpm/pipeline.hpp"
#include "silt/mpm/transfer_body.hpp"
#include "silt/mpm/transfer_launch.hpp"

namespace silt::mpm {

void enqueue_p2g(const Exec& exec, const TransferArgs& a, ParticleView p, GridView g,
                 StepControl* ctl, FaultView fault, const int* gate, bool advance_f) {
  if (a.shared_p2g) {
    enqueue_p2g_shared(exec, a, p, g, ctl, fault, gate, advance_f);
    return;
  }
  transfer_for(
      exec, "mpm.p2g", a.launch, a.particles, gate, SILT_LAMBDA(Index i) {
        GridView gs = g;
        gs.accum = accum_of(g, ctl->accum_parity);
        detail::p2g_particle_body(a, p, gs, i, ctl->dt, advance_f ? ctl->dt_prev : 0.0f, fault);
      });
}

void enqueue_grid_update(const Exec& exec, const GridArgs& a, GridView g, StepControl* ctl) {
  const Index nodes = g.capacity * kBlockNodes;
  gated_for(
      exec, "mpm.grid_update", nodes, &ctl->active, SILT_LAMBDA(Index node) {
        const int b = node / kBlockNodes;
        if (b >= ctl->num_blocks) return;
        const float dt = ctl->dt;
        float* acc = g.accum + g.accum_stride * node;
        const float mass = acc[0];
        const Vec3f transfer{acc[1], acc[2], acc[3]};
        // Split channels hold the stress force (N); fused ones already hold its impulse.
        const Vec3f momentum = g.accum_stride > kAccumChannels
                                   ? transfer + Vec3f{acc[4], acc[5], acc[6]} * dt
                                   : transfer;
        // The accumulators are cleared here, right after their last read, so the next P2G needs no
        // separate clearing launch.
        for (int c = 0; c < g.accum_stride; ++c) acc[c] = 0.0f;
        detail::grid_node_update(a, g, dt, ctl->time, node, b, mass, transfer, momentum);
      });
}

void enqueue_g2p(const Exec& exec, const TransferArgs& a, ParticleView p, GridView g,
                 StepControl* ctl, FaultView fault) {
  transfer_for(
      exec, "mpm.g2p", a.launch, a.particles, &ctl->active, SILT_LAMBDA(Index i) {
        detail::g2p_particle_body(a, p, g, i, ctl->dt, &ctl->zone_escape, &ctl->vmax, fault);
      });
}

void enqueue_g2p2g(const Exec& exec, const TransferArgs& a, ParticleView p, GridView g,
                   StepControl* ctl, FaultView fault) {
  transfer_for(
      exec, "mpm.g2p2g", a.launch, a.particles, &ctl->active, SILT_LAMBDA(Index i) {
        detail::g2p2g_particle_body(a, p, g, i, ctl->dt, &ctl->zone_escape, &ctl->vmax, fault);
      });
}

const char* to_string(SortOrder o) {
  switch (o) {
    case SortOrder::block:
      return "block";
    case SortOrder::cell:
      return "cell";
    case SortOrder::interleaved:
      return "interleaved";
  }
  return "?";
}

const char* to_string(TransferLaunch l) {
  switch (l) {
    case TransferLaunch::standard:
      return "standard";
    case TransferLaunch::t128_b4:
      return "128x4";
    case TransferLaunch::t256_b2:
      return "256x2";
    case TransferLaunch::t256_b3:
      return "256x3";
    case TransferLaunch::t256_b4:
      return "256x4";
    case TransferLaunch::t128_b8:
      return "128x8";
  }
  return "?";
}

}  // namespace silt::mpm
