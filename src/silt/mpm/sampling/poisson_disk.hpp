// Poisson-disk sampling of a shape (dart throwing on a periodic tile, poisson_tile.hpp), thinned
// to an exact count. Used by sample_source for Sampling::poisson.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "silt/mpm/sampling/shape_region.hpp"

namespace silt::mpm {

/// At most `target` points inside `region`, no two closer than `radius` (m); exactly `target`
/// unless even a 20% smaller radius cannot fit them (then all that fit, a sign of a shape thinner
/// than the radius). Parallel dart throwing on a periodic tile at most 64 radii wide
/// (periodic_poisson_tile), repeated over the region without seams (a region narrower than that
/// gets one copy, no repetition), then thinned at random to the count (a hash of the seed and the
/// point's index ranks the points). Deterministic for `seed`, whatever the thread count.
std::vector<Vec3d> poisson_disk(const ShapeRegion& region, std::uint64_t seed, double radius,
                                std::size_t target);

}  // namespace silt::mpm
