// Atomics usable from SILT_HD code on both backends. On the device these map to native hardware
// atomics where they exist (add for float/double/int, min/max for int); float min/max use the
// ordered-integer trick (one native integer atomic, no CAS loop). On the host they are OpenMP or
// GCC atomics, so CPU scatter loops (MPM P2G) are race-free.
#pragma once

#include <cstdint>
#include <cstring>

#include "silt/core/config.hpp"

namespace silt {

template <class T>
SILT_HD SILT_FORCEINLINE void atomic_add(T* p, T v) {
#if SILT_DEVICE_PASS
  atomicAdd(p, v);
#else
  SILT_PRAGMA(omp atomic update)
  *p += v;
#endif
}

/// Stores desired into *p when *p == expected; returns the value *p held before either way (int
/// and 64-bit keys: open-addressing hash tables claim slots with it, fault flags their first code).
template <class T>
SILT_HD SILT_FORCEINLINE T atomic_cas(T* p, T expected, T desired) {
#if SILT_DEVICE_PASS
  return atomicCAS(p, expected, desired);
#else
  __atomic_compare_exchange_n(p, &expected, desired, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  return expected;
#endif
}

/// Adds v to *p and returns the value *p held before (counting sorts: a particle's rank in its
/// bin).
SILT_HD SILT_FORCEINLINE int atomic_fetch_add(int* p, int v) {
#if SILT_DEVICE_PASS
  return atomicAdd(p, v);
#else
  return __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
#endif
}

namespace detail {
/// atomic_max (kMax) or atomic_min of ints; returns the value *p held before.
template <bool kMax>
SILT_HD SILT_FORCEINLINE int atomic_iextremum(int* p, int v) {
#if SILT_DEVICE_PASS
  return kMax ? atomicMax(p, v) : atomicMin(p, v);
#else
  int old = __atomic_load_n(p, __ATOMIC_RELAXED);
  while ((kMax ? old < v : old > v) &&
         !__atomic_compare_exchange_n(p, &old, v, true, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) {
  }
  return old;
#endif
}
}  // namespace detail

SILT_HD SILT_FORCEINLINE int atomic_max(int* p, int v) {
  return detail::atomic_iextremum<true>(p, v);
}
SILT_HD SILT_FORCEINLINE int atomic_min(int* p, int v) {
  return detail::atomic_iextremum<false>(p, v);
}

namespace detail {
// Floating-point min/max through integer atomics: for v >= 0 the IEEE bit pattern orders like a
// signed integer, for v < 0 like an unsigned integer in reverse.
template <bool kMax, class T, class I, class U>
SILT_HD SILT_FORCEINLINE void atomic_fextremum(T* p, T v) {
#if SILT_DEVICE_PASS
  I* as_signed = reinterpret_cast<I*>(p);
  U* as_unsigned = reinterpret_cast<U*>(p);
  if (!(v < T(0))) {
    const I vi = *reinterpret_cast<I*>(&v);
    if (kMax)
      atomicMax(as_signed, vi);
    else
      atomicMin(as_signed, vi);
  } else {
    const U vu = *reinterpret_cast<U*>(&v);
    if (kMax)
      atomicMin(as_unsigned, vu);
    else
      atomicMax(as_unsigned, vu);
  }
#else
  U* bits = reinterpret_cast<U*>(p);
  U old_bits = __atomic_load_n(bits, __ATOMIC_RELAXED);
  U new_bits;
  std::memcpy(&new_bits, &v, sizeof(T));
  for (;;) {
    T old;
    std::memcpy(&old, &old_bits, sizeof(T));
    if (kMax ? !(old < v) : !(v < old)) return;
    if (__atomic_compare_exchange_n(bits, &old_bits, new_bits, true, __ATOMIC_SEQ_CST,
                                    __ATOMIC_RELAXED))
      return;
  }
#endif
}
}  // namespace detail

SILT_HD SILT_FORCEINLINE void atomic_max(float* p, float v) {
  detail::atomic_fextremum<true, float, int, unsigned int>(p, v);
}
SILT_HD SILT_FORCEINLINE void atomic_min(float* p, float v) {
  detail::atomic_fextremum<false, float, int, unsigned int>(p, v);
}
SILT_HD SILT_FORCEINLINE void atomic_max(double* p, double v) {
  detail::atomic_fextremum<true, double, long long, unsigned long long>(p, v);
}
SILT_HD SILT_FORCEINLINE void atomic_min(double* p, double v) {
  detail::atomic_fextremum<false, double, long long, unsigned long long>(p, v);
}

}  // namespace silt
