#include "silt/mpm/frame_copy.hpp"

#include <fmt/format.h>

#include <array>
#include <cstdint>

#include "silt/core/error.hpp"
#include "silt/mpm/frame_gather.hpp"
#include "silt/mpm/solver.hpp"

namespace silt::mpm {

namespace {

// A frame's arrays in a fixed order: position, velocity, material, id, plastic, stress; each of
// kWidth 4-byte values per particle. Material and id are always held.
constexpr std::size_t kArrays = 6;
constexpr std::size_t kWidth[kArrays] = {3, 3, 1, 1, 1, 9};
constexpr std::size_t kNotHeld = ~std::size_t(0);
using Offsets = std::array<std::size_t, kArrays>;  // in 4-byte values

bool held(unsigned attrs, std::size_t a) {
  switch (a) {
    case 0:
      return (attrs & attributes::position) != 0;
    case 1:
      return (attrs & attributes::velocity) != 0;
    case 4:
      return (attrs & attributes::plastic) != 0;
    case 5:
      return (attrs & attributes::stress) != 0;
    default:
      return true;
  }
}

// Where the held arrays of n particles start when laid one after the other; *values: in all.
Offsets layout(unsigned attrs, std::size_t n, std::size_t* values) {
  Offsets at{};
  std::size_t end = 0;
  for (std::size_t a = 0; a < kArrays; ++a) {
    at[a] = held(attrs, a) ? end : kNotHeld;
    if (held(attrs, a)) end += kWidth[a] * n;
  }
  *values = end;
  return at;
}

// Pointers to particle `first` of each held array laid out at `at` from base.
template <class Word>
std::array<Word*, kArrays> arrays_at(Word* base, const Offsets& at, std::size_t first) {
  std::array<Word*, kArrays> p{};
  for (std::size_t a = 0; a < kArrays; ++a)
    if (at[a] != kNotHeld && base) p[a] = base + at[a] + kWidth[a] * first;
  return p;
}

ParticlePack pack_at(float* base, const Offsets& at, std::size_t first) {
  const std::array<float*, kArrays> p = arrays_at(base, at, first);
  ParticlePack k;
  k.position = p[0];
  k.velocity = p[1];
  k.material = reinterpret_cast<std::int32_t*>(p[2]);
  k.id = reinterpret_cast<std::int32_t*>(p[3]);
  k.plastic = p[4];
  k.stress = p[5];
  return k;
}

}  // namespace

namespace {

// A frame's copies in flight: the held arrays of all parts' particles in a slot of the staging
// pool, array after array (each holding part after part, so that an array reads as one), laid out
// at `at`; the slot is free again once get() has read it out, or a dropped copy's events have
// passed (StagedFrame).
class SlotCopy final : public ParticlesCopy::Pending {
 public:
  SlotCopy(StagedFrame slot, const Offsets& at, std::size_t n, bool in_id_order)
      : slot_(std::move(slot)), at_(at), n_(n), in_id_order_(in_id_order) {}
  ParticleFrame get(bool id_order) override {
    StagedFrame slot = std::move(slot_);  // freed on return, or on a throw
    const FrameArrays arrays = arrays_of(reinterpret_cast<const float*>(slot.get()));
    if (!id_order || !in_id_order_) return id_order ? ordered_by_id(arrays) : copied(arrays);
    ParticleFrame f = copied(arrays);
    for (std::size_t k = 0; k < f.id.size(); ++k)
      if (f.id[k] != std::int32_t(k))
        throw Error(
            fmt::format("MPM frame: row {} holds particle id {}: the part's ids are not "
                        "0 .. {} as a frame packed by id needs",
                        k, f.id[k], f.id.size() - 1));
    return f;
  }

