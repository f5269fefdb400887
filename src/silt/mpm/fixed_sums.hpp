// Deterministic P2G (performance.deterministic; docs/scenes-mpm.md, "Reproducible runs"). Each
// float share a particle scatters is rounded to a 64-bit integer count of a unit that is a power of
// two (so share * scale is exact and only the rounding to an integer loses anything), and the
// counts are summed with integer atomics. Integer sums are associative: a node's sum is the same
// bits whatever the order of the adds (threads, GPU scheduling, warp groups, the part count of the
// shared-block reduction). The grid update converts each node's sums to float once.
//
// Layout: an int64 array with the float accumulator's node layout (GridView::fixed, 4 or 8
// channels per node, one node's channels in one 32-byte sector), allocated in this mode only.
// Each share costs one 8-byte atomic per channel instead of a 16-byte float4 vector atomic for
// four (GPUs have no vector integer atomics), and the grid update reads twice the bytes.
//
// Units (fixed_scale(), from the scene): mass m_max 2^-40 (m_max: the heaviest particle);
// momentum m_max v_ref 2^-36, v_ref the scene's speed bound rounded up to a power of two; force
// that momentum unit per dt_ref (s, max_dt or fixed_dt), so that a step's impulse has at most the
// momentum unit's error. Range: a share must be below 2^50 units (a particle 2^10 times heavier
// than m_max, or 2^14 times faster than v_ref), a node's sum below 2^62 units (2^22 particle
// masses, 2^26 particles at v_ref); anything beyond, or not finite, raises kFaultFixedRange with
// the node, never a silent wrap.
#pragma once

#include "silt/core/atomic.hpp"
#include "silt/core/config.hpp"

namespace silt::mpm {

/// Units of the three kinds of P2G channel, as scales (units per kg, per kg m/s, per N) and their
/// inverses; all powers of two.
struct FixedScale {
  float to_fixed[3] = {};    // mass, momentum, force
  float from_fixed[3] = {};  // kg, kg m/s, N per unit
};

/// |share| in units above which a share is out of range (and not finite shares).
constexpr float kFixedShareLimit = 1125899906842624.0f;  // 2^50
/// |sum| in units above which a node's sum is out of range; with shares below 2^50 a sum must
/// take 2^12 of the largest shares past this to wrap around unseen.
constexpr long long kFixedSumLimit = 1LL << 62;

/// The unit kind of accumulator channel c: 0 mass, 1-3 momentum, 4-7 force (split channels).
SILT_HD SILT_FORCEINLINE int fixed_kind(int c) {
  return c == 0 ? 0 : c < 4 ? 1 : 2;
}

/// v (kg, kg m/s or N) in units of `scale`; false (q = 0) when out of range or not finite.
SILT_HD SILT_FORCEINLINE bool to_fixed(float v, float scale, long long& q) {
  const float u = v * scale;
  if (!(u < kFixedShareLimit && u > -kFixedShareLimit)) {
    q = 0;
    return false;
  }
#if SILT_DEVICE_PASS
  q = __float2ll_rn(u);
#else
  q = __builtin_llrintf(u);  // round to nearest even, as __float2ll_rn
#endif
  return true;
}

/// A node sum in units back to float (kg, kg m/s or N): float(s) rounds to nearest on both
/// backends, the power-of-two unit is exact.
SILT_HD SILT_FORCEINLINE float from_fixed(long long s, float unit) {
  return float(s) * unit;
}

SILT_HD SILT_FORCEINLINE bool fixed_sum_in_range(long long s) {
  return s < kFixedSumLimit && s > -kFixedSumLimit;
}

/// A node's stride (4 or 8) sums q in units to float into sum (kg, kg m/s, N). Returns the last
/// channel whose sum is out of range, or -1.
SILT_HD SILT_FORCEINLINE int fixed_to_float(const long long* q, int stride, const FixedScale& s,
                                            float* sum) {
  int bad = -1;
  for (int c = 0; c < stride; ++c) {
    if (!fixed_sum_in_range(q[c])) bad = c;
    sum[c] = from_fixed(q[c], s.from_fixed[fixed_kind(c)]);
  }
  return bad;
}

/// *p += v with an integer atomic (native on CUDA: atomicAdd on unsigned long long, which wraps
/// as two's complement; __atomic_fetch_add on the host).
SILT_HD SILT_FORCEINLINE void fixed_atomic_add(long long* p, long long v) {
#if SILT_DEVICE_PASS
  atomicAdd(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(v));
#else
  __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
#endif
}

}  // namespace silt::mpm
