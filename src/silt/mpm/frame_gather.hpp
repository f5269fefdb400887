// A frame of every part's particles, in stable id order (as one device's would be after a sort
// by id), so that the files of a split run line up with those of one device.
#pragma once

#include <memory>
#include <vector>

#include "silt/mpm/part.hpp"
#include "silt/partition/world.hpp"

namespace silt::mpm {

/// Every particle of every part; under MPI rank 0 gets them all and the others an empty frame
/// (collective). id_order false: part after part, as stored (sort_by_id() orders it later).
ParticleFrame gather_frame(std::vector<std::unique_ptr<Part>>& parts, const partition::World& world,
                           bool with_stress, bool id_order = true);

}  // namespace silt::mpm
