// The launch abstraction. Every loop over cells, faces, particles or blocks is
//   parallel_for(exec, "label", range, SILT_LAMBDA(Index i) { kernel_k(i, ...); });
// On the CPU backend this is an OpenMP loop (on the calling thread below kHostSerialBelow
// iterations); on the CUDA backend a generic kernel launched on
// exec's stream, with the launch error checked always and a device synchronisation only in debug
// builds (or with SILT_SYNC_LAUNCHES=1). Labels name NVTX ranges for profilers.
//
// A translation unit that launches on CUDA must be compiled by nvcc (SILT_HAS_CUDA); in a host-only
// unit a CUDA Exec is an error at run time, never a silent CPU fallback.
#pragma once

#include <limits>

#include "silt/core/atomic.hpp"
#include "silt/core/config.hpp"
#include "silt/core/exec.hpp"

namespace silt {

/// Half-open index boxes: [i0, i1) x [j0, j1) (x [k0, k1)).
struct Box2 {
  Index i0, i1, j0, j1;
  Index count() const { return (i1 > i0 && j1 > j0) ? (i1 - i0) * (j1 - j0) : 0; }
};
struct Box3 {
  Index i0, i1, j0, j1, k0, k1;
  Index count() const {
    return (i1 > i0 && j1 > j0 && k1 > k0) ? (i1 - i0) * (j1 - j0) * (k1 - k0) : 0;
  }
};

namespace detail {
/// Throws when a CUDA exec reaches a unit compiled without nvcc.
[[noreturn]] void throw_no_cuda_in_unit(const char* label);
/// Checks the last launch; synchronises and checks again in debug mode. Throws silt::Error
/// naming the label.
void check_launch(const Exec& exec, const char* label);
/// NVTX range around a launch (no-op without CUDA or without a profiler attached).
void range_push(const char* label);
void range_pop();

/// The reductions of parallel_reduce: identity, combine and the atomic that merges block results.
enum class Reduction { sum, min, max };
template <Reduction R>
struct ReduceOp {
  template <class T>
  SILT_HD static T identity() {
    if constexpr (R == Reduction::sum)
      return T(0);
    else if constexpr (R == Reduction::min)
      return std::numeric_limits<T>::max();
    else
      return std::numeric_limits<T>::lowest();
  }
  template <class T>
  SILT_HD static T combine(T a, T b) {
    if constexpr (R == Reduction::sum)
      return a + b;
    else if constexpr (R == Reduction::min)
      return b < a ? b : a;
    else
      return a < b ? b : a;
  }
  template <class T>
  SILT_HD static void atomic(T* p, T v) {
    if constexpr (R == Reduction::sum)
      atomic_add(p, v);
    else if constexpr (R == Reduction::min)
      atomic_min(p, v);
    else
      atomic_max(p, v);
  }
};
using SumOp = ReduceOp<Reduction::sum>;
using MinOp = ReduceOp<Reduction::min>;
using MaxOp = ReduceOp<Reduction::max>;
}  // namespace detail

#if SILT_HAS_CUDA
namespace detail {
constexpr int kBlock1 = 256;
constexpr int kBlock2x = 32, kBlock2y = 8;
constexpr int kBlock3x = 8, kBlock3y = 8, kBlock3z = 4;

template <class F>
__global__ void for_1d(Index n, F f) {
  const Index i = static_cast<Index>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) f(i);
}
template <class F>
__global__ void for_2d(Box2 b, F f) {
  const Index i = b.i0 + static_cast<Index>(blockIdx.x) * blockDim.x + threadIdx.x;
  const Index j = b.j0 + static_cast<Index>(blockIdx.y) * blockDim.y + threadIdx.y;
  if (i < b.i1 && j < b.j1) f(i, j);
}
template <class F>
__global__ void for_3d(Box3 b, F f) {
  const Index i = b.i0 + static_cast<Index>(blockIdx.x) * blockDim.x + threadIdx.x;
  const Index j = b.j0 + static_cast<Index>(blockIdx.y) * blockDim.y + threadIdx.y;
  const Index k = b.k0 + static_cast<Index>(blockIdx.z) * blockDim.z + threadIdx.z;
  if (i < b.i1 && j < b.j1 && k < b.k1) f(i, j, k);
}

template <class T, class Op>
__device__ T block_reduce(T v) {
  __shared__ T warp_vals[32];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  for (int o = 16; o > 0; o >>= 1) v = Op::combine(v, __shfl_down_sync(0xffffffffu, v, o));
  if (lane == 0) warp_vals[warp] = v;
  __syncthreads();
  const int nwarps = (blockDim.x + 31) >> 5;
  v = threadIdx.x < nwarps ? warp_vals[lane] : Op::template identity<T>();
  if (warp == 0)
    for (int o = 16; o > 0; o >>= 1) v = Op::combine(v, __shfl_down_sync(0xffffffffu, v, o));
  return v;
}

template <class T, class Op, class F>
__global__ void reduce_1d(Index n, F f, T* out) {
  T v = Op::template identity<T>();
  for (Index i = static_cast<Index>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<Index>(gridDim.x) * blockDim.x)
    v = Op::combine(v, f(i));
  v = block_reduce<T, Op>(v);
  if (threadIdx.x == 0) Op::atomic(out, v);
}

inline unsigned blocks_for(Index n, int block) {
  return static_cast<unsigned>((static_cast<long long>(n) + block - 1) / block);
}

/// kernel<<<grid, block>>>(args...) on exec's stream, inside an NVTX range named label; the launch
/// is checked (and synchronised in debug builds).
template <class... P, class... A>
void launch(const Exec& exec, const char* label, dim3 grid, dim3 block, void (*kernel)(P...),
            const A&... args) {
  range_push(label);
  kernel<<<grid, block, 0, exec.stream>>>(args...);
  range_pop();
  check_launch(exec, label);
}

/// The CUDA side of parallel_for over [0, n), a Box2 and a Box3, and of parallel_reduce_into.
template <class F>
void launch_for(const Exec& exec, const char* label, Index n, const F& f) {
  launch(exec, label, blocks_for(n, kBlock1), kBlock1, for_1d<F>, n, f);
}
template <class F>
void launch_for(const Exec& exec, const char* label, Box2 b, const F& f) {
  const dim3 grid(blocks_for(b.i1 - b.i0, kBlock2x), blocks_for(b.j1 - b.j0, kBlock2y));
  launch(exec, label, grid, dim3(kBlock2x, kBlock2y), for_2d<F>, b, f);
}
template <class F>
void launch_for(const Exec& exec, const char* label, Box3 b, const F& f) {
  const dim3 grid(blocks_for(b.i1 - b.i0, kBlock3x), blocks_for(b.j1 - b.j0, kBlock3y),
                  blocks_for(b.k1 - b.k0, kBlock3z));
  launch(exec, label, grid, dim3(kBlock3x, kBlock3y, kBlock3z), for_3d<F>, b, f);
}
template <class Op, class T, class F>
void launch_reduce(const Exec& exec, const char* label, Index n, const F& f, T* out) {
  unsigned blocks = blocks_for(n, kBlock1);
  if (blocks > 4096u) blocks = 4096u;  // grid-stride beyond ~30 blocks per SM
  launch(exec, label, blocks, kBlock1, reduce_1d<T, Op, F>, n, f, out);
}
}  // namespace detail
#else
namespace detail {
// A CUDA exec in a unit compiled without nvcc: an error at run time.
template <class R, class F>
void launch_for(const Exec&, const char* label, R, const F&) {
  throw_no_cuda_in_unit(label);
}
template <class Op, class T, class F>
void launch_reduce(const Exec&, const char* label, Index, const F&, T*) {
  throw_no_cuda_in_unit(label);
}
}  // namespace detail
#endif

