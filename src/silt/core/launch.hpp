// The checked launch of hand-written kernels (the fused MPM transfers, the SWE tile kernel, the
// cross-GPU barrier kernels): the one place outside parallel_for.hpp that writes <<<>>>. Like
// parallel_for it names an NVTX range, checks the launch always and synchronises only in debug
// builds (or with SILT_SYNC_LAUNCHES=1).
#pragma once

#include <cstddef>
#include <utility>

#include "silt/core/config.hpp"
#include "silt/core/exec.hpp"
#include "silt/core/parallel_for.hpp"

namespace silt {

#if SILT_HAS_CUDA
/// Launches kernel<<<grid, block, shared_bytes, exec.stream>>>(args...) and checks it. Throws
/// silt::Error naming label when the launch fails.
template <class... Params, class... Args>
void launch_kernel(const Exec& exec, const char* label, dim3 grid, dim3 block,
                   std::size_t shared_bytes, void (*kernel)(Params...), Args&&... args) {
  detail::range_push(label);
  kernel<<<grid, block, shared_bytes, exec.stream>>>(std::forward<Args>(args)...);
  detail::range_pop();
  detail::check_launch(exec, label);
}
#endif

}  // namespace silt
