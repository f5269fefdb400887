// Atomics that return the previous value, for code that needs to know its slot: counting sorts
// (fetch-add gives a particle its rank within its bin) and open-addressing hash tables over 64-bit
// keys (compare-and-swap claims a slot). Same conventions as atomic.hpp: native device atomics on
// CUDA, GCC __atomic builtins on the host so that OpenMP loops are race-free.
#pragma once

#include "silt/core/config.hpp"

namespace silt {

/// Adds v to *p and returns the value *p held before.
SILT_HD SILT_FORCEINLINE int atomic_fetch_add(int* p, int v) {
#if SILT_DEVICE_PASS
  return atomicAdd(p, v);
#else
  return __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
#endif
}

/// Stores desired into *p when *p == expected; returns the value *p held before either way.
SILT_HD SILT_FORCEINLINE unsigned long long atomic_cas(unsigned long long* p,
                                                       unsigned long long expected,
                                                       unsigned long long desired) {
#if SILT_DEVICE_PASS
  return atomicCAS(p, expected, desired);
#else
  __atomic_compare_exchange_n(p, &expected, desired, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  return expected;
#endif
}

}  // namespace silt
