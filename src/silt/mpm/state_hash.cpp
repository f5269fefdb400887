// state_hash.hpp: FNV-1a over the particles in id order.
#include "silt/mpm/state_hash.hpp"

#include <algorithm>
#include <cstring>
#include <utility>

namespace silt::mpm {

namespace {

/// FNV-1a, 64-bit (Fowler, Noll, Vo), one byte at a time.
class Fnv1a {
 public:
  template <class T>
  void add(const T* p, std::size_t n) {
    const auto* b = reinterpret_cast<const unsigned char*>(p);
    for (std::size_t i = 0; i < n * sizeof(T); ++i) h_ = (h_ ^ b[i]) * 0x100000001b3ULL;
  }
  template <class T>
  void add(const T& v) {
    add(&v, 1);
  }
  std::uint64_t value() const { return h_; }

 private:
  std::uint64_t h_ = 0xcbf29ce484222325ULL;
};

}  // namespace

std::uint64_t state_hash(const RestartState& s, double time) {
  static_assert(sizeof(float) == 4 && sizeof(int) == 4, "the hash's layout is 32-bit values");
  // (id, part, row) of every particle, in id order.
  std::vector<std::pair<int, std::pair<std::size_t, std::size_t>>> order;
  for (std::size_t k = 0; k < s.parts.size(); ++k)
    for (std::size_t i = 0; i < s.parts[k].particles.count(); ++i)
      order.push_back({s.parts[k].particles.id[i], {k, i}});
  std::sort(order.begin(), order.end());
  Fnv1a h;
  h.add(time);
  h.add(static_cast<std::int64_t>(order.size()));
  for (const auto& [id, at] : order) {
    const HostParticles& p = s.parts[at.first].particles;
    const std::size_t i = at.second;
    h.add(p.id[i]);
    h.add(p.material[i]);
    h.add(&p.x[3 * i], 3);
    h.add(&p.v[3 * i], 3);
    h.add(&p.c[9 * i], 9);
    h.add(&p.f[9 * i], 9);
    h.add(p.plastic[i]);
  }
  return h.value();
}

}  // namespace silt::mpm
