// Launch of the shared-memory P2G ablation (p2g_shared_body.hpp). CUDA: one CUDA block of
// kArenaThreads particles per arena in static shared memory. Host: the same chunks and arena
// arithmetic, one arena per OpenMP thread, so the CPU tests check the arena indexing and flush.
#include <vector>

#include "silt/core/parallel_for.hpp"
#include "silt/mpm/p2g_shared_body.hpp"
#include "silt/mpm/pipeline.hpp"

namespace silt::mpm {

namespace {
constexpr int kMaxArenaFloats = 7 * detail::kArenaNodes;

#if SILT_HAS_CUDA
__global__ void __launch_bounds__(detail::kArenaThreads)
    p2g_shared_kernel(TransferArgs a, ParticleView p, GridView g, StepControl* ctl, FaultView fault,
                      const int* gate, bool advance_f) {
  if (*gate == 0) return;
  // Dynamic: 4 channels (27,648 B) leave room for more resident blocks than 7 (48,384 B).
  extern __shared__ float arena[];
  const int floats = detail::arena_channels(a.split_force) * detail::kArenaNodes;
  for (int k = threadIdx.x; k < floats; k += blockDim.x) arena[k] = 0.0f;
  const Index first = static_cast<Index>(blockIdx.x) * detail::kArenaThreads;
  // Every thread reads the same leader: the block of the CUDA block's first particle.
  const int leader = p.block[first];
  __syncthreads();
  const Index i = first + threadIdx.x;
  if (i < a.particles)
    detail::p2g_particle_arena(a, p, g, i, ctl->dt, advance_f ? ctl->dt_prev : 0.0f, fault, leader,
                               arena);
  __syncthreads();
  if (leader < 0) return;
  for (int n = threadIdx.x; n < detail::kArenaNodes; n += blockDim.x)
    detail::flush_arena_node(a, g, leader, arena, n);
}
#endif
}  // namespace

void enqueue_p2g_shared(const Exec& exec, const TransferArgs& a, ParticleView p, GridView g,
                        StepControl* ctl, FaultView fault, const int* gate, bool advance_f) {
  const Index n = a.particles;
  if (n <= 0) return;
  const Index chunks = (n + detail::kArenaThreads - 1) / detail::kArenaThreads;
  if (exec.is_cuda()) {
#if SILT_HAS_CUDA
    const char* label = "mpm.p2g_shared";
    silt::detail::range_push(label);
    const std::size_t bytes =
        sizeof(float) * detail::arena_channels(a.split_force) * detail::kArenaNodes;
    p2g_shared_kernel<<<static_cast<unsigned>(chunks), detail::kArenaThreads, bytes, exec.stream>>>(
        a, p, g, ctl, fault, gate, advance_f);
    silt::detail::range_pop();
    silt::detail::check_launch(exec, label);
#else
    silt::detail::throw_no_cuda_in_unit("mpm.p2g_shared");
#endif
    return;
  }
  if (*gate == 0) return;  // host backend: the flag is host memory
  const float dt = ctl->dt, dt_prev = advance_f ? ctl->dt_prev : 0.0f;
#pragma omp parallel
  {
    // One arena per thread, allocated once per thread and kept zero between chunks (the flush
    // clears what it adds), like the shared memory of a CUDA block.
    static thread_local std::vector<float> arena;
    if (arena.size() != std::size_t(kMaxArenaFloats)) arena.assign(kMaxArenaFloats, 0.0f);
#pragma omp for schedule(static)
    for (Index chunk = 0; chunk < chunks; ++chunk) {
      const Index first = chunk * detail::kArenaThreads;
      const Index last = first + detail::kArenaThreads < n ? first + detail::kArenaThreads : n;
      const int leader = p.block[first];
      for (Index i = first; i < last; ++i)
        detail::p2g_particle_arena(a, p, g, i, dt, dt_prev, fault, leader, arena.data());
      if (leader < 0) continue;
      for (int k = 0; k < detail::kArenaNodes; ++k)
        detail::flush_arena_node(a, g, leader, arena.data(), k);
    }
  }
}

}  // namespace silt::mpm
