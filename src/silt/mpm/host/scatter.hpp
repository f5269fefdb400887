// The host backend's P2G scatter without atomics. Each OpenMP thread scatters a contiguous range
// of the particles into a grid of its own: thread 0 into the step's accumulator itself, thread
// t > 0 into slab t - 1 of SparseGrid's host partials. After one barrier the threads sum the slabs
// into the accumulator over the active nodes, in thread order, and clear them. Why: OpenMP float
// atomics are compare-and-swap loops on x86 (108 per particle in 3D), and their order changes
// from run to run; here the sums are deterministic for a given thread count and, on one thread,
// exactly the particle-order sums of the atomic scatter (docs/NOTES.md, "MPM on the CPU"). In the
// deterministic mode (fixed_sums.hpp) the grids hold fixed-point integers: then the sums are the
// same bits for any thread count and particle order.
#pragma once

#include <omp.h>

#include <algorithm>

#include "silt/core/config.hpp"
#include "silt/core/parallel_for.hpp"
#include "silt/mpm/fixed_sums.hpp"
#include "silt/mpm/pipeline.hpp"
#include "silt/mpm/transfer_body.hpp"

namespace silt::mpm::detail {

/// A scatter sink (transfer_body.hpp) with plain adds into a grid only the calling thread
/// writes. The same float operations as GlobalSink on the host, in the same order; with `fixed`
/// (deterministic mode) each share is rounded to fixed point and added to the integer grid.
struct HostSink {
  static constexpr bool kMoments = false;  // no volume moments (contact.hpp's sink takes them)
  float* accum;
  int stride;
  long long* fixed = nullptr;
  FixedScale scale{};
  FaultView fault{};
  SILT_HD SILT_FORCEINLINE void add(const LaneGroup&, const StencilMap& m, const int* nb, int ii,
                                    int j, int k, float (&s)[4]) const {
    add4(stencil_node(m, nb, ii, j, k), s);
  }
  SILT_HD SILT_FORCEINLINE void add_force(const LaneGroup&, const StencilMap& m, const int* nb,
                                          int ii, int j, int k, float (&f)[3]) const {
    const float s[4] = {f[0], f[1], f[2], 0.0f};
    add4_force(stencil_node(m, nb, ii, j, k), s);
  }
  /// The 4 channels of a node (mpm/host/p2g.cpp's packs; add_force: the force channels 4-7). All
  /// loads before the stores: g++ makes the four adds one vector add (the same IEEE sums).
  SILT_HD SILT_FORCEINLINE void add4(int node, const float* s) const {
    if (fixed)
      add4_fixed(node, 0, s);
    else
      add4_at(accum + stride * node, s);
  }
  SILT_HD SILT_FORCEINLINE void add4_force(int node, const float* s) const {
    if (fixed)
      add4_fixed(node, 4, s);
    else
      add4_at(accum + stride * node + 4, s);
  }
  static SILT_HD SILT_FORCEINLINE void add4_at(float* q, const float* s) {
    const float q0 = q[0] + s[0], q1 = q[1] + s[1], q2 = q[2] + s[2], q3 = q[3] + s[3];
    q[0] = q0, q[1] = q1, q[2] = q2, q[3] = q3;
  }
  /// Channels c0 .. c0 + 3 (the force's fourth channel is padding, left alone).
  SILT_HD SILT_FORCEINLINE void add4_fixed(int node, int c0, const float* s) const {
    long long* q = fixed + stride * node + c0;
    const int n = c0 == 0 ? 4 : 3;
    for (int c = 0; c < n; ++c) {
      long long v;
      if (!to_fixed(s[c], scale.to_fixed[fixed_kind(c0 + c)], v))
        fault.raise(kFaultFixedRange, node, c0 + c);
      q[c] += v;
    }
  }
};

/// Adds value j of `count` slabs (slab values apart) into into[j] and clears it there.
template <class T>
SILT_FORCEINLINE void sum_slabs(T* into, T* slabs, long long slab, int count, long long j) {
  T s = into[j];
  for (int u = 0; u < count; ++u) {
    T* q = slabs + u * slab + j;
    s += *q;
    *q = T(0);
  }
  into[j] = s;
}

/// Runs body(lo, hi, sink) for the particles [lo, hi) of each thread's share of [0, n), in particle
/// order, when *gate != 0, each thread with its own sink, then sums the partial grids into the
/// accumulator of `parity` (g.fixed's in the deterministic mode; nodes: the active nodes). One
/// parallel region and one barrier (none on one thread).
template <class Body>
void host_scatter(const char* label, Index n, const int* gate, const GridView& g, int parity,
                  Index nodes, HostPartials parts, FaultView fault, Body body) {
  if (*gate == 0 || n <= 0) return;
  silt::detail::range_push(label);
  const int threads = std::max(1, std::min(omp_get_max_threads(), parts.slabs + 1));
  const long long values = static_cast<long long>(nodes) * g.accum_stride;
  float* accum = accum_of(g, parity);
  long long* fixed = fixed_of(g, parity);
#pragma omp parallel num_threads(threads)
  {
    const int t = omp_get_thread_num(), nt = omp_get_num_threads();
    const long long slab = static_cast<long long>(t - 1) * parts.slab;
    HostSink sink{t == 0 ? accum : parts.data + slab, g.accum_stride};
    if (fixed) sink.fixed = t == 0 ? fixed : parts.fixed + slab;
    sink.scale = g.scale;
    sink.fault = fault;
    const Index lo = static_cast<Index>(static_cast<long long>(n) * t / nt);
    const Index hi = static_cast<Index>(static_cast<long long>(n) * (t + 1) / nt);
    body(lo, hi, sink);
    if (nt > 1) {
#pragma omp barrier
#pragma omp for schedule(static)
      for (long long j = 0; j < values; ++j) {
        if (fixed)
          sum_slabs(fixed, parts.fixed, parts.slab, nt - 1, j);
        else
          sum_slabs(accum, parts.data, parts.slab, nt - 1, j);
      }
    }
  }
  silt::detail::range_pop();
}

}  // namespace silt::mpm::detail
