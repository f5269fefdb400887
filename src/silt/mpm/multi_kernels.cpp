#include "silt/mpm/multi_kernels.hpp"

#include <cstring>

#include "silt/core/atomic_fetch.hpp"
#include "silt/core/error.hpp"
#include "silt/core/parallel_for.hpp"
#include "silt/mpm/grid_update_body.hpp"
#include "silt/mpm/step_decide.hpp"

namespace silt::mpm {

namespace {

/// This part's agreement values (AgreeSlot) from its control, fault flags and grid fill.
SILT_HD SILT_FORCEINLINE void fill_values(const StepControl& c, const FaultView& fault,
                                          int grow_blocks, double* v) {
  v[kAgreeVmax] = double(c.vmax);
  v[kAgreeEscape] = c.zone_escape != 0 ? 1.0 : 0.0;
  v[kAgreePause] = c.num_blocks > grow_blocks ? 1.0 : 0.0;
  v[kAgreeFault] = fault.raised() ? 1.0 : 0.0;
  v[kAgreeWave] = double(c.cmax);
}

/// The combined values into the control, for a dt kernel that runs next (decide_step).
SILT_HD SILT_FORCEINLINE void apply_values(StepControl& c, const double* v) {
  c.vmax = float(v[kAgreeVmax]);
  c.zone_escape = v[kAgreeEscape] > 0.0 ? 1 : 0;
  c.pause_request = v[kAgreePause] > 0.0 ? 1 : 0;
  c.halt = v[kAgreeFault] > 0.0 ? 1 : 0;
  c.cmax = float(v[kAgreeWave]);
  c.vmax_agreed = c.vmax;
  c.cmax_agreed = c.cmax;
}

}  // namespace

void enqueue_publish(const Exec& exec, const StepControl* ctl, FaultView fault, int grow_blocks,
                     double* values) {
  parallel_for(
      exec, "mpm.multi.publish", 1,
      SILT_LAMBDA(Index) { fill_values(*ctl, fault, grow_blocks, values); });
}

void enqueue_combine(const Exec& exec, const double* values, StepControl* ctl) {
  parallel_for(
      exec, "mpm.multi.combine", 1, SILT_LAMBDA(Index) { apply_values(*ctl, values); });
}

void enqueue_clear_shared(const Exec& exec, GridView g, const PartGrids& pg,
                          const StepControl* ctl) {
  const int* list = pg.shared_list;
  const int* count = pg.shared_count;
  // The count is on the device: a fixed launch whose threads stride over the shared nodes (a
  // launch over the whole grid would cost a pass over every block). On the host it is host
  // memory: loop over the shared nodes only.
  constexpr Index kThreads = 1 << 16;
  const Index n = exec.is_cuda() ? kThreads : Index(*count) * kBlockNodes;
  const Index stride = exec.is_cuda() ? kThreads : n;
  if (n == 0) return;
  parallel_for(
      exec, "mpm.multi.clear_shared", n, SILT_LAMBDA(Index t) {
        const Index nodes = Index(*count) * kBlockNodes;
        float* acc = accum_of(g, ctl->accum_parity);
        for (Index i = t; i < nodes; i += stride) {
          const Index k = i / kBlockNodes;
          const Index node = Index(list[k]) * kBlockNodes + (i - k * kBlockNodes);
          for (int c = 0; c < g.accum_stride; ++c) acc[g.accum_stride * node + c] = 0.0f;
        }
      });
}

namespace {

/// Tags own block b (< num_blocks): its index in every part's hash (or -1), listed when shared.
SILT_HD SILT_FORCEINLINE void tag_block(Index b, const GridView& g, const PartGrids& pg,
                                        bool reduce) {
  int* row = pg.peer_block + Index(pg.parts) * b;
  const BlockKey key = g.block_key[b];
  bool shared = false;
  for (int p = 0; p < pg.parts; ++p) {
    int idx = -1;
    if (p == pg.self) {
      idx = int(b);
    } else if (reduce) {
      const int slot = pg.hash[p].find(key);
      idx = slot < 0 ? -1 : pg.hash[p].values[slot];
    }
    row[p] = idx;
    shared = shared || (p != pg.self && idx >= 0);
  }
  if (shared) pg.shared_list[atomic_fetch_add(pg.shared_count, 1)] = int(b);
}

}  // namespace

void enqueue_tag(const Exec& exec, GridView g, StepControl* ctl, const PartGrids& pg, bool reduce) {
  const int* gate = &ctl->rebuild;
  gated_for(
      exec, "mpm.multi.tag_begin", 1, gate, SILT_LAMBDA(Index) { *pg.shared_count = 0; });
  gated_for(
      exec, "mpm.multi.tag", g.capacity, gate, SILT_LAMBDA(Index b) {
        if (b < ctl->num_blocks) tag_block(b, g, pg, reduce);
      });
}

namespace {

/// sum[c] += acc[c] for the stride (4 or 8) channels of a node; 16-byte loads on the device (one
/// request per 4 channels over the peer link).
SILT_HD SILT_FORCEINLINE void add_node(float* sum, const float* acc, int stride) {
#if SILT_DEVICE_PASS
  const float4 lo = *reinterpret_cast<const float4*>(acc);
  sum[0] += lo.x, sum[1] += lo.y, sum[2] += lo.z, sum[3] += lo.w;
  if (stride > kAccumChannels) {
    const float4 hi = *reinterpret_cast<const float4*>(acc + 4);
    sum[4] += hi.x, sum[5] += hi.y, sum[6] += hi.z, sum[7] += hi.w;
  }
#else
  for (int c = 0; c < stride; ++c) sum[c] += acc[c];
#endif
}

/// One node of the grid update with the shared-block reduction in front (both grid update
/// launches below run it).
struct SharedNodeUpdate {
  GridArgs a;
  GridView g;
  StepControl* ctl;
  PartGrids pg;
  /// One synchronisation per step: a shared node also clears its sums in the other accumulator,
  /// which the others read in the last step, and on a rebuild step every node does (the blocks
  /// were renumbered; the others are past the rebuild's barrier).
  bool clear_other = false;