/// Host loops of fewer iterations run on the calling thread. Entering an OpenMP parallel region
/// costs microseconds on an idle machine and up to a scheduler time slice on a loaded one (a woken
/// thread waits for a core, and the region waits for it), more than such a loop's work: the
/// one-thread clock of a step, per-segment and per-source loops, small particle sets
/// (bench/results/swe-cpu-2026-12-01-cpu.md).
constexpr Index kHostSerialBelow = 1024;

template <class F>
void parallel_for(const Exec& exec, const char* label, Index n, F&& f) {
  if (n <= 0) return;
  if (exec.is_cuda()) return detail::launch_for(exec, label, n, f);
  if (n < kHostSerialBelow) {
    for (Index i = 0; i < n; ++i) f(i);
    return;
  }
#pragma omp parallel for schedule(static)
  for (Index i = 0; i < n; ++i) f(i);
}

template <class F>
void parallel_for(const Exec& exec, const char* label, Box2 b, F&& f) {
  if (b.count() == 0) return;
  if (exec.is_cuda()) return detail::launch_for(exec, label, b, f);
  if (b.count() < kHostSerialBelow) {
    for (Index j = b.j0; j < b.j1; ++j)
      for (Index i = b.i0; i < b.i1; ++i) f(i, j);
    return;
  }
#pragma omp parallel for schedule(static)
  for (Index j = b.j0; j < b.j1; ++j)
    for (Index i = b.i0; i < b.i1; ++i) f(i, j);
}

