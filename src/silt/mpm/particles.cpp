#include "silt/mpm/particles.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "silt/core/error.hpp"
#include "silt/core/parallel_for.hpp"

namespace silt::mpm {

namespace {
constexpr Index kMinCapacity = 64;

template <class T>
void append_range(std::vector<T>& to, const std::vector<T>& from, std::size_t first,
                  std::size_t count) {
  to.insert(to.end(), from.begin() + std::ptrdiff_t(first),
            from.begin() + std::ptrdiff_t(first + count));
}

/// The first n particles' values of a per-particle array of `per` values each, on the host.
template <class T>
std::vector<T> download_first(const GrowBuffer<T>& a, Index per, Index n) {
  std::vector<T> h(static_cast<std::size_t>(per) * static_cast<std::size_t>(n));
  if (n > 0) a.buffer().download(h.data(), per * n);
  return h;
}

/// One set of particle arrays (the particles' own or the sort's) for cap particles, labelled
/// "<what> x", "<what> v", ...
void allocate_arrays(const Exec& exec, Index cap, const std::string& what, GrowBuffer<float>& x,
                     GrowBuffer<float>& v, GrowBuffer<float>& c, GrowBuffer<float>& f,
                     GrowBuffer<float>& plastic, GrowBuffer<int>& material, GrowBuffer<int>& id,
                     GrowBuffer<int>& block) {
  x = GrowBuffer<float>(exec, 3 * cap, what + " x");
  v = GrowBuffer<float>(exec, 3 * cap, what + " v");
  c = GrowBuffer<float>(exec, 9 * cap, what + " C");
  f = GrowBuffer<float>(exec, 9 * cap, what + " F");
  plastic = GrowBuffer<float>(exec, cap, what + " plastic");
  material = GrowBuffer<int>(exec, cap, what + " material");
  id = GrowBuffer<int>(exec, cap, what + " id");
  block = GrowBuffer<int>(exec, cap, what + " block");
}
}  // namespace

void NewParticles::push_back(const NewParticles& from, std::size_t i) {
  append_range(x, from.x, 3 * i, 3);
  append_range(v, from.v, 3 * i, 3);
  plastic.push_back(from.plastic[i]);
  material.push_back(from.material[i]);
  id.push_back(from.id[i]);
}

void HostParticles::push_back(const HostParticles& from, std::size_t i) {
  append_range(x, from.x, 3 * i, 3);
  append_range(v, from.v, 3 * i, 3);
  append_range(c, from.c, 9 * i, 9);
  append_range(f, from.f, 9 * i, 9);
  plastic.push_back(from.plastic[i]);
  material.push_back(from.material[i]);
  id.push_back(from.id[i]);
}

void HostParticles::append(const HostParticles& from) {
  const std::size_t n = from.count();
  append_range(x, from.x, 0, 3 * n);
  append_range(v, from.v, 0, 3 * n);
  append_range(c, from.c, 0, 9 * n);
  append_range(f, from.f, 0, 9 * n);
  append_range(plastic, from.plastic, 0, n);
  append_range(material, from.material, 0, n);
  append_range(id, from.id, 0, n);
}

ParticleStore::ParticleStore(const Exec& exec, Index initial_capacity) : exec_(exec) {
  const Index cap = initial_capacity > kMinCapacity ? initial_capacity : kMinCapacity;
  allocate_arrays(exec, cap, "particle", x_, v_, c_, f_, plastic_, material_, id_, block_);
  rank_ = GrowBuffer<int>(exec, cap, "particle rank");
  allocate_arrays(exec, cap, "sort", sx_, sv_, sc_, sf_, splastic_, smaterial_, sid_, sblock_);
}

ParticleView ParticleStore::view_of(GrowBuffer<float>& x, GrowBuffer<float>& v,
                                    GrowBuffer<float>& c, GrowBuffer<float>& f,
                                    GrowBuffer<float>& plastic, GrowBuffer<int>& material,
                                    GrowBuffer<int>& id, GrowBuffer<int>& block,
                                    GrowBuffer<int>& rank) {
  return ParticleView{x.data(),        v.data(),  c.data(),     f.data(),   plastic.data(),
                      material.data(), id.data(), block.data(), rank.data()};
}

bool ParticleStore::ensure(Index needed) {
  // GrowBuffer's policy per attribute: reallocate to 4x the request once it exceeds half the
  // capacity. All attributes share the policy, so they move together.
  bool moved = false;
  moved |= x_.ensure(3 * needed, 3 * n_);
  moved |= v_.ensure(3 * needed, 3 * n_);
  moved |= c_.ensure(9 * needed, 9 * n_);
  moved |= f_.ensure(9 * needed, 9 * n_);
  moved |= plastic_.ensure(needed, n_);
  moved |= material_.ensure(needed, n_);
  moved |= id_.ensure(needed, n_);
  moved |= block_.ensure(needed, n_);
  moved |= rank_.ensure(needed, 0);
  // The sort destination holds nothing between rebuilds.
  moved |= sx_.ensure(3 * needed, 0);
  moved |= sv_.ensure(3 * needed, 0);
  moved |= sc_.ensure(9 * needed, 0);
  moved |= sf_.ensure(9 * needed, 0);
  moved |= splastic_.ensure(needed, 0);
  moved |= smaterial_.ensure(needed, 0);
  moved |= sid_.ensure(needed, 0);
  moved |= sblock_.ensure(needed, 0);
  if (moved) ++reallocations_;
  return moved;
}

bool ParticleStore::make_room(Index add) {
  SILT_REQUIRE(static_cast<long long>(n_) + add < 0x3fffffffLL,
               fmt::format("particle count overflow: {} + {} particles exceed the 32-bit index "
                           "range of one device",
                           n_, add));
  return ensure(n_ + add);
}

bool ParticleStore::append(const NewParticles& p) {
  const Index add = static_cast<Index>(p.count());
  if (add == 0) return false;
  SILT_REQUIRE(
      p.x.size() == 3 * p.count() && p.v.size() == 3 * p.count() && p.plastic.size() == p.count(),
      fmt::format("ParticleStore::append: inconsistent arrays for {} particles", add));
  const Index n0 = n_;
  const bool moved = make_room(add);
  x_.buffer().upload(p.x.data(), 3 * add, 3 * n0);
  v_.buffer().upload(p.v.data(), 3 * add, 3 * n0);
  plastic_.buffer().upload(p.plastic.data(), add, n0);
  material_.buffer().upload(p.material.data(), add, n0);
  SILT_REQUIRE(p.id.empty() || p.id.size() == p.count(),
               "ParticleStore::append: ids given for some particles only");
  if (!p.id.empty()) id_.buffer().upload(p.id.data(), add, n0);
  const bool own_ids = p.id.empty();
  // C = 0, F = I, ids counted from next_id_, block unknown (-1) until the next rebuild.
  float* c = c_.data() + 9 * n0;
  float* f = f_.data() + 9 * n0;
  int* id = id_.data() + n0;
  int* block = block_.data() + n0;
  const int first_id = next_id_;
  parallel_for(
      exec_, "mpm.particles.init", add, SILT_LAMBDA(Index i) {
        for (int k = 0; k < 9; ++k) {
          c[9 * i + k] = 0.0f;
          f[9 * i + k] = (k % 4 == 0) ? 1.0f : 0.0f;
        }
        if (own_ids) id[i] = first_id + i;
        block[i] = -1;
      });
  fence(exec_);
  n_ = n0 + add;
  next_id_ += add;
  return moved;
}

bool ParticleStore::append_copies(const float* from, const int* rows, Index add, const float v[3],
                                  float plastic, int material, int first_id) {
  if (add == 0) return false;
  const Index n0 = n_;
  const bool moved = make_room(add);
  float* x = x_.data() + 3 * n0;
  float* vel = v_.data() + 3 * n0;
  float* c = c_.data() + 9 * n0;
  float* f = f_.data() + 9 * n0;
  float* pl = plastic_.data() + n0;
  int* mat = material_.data() + n0;
  int* id = id_.data() + n0;
  int* block = block_.data() + n0;
  const float v0 = v[0], v1 = v[1], v2 = v[2];
  parallel_for(
      exec_, "mpm.particles.copy", add, SILT_LAMBDA(Index i) {
        const Index row = rows ? rows[i] : i;
        for (int a = 0; a < 3; ++a) x[3 * i + a] = from[3 * row + a];
        vel[3 * i] = v0;
        vel[3 * i + 1] = v1;
        vel[3 * i + 2] = v2;
        for (int k = 0; k < 9; ++k) {
          c[9 * i + k] = 0.0f;
          f[9 * i + k] = (k % 4 == 0) ? 1.0f : 0.0f;
        }
        pl[i] = plastic;
        mat[i] = material;
        id[i] = first_id + row;
        block[i] = -1;
      });
  n_ = n0 + add;
  next_id_ += add;
  return moved;
}

std::vector<float> ParticleStore::download_x() const {
  return download_first(x_, 3, n_);
}
std::vector<float> ParticleStore::download_v() const {
  return download_first(v_, 3, n_);
}
std::vector<float> ParticleStore::download_f() const {
  return download_first(f_, 9, n_);
}
std::vector<float> ParticleStore::download_plastic() const {
  return download_first(plastic_, 1, n_);
}
std::vector<int> ParticleStore::download_material() const {
  return download_first(material_, 1, n_);
}
std::vector<int> ParticleStore::download_id() const {
  return download_first(id_, 1, n_);
}

HostParticles ParticleStore::download_all() const {
  HostParticles h;
  h.x = download_x();
  h.v = download_v();
  h.c = download_first(c_, 9, n_);
  h.f = download_f();
  h.plastic = download_plastic();
  h.material = download_material();
  h.id = download_id();
  return h;
}

bool ParticleStore::replace(const HostParticles& p) {
  const std::size_t n = p.count();
  SILT_REQUIRE(p.x.size() == 3 * n && p.v.size() == 3 * n && p.c.size() == 9 * n &&
                   p.f.size() == 9 * n && p.plastic.size() == n && p.material.size() == n,
               fmt::format("ParticleStore::replace: inconsistent arrays for {} particles", n));
  SILT_REQUIRE(static_cast<long long>(n) < 0x3fffffffLL,
               fmt::format("particle count overflow: {} particles exceed the 32-bit index range "
                           "of one device",
                           n));
  const Index count = static_cast<Index>(n);
  // Nothing of the old particles is kept: with n_ = 0 a reallocation copies nothing.
  n_ = 0;
  const bool moved = ensure(count);
  if (count > 0) {
    x_.buffer().upload(p.x.data(), 3 * count);
    v_.buffer().upload(p.v.data(), 3 * count);
    c_.buffer().upload(p.c.data(), 9 * count);
    f_.buffer().upload(p.f.data(), 9 * count);
    plastic_.buffer().upload(p.plastic.data(), count);
    material_.buffer().upload(p.material.data(), count);
    id_.buffer().upload(p.id.data(), count);
    int* block = block_.data();
    parallel_for(
        exec_, "mpm.particles.unbinned", count, SILT_LAMBDA(Index i) { block[i] = -1; });
    fence(exec_);
    // Particles appended later without ids must not reuse one of these.
    next_id_ = std::max(next_id_, *std::max_element(p.id.begin(), p.id.end()) + 1);
  }
  n_ = count;
  return moved;
}

}  // namespace silt::mpm
