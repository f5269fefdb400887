// Four-float atomic add for 16-byte aligned groups (an MPM grid node's mass and momentum). On
// sm_90 and newer this is one native vector atomic (red.global.add.v4.f32) instead of four scalar
// ones: paper 000 §4.3 asks for native atomics only, and the H200 has this one. Elsewhere (older
// GPUs, the host) it is four scalar atomic_add calls, so the sums are the same on every backend.
#pragma once

#include "silt/core/atomic.hpp"
#include "silt/core/config.hpp"

namespace silt {

/// p[0..3] += (a, b, c, d); p must be 16-byte aligned.
SILT_HD SILT_FORCEINLINE void atomic_add4(float* p, float a, float b, float c, float d) {
#if SILT_DEVICE_PASS && (__CUDA_ARCH__ >= 900)
  atomicAdd(reinterpret_cast<float4*>(p), make_float4(a, b, c, d));
#else
  atomic_add(p, a);
  atomic_add(p + 1, b);
  atomic_add(p + 2, c);
  atomic_add(p + 3, d);
#endif
}

}  // namespace silt
