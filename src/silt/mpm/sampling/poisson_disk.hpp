// Poisson-disk sampling of a shape (Bridson 2007, "Fast Poisson disk sampling in arbitrary
// dimensions"), thinned to an exact count. Used by sample_source for Sampling::poisson.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "silt/mpm/sampling/shape_region.hpp"

namespace silt::mpm {

/// At most `target` points inside `region`, no two closer than `radius` (m); exactly `target`
/// unless even a 20% smaller radius cannot fit them (then all that fit, a sign of a shape thinner
/// than the radius). Deterministic for `seed`. `name` names the source in errors.
std::vector<Vec3d> poisson_disk(const ShapeRegion& region, std::uint64_t seed, double radius,
                                std::size_t target, const std::string& name);

}  // namespace silt::mpm
