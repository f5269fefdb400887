// Warp-level pre-reduction of P2G: the lanes of a warp whose particles have the same stencil base
// write to the same 27 nodes, so they add their shares in registers first (a tree of shuffles)
// and one lane per group issues the atomics. Why: particles sorted by cell put ~particles-per-cell
// lanes of a warp on the same addresses, whose atomics serialise in L2 (docs/NOTES.md, "MPM on the
// GPU"). Groups need not be contiguous in lane order; a warp whose lanes all differ skips the
// shuffles.
#pragma once

#include "silt/core/config.hpp"

namespace silt::mpm::detail {

/// This lane's place in its group of same-key lanes (CUDA); on the host every lane is alone.
struct LaneGroup {
  unsigned mask = 0;   // lanes taking part (the converged lanes at lane_group)
  int steps = 0;       // tree steps, the same on every lane of mask (0: no group has 2 lanes)
  unsigned src = 0;    // bits 5s..5s+4: at step s, the lane holding rank + 2^s of the group
  unsigned recv = 0;   // bit s: this lane adds that lane's partial sum at step s
  bool leader = true;  // rank 0: holds the group's sum after the steps, issues the atomics
};

/// Groups the calling lanes by key. Call where the warp's lanes have converged (before the
/// stencil loop); every lane of the returned mask must then call group_sum the same number of
/// times. enabled = false: every lane alone, no warp intrinsics.
SILT_HD SILT_FORCEINLINE LaneGroup lane_group(int key, bool enabled) {
  LaneGroup g;
#if SILT_DEVICE_PASS && (__CUDA_ARCH__ >= 800)
  if (!enabled) return g;
  const unsigned lane = threadIdx.x & 31u;
  g.mask = __activemask();
  const unsigned peers = __match_any_sync(g.mask, key);
  const int rank = __popc(peers & ((1u << lane) - 1u));
  const int size = __popc(peers);
  const int largest = int(__reduce_max_sync(g.mask, unsigned(size)));
  while ((1 << g.steps) < largest) ++g.steps;
  g.leader = rank == 0;
  // Lanes of the group above this one, lowest first; drop them one by one to reach rank + d.
  unsigned above = peers & ~((2u << lane) - 1u);
  int dropped = 0;
#pragma unroll
  for (int s = 0; s < 5; ++s) {
    const int d = 1 << s;
    unsigned from = lane;
    if (s < g.steps && rank % (2 * d) == 0 && rank + d < size) {
      while (dropped < d - 1) above &= above - 1u, ++dropped;
      from = unsigned(__ffs(int(above)) - 1);
      g.recv |= 1u << s;
    }
    g.src |= from << (5 * s);
  }
#else
  (void)key;
  (void)enabled;
#endif
  return g;
}

/// Sums v over the lane's group into the leader (the other lanes' v become partial sums). T:
/// float, or long long (fixed-point shares, fixed_sums.hpp: the same sum in any order).
template <class T, int N>
SILT_HD SILT_FORCEINLINE void group_sum(const LaneGroup& g, T (&v)[N]) {
#if SILT_DEVICE_PASS && (__CUDA_ARCH__ >= 800)
#pragma unroll
  for (int s = 0; s < 5; ++s) {
    if (s >= g.steps) break;
#pragma unroll
    for (int c = 0; c < N; ++c) {
      const T o = __shfl_sync(g.mask, v[c], int((g.src >> (5 * s)) & 31u));
      if ((g.recv >> s) & 1u) v[c] += o;
    }
  }
#else
  (void)g;
  (void)v;
#endif
}

}  // namespace silt::mpm::detail
