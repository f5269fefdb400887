// Per-node and per-block bodies shared by the exchange's plain-step kernels
// (mpm/exchange/kernels.cpp) and its graph-step kernels (mpm/exchange/lagged.cpp). Internal to
// silt::mpm.
#pragma once

#include "silt/core/atomic.hpp"
#include "silt/mpm/exchange/kernels.hpp"
#include "silt/mpm/grid_update_body.hpp"

namespace silt::mpm::detail {

/// This part's agreement values (AgreeSlot) from its control, fault flags and grid fill.
SILT_HD SILT_FORCEINLINE void fill_values(const StepControl& c, const FaultView& fault,
                                          int grow_blocks, double* v) {
  v[kAgreeVmax] = double(c.vmax);
  v[kAgreeEscape] = c.zone_escape != 0 ? 1.0 : 0.0;
  v[kAgreePause] = c.num_blocks > grow_blocks ? 1.0 : 0.0;
  v[kAgreeFault] = fault.raised() ? 1.0 : 0.0;
  v[kAgreeWave] = double(c.cmax);
}

/// Tags own block b (< num_blocks): its index in every part's hash (or -1), listed when shared.
SILT_HD SILT_FORCEINLINE void tag_block(Index b, const GridView& g, const PartGrids& pg) {
  int* row = pg.peer_block + Index(pg.parts) * b;
  const BlockKey key = g.block_key[b];
  bool shared = false;
  for (int p = 0; p < pg.parts; ++p) {
    int idx = -1;
    if (p == pg.self) {
      idx = int(b);
    } else {
      const int slot = pg.hash[p].find(key);
      idx = slot < 0 ? -1 : pg.hash[p].values[slot];
    }
    row[p] = idx;
    shared = shared || (p != pg.self && idx >= 0);
  }
  if (shared) pg.shared_list[atomic_fetch_add(pg.shared_count, 1)] = int(b);
}

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

/// One node of the grid update with the shared-block reduction in front (the plain and the
/// lagged grid update run it).
struct SharedNodeUpdate {
  GridArgs a;
  GridView g;
  StepControl* ctl;
  PartGrids pg;
  FaultView fault;  // kFaultFixedRange (deterministic mode)
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
  /// Sums node l of own block b over its holders, in part order, into sum; true when another
  /// part holds the block.
  SILT_HD SILT_FORCEINLINE bool sum_float(int b, int l, bool alt, float* sum) const {
    const int stride = g.accum_stride;
    const int* row = pg.peer_block + Index(pg.parts) * b;
    bool shared = false;
    for (int p = 0; p < pg.parts; ++p) {
      const int pb = row[p];
      if (pb < 0) continue;
      shared = shared || p != pg.self;
      const float* base = alt && pg.accum_alt[p] ? pg.accum_alt[p] : pg.accum[p];
      add_node(sum, base + Index(stride) * (Index(pb) * kBlockNodes + l), stride);
    }
    return shared;
  }
  /// The same over the fixed-point sums (deterministic mode): integer sums, so the node's value
  /// is the one-part run's whatever the parts and their order; then to float with the range
  /// check.
  SILT_HD SILT_FORCEINLINE bool sum_fixed(int b, int l, bool alt, float* sum) const {
    const int stride = g.accum_stride;
    const int* row = pg.peer_block + Index(pg.parts) * b;
    long long q[kAccumChannelsSplit] = {};
    bool shared = false;
    for (int p = 0; p < pg.parts; ++p) {
      const int pb = row[p];
      if (pb < 0) continue;
      shared = shared || p != pg.self;
      const long long* base = alt && pg.fixed_alt[p] ? pg.fixed_alt[p] : pg.fixed[p];
      const long long* node = base + Index(stride) * (Index(pb) * kBlockNodes + l);
      for (int c = 0; c < stride; ++c) q[c] += node[c];
    }
    const int bad = fixed_to_float(q, stride, g.scale, sum);
    if (bad >= 0) fault.raise(kFaultFixedRange, b * kBlockNodes + l, bad);
    return shared;
  }
  /// The node's update for the step of size dt (s) ending at time (s), whose P2G filled the
  /// accumulator of `parity` (StepControl::accum_parity).
  SILT_HD SILT_FORCEINLINE void update(Index node, float dt, double time, int parity) const {
    const int b = int(node / kBlockNodes);
    const int l = int(node - Index(b) * kBlockNodes);
    const int stride = g.accum_stride;
    const bool alt = parity != 0;
    float sum[kAccumChannelsSplit] = {};
    const bool shared = g.fixed ? sum_fixed(b, l, alt, sum) : sum_float(b, l, alt, sum);
    // Others may still read this node's sums when the block is shared: those are cleared after
    // the next agreement (enqueue_clear_shared, enqueue_agree_step), the rest right away.
    if (!shared) clear_node_sums(g, parity, node);
    if (clear_other && (shared || ctl->rebuild != 0)) clear_node_sums(g, parity ^ 1, node);
    const Vec3f transfer{sum[1], sum[2], sum[3]};
    const Vec3f momentum =
        stride > kAccumChannels ? transfer + Vec3f{sum[4], sum[5], sum[6]} * dt : transfer;
    detail::grid_node_update(a, g, dt, time, node, b, sum[0], transfer, momentum);
  }
};

}  // namespace silt::mpm::detail
