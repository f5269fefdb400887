// The barrier and the graph step with one synchronisation per step of parts on distinct GPUs
// (mpm/exchange/kernels.hpp, mpm/exchange/peer.cpp; paper 000 §5). The barrier itself is
// core/peer_barrier.hpp; this file packs the agreement into its payload.
#include <cstring>

#include "silt/core/error.hpp"
#include "silt/core/launch.hpp"
#include "silt/core/parallel_for.hpp"
#include "silt/mpm/exchange/body.hpp"
#include "silt/mpm/step_decide.hpp"

namespace silt::mpm {

using detail::fill_values;
using detail::SharedNodeUpdate;
using detail::tag_block;

namespace {

/// The payload words of an arrival (PeerInbox) from agreement values (AgreeSlot; null: none).
SILT_HD SILT_FORCEINLINE void pack_values(const double* v, unsigned* w) {
  w[0] = w[1] = w[2] = 0u;
  if (!v) return;
  w[0] = (v[kAgreeEscape] > 0.0 ? 1u : 0u) | (v[kAgreePause] > 0.0 ? 2u : 0u) |
         (v[kAgreeFault] > 0.0 ? 4u : 0u);
  // Speeds are >= 0: their float bits order as the values do.
  const float vmax = float(v[kAgreeVmax]), cmax = float(v[kAgreeWave]);
  memcpy(&w[1], &vmax, sizeof(float));
  memcpy(&w[2], &cmax, sizeof(float));
}

/// Arrival (one thread): the next epoch of this part into every part's inbox, with its payload
/// (values, or none). Returns the epoch.
SILT_HD SILT_FORCEINLINE unsigned long long arrive(const DeviceSync& sync, const double* values) {
#if SILT_DEVICE_PASS
  unsigned w[kPeerWords];
  pack_values(values, w);
  return peer_arrive(sync.barrier, w);
#else
  (void)sync, (void)values;
  return 0;
#endif
}

/// Waits in this part's inbox until every part has arrived at epoch (one thread). out (or null):
/// every part's values combined by max (AgreeSlot).
SILT_HD SILT_FORCEINLINE void wait_epoch(const DeviceSync& sync, unsigned long long epoch,
                                         FaultView fault, double* out = nullptr) {
#if SILT_DEVICE_PASS
  if (!peer_wait(sync.barrier, epoch, out ? kPeerWords : 1)) {
    fault.raise(kFaultBarrier, 0, 0);
    return;
  }
  if (!out) return;
  unsigned flags = 0u, vmax_bits = 0u, cmax_bits = 0u;
  for (int p = 0; p < sync.barrier.parties; ++p) {
    flags |= peer_payload(sync.barrier, epoch, p, 0);
    // Speeds are >= 0: their float bits order as the values do.
    const unsigned v = peer_payload(sync.barrier, epoch, p, 1);
    const unsigned c = peer_payload(sync.barrier, epoch, p, 2);
    vmax_bits = v > vmax_bits ? v : vmax_bits;
    cmax_bits = c > cmax_bits ? c : cmax_bits;
  }
  float vmax, cmax;
  memcpy(&vmax, &vmax_bits, sizeof(float));
  memcpy(&cmax, &cmax_bits, sizeof(float));
  out[kAgreeVmax] = double(vmax);
  out[kAgreeEscape] = (flags & 1u) ? 1.0 : 0.0;
  out[kAgreePause] = (flags & 2u) ? 1.0 : 0.0;
  out[kAgreeFault] = (flags & 4u) ? 1.0 : 0.0;
  out[kAgreeWave] = double(cmax);
#else
  (void)sync, (void)epoch, (void)fault, (void)out;
#endif
}

SILT_HD SILT_FORCEINLINE void arrive_and_wait(const DeviceSync& sync, FaultView fault) {
  wait_epoch(sync, arrive(sync, nullptr), fault);
}

}  // namespace

void enqueue_atomic_barrier(const Exec& exec, const DeviceSync& sync, FaultView fault) {
  if (!exec.is_cuda()) return;
  parallel_for(
      exec, "mpm.exchange.barrier", 1, SILT_LAMBDA(Index) { arrive_and_wait(sync, fault); });
}

namespace {

/// Publishes values (AgreeSlot) with this part's arrival, meets the others at the barrier and
/// combines every part's values by max into out (device code; one thread).
SILT_HD SILT_FORCEINLINE void exchange_values(const DeviceSync& sync, FaultView fault,
                                              const double* mine, double* out) {
  for (int k = 0; k < kAgreeSlots; ++k) out[k] = 0.0;
  wait_epoch(sync, arrive(sync, mine), fault, out);
}

/// The agreement after P2G of a step with one synchronisation (enqueue_grid_update_lagged; one
/// thread): publishes, meets, applies the agreed values for the next step's decisions, decides an
/// adaptive dt, and stops the step (and the frame's loop) on an agreed fault or a bad dt.
SILT_HD SILT_FORCEINLINE void agree_after_p2g(StepControl* ctl, FaultView fault,
                                              const StepParams& params, const DeviceSync& sync,
                                              const StepHandles& handles) {
  StepControl& c = *ctl;
  double mine[kAgreeSlots], v[kAgreeSlots];
  fill_values(c, fault, params.grow_blocks, mine);
  // Published: this step's G2P and the next P2G fold into them afresh.
  c.vmax = 0.0f;
  c.cmax = 0.0f;
  c.zone_escape = 0;
  exchange_values(sync, fault, mine, v);
  // dt uses the wave speed of the last step's P2G, as on one device.
  const float cmax_before = c.agreed.cmax;
  c.agreed.vmax = float(v[kAgreeVmax]);
  c.agreed.cmax = float(v[kAgreeWave]);
  if (v[kAgreeEscape] > 0.0) c.agreed.escape = 1;
  c.agreed.pause = v[kAgreePause] > 0.0 ? 1 : 0;
  c.agreed.halt = v[kAgreeFault] > 0.0 ? 1 : 0;
  bool stop = c.agreed.halt != 0;
  if (!stop && !(params.fixed_dt > 0.0f)) {
    float dt = 0.0f;
    bool last = false;
    if (choose_dt(c, params, c.agreed.vmax, cmax_before, fault, dt, last))
      commit_dt(c, dt, last);
    else
      stop = true;
  }
  if (stop) {
    c.active = 0;
    c.more = 0;
  }
  if (c.more == 0) end_loop(handles);
}

}  // namespace

#if SILT_HAS_CUDA
namespace {

constexpr int kUpdateThreads = 256;

/// Spins until *flag reaches target; raises kFaultBarrier after ~10 s instead of hanging.
__device__ void wait_local(const unsigned long long* flag, unsigned long long target,
                           FaultView fault) {
  if (!wait_at_least(flag, target)) fault.raise(kFaultBarrier, 0, 0);
}

/// A lagged rebuild's barrier and tagging in one launch: the first CUDA block arrives, waits for
/// every part (their hashes are rebuilt) and restarts the shared list; the others wait for it,
/// then every thread tags one block.
__global__ void __launch_bounds__(kUpdateThreads)
    tag_after_barrier_kernel(GridView g, StepControl* ctl, PartGrids pg, DeviceSync sync,
                             FaultView fault) {
  if (ctl->rebuild == 0) return;
  BarrierState* st = sync.state;
  __shared__ int leader;
  __shared__ unsigned long long epoch;
  if (threadIdx.x == 0) {
    epoch = st->p2g_epoch - 1;  // the rebuild's barrier comes just before P2G's
    leader = atomicExch(&st->tag_claim, epoch) != epoch ? 1 : 0;
    if (leader) {
      arrive_and_wait(sync, fault);
      *pg.shared_count = 0;
      __threadfence();
      atomicExch(&st->tag_done, epoch);
    } else {
      wait_local(&st->tag_done, epoch, fault);
    }
  }
  __syncthreads();
  const Index b = Index(blockIdx.x) * blockDim.x + threadIdx.x;
  if (b < g.capacity && b < Index(ctl->num_blocks)) tag_block(b, g, pg);
}

/// The dt kernel of a lagged step: decides from the values agreed after the last P2G.
__global__ void lagged_step_kernel(StepControl* ctl, FaultView fault, StepParams params,
                                   StepHandles handles, BarrierState* st) {
  decide_step(*ctl, params, fault);
  // The barrier after P2G: after the rebuild's, on a rebuild step.
  st->p2g_epoch = st->passed + (ctl->rebuild != 0 ? 1 : 0) + 1;
  set_step_conditionals(handles, *ctl);
}

__global__ void __launch_bounds__(kUpdateThreads)
    update_lagged_kernel(Index n, SharedNodeUpdate u, DeviceSync sync, FaultView fault,
                         StepParams params, StepHandles handles) {
  StepControl* ctl = u.ctl;
  if (ctl->active == 0) return;
  BarrierState* st = sync.state;
  const bool deferred = !(params.fixed_dt > 0.0f);  // dt is decided here
  const unsigned long long epoch = st->p2g_epoch;
  if (blockIdx.x == 0) {
    // The first block (dispatched first) holds no nodes: it arrives with the values (P2G is
    // complete), waits and applies them, while the node blocks go on.
    if (threadIdx.x == 0) {
      agree_after_p2g(ctl, fault, params, sync, handles);
      if (deferred) {  // the node blocks wait for dt
        __threadfence();
        atomicExch(&st->agreed_epoch, epoch);
      }
    }
    return;
  }
  const Index node = Index(blockIdx.x - 1) * blockDim.x + threadIdx.x;
  const bool use = node < n && u.in_use(node);
  // Blocks past the active ones (the grid's spare capacity) have nothing to wait for.
  if (!__syncthreads_or(use)) return;
  if (deferred) {
    // Every node needs the agreed dt.
    if (threadIdx.x == 0) wait_local(&st->agreed_epoch, epoch, fault);
    __syncthreads();
  } else {
    // A fixed dt is known: only nodes that sum the others' P2G wait for them. dt, clock and
    // accumulator are the dt kernel's (a halt agreed meanwhile stops G2P).
    if (__syncthreads_or(use && u.shared(node))) {
      if (threadIdx.x == 0) wait_epoch(sync, epoch, fault);
      __syncthreads();
    }
    if (use) u(node);
    return;
  }
  // What the leader has set (dt, clock, halt), read past L1: this block may hold stale lines of
  // the control from before the wait.
  __shared__ float dt;
  __shared__ double time;
  __shared__ int active, parity;
  if (threadIdx.x == 0) {
    dt = __ldcg(&ctl->dt);
    time = __ldcg(&ctl->time);
    active = __ldcg(&ctl->active);
    parity = __ldcg(&ctl->accum_parity);
  }
  __syncthreads();
  if (active == 0) return;  // an agreed halt
  if (use) u.update(node, dt, time, parity);
}

}  // namespace
#endif
void enqueue_tag_after_barrier(const Exec& exec, GridView g, StepControl* ctl, const PartGrids& pg,
                               const DeviceSync& sync, FaultView fault) {
  if (!exec.is_cuda()) throw Error("mpm: enqueue_tag_after_barrier runs on CUDA only");
#if SILT_HAS_CUDA
  if (g.capacity <= 0) return;
  launch_kernel(exec, "mpm.exchange.tag_after_barrier",
                dim3(silt::detail::blocks_for(g.capacity, kUpdateThreads)), dim3(kUpdateThreads), 0,
                tag_after_barrier_kernel, g, ctl, pg, sync, fault);
#else
  (void)g, (void)ctl, (void)pg, (void)sync, (void)fault;
#endif
}

void enqueue_grid_update_lagged(const Exec& exec, const GridArgs& a, GridView g, StepControl* ctl,
                                const PartGrids& pg, const DeviceSync& sync, FaultView fault,
                                const StepParams& params, const StepHandles& handles) {
  if (!exec.is_cuda()) throw Error("mpm: enqueue_grid_update_lagged runs on CUDA only");
#if SILT_HAS_CUDA
  const Index nodes = g.capacity * kBlockNodes;
  if (nodes <= 0) return;
  launch_kernel(exec, "mpm.exchange.grid_update_lagged",
                dim3(silt::detail::blocks_for(nodes, kUpdateThreads) + 1), dim3(kUpdateThreads), 0,
                update_lagged_kernel, nodes, SharedNodeUpdate{a, g, ctl, pg, fault, true}, sync,
                fault, params, handles);
#else
  (void)a, (void)g, (void)ctl, (void)pg, (void)sync, (void)fault, (void)params, (void)handles;
#endif
}

void enqueue_lagged_decide(const Exec& exec, StepControl* ctl, FaultView fault,
                           const StepParams& params, const StepHandles& handles,
                           const DeviceSync& sync) {
  if (!exec.is_cuda()) throw Error("mpm: enqueue_lagged_decide runs on CUDA only");
#if SILT_HAS_CUDA
  launch_kernel(exec, "mpm.exchange.lagged_decide", dim3(1), dim3(1), 0, lagged_step_kernel, ctl,
                fault, params, handles, sync.state);
#else
  (void)ctl, (void)fault, (void)params, (void)handles, (void)sync;
#endif
}

}  // namespace silt::mpm
