// The largest particle speed, folded into the launch that writes the velocities (G2P or G2P2G)
// instead of a reduction launch of its own (paper 000 §3, principle 1: fewer kernels per step).
// The next step's dt kernel reads StepControl::vmax and resets it; only where particles are added
// (construction, emitters) does the solver run the separate reduction (reduce_max_speed).
#pragma once

#include "silt/core/atomic.hpp"
#include "silt/core/config.hpp"
#include "silt/core/math/scalar.hpp"

namespace silt::mpm {

/// Speed (m/s) of a stored velocity: the same expression as reduce_max_speed, so both give
/// bit-identical maxima.
SILT_HD SILT_FORCEINLINE float particle_speed(float a, float b, float c) {
  return math::sqrt(a * a + b * b + c * c);
}

/// Combines speed s >= 0 (m/s) into *vmax. On the device the threads of a warp that reach this
/// point together reduce first (one integer max instruction on sm_80+; the bit patterns of
/// non-negative floats order like unsigned integers) and one of them issues the atomic, so a
/// launch issues one atomic per warp instead of one per particle.
SILT_HD SILT_FORCEINLINE void fold_max_speed(float* vmax, float s) {
#if SILT_DEVICE_PASS && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const unsigned mask = __activemask();
  const unsigned bits = __reduce_max_sync(mask, __float_as_uint(s));
  if ((threadIdx.x & 31u) == unsigned(__ffs(int(mask)) - 1))
    atomicMax(reinterpret_cast<unsigned*>(vmax), bits);
#else
  atomic_max(vmax, s);
#endif
}

}  // namespace silt::mpm
