// Gated launches of the transfer kernels with a chosen shape (SolverOptions::transfer_launch):
// the same per-particle body, instantiated once per __launch_bounds__ variant, so the ablation can
// trade registers for occupancy at run time (paper 000 §3 principle 2; register counts and timings
// in docs/NOTES.md). The host backend ignores the shape.
#pragma once

#include "silt/core/parallel_for.hpp"
#include "silt/mpm/solver.hpp"
#include "silt/mpm/sparse_grid.hpp"

namespace silt::mpm {

#if SILT_HAS_CUDA
namespace detail {
/// Threads reads the gate once per thread (no host wait) and runs body(i) for i < n.
template <int Threads, int MinBlocks, class F>
__global__ void __launch_bounds__(Threads, MinBlocks)
    bounded_gated_for(Index n, const int* gate, F body) {
  if (*gate == 0) return;
  const Index i = static_cast<Index>(blockIdx.x) * Threads + threadIdx.x;
  if (i < n) body(i);
}

template <int Threads, int MinBlocks, class F>
void launch_bounded(const Exec& exec, const char* label, Index n, const int* gate, const F& body) {
  silt::detail::range_push(label);
  bounded_gated_for<Threads, MinBlocks>
      <<<silt::detail::blocks_for(n, Threads), Threads, 0, exec.stream>>>(n, gate, body);
  silt::detail::range_pop();
  silt::detail::check_launch(exec, label);
}
}  // namespace detail
#endif

/// gated_for with the launch shape `launch` (a TransferLaunch) on CUDA.
template <class F>
void transfer_for(const Exec& exec, const char* label, int launch, Index n, const int* gate,
                  F body) {
  if (!exec.is_cuda() || launch == int(TransferLaunch::standard)) {
    gated_for(exec, label, n, gate, body);
    return;
  }
#if SILT_HAS_CUDA
  if (n <= 0) return;
  switch (TransferLaunch(launch)) {
    case TransferLaunch::t128_b4:
      detail::launch_bounded<128, 4>(exec, label, n, gate, body);
      break;
    case TransferLaunch::t256_b2:
      detail::launch_bounded<256, 2>(exec, label, n, gate, body);
      break;
    case TransferLaunch::t256_b3:
      detail::launch_bounded<256, 3>(exec, label, n, gate, body);
      break;
    case TransferLaunch::t256_b4:
      detail::launch_bounded<256, 4>(exec, label, n, gate, body);
      break;
    case TransferLaunch::t128_b8:
      detail::launch_bounded<128, 8>(exec, label, n, gate, body);
      break;
    default:
      gated_for(exec, label, n, gate, body);
      break;
  }
#endif
}

}  // namespace silt::mpm
