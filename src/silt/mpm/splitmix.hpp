// splitmix64 (Steele, Lea, Flood 2014): a 64-bit mixer and counter-based generator for particle
// sampling. The same bits on every platform and compiler, unlike std:: distributions, so a scene's
// seed reproduces its particles exactly.
#pragma once

#include <cstdint>

namespace silt::mpm {

inline std::uint64_t mix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

/// Uniform double in [0, 1) from the top 53 bits.
inline double unit_from(std::uint64_t x) {
  return double(x >> 11) * 0x1.0p-53;
}

class SplitMix {
 public:
  explicit SplitMix(std::uint64_t seed) : s_(mix64(seed)) {}
  std::uint64_t bits() { return mix64(s_++); }
  double uniform() { return unit_from(bits()); }
  /// Uniform integer in [0, n), n > 0 (Lemire's multiply-shift; bias below 2^-32 for n < 2^32).
  std::uint64_t below(std::uint64_t n) {
    return static_cast<std::uint64_t>((static_cast<unsigned __int128>(bits()) * n) >> 64);
  }

 private:
  std::uint64_t s_;
};

}  // namespace silt::mpm
