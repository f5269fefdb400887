// mpm/host/packs.hpp: the CPU's widest packs, detected once (host compiler:
// __builtin_cpu_supports).
#include "silt/mpm/host/packs.hpp"

#include <atomic>

namespace silt::mpm::detail {

namespace {

HostPacks detected() {
  if (__builtin_cpu_supports("avx512f")) return HostPacks::avx512;
  return __builtin_cpu_supports("avx2") ? HostPacks::avx2 : HostPacks::sse2;
}

std::atomic<HostPacks>& limit() {
  static std::atomic<HostPacks> widest{HostPacks::avx512};
  return widest;
}

}  // namespace

HostPacks host_packs() {
  static const HostPacks cpu = detected();
  const HostPacks cap = limit().load(std::memory_order_relaxed);
  return int(cap) < int(cpu) ? cap : cpu;
}

void limit_host_packs(HostPacks widest) {
  limit().store(widest, std::memory_order_relaxed);
}

}  // namespace silt::mpm::detail
