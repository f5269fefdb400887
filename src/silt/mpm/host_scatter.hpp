// The host backend's P2G scatter without atomics. Each OpenMP thread scatters a contiguous range
// of the particles into a grid of its own: thread 0 into the step's accumulator itself, thread
// t > 0 into slab t - 1 of SparseGrid's host partials. After one barrier the threads sum the slabs
// into the accumulator over the active nodes, in thread order, and clear them. Why: OpenMP float
// atomics are compare-and-swap loops on x86 (108 per particle in 3D), and their order changes
// from run to run; here the sums are deterministic for a given thread count and, on one thread,
// exactly the particle-order sums of the atomic scatter (docs/NOTES.md, "MPM on the CPU").
#pragma once

#include <omp.h>

#include <algorithm>

#include "silt/core/config.hpp"
#include "silt/core/parallel_for.hpp"
#include "silt/mpm/pipeline.hpp"
#include "silt/mpm/transfer_body.hpp"

namespace silt::mpm::detail {

/// A scatter sink (transfer_body.hpp) with plain adds into a grid only the calling thread
/// writes. The same float operations as GlobalSink on the host, in the same order.
struct HostSink {
  float* accum;
  int stride;
  SILT_HD SILT_FORCEINLINE void add(const StencilMap& m, const int* nb, int ii, int j, int k,
                                    float mass, const Vec3f& mv) const {
    float* q = accum + stride * stencil_node(m, nb, ii, j, k);
    q[0] += mass;
    q[1] += mv[0];
    q[2] += mv[1];
    q[3] += mv[2];
  }
  SILT_HD SILT_FORCEINLINE void add_force(const StencilMap& m, const int* nb, int ii, int j, int k,
                                          const Vec3f& f) const {
    float* q = accum + stride * stencil_node(m, nb, ii, j, k) + 4;
    q[0] += f[0];
    q[1] += f[1];
    q[2] += f[2];
    q[3] += 0.0f;
  }
  /// add and add_force with the node index and the 4 channels given (host_p2g.cpp's packs). All
  /// loads before the stores: g++ makes the four adds one vector add (the same IEEE sums).
  SILT_FORCEINLINE void add4(int node, const float* s) const { add4_at(accum + stride * node, s); }
  SILT_FORCEINLINE void add4_force(int node, const float* s) const {
    add4_at(accum + stride * node + 4, s);
  }
  static SILT_FORCEINLINE void add4_at(float* q, const float* s) {
    const float q0 = q[0] + s[0], q1 = q[1] + s[1], q2 = q[2] + s[2], q3 = q[3] + s[3];
    q[0] = q0, q[1] = q1, q[2] = q2, q[3] = q3;
  }
};

/// Runs body(lo, hi, sink) for the particles [lo, hi) of each thread's share of [0, n), in particle
/// order, when *gate != 0, each thread with its own sink, then sums the partial grids into accum (nodes: the active nodes, accum_stride floats
/// each). One parallel region and one barrier (none on one thread).
template <class Body>
void host_scatter(const char* label, Index n, const int* gate, float* accum, int stride,
                  Index nodes, HostPartials parts, Body body) {
  if (*gate == 0 || n <= 0) return;
  silt::detail::range_push(label);
  const int threads = std::max(1, std::min(omp_get_max_threads(), parts.slabs + 1));
  const long long floats = static_cast<long long>(nodes) * stride;
#pragma omp parallel num_threads(threads)
  {
    const int t = omp_get_thread_num(), nt = omp_get_num_threads();
    const HostSink sink{t == 0 ? accum : parts.data + static_cast<long long>(t - 1) * parts.slab,
                        stride};
    const Index lo = static_cast<Index>(static_cast<long long>(n) * t / nt);
    const Index hi = static_cast<Index>(static_cast<long long>(n) * (t + 1) / nt);
    body(lo, hi, sink);
    if (nt > 1) {
#pragma omp barrier
#pragma omp for schedule(static)
      for (long long j = 0; j < floats; ++j) {
        float s = accum[j];
        for (int u = 0; u + 1 < nt; ++u) {
          float* q = parts.data + u * static_cast<long long>(parts.slab) + j;
          s += *q;
          *q = 0.0f;
        }
        accum[j] = s;
      }
    }
  }
  silt::detail::range_pop();
}

}  // namespace silt::mpm::detail
