// Compiled without fast math, as phases.cpp (whose phase_clock a member's clock must equal).
#include "silt/swe/batch_phases.hpp"

#include <algorithm>
#include <memory>

#include "silt/core/error.hpp"
#include "silt/swe/clock_step.hpp"
#include "silt/swe/fused_step.hpp"

#if SILT_HAS_CUDA
#include "silt/core/launch.hpp"
#endif

namespace silt::swe::detail {

#if SILT_HAS_CUDA
namespace {
// Block b: the clock of member b (one thread).
template <class T>
__global__ void clock_batch_kernel(const __grid_constant__ TileBatchViews<T> views) {
  clock_step(views.v[blockIdx.x]);
}
}  // namespace

template <class T>
void phase_clock_batch(const Exec& exec, const std::vector<SolverView<T>>& views) {
  // 32 KB of parameters: kept off the stack, reused by the thread's later launches.
  thread_local std::unique_ptr<TileBatchViews<T>> params;
  if (!params) params = std::make_unique<TileBatchViews<T>>();
  constexpr size_t kMax = size_t(kTileBatchMax<T>);
  for (size_t first = 0; first < views.size(); first += kMax) {
    const size_t n = std::min(views.size() - first, kMax);
    std::copy(views.begin() + std::ptrdiff_t(first), views.begin() + std::ptrdiff_t(first + n),
              params->v);
    silt::launch_kernel(exec, "swe.clock.batch", dim3(unsigned(n)), dim3(1), 0,
                        &clock_batch_kernel<T>, *params);
  }
}
#else
template <class T>
void phase_clock_batch(const Exec&, const std::vector<SolverView<T>>&) {
  throw Error("the batched shallow-water clock needs the CUDA backend");
}
#endif

template void phase_clock_batch<float>(const Exec&, const std::vector<SolverView<float>>&);
template void phase_clock_batch<double>(const Exec&, const std::vector<SolverView<double>>&);

}  // namespace silt::swe::detail
