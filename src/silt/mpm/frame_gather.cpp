#include "silt/mpm/frame_gather.hpp"

#include <algorithm>
#include <numeric>

namespace silt::mpm {

namespace {

constexpr int kTagGather = 7303;

template <class T>
void append(std::vector<T>& to, const std::vector<T>& from) {
  to.insert(to.end(), from.begin(), from.end());
}

}  // namespace

ParticleFrame gather_frame(std::vector<std::unique_ptr<Part>>& parts, const partition::World& world,
                           bool with_stress, bool id_order) {
  ParticleFrame all;
  for (auto& p : parts) {
    activate(p->exec());
    const ParticleFrame f = p->download(with_stress);
    append(all.position, f.position);
    append(all.velocity, f.velocity);
    append(all.material, f.material);
    append(all.stress, f.stress);
    append(all.plastic, f.plastic);
    append(all.id, f.id);
  }
  if (world.distributed()) {
    all.position = world.gather_to_root(all.position, kTagGather);
    all.velocity = world.gather_to_root(all.velocity, kTagGather);
    all.material = world.gather_to_root(all.material, kTagGather);
    all.stress = world.gather_to_root(all.stress, kTagGather);
    all.plastic = world.gather_to_root(all.plastic, kTagGather);
    all.id = world.gather_to_root(all.id, kTagGather);
  }
  if (!id_order) return all;
  return sort_by_id(all);
}

ParticleFrame sort_by_id(const ParticleFrame& f) {
  const std::size_t n = f.count();
  // Ids are unique and at most the number ever emitted: placed by id in one pass over a table of
  // slots (linear time), unless they are sparse (many particles removed), then sorted.
  std::int32_t min_id = 0, max_id = -1;
  for (std::int32_t id : f.id) min_id = std::min(min_id, id), max_id = std::max(max_id, id);
  std::vector<std::size_t> order;
  if (min_id >= 0 && max_id >= 0 && std::size_t(max_id) < 4 * n + 1024) {
    constexpr std::size_t kNone = ~std::size_t(0);
    std::vector<std::size_t> slot(std::size_t(max_id) + 1, kNone);
    for (std::size_t i = 0; i < n; ++i) slot[std::size_t(f.id[i])] = i;
    order.reserve(n);
    for (std::size_t i : slot)
      if (i != kNone) order.push_back(i);
  }
  if (order.size() != n) {  // sparse ids, or a repeated one: sort (keeps every row)
    order.resize(n);
    std::iota(order.begin(), order.end(), std::size_t(0));
    std::sort(order.begin(), order.end(),
              [&](std::size_t a, std::size_t b) { return f.id[a] < f.id[b]; });
  }
  ParticleFrame o;
  o.position.resize(3 * n);
  o.velocity.resize(3 * n);
  o.material.resize(n);
  o.id.resize(n);
  if (!f.plastic.empty()) o.plastic.resize(n);
  if (!f.stress.empty()) o.stress.resize(9 * n);
  const auto rows = static_cast<std::int64_t>(order.size());
#pragma omp parallel for schedule(static)
  for (std::int64_t r = 0; r < rows; ++r) {
    const auto k = std::size_t(r);
    const std::size_t i = order[k];
    for (int a = 0; a < 3; ++a) {
      o.position[3 * k + a] = f.position[3 * i + a];
      o.velocity[3 * k + a] = f.velocity[3 * i + a];
    }
    o.material[k] = f.material[i];
    o.id[k] = f.id[i];
    if (!f.plastic.empty()) o.plastic[k] = f.plastic[i];
    if (!f.stress.empty())
      for (int c = 0; c < 9; ++c) o.stress[9 * k + c] = f.stress[9 * i + c];
  }
  return o;
}

}  // namespace silt::mpm
