// The CFL reduction of the shallow-water tile kernels (fused_step.cpp, muscl_tile.cpp): a
// block's largest wave speed into the step's scalar with one atomic per block. CUDA device code:
// included by those units under SILT_HAS_CUDA only.
#pragma once

#include "silt/core/atomic.hpp"
#include "silt/core/config.hpp"

namespace silt::swe::detail {

// The largest of a warp's speeds (m/s, >= +0 and not NaN), in every lane. On sm_80+ one integer
// max instruction per 32-bit word: the bit patterns of non-negative floats order like unsigned
// integers, and a double's like its (high word, low word) pair, so the low words are compared only
// among the lanes holding the largest high word. The same maximum as the shuffles, to the bit.
template <class T>
__device__ SILT_FORCEINLINE T warp_max_speed(T speed) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if constexpr (sizeof(T) == 4) {
    return __uint_as_float(__reduce_max_sync(0xffffffffu, __float_as_uint(speed)));
  } else {
    const auto bits = static_cast<unsigned long long>(__double_as_longlong(speed));
    const unsigned hi = unsigned(bits >> 32), lo = unsigned(bits);
    const unsigned hi_max = __reduce_max_sync(0xffffffffu, hi);
    const unsigned lo_max = __reduce_max_sync(0xffffffffu, hi == hi_max ? lo : 0u);
    return __longlong_as_double(
        static_cast<long long>((static_cast<unsigned long long>(hi_max) << 32) | lo_max));
  }
#else
  for (int o = 16; o > 0; o >>= 1) {
    const T other = __shfl_xor_sync(0xffffffffu, speed, o);
    speed = other > speed ? other : speed;
  }
  return speed;
#endif
}

// CFL: the block's maximum of speed into *smax, one atomic per block (every thread calls it). A
// NaN speed (none arises: a cell whose update is not finite keeps its state and reports a fault)
// counts as 0, as does -0, so that the bit patterns order.
template <class T, int TX, int TY>
__device__ SILT_FORCEINLINE void block_max_to(T speed, T (&warp_speed)[TX * TY / 32], T* smax) {
  const int lane = (threadIdx.y * TX + threadIdx.x) & 31,
            warp = (threadIdx.y * TX + threadIdx.x) >> 5;
  speed = warp_max_speed(speed > T(0) ? speed : T(0));
  if (lane == 0) warp_speed[warp] = speed;
  __syncthreads();
  if (warp == 0) {
    speed = warp_max_speed(lane < TX * TY / 32 ? warp_speed[lane] : T(0));
    if (lane == 0 && speed > T(0)) atomic_max(smax, speed);
  }
}

}  // namespace silt::swe::detail
