#include "silt/mpm/multi_kernels.hpp"

#include "silt/core/atomic_fetch.hpp"
#include "silt/core/parallel_for.hpp"
#include "silt/mpm/grid_update_body.hpp"

namespace silt::mpm {

void enqueue_publish(const Exec& exec, const StepControl* ctl, FaultView fault, int grow_blocks,
                     double* values) {
  parallel_for(
      exec, "mpm.multi.publish", 1, SILT_LAMBDA(Index) {
        values[kAgreeVmax] = double(ctl->vmax);
        values[kAgreeEscape] = ctl->zone_escape != 0 ? 1.0 : 0.0;
        values[kAgreePause] = ctl->num_blocks > grow_blocks ? 1.0 : 0.0;
        values[kAgreeFault] = fault.raised() ? 1.0 : 0.0;
      });
}

void enqueue_combine(const Exec& exec, const double* values, StepControl* ctl) {
  parallel_for(
      exec, "mpm.multi.combine", 1, SILT_LAMBDA(Index) {
        ctl->vmax = float(values[kAgreeVmax]);
        ctl->zone_escape = values[kAgreeEscape] > 0.0 ? 1 : 0;
        ctl->pause_request = values[kAgreePause] > 0.0 ? 1 : 0;
        ctl->halt = values[kAgreeFault] > 0.0 ? 1 : 0;
      });
}

void enqueue_clear_shared(const Exec& exec, GridView g, const PartGrids& pg) {
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
        for (Index i = t; i < nodes; i += stride) {
          const Index k = i / kBlockNodes;
          const Index node = Index(list[k]) * kBlockNodes + (i - k * kBlockNodes);
          for (int c = 0; c < g.accum_stride; ++c) g.accum[g.accum_stride * node + c] = 0.0f;
        }
      });
}

void enqueue_tag(const Exec& exec, GridView g, StepControl* ctl, const PartGrids& pg, bool reduce) {
  const int* gate = &ctl->rebuild;
  gated_for(
      exec, "mpm.multi.tag_begin", 1, gate, SILT_LAMBDA(Index) { *pg.shared_count = 0; });
  gated_for(
      exec, "mpm.multi.tag", g.capacity, gate, SILT_LAMBDA(Index b) {
        if (b >= ctl->num_blocks) return;
        int* row = pg.peer_block + Index(pg.parts) * b;
        const BlockKey key = g.block_key[b];
        bool shared = false;
        for (int p = 0; p < pg.parts; ++p) {
          int idx = -1;
          if (p == pg.self) {
            idx = b;
          } else if (reduce) {
            const int slot = pg.hash[p].find(key);
            idx = slot < 0 ? -1 : pg.hash[p].values[slot];
          }
          row[p] = idx;
          shared = shared || (p != pg.self && idx >= 0);
        }
        if (shared) pg.shared_list[atomic_fetch_add(pg.shared_count, 1)] = b;
      });
}

void enqueue_grid_update_shared(const Exec& exec, const GridArgs& a, GridView g, StepControl* ctl,
                                const PartGrids& pg) {
  const Index nodes = g.capacity * kBlockNodes;
  gated_for(
      exec, "mpm.multi.grid_update", nodes, &ctl->active, SILT_LAMBDA(Index node) {
        const int b = node / kBlockNodes;
        if (b >= ctl->num_blocks) return;
        const int l = int(node - Index(b) * kBlockNodes);
        const int stride = g.accum_stride;
        const int* row = pg.peer_block + Index(pg.parts) * b;
        float sum[kAccumChannelsSplit] = {};
        bool shared = false;
        for (int p = 0; p < pg.parts; ++p) {
          const int pb = row[p];
          if (pb < 0) continue;
          shared = shared || p != pg.self;
          const float* acc = pg.accum[p] + Index(stride) * (Index(pb) * kBlockNodes + l);
          for (int c = 0; c < stride; ++c) sum[c] += acc[c];
        }
        // Others may still read this node's sums when the block is shared: those are cleared
        // after the next agreement (enqueue_clear_shared), the rest right away.
        if (!shared)
          for (int c = 0; c < stride; ++c) g.accum[Index(stride) * node + c] = 0.0f;
        const float dt = ctl->dt;
        const Vec3f transfer{sum[1], sum[2], sum[3]};
        const Vec3f momentum =
            stride > kAccumChannels ? transfer + Vec3f{sum[4], sum[5], sum[6]} * dt : transfer;
        detail::grid_node_update(a, g, ctl, node, b, sum[0], transfer, momentum);
      });
}

namespace {

/// Arrive and wait (device code; one thread). The parts' counts of barriers passed stay equal,
/// so the target is this part's count times the parts.
SILT_HD SILT_FORCEINLINE void arrive_and_wait(const DeviceSync& sync, FaultView fault) {
#if SILT_DEVICE_PASS
  // This part's earlier work (stream order) and its slot writes: visible to the peers first.
  __threadfence_system();
  const unsigned long long target = (sync.state->passed + 1) * (unsigned long long)sync.parts;
  sync.state->passed += 1;
  atomicAdd_system(sync.counter, 1ull);
  const long long start = clock64();
  while (*reinterpret_cast<volatile unsigned long long*>(sync.counter) < target) {
    if (clock64() - start > 20000000000LL) {  // ~10 s at 2 GHz
      fault.raise(kFaultBarrier, 0, 0);
      break;
    }
  }
  __threadfence_system();
#else
  (void)sync;
  (void)fault;
#endif
}

}  // namespace

void enqueue_atomic_barrier(const Exec& exec, const DeviceSync& sync, FaultView fault) {
  if (!exec.is_cuda()) return;
  parallel_for(
      exec, "mpm.multi.barrier", 1, SILT_LAMBDA(Index) { arrive_and_wait(sync, fault); });
}

void enqueue_agree_in_kernel(const Exec& exec, StepControl* ctl, FaultView fault, int grow_blocks,
                             const DeviceSync& sync) {
  parallel_for(
      exec, "mpm.multi.agree", 1, SILT_LAMBDA(Index) {
        const int parity = sync.state->parity ^ 1;
        sync.state->parity = parity;
        double* mine = sync.slots[sync.self] + parity * kAgreeSlots;
        mine[kAgreeVmax] = double(ctl->vmax);
        mine[kAgreeEscape] = ctl->zone_escape != 0 ? 1.0 : 0.0;
        mine[kAgreePause] = ctl->num_blocks > grow_blocks ? 1.0 : 0.0;
        mine[kAgreeFault] = fault.raised() ? 1.0 : 0.0;
        arrive_and_wait(sync, fault);
        double v[kAgreeSlots] = {};
        for (int p = 0; p < sync.parts; ++p) {
          const volatile double* s = sync.slots[p] + parity * kAgreeSlots;
          for (int k = 0; k < kAgreeSlots; ++k) v[k] = s[k] > v[k] ? s[k] : v[k];
        }
        ctl->vmax = float(v[kAgreeVmax]);
        ctl->zone_escape = v[kAgreeEscape] > 0.0 ? 1 : 0;
        ctl->pause_request = v[kAgreePause] > 0.0 ? 1 : 0;
        ctl->halt = v[kAgreeFault] > 0.0 ? 1 : 0;
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
