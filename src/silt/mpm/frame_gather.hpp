// A frame put together on the host: read out of where its arrays lie (a copy's pinned staging or
// a ParticleFrame) in stable id order, as one device's would be after a sort by id, so that the
// files of a split run line up with those of one device; and gathered over MPI ranks.
#pragma once

#include <cstddef>
#include <cstdint>

#include "silt/mpm/particle_frame.hpp"
#include "silt/partition/world.hpp"

namespace silt::mpm {

/// A frame's arrays where they lie, n particles; nullptr: not held (as in ParticlePack).
struct FrameArrays {
  std::size_t n = 0;
  const float* position = nullptr;  // [3n]
  const float* velocity = nullptr;  // [3n]
  const std::int32_t* material = nullptr;
  const std::int32_t* id = nullptr;
  const float* plastic = nullptr;
  const float* stress = nullptr;  // [9n]
};

FrameArrays arrays_of(const ParticleFrame& f);
/// The arrays as a frame, in the order they lie.
ParticleFrame copied(const FrameArrays& f);
/// The arrays as a frame in stable id order.
ParticleFrame ordered_by_id(const FrameArrays& f);

/// Every rank's frame on rank 0, rank after rank (collective); the others get an empty frame.
ParticleFrame gather_to_root(const ParticleFrame& local, const partition::World& world);

}  // namespace silt::mpm
