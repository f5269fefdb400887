#include "silt/mpm/frame_gather.hpp"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <vector>

#include "silt/mpm/solver.hpp"

namespace silt::mpm {

namespace {

constexpr int kTagGather = 7303;

template <class T>
std::vector<T> vector_of(const T* p, std::size_t count) {
  return p ? std::vector<T>(p, p + count) : std::vector<T>();
}

// The rows of f in stable id order. Ids are unique and at most the number ever emitted: placed
// by id in one pass over a table of slots (linear time), unless they are sparse (many particles
// removed), then sorted.
std::vector<std::size_t> id_order(const FrameArrays& f) {
  const std::size_t n = f.n;
  std::int32_t min_id = 0, max_id = -1;
  for (std::size_t i = 0; i < n; ++i)
    min_id = std::min(min_id, f.id[i]), max_id = std::max(max_id, f.id[i]);
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
  return order;
}

}  // namespace

FrameArrays arrays_of(const ParticleFrame& f) {
  const auto held = [](const auto& v) {
    return v.empty() ? nullptr : v.data();
  };
  FrameArrays a;
  a.n = f.count();
  a.position = held(f.position);
  a.velocity = held(f.velocity);
  a.material = held(f.material);
  a.id = held(f.id);
  a.plastic = held(f.plastic);
  a.stress = held(f.stress);
  return a;
}

ParticleFrame copied(const FrameArrays& f) {
  ParticleFrame o;
  o.position = vector_of(f.position, 3 * f.n);
  o.velocity = vector_of(f.velocity, 3 * f.n);
  o.material = vector_of(f.material, f.n);
  o.id = vector_of(f.id, f.n);
  o.plastic = vector_of(f.plastic, f.n);
  o.stress = vector_of(f.stress, 9 * f.n);
  return o;
}

ParticleFrame ordered_by_id(const FrameArrays& f) {
  const std::vector<std::size_t> order = id_order(f);
  const std::size_t n = f.n;
  ParticleFrame o;
  if (f.position) o.position.resize(3 * n);
  if (f.velocity) o.velocity.resize(3 * n);
  o.material.resize(n);
  o.id.resize(n);
  if (f.plastic) o.plastic.resize(n);
  if (f.stress) o.stress.resize(9 * n);
  const auto rows = static_cast<std::int64_t>(n);
#pragma omp parallel for schedule(static)
  for (std::int64_t r = 0; r < rows; ++r) {
    const auto k = std::size_t(r);
    const std::size_t i = order[k];
    if (f.position) std::memcpy(&o.position[3 * k], f.position + 3 * i, 3 * sizeof(float));
    if (f.velocity) std::memcpy(&o.velocity[3 * k], f.velocity + 3 * i, 3 * sizeof(float));
    o.material[k] = f.material[i];
    o.id[k] = f.id[i];
    if (f.plastic) o.plastic[k] = f.plastic[i];
    if (f.stress) std::memcpy(&o.stress[9 * k], f.stress + 9 * i, 9 * sizeof(float));
  }
  return o;
}

ParticleFrame sort_by_id(const ParticleFrame& f) {
  return ordered_by_id(arrays_of(f));
}

ParticleFrame gather_to_root(const ParticleFrame& local, const partition::World& world) {
  ParticleFrame all;
  all.position = world.gather_to_root(local.position, kTagGather);
  all.velocity = world.gather_to_root(local.velocity, kTagGather);
  all.material = world.gather_to_root(local.material, kTagGather);
  all.stress = world.gather_to_root(local.stress, kTagGather);
  all.plastic = world.gather_to_root(local.plastic, kTagGather);
  all.id = world.gather_to_root(local.id, kTagGather);
  return all;
}

}  // namespace silt::mpm