 private:
  FrameArrays arrays_of(const float* base) const {
    const std::array<const float*, kArrays> p = arrays_at(base, at_, 0);
    FrameArrays f;
    f.n = n_;
    f.position = p[0];
    f.velocity = p[1];
    f.material = reinterpret_cast<const std::int32_t*>(p[2]);
    f.id = reinterpret_cast<const std::int32_t*>(p[3]);
    f.plastic = p[4];
    f.stress = p[5];
    return f;
  }
  StagedFrame slot_;
  Offsets at_;
  std::size_t n_;
  bool in_id_order_;  // packed by id on the device
};

}  // namespace

ParticleFrame ParticlesCopy::get() {
  if (pending_) {
    const std::unique_ptr<Pending> p = std::move(pending_);
    return p->get(id_order_);
  }
  return id_order_ ? sort_by_id(ready_) : std::move(ready_);
}

FrameCopier::FrameCopier() = default;
FrameCopier::~FrameCopier() {
  // The copy streams may still read the parts' device staging, whose blocks go back to the
  // device block cache (core/block_cache.hpp) behind the parts' streams only.
  try {
    for (const Stream& s : copy_streams_) fence(s.exec());
  } catch (...) {
  }
}

const Exec& FrameCopier::copy_stream(const Exec& part) {
  for (const Stream& s : copy_streams_)
    if (s.exec().device == part.device) return s.exec();
  copy_streams_.emplace_back(part);
  return copy_streams_.back().exec();
}

ParticlesCopy FrameCopier::copy(const Parts& parts, unsigned attributes, bool id_order,
                                bool dense_ids) {
  const bool cuda = parts.front()->exec().is_cuda();
  // One part with ids 0 .. n - 1: each particle's row is its id, so the frame leaves the device
  // in id order and the writer only copies it out.
  const bool by_id = id_order && dense_ids && parts.size() == 1;
  std::size_t n = 0;
  for (const auto& p : parts) n += std::size_t(p->particle_count());
  std::size_t values = 0;
  const Offsets at = layout(attributes, n, &values);
  // Headroom for emitters: a growing count pins a new buffer now and then, not every frame.
  const std::size_t bytes = values * sizeof(float);
  std::vector<Exec> execs;
  for (const auto& p : parts) execs.push_back(p->exec());
  StagedFrame slot = pool_.take(bytes, bytes + bytes / 2, execs, cuda);
  float* host = reinterpret_cast<float*>(slot.data());
  if (cuda && staging_.empty())
    for (const auto& p : parts) staging_.push_back({{}, Event(p->exec()), Event(p->exec())});
  std::size_t first = 0;  // the part's first particle in the frame
  for (std::size_t q = 0; q < parts.size(); ++q) {
    Part& p = *parts[q];
    const std::size_t np = std::size_t(p.particle_count());
    activate(p.exec());
    if (!cuda) {
      ParticlePack to = pack_at(host, at, first);
      to.by_id = by_id;
      p.pack(to);
      first += np;
      continue;
    }
    PartStaging& s = staging_[q];
    std::size_t part_values = 0;
    const Offsets pat = layout(attributes, np, &part_values);
    if (std::size_t(s.packed.size()) < part_values) {
      s.copied.synchronize();  // the last copies out of the old buffer
      s.packed =
          DeviceBuffer<float>(p.exec(), Index(part_values + part_values / 2), "mpm frame staging");
    }
    // The pack overwrites what the previous frame's copies read; the next steps wait only for
    // the pack, the copies run beside them on the copy stream.
    s.copied.wait(p.exec());
    ParticlePack packed = pack_at(s.packed.data(), pat, 0);
    packed.by_id = by_id;
    p.pack(packed);
    s.packed_ready.record(p.exec());
    const Exec& c = copy_stream(p.exec());
    s.packed_ready.wait(c);
    const std::array<float*, kArrays> from = arrays_at(s.packed.data(), pat, 0);
    const std::array<float*, kArrays> to = arrays_at(host, at, first);
    for (std::size_t a = 0; a < kArrays; ++a) {
      if (!to[a]) continue;
      const std::size_t bytes = kWidth[a] * np * sizeof(float);
      copy_rows_async(to[a], bytes, Exec::host(), from[a], bytes, p.exec(), bytes, 1, c);
    }
    slot.done(q).record(c);
    s.copied.record(c);
    first += np;
  }
  return ParticlesCopy(std::make_unique<SlotCopy>(std::move(slot), at, n, by_id), id_order);
}

}  // namespace silt::mpm