  /// The node's block is active (after the last rebuild).
  SILT_HD SILT_FORCEINLINE bool in_use(Index node) const {
    return node / kBlockNodes < Index(ctl->num_blocks);
  }
  /// Another part holds the node's block.
  SILT_HD SILT_FORCEINLINE bool shared(Index node) const {
    const int* row = pg.peer_block + Index(pg.parts) * (node / kBlockNodes);
    for (int p = 0; p < pg.parts; ++p)
      if (p != pg.self && row[p] >= 0) return true;
    return false;
  }
  SILT_HD SILT_FORCEINLINE void operator()(Index node) const {
    update(node, ctl->dt, ctl->time, ctl->accum_parity);
  }
  /// The node's update for the step of size dt (s) ending at time (s), whose P2G filled the
  /// accumulator of `parity` (StepControl::accum_parity).
  SILT_HD SILT_FORCEINLINE void update(Index node, float dt, double time, int parity) const {
    const int b = int(node / kBlockNodes);
    const int l = int(node - Index(b) * kBlockNodes);
    const int stride = g.accum_stride;
    const int* row = pg.peer_block + Index(pg.parts) * b;
    const bool alt = parity != 0;
    float sum[kAccumChannelsSplit] = {};
    bool shared = false;
    for (int p = 0; p < pg.parts; ++p) {
      const int pb = row[p];
      if (pb < 0) continue;
      shared = shared || p != pg.self;
      const float* base = alt && pg.accum_alt[p] ? pg.accum_alt[p] : pg.accum[p];
      add_node(sum, base + Index(stride) * (Index(pb) * kBlockNodes + l), stride);
    }
    // Others may still read this node's sums when the block is shared: those are cleared after
    // the next agreement (enqueue_clear_shared, enqueue_agree_step), the rest right away.
    if (!shared) {
      float* own = accum_of(g, parity) + Index(stride) * node;
      for (int c = 0; c < stride; ++c) own[c] = 0.0f;
    }
    if (clear_other && (shared || ctl->rebuild != 0)) {
      float* other = accum_of(g, parity ^ 1) + Index(stride) * node;
      for (int c = 0; c < stride; ++c) other[c] = 0.0f;
    }
    const Vec3f transfer{sum[1], sum[2], sum[3]};
    const Vec3f momentum =
        stride > kAccumChannels ? transfer + Vec3f{sum[4], sum[5], sum[6]} * dt : transfer;
    detail::grid_node_update(a, g, dt, time, node, b, sum[0], transfer, momentum);
  }
};

}  // namespace

void enqueue_grid_update_shared(const Exec& exec, const GridArgs& a, GridView g, StepControl* ctl,
                                const PartGrids& pg) {
  const Index nodes = g.capacity * kBlockNodes;
  const SharedNodeUpdate u{a, g, ctl, pg};
  gated_for(
      exec, "mpm.multi.grid_update", nodes, &ctl->active, SILT_LAMBDA(Index node) {
        if (u.in_use(node)) u(node);
      });
}

namespace {

/// The payload words of an arrival (SyncInbox) from agreement values (AgreeSlot; null: none).
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

/// Arrival (device code; one thread): the next epoch of this part into every part's inbox, each
/// word with its payload (values, or none). Returns the epoch.
SILT_HD SILT_FORCEINLINE unsigned long long arrive(const DeviceSync& sync, const double* values) {
#if SILT_DEVICE_PASS
  const unsigned long long epoch = sync.state->passed + 1;
  sync.state->passed = epoch;
  unsigned w[kSyncWords];
  pack_values(values, w);
  // This part's earlier work (stream order) visible to the peers before the arrival (a release at
  // system scope, with no store of this thread outstanding; the peers' wait_epoch acquires).
  asm volatile("fence.acq_rel.sys;" ::: "memory");
  const unsigned long long tag = (epoch & 0xffffffffull) << 32;
  for (int q = 0; q < sync.parts; ++q)
    for (int k = 0; k < kSyncWords; ++k)
      *reinterpret_cast<volatile unsigned long long*>(
          &sync.inbox[q]->word[sync.self][epoch & 1][k]) = tag | w[k];
  return epoch;
#else
  (void)sync, (void)values;
  return 0;
#endif
}

#if SILT_DEVICE_PASS
/// A load with acquire semantics at system scope: what the writer released before the word (its
/// P2G sums) is visible to this thread's later loads, and to its block's after a barrier.
__device__ SILT_FORCEINLINE unsigned long long load_acquire_sys(const unsigned long long* p) {
  unsigned long long v;
  asm volatile("ld.acquire.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}
#endif

/// Waits in this part's inbox until every part has arrived at epoch (device code). out (or
/// null): every part's values combined by max (AgreeSlot).
SILT_HD SILT_FORCEINLINE void wait_epoch(const DeviceSync& sync, unsigned long long epoch,
                                         FaultView fault, double* out = nullptr) {
#if SILT_DEVICE_PASS
  const unsigned tag = unsigned(epoch & 0xffffffffull);
  const int words = out ? kSyncWords : 1;
  const long long start = clock64();
  unsigned flags, vmax_bits, cmax_bits;
  for (;;) {
    // One pass reads every word at once (independent loads in flight together); the set of
    // epoch's parity holds epoch - 2 until a part arrives, never epoch + 2 (that part would have
    // to pass a barrier this one has not arrived at).
    bool all = true;
    flags = vmax_bits = cmax_bits = 0u;
#pragma unroll
    for (int p = 0; p < kMaxParts; ++p) {
      if (p >= sync.parts) break;
      const unsigned long long* w = sync.inbox[sync.self]->word[p][epoch & 1];
      const unsigned long long x0 = load_acquire_sys(w);
      const unsigned long long x1 = words > 1 ? load_acquire_sys(w + 1) : 0ull;
      const unsigned long long x2 = words > 1 ? load_acquire_sys(w + 2) : 0ull;
      all = all && unsigned(x0 >> 32) == tag;
      if (words > 1) all = all && unsigned(x1 >> 32) == tag && unsigned(x2 >> 32) == tag;
      flags |= unsigned(x0);
      // Speeds are >= 0: their float bits order as the values do.
      vmax_bits = unsigned(x1) > vmax_bits ? unsigned(x1) : vmax_bits;
      cmax_bits = unsigned(x2) > cmax_bits ? unsigned(x2) : cmax_bits;
    }
    if (all) break;
    if (clock64() - start > 20000000000LL) {  // ~10 s at 2 GHz
      fault.raise(kFaultBarrier, 0, 0);
      return;
    }
  }
  if (out) {
    float vmax, cmax;
    memcpy(&vmax, &vmax_bits, sizeof(float));
    memcpy(&cmax, &cmax_bits, sizeof(float));
    out[kAgreeVmax] = double(vmax);
    out[kAgreeEscape] = (flags & 1u) ? 1.0 : 0.0;
    out[kAgreePause] = (flags & 2u) ? 1.0 : 0.0;
    out[kAgreeFault] = (flags & 4u) ? 1.0 : 0.0;
    out[kAgreeWave] = double(cmax);
  }
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
      exec, "mpm.multi.barrier", 1, SILT_LAMBDA(Index) { arrive_and_wait(sync, fault); });
}

namespace {

/// Publishes values (AgreeSlot) with this part's arrival, meets the others at the barrier and
/// combines every part's values by max into out (device code; one thread).
SILT_HD SILT_FORCEINLINE void exchange_values(const DeviceSync& sync, FaultView fault,
                                              const double* mine, double* out) {
  for (int k = 0; k < kAgreeSlots; ++k) out[k] = 0.0;
  wait_epoch(sync, arrive(sync, mine), fault, out);
}

/// The agreement before a step: every part's values combined into the control (one thread).
SILT_HD SILT_FORCEINLINE void agree(StepControl* ctl, FaultView fault, int grow_blocks,
                                    const DeviceSync& sync) {
  double mine[kAgreeSlots], v[kAgreeSlots];
  fill_values(*ctl, fault, grow_blocks, mine);
  exchange_values(sync, fault, mine, v);
  apply_values(*ctl, v);
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
  const float cmax_before = c.cmax_agreed;
  c.vmax_agreed = float(v[kAgreeVmax]);
  c.cmax_agreed = float(v[kAgreeWave]);
  if (v[kAgreeEscape] > 0.0) c.escape_agreed = 1;
  c.pause_request = v[kAgreePause] > 0.0 ? 1 : 0;
  c.halt = v[kAgreeFault] > 0.0 ? 1 : 0;
  bool stop = c.halt != 0;
  if (!stop && !(params.fixed_dt > 0.0f)) {
    float dt = 0.0f;
    bool last = false;
    if (choose_dt(c, params, c.vmax_agreed, cmax_before, fault, dt, last))
      commit_dt(c, dt, last);
    else
      stop = true;
  }
  if (stop) {
    c.active = 0;
    c.more = 0;
  }
#if SILT_DEVICE_PASS
  if (handles.in_graph && c.more == 0) cudaGraphSetConditional(handles.more, 0u);
#else
  (void)handles;
#endif
}

}  // namespace

void enqueue_agree_in_kernel(const Exec& exec, StepControl* ctl, FaultView fault, int grow_blocks,
                             const DeviceSync& sync) {
  parallel_for(
      exec, "mpm.multi.agree", 1, SILT_LAMBDA(Index) { agree(ctl, fault, grow_blocks, sync); });
}

#if SILT_HAS_CUDA
namespace {

constexpr int kAgreeBlocks = 128;  // the agree step's launch: its blocks clear the shared sums
constexpr int kAgreeThreads = 256;
constexpr int kUpdateThreads = 256;

/// Spins until *flag reaches target; raises kFaultBarrier after ~10 s instead of hanging.
__device__ void wait_local(const unsigned long long* flag, unsigned long long target,
                           FaultView fault) {
  const long long start = clock64();
  while (*reinterpret_cast<const volatile unsigned long long*>(flag) < target) {
    if (clock64() - start > 20000000000LL) {
      fault.raise(kFaultBarrier, 0, 0);
      break;
    }
  }
  __threadfence();
}

__global__ void __launch_bounds__(kAgreeThreads)
    agree_step_kernel(StepControl* ctl, FaultView fault, StepParams params, StepHandles handles,
                      DeviceSync sync, GridView g, PartGrids pg) {
  BarrierState* st = sync.state;
  // Launch k's blocks take tickets k*blocks .. (k+1)*blocks - 1 (launches run in stream order);
  // the block with the launch's first ticket is running, so waiting for it cannot deadlock.
  __shared__ unsigned long long launch;
  __shared__ int first;
  if (threadIdx.x == 0) {
    const unsigned long long ticket = atomicAdd(&st->tickets, 1ull);
    launch = ticket / gridDim.x;
    first = ticket % gridDim.x == 0 ? 1 : 0;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    if (first) {
      agree(ctl, fault, params.grow_blocks, sync);
      decide_step(*ctl, params, fault);
      // The barrier after P2G: after this one and, on a rebuild step, the rebuild's.
      st->p2g_epoch = st->passed + (ctl->rebuild != 0 ? 1 : 0) + 1;
      set_step_conditionals(handles, *ctl);
      __threadfence();
      atomicExch(&st->done, launch + 1);
    } else {
      wait_local(&st->done, launch + 1, fault);
    }
  }
  __syncthreads();
  // Every part has finished its last step: the shared sums it read are free to clear.
  const Index nodes = Index(*pg.shared_count) * kBlockNodes;
  const Index stride = Index(gridDim.x) * blockDim.x;
  float* acc = accum_of(g, ctl->accum_parity);
  for (Index i = Index(blockIdx.x) * blockDim.x + threadIdx.x; i < nodes; i += stride) {
    const Index k = i / kBlockNodes;
    const Index node = Index(pg.shared_list[k]) * kBlockNodes + (i - k * kBlockNodes);
    for (int c = 0; c < g.accum_stride; ++c) acc[g.accum_stride * node + c] = 0.0f;
  }
}

/// A lagged rebuild's barrier and tagging in one launch: the first CUDA block arrives, waits for
/// every part (their hashes are rebuilt) and restarts the shared list; the others wait for it,
/// then every thread tags one block.
__global__ void __launch_bounds__(kUpdateThreads)
    tag_after_barrier_kernel(GridView g, StepControl* ctl, PartGrids pg, DeviceSync sync,
                             FaultView fault, int reduce) {
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
  if (b < g.capacity && b < Index(ctl->num_blocks)) tag_block(b, g, pg, reduce != 0);
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
    update_after_peers_kernel(Index n, SharedNodeUpdate u, DeviceSync sync, FaultView fault) {
  if (u.ctl->active == 0) return;
  BarrierState* st = sync.state;
  if (threadIdx.x == 0) {
    // The first block to swap this step's epoch in arrives for the part: its P2G is complete.
    const unsigned long long epoch = st->p2g_epoch;
    if (atomicExch(&st->p2g_claim, epoch) != epoch) arrive(sync, nullptr);
  }
  const Index node = Index(blockIdx.x) * blockDim.x + threadIdx.x;
  const bool use = node < n && u.in_use(node);
  if (__syncthreads_or(use && u.shared(node))) {
    if (threadIdx.x == 0) wait_epoch(sync, st->p2g_epoch, fault);
    __syncthreads();
  }
  if (use) u(node);
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
                               const DeviceSync& sync, FaultView fault, bool reduce) {
  if (!exec.is_cuda()) throw Error("mpm: enqueue_tag_after_barrier runs on CUDA only");
#if SILT_HAS_CUDA
  if (g.capacity <= 0) return;
  silt::detail::range_push("mpm.multi.tag_after_barrier");
  tag_after_barrier_kernel<<<silt::detail::blocks_for(g.capacity, kUpdateThreads), kUpdateThreads,
                             0, exec.stream>>>(g, ctl, pg, sync, fault, reduce ? 1 : 0);
  silt::detail::range_pop();
  silt::detail::check_launch(exec, "mpm.multi.tag_after_barrier");
#else
  (void)g, (void)ctl, (void)pg, (void)sync, (void)fault, (void)reduce;
#endif
}

void enqueue_grid_update_lagged(const Exec& exec, const GridArgs& a, GridView g, StepControl* ctl,
                                const PartGrids& pg, const DeviceSync& sync, FaultView fault,
                                const StepParams& params, const StepHandles& handles) {
  if (!exec.is_cuda()) throw Error("mpm: enqueue_grid_update_lagged runs on CUDA only");
#if SILT_HAS_CUDA
  const Index nodes = g.capacity * kBlockNodes;
  if (nodes <= 0) return;
  silt::detail::range_push("mpm.multi.grid_update_lagged");
  update_lagged_kernel<<<silt::detail::blocks_for(nodes, kUpdateThreads) + 1, kUpdateThreads, 0,
                         exec.stream>>>(nodes, SharedNodeUpdate{a, g, ctl, pg, true}, sync, fault,
                                        params, handles);
  silt::detail::range_pop();
  silt::detail::check_launch(exec, "mpm.multi.grid_update_lagged");
#else
  (void)a, (void)g, (void)ctl, (void)pg, (void)sync, (void)fault, (void)params, (void)handles;
#endif
}

void enqueue_agree_step(const Exec& exec, StepControl* ctl, FaultView fault,
                        const StepParams& params, const StepHandles& handles,
                        const DeviceSync& sync, GridView g, const PartGrids& pg) {
  if (!exec.is_cuda()) throw Error("mpm: enqueue_agree_step runs on CUDA devices only");
#if SILT_HAS_CUDA
  silt::detail::range_push("mpm.multi.agree_step");
  if (params.lagged != 0)
    lagged_step_kernel<<<1, 1, 0, exec.stream>>>(ctl, fault, params, handles, sync.state);
  else
    agree_step_kernel<<<kAgreeBlocks, kAgreeThreads, 0, exec.stream>>>(ctl, fault, params, handles,
                                                                       sync, g, pg);
  silt::detail::range_pop();
  silt::detail::check_launch(exec, "mpm.multi.agree_step");
#else
  (void)ctl, (void)fault, (void)params, (void)handles, (void)sync, (void)g, (void)pg;
#endif
}

void enqueue_grid_update_after_peers(const Exec& exec, const GridArgs& a, GridView g,
                                     StepControl* ctl, const PartGrids& pg, const DeviceSync& sync,
                                     FaultView fault) {
  if (!exec.is_cuda()) throw Error("mpm: enqueue_grid_update_after_peers runs on CUDA only");
#if SILT_HAS_CUDA
  const Index nodes = g.capacity * kBlockNodes;
  if (nodes <= 0) return;
  silt::detail::range_push("mpm.multi.grid_update_after_peers");
  update_after_peers_kernel<<<silt::detail::blocks_for(nodes, kUpdateThreads), kUpdateThreads, 0,
                              exec.stream>>>(nodes, SharedNodeUpdate{a, g, ctl, pg}, sync, fault);
  silt::detail::range_pop();
  silt::detail::check_launch(exec, "mpm.multi.grid_update_after_peers");
#else
  (void)a, (void)g, (void)ctl, (void)pg, (void)sync, (void)fault;
#endif
}

double count_outside(const Exec& exec, const float* x, Index n, int axis, double lo, double hi) {
  if (n <= 0) return 0.0;
  return parallel_reduce_sum<double>(
      exec, "mpm.multi.count_outside", n, SILT_LAMBDA(Index i)->double {
        const double c = x[3 * i + axis];
        return c < lo || c >= hi ? 1.0 : 0.0;
      });
}

void enqueue_pack_blocks(const Exec& exec, GridView g, const int* blocks, Index count, float* out) {
  const int stride = g.accum_stride;
  parallel_for(
      exec, "mpm.multi.pack", count * kBlockNodes, SILT_LAMBDA(Index i) {
        const Index k = i / kBlockNodes;
        const Index node = Index(blocks[k]) * kBlockNodes + (i - k * kBlockNodes);
        for (int c = 0; c < stride; ++c) out[Index(stride) * i + c] = g.accum[stride * node + c];
      });
}

}  // namespace silt::mpm