template <class F>
void parallel_for(const Exec& exec, const char* label, Box3 b, F&& f) {
  if (b.count() == 0) return;
  if (exec.is_cuda()) return detail::launch_for(exec, label, b, f);
  if (b.count() < kHostSerialBelow) {
    for (Index k = b.k0; k < b.k1; ++k)
      for (Index j = b.j0; j < b.j1; ++j)
        for (Index i = b.i0; i < b.i1; ++i) f(i, j, k);
    return;
  }
#pragma omp parallel for collapse(2) schedule(static)
  for (Index k = b.k0; k < b.k1; ++k)
    for (Index j = b.j0; j < b.j1; ++j)
      for (Index i = b.i0; i < b.i1; ++i) f(i, j, k);
}

/// Reduces f(i) over [0, n) and combines the result atomically into *out, which lives where exec
/// runs (device memory on CUDA). No host synchronisation: this is the form used inside a step
/// (the CFL dt, fault counts). Initialise *out with the operation's identity beforehand.
template <class Op, class T, class F>
void parallel_reduce_into(const Exec& exec, const char* label, Index n, F&& f, T* out) {
  if (n <= 0) return;
  if (exec.is_cuda()) return detail::launch_reduce<Op>(exec, label, n, f, out);
  T acc = Op::template identity<T>();
  if (n < kHostSerialBelow) {
    for (Index i = 0; i < n; ++i) acc = Op::combine(acc, static_cast<T>(f(i)));
    *out = Op::combine(*out, acc);
    return;
  }
#pragma omp parallel
  {
    T local = Op::template identity<T>();
#pragma omp for schedule(static) nowait
    for (Index i = 0; i < n; ++i) local = Op::combine(local, static_cast<T>(f(i)));
#pragma omp critical(silt_reduce)
    acc = Op::combine(acc, local);
  }
  *out = Op::combine(*out, acc);
}

namespace detail {
/// Host-returning reduction through a one-element scratch buffer (declared in reduce.cpp).
template <class T>
struct ReduceScratch {
  explicit ReduceScratch(const Exec& exec);
  ~ReduceScratch();
  ReduceScratch(const ReduceScratch&) = delete;
  ReduceScratch& operator=(const ReduceScratch&) = delete;
  T* ptr();
  void set(T v);
  T get();

 private:
  Exec exec_;
  T* ptr_;
};

template <class Op, class T, class F>
T reduce_to_host(const Exec& exec, const char* label, Index n, F&& f) {
  if (!exec.is_cuda()) {
    T acc = Op::template identity<T>();
    parallel_reduce_into<Op>(exec, label, n, f, &acc);
    return acc;
  }
  ReduceScratch<T> s(exec);
  s.set(Op::template identity<T>());
  parallel_reduce_into<Op>(exec, label, n, f, s.ptr());
  return s.get();
}
}  // namespace detail

/// Reductions that return to the host (they wait for the device): for setup, frames and tests,
/// never inside a step.
template <class T, class F>
T parallel_reduce_sum(const Exec& exec, const char* label, Index n, F&& f) {
  return detail::reduce_to_host<detail::SumOp, T>(exec, label, n, f);
}
template <class T, class F>
T parallel_reduce_min(const Exec& exec, const char* label, Index n, F&& f) {
  return detail::reduce_to_host<detail::MinOp, T>(exec, label, n, f);
}
template <class T, class F>
T parallel_reduce_max(const Exec& exec, const char* label, Index n, F&& f) {
  return detail::reduce_to_host<detail::MaxOp, T>(exec, label, n, f);
}

/// Fills a view with a value.
template <class T>
void parallel_fill(const Exec& exec, const char* label, T* data, Index n, T value) {
  parallel_for(
      exec, label, n, SILT_LAMBDA(Index i) { data[i] = value; });
}

}  // namespace silt
