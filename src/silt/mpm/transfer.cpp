// The launches of the essential phases; their bodies are in transfer_body.hpp and kernels/.
#include <algorithm>

#include "silt/core/parallel_for.hpp"
#include "silt/mpm/grid_update_body.hpp"
#include "silt/mpm/host/g2p.hpp"
#include "silt/mpm/host/p2g.hpp"
#include "silt/mpm/host/scatter.hpp"
#include "silt/mpm/pipeline.hpp"
#include "silt/mpm/transfer_body.hpp"

namespace silt::mpm {

namespace {
/// The transfers' launch shape: 256 threads with at least 3 CUDA blocks per SM (80 registers)
/// measured 8-12% faster than the unbounded launch (96 registers) on the H200 once P2G had the
/// warp pre-reduction (bench/results/mpm-2026-11-29-h200.md).
template <int BlocksPerSm = 3, class F>
void transfer_for(const Exec& exec, const char* label, Index n, const int* gate, F body) {
  bounded_gated_for<256, BlocksPerSm>(exec, label, n, gate, body);
}
/// P2G's own: at 3 (80 registers) the 3D P2G spills 172 B a thread (364 B reloaded; nvcc 13,
/// sm_90, the same at 357d22a); at 2 it takes 121 registers and spills nothing, at two thirds of
/// the occupancy (docs/NOTES.md, 2026-12-05, "mid-size step": to be measured on the H200).
constexpr int kP2gBlocksPerSm = 3;

/// Blocks a host loop over the grid covers: the numbered ones (StepControl is host memory there;
/// a CUDA launch covers the capacity and returns early past num_blocks).
Index host_blocks(const GridView& g, const StepControl* ctl) {
  return std::min<Index>(std::max(ctl->num_blocks, 0), g.capacity);
}

}  // namespace

namespace {

template <int D>
void p2g_in(const Exec& exec, const TransferArgs& a, ParticleView p, GridView g, StepControl* ctl,
            FaultView fault, const int* gate, bool advance_f, HostPartials parts) {
  if (!exec.is_cuda()) {
    detail::host_p2g(D, a, p, g, ctl, fault, gate, advance_f, host_blocks(g, ctl), parts);
    return;
  }
  if (g.fixed) {
    transfer_for<kP2gBlocksPerSm>(
        exec, "mpm.p2g", a.particles, gate, SILT_LAMBDA(Index i) {
          const detail::FixedSink sink{fixed_of(g, ctl->accum_parity), g.accum_stride, g.scale,
                                       fault};
          detail::p2g_particle_body<D>(a, p, g, i, ctl->dt, advance_f ? ctl->dt_prev : 0.0f, fault,
                                       sink);
        });
    return;
  }
  transfer_for<kP2gBlocksPerSm>(
      exec, "mpm.p2g", a.particles, gate, SILT_LAMBDA(Index i) {
        GridView gs = g;
        gs.accum = accum_of(g, ctl->accum_parity);
        detail::p2g_particle_body<D>(a, p, gs, i, ctl->dt, advance_f ? ctl->dt_prev : 0.0f, fault);
      });
}

// G2P runs after the grid update, when StepControl::time already holds the end of the step.
template <int D>
void g2p_in(const Exec& exec, const TransferArgs& a, ParticleView p, GridView g, StepControl* ctl,
            FaultView fault) {
  if (!exec.is_cuda()) {
    detail::host_g2p(D, a, p, g, ctl, fault);
    return;
  }
  transfer_for(
      exec, "mpm.g2p", a.particles, &ctl->active, SILT_LAMBDA(Index i) {
        detail::g2p_particle_body<D>(a, p, g, i, ctl->dt, float(ctl->time), &ctl->zone_escape,
                                     &ctl->vmax, fault);
      });
}

template <int D>
void g2p2g_in(const Exec& exec, const TransferArgs& a, ParticleView p, GridView g, StepControl* ctl,
              FaultView fault, HostPartials parts) {
  if (!exec.is_cuda()) {
    const float dt = ctl->dt;
    const float t_end = float(ctl->time);
    detail::host_scatter("mpm.g2p2g", a.particles, &ctl->active, g, 0,
                         host_blocks(g, ctl) * kBlockNodes, parts, fault,
                         [&](Index lo, Index hi, const detail::HostSink& sink) {
                           for (Index i = lo; i < hi; ++i)
                             detail::g2p2g_particle_body<D>(
                                 a, p, g, i, dt, t_end, &ctl->zone_escape, &ctl->vmax, fault, sink);
                         });
    return;
  }
  if (g.fixed) {
    const detail::FixedSink sink{g.fixed, g.accum_stride, g.scale, fault};
    transfer_for(
        exec, "mpm.g2p2g", a.particles, &ctl->active, SILT_LAMBDA(Index i) {
          detail::g2p2g_particle_body<D>(a, p, g, i, ctl->dt, float(ctl->time), &ctl->zone_escape,
                                         &ctl->vmax, fault, sink);
        });
    return;
  }
  transfer_for(
      exec, "mpm.g2p2g", a.particles, &ctl->active, SILT_LAMBDA(Index i) {
        detail::g2p2g_particle_body<D>(a, p, g, i, ctl->dt, float(ctl->time), &ctl->zone_escape,
                                       &ctl->vmax, fault);
      });
}

}  // namespace

void enqueue_p2g(const Exec& exec, const TransferArgs& a, ParticleView p, GridView g,
                 StepControl* ctl, FaultView fault, const int* gate, bool advance_f,
                 HostPartials partials) {
  if (a.dims == 2)
    p2g_in<2>(exec, a, p, g, ctl, fault, gate, advance_f, partials);
  else
    p2g_in<3>(exec, a, p, g, ctl, fault, gate, advance_f, partials);
}

namespace {
/// Deterministic mode: a node's N fixed-point sums (N = the grid's accum_stride, 4 or 8) read into
/// acc as float and cleared right after, so the next P2G needs no separate clearing launch. N is a
/// template argument so that every index into acc is a constant and acc stays in registers on
/// CUDA: indexed by the run-time stride it went to local memory (192 B of stack a thread).
template <int N>
SILT_HD SILT_FORCEINLINE void take_fixed_sums(const GridView& g, Index node, const FaultView& fault,
                                              float (&acc)[kAccumChannelsSplit]) {
  long long* q = g.fixed + Index(N) * node;
  const int bad = fixed_to_float(q, N, g.scale, acc);
  if (bad >= 0) fault.raise(kFaultFixedRange, int(node), bad);
  for (int c = 0; c < N; ++c) q[c] = 0;
}
}  // namespace

void enqueue_grid_update(const Exec& exec, const GridArgs& a, GridView g, StepControl* ctl,
                         FaultView fault) {
  const Index nodes = (exec.is_cuda() ? g.capacity : host_blocks(g, ctl)) * kBlockNodes;
  gated_for(
      exec, "mpm.grid_update", nodes, &ctl->active, SILT_LAMBDA(Index node) {
        const int b = node / kBlockNodes;
        if (b >= ctl->num_blocks) return;
        const float dt = ctl->dt;
        // Split channels (8) hold the stress force (N); fused ones (4) already hold its impulse.
        const bool split = g.accum_stride > kAccumChannels;
        float mass;
        Vec3f transfer, momentum;
        if (g.fixed) {
          float sum[kAccumChannelsSplit];
          if (split)
            take_fixed_sums<kAccumChannelsSplit>(g, node, fault, sum);
          else
            take_fixed_sums<kAccumChannels>(g, node, fault, sum);
          mass = sum[0];
          transfer = Vec3f{sum[1], sum[2], sum[3]};
          momentum = split ? transfer + Vec3f{sum[4], sum[5], sum[6]} * dt : transfer;
        } else {
          // Float sums are read where they lie and cleared after their last read, so the next P2G
          // needs no separate clearing launch. Read into a local array and each cleared at once
          // (as the fixed-point sums are), the 8-channel update took 55 us a launch on the
          // fountain against 29 us this way (H100; bench/results/fountain-kernels-2026-12-06b-h100.md).
          float* acc = g.accum + g.accum_stride * node;
          mass = acc[0];
          transfer = Vec3f{acc[1], acc[2], acc[3]};
          momentum = split ? transfer + Vec3f{acc[4], acc[5], acc[6]} * dt : transfer;
          for (int c = 0; c < g.accum_stride; ++c) acc[c] = 0.0f;
        }
        detail::grid_node_update(a, g, dt, ctl->time, node, b, mass, transfer, momentum);
      });
}

void enqueue_g2p(const Exec& exec, const TransferArgs& a, ParticleView p, GridView g,
                 StepControl* ctl, FaultView fault) {
  if (a.dims == 2)
    g2p_in<2>(exec, a, p, g, ctl, fault);
  else
    g2p_in<3>(exec, a, p, g, ctl, fault);
}

void enqueue_g2p2g(const Exec& exec, const TransferArgs& a, ParticleView p, GridView g,
                   StepControl* ctl, FaultView fault, HostPartials partials) {
  if (a.dims == 2)
    g2p2g_in<2>(exec, a, p, g, ctl, fault, partials);
  else
    g2p2g_in<3>(exec, a, p, g, ctl, fault, partials);
}

}  // namespace silt::mpm
