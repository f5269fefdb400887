// min and max that propagate NaN (PTX min.NaN / max.NaN on sm_80 and later), for the shallow-water
// limiters' and flux's sign tests (swe/kernels/muscl_k.hpp, roe_flux_k.hpp). Apart from scalar.hpp
// so that a change here rebuilds only the units that use them.
#pragma once

#include "silt/core/config.hpp"

namespace silt::math {

/// min(a, b) and max(a, b) that are NaN where a or b is: one instruction on the device (PTX
/// min.NaN / max.NaN, sm_80 and later), compares and selects elsewhere. Subnormals are kept (a
/// fast-math compare of the result flushes them as it flushes a or b).
SILT_HD SILT_FORCEINLINE float min_nan(float a, float b) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  float r;
  asm("min.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
  return r;
#else
  return a != a ? a : (b != b ? b : (b < a ? b : a));
#endif
}
SILT_HD SILT_FORCEINLINE float max_nan(float a, float b) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  float r;
  asm("max.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
  return r;
#else
  return a != a ? a : (b != b ? b : (a < b ? b : a));
#endif
}

}  // namespace silt::math
