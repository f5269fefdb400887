// Launches gated on a device flag: body(i) runs for i in [0, n) only when *gate != 0, read by
// every thread on the device, so a phase that the device decided to skip (a step after the frame's
// end, a rebuild that is not due) costs an early-exit launch and no host wait (paper 000 §3,
// principle 4). On the host backend the flag is host memory and the loop is skipped outright.
#pragma once

#include "silt/core/config.hpp"
#include "silt/core/exec.hpp"
#include "silt/core/launch.hpp"
#include "silt/core/parallel_for.hpp"

namespace silt {

namespace detail {
/// The host backend's gated loop: the same OpenMP loop parallel_for runs, written out so that the
/// body is not also instantiated as a CUDA kernel.
template <class F>
void gated_host_loop(const char* label, Index n, const int* gate, F& body) {
  if (*gate == 0 || n <= 0) return;
  range_push(label);
#pragma omp parallel for schedule(static)
  for (Index i = 0; i < n; ++i) body(i);
  range_pop();
}
}  // namespace detail

template <class F>
void gated_for(const Exec& exec, const char* label, Index n, const int* gate, F body) {
  if (!exec.is_cuda()) {
    detail::gated_host_loop(label, n, gate, body);
    return;
  }
  parallel_for(
      exec, label, n, SILT_LAMBDA(Index i) {
        if (*gate != 0) body(i);
      });
}

#if SILT_HAS_CUDA
namespace detail {
template <int Threads, int MinBlocks, class F>
__global__ void __launch_bounds__(Threads, MinBlocks)
    bounded_gated_for_kernel(Index n, const int* gate, F body) {
  if (*gate == 0) return;
  const Index i = static_cast<Index>(blockIdx.x) * Threads + threadIdx.x;
  if (i < n) body(i);
}
}  // namespace detail
#endif

/// gated_for with Threads threads per CUDA block and at least MinBlocks resident per SM given to
/// __launch_bounds__, which caps the registers per thread at 65536 / (Threads * MinBlocks): for
/// register-heavy bodies (the MPM transfers) where occupancy pays more than registers.
template <int Threads, int MinBlocks, class F>
void bounded_gated_for(const Exec& exec, const char* label, Index n, const int* gate, F body) {
  if (!exec.is_cuda()) {
    detail::gated_host_loop(label, n, gate, body);  // no unbounded CUDA kernel of the body
    return;
  }
#if SILT_HAS_CUDA
  if (n <= 0) return;
  launch_kernel(exec, label, dim3(detail::blocks_for(n, Threads)), dim3(Threads), 0,
                detail::bounded_gated_for_kernel<Threads, MinBlocks, F>, n, gate, body);
#else
  detail::throw_no_cuda_in_unit(label);
#endif
}

}  // namespace silt
